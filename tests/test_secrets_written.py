"""No secret leaves the machine, wherever the user wrote it (issue #15).

The scan reads what the user wrote, all of it: keys, sshKeys, labels, template metadata,
claim names, unknown fields. A value the scan flags is echoed by no other finding, in English,
Chinese or --json. Passwords given to shell commands are found; a redaction placeholder is an
error; the run record keeps references to the planning machine's environment, not its values;
``logs`` redacts and shows terminal escapes inert; a server URL's credentials are never shown.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path

import pytest
import yaml
from fuzz_strategies import PLANTED_TOKEN, planted, schema_jobs
from hypothesis import HealthCheck, given, settings
from kube_emulator import NAMESPACE
from test_cli_jobs import cli, write_kubeconfig
from test_job_roundtrip import BASE
from test_kubernetes_backend import demo_job

from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.job import Job
from rlark_widgets.rlark.secrets import find_secrets, redact
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml

PASSWORD = "Tr0ub4dor-" + "horse"  # bound to a secret name only: no shape gives it away
PEM_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    + "-----END OPENSSH PRIVATE KEY-----\n"
)


def _check_outputs(capsys, job_file: Path) -> tuple[int, str]:
    """Exit code of `check`, and everything it printed in both languages and as JSON."""
    printed, codes = [], set()
    for extra in ([], ["--lang", "zh"], ["--json"], ["--json", "--lang", "zh"]):
        code, out, err = cli(capsys, "check", str(job_file), *extra)
        codes.add(code)
        printed.append(out + err)
    assert len(codes) == 1
    return codes.pop(), "\n".join(printed)


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=schema_jobs().flatmap(planted))
def test_a_token_anywhere_in_the_job_is_found_and_never_echoed(data, tmp_path_factory) -> None:
    document, where = data
    job_file = tmp_path_factory.mktemp("planted") / "job.yaml"
    job_file.write_text(yaml.safe_dump(document))
    code, printed = _check_outputs(capsys=_Capture(), job_file=job_file)
    assert code == 1, where
    assert "SEC-SECRET" in printed, (where, printed)
    assert PLANTED_TOKEN not in printed, where


class _Capture:
    """capsys for a hypothesis test (function fixtures do not reset between examples)."""

    def readouterr(self):
        return self._result

    def __init__(self) -> None:
        self._result = None


@pytest.fixture(autouse=True)
def _real_capture(monkeypatch, capsys):
    """Route _Capture through pytest's capsys so the planted test reads real output."""

    def readouterr(self):
        return capsys.readouterr()

    monkeypatch.setattr(_Capture, "readouterr", readouterr)


@pytest.mark.parametrize(
    ("where", "edit"),
    [
        ("spec.sshKeys", lambda d: d["spec"].__setitem__("sshKeys", [PLANTED_TOKEN])),
        ("metadata.labels", lambda d: d["metadata"]["labels"].__setitem__("t", PLANTED_TOKEN)),
        (
            "template metadata",
            lambda d: d["spec"]["tasks"][0]["template"]["metadata"]["annotations"].__setitem__(
                "t", PLANTED_TOKEN
            ),
        ),
        (
            "claimName",
            lambda d: d["spec"]["tasks"][0]["template"]["spec"]["volumes"][0][
                "persistentVolumeClaim"
            ].__setitem__("claimName", PLANTED_TOKEN),
        ),
        (
            "annotation key",
            lambda d: d["metadata"].setdefault("annotations", {}).__setitem__(PLANTED_TOKEN, "x"),
        ),
        ("unknown field", lambda d: d.__setitem__("extra", {"note": PLANTED_TOKEN})),
    ],
)
def test_the_issue_s_places_are_scanned(where: str, edit, tmp_path: Path, capsys) -> None:
    document = copy.deepcopy(BASE)
    edit(document)
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(document))
    code, printed = _check_outputs(capsys, job_file)
    assert code == 1 and "SEC-SECRET" in printed, where
    assert PLANTED_TOKEN not in printed, where


def test_a_flagged_value_is_echoed_by_no_other_finding(tmp_path: Path, capsys) -> None:
    """The password is flagged by its name; JOB-HOSTPATH, JOB-IMAGE-DIGEST and JOB-SCHEMA would
    quote it as a path, an image and a wrong value."""
    document = copy.deepcopy(BASE)
    spec = document["spec"]["tasks"][0]["template"]["spec"]
    main = spec["containers"][0]
    main["env"] = [{"name": "DB_PASSWORD", "value": PASSWORD}]
    main["image"] = f"registry.example.com/{PASSWORD.lower()}:v1"
    spec["volumes"].append({"name": "data", "hostPath": {"path": f"/data/{PASSWORD}"}})
    main["volumeMounts"].append({"name": "data", "mountPath": "/mnt/data"})
    document["spec"]["tasks"][0]["replicas"] = PASSWORD  # JOB-SCHEMA quotes the wrong value
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(document))
    code, printed = _check_outputs(capsys, job_file)
    assert code == 1 and "SEC-SECRET" in printed and "JOB-SCHEMA" in printed
    assert PASSWORD not in printed and PASSWORD.lower() not in printed.lower()


def test_findings_of_a_job_never_echo_its_secrets_in_any_language() -> None:
    job = demo_job()
    job.roles[0].env = {"HF_TOKEN": "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXyZ"}
    job.roles[1].image = "registry.example.com/rlinf:" + "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXyZ"
    findings = given_job(job, site=example_site()).findings
    secret = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXyZ"
    shown = [
        text
        for f in findings
        for lang in ("en", "zh")
        for text in (f.message_in(lang), f.fix_in(lang), f.path, json.dumps(f.to_dict(lang)))
    ]
    assert any(f.rule_id == "SEC-SECRET" for f in findings)
    assert not [s for s in shown if secret in s]


def test_a_base64_wrapped_private_key_in_ssh_keys_is_an_error() -> None:
    wrapped = base64.b64encode(PEM_KEY.encode()).decode()
    job = demo_job()
    job.ssh_keys = ["ana-laptop", wrapped]
    rules = {(f.rule_id, f.path) for f in given_job(job, site=example_site()).findings}
    assert ("SEC-SSH-PRIVATE", "spec.sshKeys[1]") in rules
    assert ("SEC-SECRET", "spec.sshKeys[1]") not in rules  # one finding, the SSH-specific one


@pytest.mark.parametrize(
    "script",
    [
        "cat > ~/.netrc <<EOF\nmachine github.com\n  login ana\n  password {p}\nEOF",
        "printf 'machine h login ana password {p}\\n' > ~/.netrc",
        "curl -u ana:{p} https://repo.example.com/x.tar",
        "curl --user=ana:{p} https://repo.example.com/x.tar",
        "sshpass -p {p} ssh ana@robot-pc",
        "sshpass -p'{p}' scp a b",
        "mysql -u root -p{p} rlinf < dump.sql",
        "docker login -u ana -p {p} registry.example.com",
        "redis-cli -h cache -a {p} ping",
        "echo ana:{p} | chpasswd",
        "openssl enc -d -in a -out b -pass pass:{p}",
        "mongosh --host db -u ana -p {p}",
        "htpasswd -b -c /etc/nginx/.htpasswd ana {p}",
        "echo {p} | docker login -u ana --password-stdin registry.example.com",
        "export DB_PASS={p}",
        "MYSQL_PWD={p} mysql -u root",
    ],
)
def test_passwords_given_to_commands_are_found(script: str) -> None:
    text = script.format(p=PASSWORD)
    assert PASSWORD not in redact(text), text
    assert find_secrets(text), text


@pytest.mark.parametrize(
    "script",
    [
        "curl -u $USER:$PASSWORD https://x",
        'sshpass -p "$SSHPASS" ssh host',
        "mysql -u root -p rlinf",  # -p alone asks for the password
        "python -u train.py --config x",
        "ls -p /tmp",
    ],
)
def test_commands_without_a_literal_password_pass(script: str) -> None:
    assert find_secrets(script) == [], script


def test_a_redaction_placeholder_is_an_error(tmp_path: Path, capsys) -> None:
    """`plan -o` writes a redacted Job; checking that file must not pass it."""
    config = tmp_path / "cfg.yaml"
    config.write_text(
        "cluster: {num_nodes: 1, component_placement: {actor: all}}\n"
        "runner: {task_type: embodied}\n"
    )
    job_file = tmp_path / "job.yaml"
    token = "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXyZ"
    cli(
        capsys,
        "plan",
        str(config),
        "--no-compose",
        "--image",
        "r.example.com/rlinf:v1",
        "--prepare",
        f"export HF_TOKEN={token}",
        "-o",
        str(job_file),
    )
    assert token not in job_file.read_text() and "«redacted:" in job_file.read_text()
    code, out, _ = cli(capsys, "check", str(job_file))
    assert code == 1 and "SEC-REDACTED" in out
    assert "holds a redaction placeholder" in out


def test_the_record_keeps_environment_references_not_values(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("DB_PASSWORD", PASSWORD)
    config = tmp_path / "cfg.yaml"
    config.write_text(
        "cluster: {num_nodes: 1, component_placement: {actor: all}}\n"
        "runner: {task_type: embodied, logger: {log_path: '${oc.env:HOME}/logs'}}\n"
        "db: {password: '${oc.env:DB_PASSWORD}', url: 'postgres://u:${.password}@h/db'}\n"
    )
    record = tmp_path / "record"
    cli(capsys, "plan", str(config), "--no-compose", "--image", "r/x:1", "--record", str(record))
    resolved = (record / "config" / "resolved.yaml").read_text()
    everything = "".join(p.read_text() for p in record.rglob("*") if p.is_file())
    assert PASSWORD not in everything
    home = str(Path.home())
    assert f"{home}/logs" not in everything
    assert "${oc.env:DB_PASSWORD}" in resolved and "${oc.env:HOME}/logs" in resolved
    listed = json.loads((record / "config" / "environment.json").read_text())
    assert {(e["path"], tuple(e["variables"])) for e in listed} >= {
        ("db.password", ("DB_PASSWORD",)),
        ("db.url", ("DB_PASSWORD",)),
        ("runner.logger.log_path", ("HOME",)),
    }


def test_logs_are_redacted_and_terminal_escapes_inert(kube, tmp_path: Path, capsys) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    backend = ("--backend", "kubernetes", "--kubeconfig", str(config))
    assert kube.backend().submit(demo_job()).created
    kube.start_workers("demo")
    kube.run_all("demo")
    kube.emulator.logs["demo-header-0"] = (
        f"step 1\nlogin with {PLANTED_TOKEN}\n\x1b]0;owned\x07\x1b[2Jcleared\x08\x08shown\n"
    )
    code, out, _ = cli(capsys, "logs", "demo", *backend)
    assert code == 0 and "step 1" in out
    assert PLANTED_TOKEN not in out and "«redacted:GitHub token»" in out
    assert "\x1b" not in out and "\x08" not in out and "cleared\\x08\\x08shown" in out


def test_a_server_url_with_credentials_is_not_echoed(kube, tmp_path: Path, capsys) -> None:
    server = kube.url.replace("http://", f"http://admin:{PASSWORD}@")
    config = write_kubeconfig(tmp_path / "kubeconfig", server, NAMESPACE)
    kube.fail("GET", "jobs", 401, "Unauthorized", times=5)
    code, out, err = cli(
        capsys, "status", "demo", "--backend", "kubernetes", "--kubeconfig", str(config)
    )
    assert code == 1 and "401" in out + err
    assert PASSWORD not in out + err and "admin:" not in out + err


def test_a_job_read_back_keeps_planted_values_out_of_its_yaml_preview() -> None:
    job = Job.from_manifest(copy.deepcopy(BASE), site=example_site())
    job.labels["t"] = PLANTED_TOKEN
    assert PLANTED_TOKEN not in redact(render_job_yaml(job))


def test_a_secret_in_a_comment_of_the_job_file_is_found(tmp_path: Path, capsys) -> None:
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(BASE) + f"# the old token was {PLANTED_TOKEN}, rotate it\n")
    code, printed = _check_outputs(capsys, job_file)
    assert code == 1 and "SEC-SECRET" in printed and "(comment, line" in printed
    assert PLANTED_TOKEN not in printed


def test_preflight_findings_never_echo_the_job_s_secrets(kube, tmp_path: Path, capsys) -> None:
    """K8S-STORAGECLASS quotes the class name; a value flagged elsewhere stays out of it."""
    document = copy.deepcopy(BASE)
    main = document["spec"]["tasks"][0]["template"]["spec"]["containers"][0]
    main["env"] = [{"name": "DB_PASSWORD", "value": PASSWORD}]
    document["spec"]["storage"] = [
        {"name": "ckpt", "storageClassName": PASSWORD, "claimName": "my-existing-pvc"}
    ]
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(document))
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    code, out, err = cli(
        capsys, "submit", str(job_file), "--backend", "kubernetes", "--kubeconfig", str(config)
    )
    assert code == 1 and "K8S-STORAGECLASS" in out and "SEC-SECRET" in out
    assert PASSWORD not in out + err
