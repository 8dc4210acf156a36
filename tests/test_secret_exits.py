"""No secret leaves, whatever family it is and wherever the user wrote it (issue #23, class 3).

Hypothesis draws, for every detector family (a cloud key pair, a Stripe key, a W&B key, an
``SSHPASS``, a URL-encoded DSN, a password in an image reference, the short config names
``ak``/``sk``/``auth``/``pwd``/``*_key``), a realistic value and a field a user can write (a
config value, ``--override``, ``--prepare``, ``--env``, ``--image``, a Job YAML's env, label,
annotation or run script), and asserts the raw value appears in no output: the Job YAML of
``plan -o``, the run record zip, ``plan``/``check``/``export`` text in English and Chinese and
their ``--json``, the KubeRay export (``export --config … --to kuberay`` and ``export JOB.yaml``,
to stdout and to ``-o``, both kinds, and the Python ``pipeline.export_kuberay`` path: its
findings in both languages and its manifest through the one exit), the console sheet, the admin
request and a log zip.

Every example plants all families at once (each in its own drawn field), so a dozen examples
cover each family in several fields; ``make fuzz`` runs thousands.
"""

from __future__ import annotations

import ast
import random
import string
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_kubernetes_backend import demo_job

from rlark_widgets.backends.all_logs import logs_zip
from rlark_widgets.cli import main
from rlark_widgets.output_files import write_output
from rlark_widgets.pipeline import PlanRequest, export_kuberay, plan_job
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.kuberay import ExportOptions
from rlark_widgets.rlark.kuberay.schema import KINDS
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import dump_yaml, render_job_yaml
from rlark_widgets.rlinf import GpuLayout, load_config

PACKAGE = Path(__file__).resolve().parents[1] / "rlark_widgets"
CONFIG = (
    "cluster: {num_nodes: 1, component_placement: {actor: all}}\n"
    "runner: {task_type: embodied, logger: {log_path: /tmp/logs, experiment_name: exp}}\n"
)
IMAGE = "registry.example.com/team/rlinf:0.3"
#: Under the dev and ci profiles (each example runs about ten commands); fuzz takes its own.
EXAMPLES = settings().max_examples if settings().max_examples > 1_000 else 8


@dataclass(frozen=True)
class Planted:
    """One family's secret and the ways a user writes it: as a name's value, or a command."""

    family: str
    secret: str  # the raw value that no output may hold
    name: str  # the env name or config key it is bound to
    value: str  # what stands after NAME=
    command: str  # a line of a script that uses it


def _drawn(alphabet: str, length: int) -> st.SearchStrategy[str]:
    """Random like a real key (a seed shrinks to another random key, never to 'aaaa')."""
    return st.integers(0, 2**32).map(
        lambda seed: "".join(random.Random(seed).choices(alphabet, k=length))
    )


ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
BASE64 = ALNUM + "/+"


@st.composite
def _password(draw: st.DrawFn) -> str:
    """A password a person picks: letters, digits, one mark, 12-16 characters."""
    body = draw(_drawn(string.ascii_lowercase, 8))
    return f"{body[:4].title()}{body[4:]}-{draw(_drawn(string.digits, 4))}"


def _families() -> list[st.SearchStrategy[Planted]]:
    aws = st.builds(
        lambda key, secret, form: Planted(
            "aws",
            secret,
            "AWS_SECRET_ACCESS_KEY",
            secret,
            (
                f"aws configure set aws_secret_access_key {secret}"
                if form
                else f"s3cmd --access_key={key} --secret_key={secret} ls s3://ckpt"
            ),
        ),
        _drawn(UPPER, 16).map("AKIA".__add__),
        _drawn(BASE64, 40),
        st.booleans(),
    )
    tencent = st.builds(
        lambda key, secret: Planted(
            "tencent",
            secret,
            "TENCENTCLOUD_SECRET_KEY",
            secret,
            f"tccli configure set secretId {key} secretKey {secret}",
        ),
        _drawn(ALNUM, 32).map("AKID".__add__),
        _drawn(ALNUM, 32),
    )
    aliyun = st.builds(
        lambda key, secret: Planted(
            "aliyun",
            secret,
            "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
            secret,
            f"aliyun configure set --access-key-id {key} --access-key-secret {secret}",
        ),
        _drawn(ALNUM, 20).map("LTAI".__add__),
        _drawn(ALNUM, 30),
    )
    stripe = _drawn(ALNUM, 24).map(
        lambda body: Planted(
            "stripe",
            f"sk_live_{body}",
            "PAYMENTS",
            f"sk_live_{body}",
            f"curl https://api.stripe.com/v1/charges -H 'X-Key: sk_live_{body}'",
        )
    )
    wandb = _drawn("0123456789abcdef", 40).map(
        lambda key: Planted("wandb", key, "WANDB_API_KEY", key, f"wandb login {key}")
    )
    sshpass = _password().map(
        lambda pw: Planted(
            "sshpass", pw, "SSHPASS", pw, f"SSHPASS={pw} sshpass -e rsync -a ckpt/ backup:/ckpt"
        )
    )
    dsn = _drawn(ALNUM, 16).map(
        lambda pw: Planted(
            "dsn",
            pw,
            "DATABASE_URL",
            f"postgresql%3A%2F%2Frlinf%3A{pw}%40db.example.com%3A5432%2Fruns",
            f"export DATABASE_URL=postgresql%3A%2F%2Frlinf%3A{pw}%40db.example.com%2Fruns",
        )
    )
    image = _password().map(
        lambda pw: Planted(
            "image",
            pw,
            "BASE_IMAGE",
            f"deploy:{pw}@{IMAGE}",
            f"docker pull deploy:{pw}@{IMAGE}",
        )
    )
    short = st.builds(
        lambda name, value: Planted(
            "short-name", value, name, value, f"{name}={value} bash run.sh"
        ),
        st.sampled_from(["ak", "sk", "auth", "pwd", "oss_key", "wandb_key"]),
        _drawn(ALNUM, 24),
    )
    return [aws, tencent, aliyun, stripe, wandb, sshpass, dsn, image, short]


CONFIG_FIELDS = ["config", "override", "prepare", "env-cli"]
JOB_FIELDS = ["job-env", "job-label", "job-annotation", "job-script"]


@st.composite
def plantings(draw: st.DrawFn) -> list[tuple[Planted, str]]:
    """Every family once, each in a field drawn for it (``--image`` only takes an image)."""
    chosen = []
    for family in _families():
        planted = draw(family)
        fields = CONFIG_FIELDS + JOB_FIELDS + (["image"] if planted.family == "image" else [])
        chosen.append((planted, draw(st.sampled_from(fields))))
    return chosen


def _config_inputs(tmp: Path, plantings: list[tuple[Planted, str]]) -> tuple[Path, list[str]]:
    """The config file and the plan options that carry the config-side plantings."""
    config: dict[str, str] = {}
    options = ["--no-compose", "--image", IMAGE]
    scripts = []
    for planted, field in plantings:
        if field == "config":
            config[planted.name] = planted.value
        elif field == "override":
            options += ["--override", f"+secrets.{planted.name}='{planted.value}'"]
        elif field == "prepare":
            scripts.append(planted.command)
        elif field == "env-cli":
            options += ["--env", f"{planted.name}={planted.value}"]
        elif field == "image":
            options[options.index("--image") + 1] = planted.value
    if scripts:
        options += ["--prepare", "\n".join(scripts)]
    path = tmp / "cfg.yaml"
    path.write_text(CONFIG + (yaml.safe_dump({"secrets": config}) if config else ""))
    return path, options


def _job_file(tmp: Path, plantings: list[tuple[Planted, str]]) -> Path:
    """The user's own Job YAML, with the Job-side plantings written into it."""
    job = demo_job()
    role = job.roles[0]
    for planted, field in plantings:
        if field == "job-env":
            role.env[planted.name] = planted.value
        elif field == "job-label":
            job.labels[planted.name.lower().replace("_", "-")] = planted.value
        elif field == "job-annotation":
            job.annotations[f"example.com/{planted.name.lower()}"] = planted.value
        elif field == "job-script":
            job.run_script += "\n" + planted.command
    path = tmp / "user-job.yaml"
    path.write_text(render_job_yaml(job))
    return path


def _run(capsys, *argv: str) -> str:
    main(list(argv))
    captured = capsys.readouterr()
    return captured.out + captured.err


def _files(folder: Path) -> str:
    """Every file under ``folder``, zip members included, as one text."""
    texts = []
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                texts += [archive.read(n).decode() for n in archive.namelist()]
        elif path.is_file() and path.name not in {"cfg.yaml", "user-job.yaml"}:
            texts.append(path.read_text(encoding="utf-8"))
    return "\n".join(texts)


def _every_output(capsys, tmp: Path, plantings: list[tuple[Planted, str]]) -> str:
    config, options = _config_inputs(tmp, plantings)
    job = _job_file(tmp, plantings)
    printed = [
        _run(capsys, "plan", str(config), *options, "-o", str(tmp / "job.yaml"),
             "--record", str(tmp / "record.zip")),
        _run(capsys, "plan", str(config), *options, "--json"),
        _run(capsys, "plan", str(config), *options, "--lang", "zh"),
        _run(capsys, "export", str(config), *options, "--kind", "RayJob",
             "-o", str(tmp / "rayjob.yaml")),
        _run(capsys, "export", str(config), *options, "--kind", "RayCluster", "--lang", "zh"),
        _run(capsys, "export", "--config", str(config), *options, "--to", "kuberay",
             "-o", str(tmp / "kuberay-config.yaml")),
        _run(capsys, "export", "--config", str(config), *options, "--to", "kuberay",
             "--kind", "RayCluster", "--lang", "zh"),
        _run(capsys, "export", str(job), "--to", "kuberay"),
        _run(capsys, "export", str(job), "--to", "kuberay", "--kind", "RayCluster", "--lang", "zh",
             "-o", str(tmp / "kuberay-job.yaml")),
        _run(capsys, "sheet", "--config", str(config), *options, "--format", "html"),
        _run(capsys, "admin-request", "--config", str(config), *options, "--lang", "zh"),
        _run(capsys, "check", str(job), "--config", str(config), "--no-compose"),
        _run(capsys, "check", str(job), "--json", "--lang", "zh"),
        _run(capsys, "sheet", str(job), "--out", str(tmp / "sheet.md")),
        _run(capsys, "admin-request", str(job), "--out", str(tmp / "admin.txt")),
    ]  # fmt: skip
    printed.append(_pipeline_export(tmp, config, plantings))
    logs_zip({"actor/0": "\n".join(p.command for p, _ in plantings)}, tmp / "logs.zip")
    return "\n".join(printed) + "\n" + _files(tmp)


def _pipeline_export(tmp: Path, config: Path, plantings: list[tuple[Planted, str]]) -> str:
    """The Python path (``pipeline.export_kuberay``, as the app and a notebook call it): its
    findings in both languages, and both kinds written through the one exit."""
    request = PlanRequest(
        load_config(
            config,
            [f"+secrets.{p.name}='{p.value}'" for p, field in plantings if field == "override"],
            {p.name: p.value for p, field in plantings if field == "env-cli"},
            compose=False,
        ),
        GpuLayout.parse(8),
        settings=JobSettings(
            image=next((p.value for p, field in plantings if field == "image"), IMAGE),
            prepare_script="\n".join(p.command for p, field in plantings if field == "prepare"),
        ),
        site=example_site(),
    )
    planned = plan_job(request)
    said = []
    for kind in KINDS:
        exported = export_kuberay(planned, ExportOptions(kind=kind))
        assert exported.manifest is not None
        write_output(tmp / f"pipeline-{kind}.yaml", dump_yaml(exported.manifest))
        said += [
            f"{f.path} {f.message_in(lang)} {f.fix_in(lang)}"
            for f in [*planned.findings, *exported.findings]
            for lang in ("en", "zh")
        ]
    return "\n".join(said)


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(planted=plantings())
def test_no_family_s_secret_leaves_through_any_field(planted, capsys, tmp_path_factory) -> None:
    tmp = tmp_path_factory.mktemp("exits")
    everything = _every_output(capsys, tmp, planted)
    assert "Traceback" not in everything
    leaked = [(p.family, field) for p, field in planted if p.secret in everything]
    assert not leaked, leaked


def test_an_environment_reference_stays_a_reference_in_the_job(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """RLinf resolves ``${oc.env:…}`` in the pod: the Job keeps the reference, not this
    machine's value (rlinf/environment_values.job_value)."""
    monkeypatch.setenv("LOG_ROOT", "/home/alice/secret-project")
    config = tmp_path / "cfg.yaml"
    config.write_text(
        "cluster: {num_nodes: 1, component_placement: {actor: all}}\n"
        "runner: {task_type: embodied, save_interval: 5, resume_dir: '${oc.env:LOG_ROOT}/old',"
        " logger: {log_path: '${oc.env:LOG_ROOT}/logs', experiment_name: exp}}\n"
    )
    _run(
        capsys,
        "plan",
        str(config),
        "--no-compose",
        "--image",
        IMAGE,
        "-o",
        str(tmp_path / "j.yaml"),
    )
    manifest = yaml.safe_load((tmp_path / "j.yaml").read_text())
    annotations = manifest["metadata"]["annotations"]
    assert "/home/alice/secret-project" not in (tmp_path / "j.yaml").read_text()
    assert annotations["rlark.io/checkpoint-dir"] == "${oc.env:LOG_ROOT}/logs/exp/checkpoints"
    assert annotations["rlark.io/resume-dir"] == "${oc.env:LOG_ROOT}/old"


#: Writers that are not exits: the local backend's work files are the running Job itself on
#: this machine (what runs, read by the supervisor), and the event mirror copies a pod's binary
#: TensorBoard files byte for byte.
NOT_EXITS = {
    "backends/local/backend.py",
    "backends/local/supervisor.py",
    "backends/local/rehearsal.py",
    "backends/local/layout.py",
    "backends/local/tensorboard.py",
    "backends/k8s/events.py",
    # The one start of the app prints its own URL with its token for its user, as jupyter lab does.
    "ui/serve.py",
}
WRITERS: dict[str, Callable[[ast.Call], bool]] = {
    "write_text": lambda call: True,
    "write_bytes": lambda call: True,
    "writestr": lambda call: True,
    "ZipFile": lambda call: any(
        isinstance(a, ast.Constant) and a.value in {"w", "a", "x"} for a in call.args[1:2]
    ),
    "open": lambda call: any(
        isinstance(a, ast.Constant) and isinstance(a.value, str) and set(a.value) & set("wax")
        for a in call.args[1:2]
    ),
}


def _writer_calls(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in WRITERS and WRITERS[name](node):
            found.append(f"{name} (line {node.lineno})")
        if name == "print":
            found.append(f"print (line {node.lineno})")
    return found


def test_every_writer_goes_through_the_one_exit() -> None:
    """Files are written by output_files (which redacts); the CLI prints only inside main's
    redacted terminal; nothing else writes, except the local backend's own work files."""
    bypassing = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "output_files.py" or relative in NOT_EXITS:
            continue
        calls = _writer_calls(path.read_text(encoding="utf-8"))
        if relative.startswith("cli/"):  # printing is the CLI's job: main redacts it
            calls = [c for c in calls if not c.startswith("print")]
        if calls:
            bypassing[relative] = calls
    assert bypassing == {}


def test_the_exit_scan_sees_a_writer() -> None:
    assert _writer_calls("Path(p).write_text(s)\nopen(p, 'w')\nprint(x)\nopen(p)") == [
        "write_text (line 1)",
        "open (line 2)",
        "print (line 3)",
    ]
