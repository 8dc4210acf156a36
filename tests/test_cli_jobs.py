"""``submit`` / ``status`` / ``logs`` / ``delete`` through the CLI against the Kubernetes emulator.

The CLI connects the way a user does: a kubeconfig file (here pointing at the emulator).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
import yaml
from kube_emulator import NAMESPACE
from test_kubernetes_backend import demo_job

from rlark_widgets.cli import main
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml


def write_kubeconfig(path: Path, server: str, namespace: str | None = None) -> Path:
    """A kubeconfig with one context, as `kubectl config view` would write it."""
    context = {"cluster": "c", "user": "u", **({"namespace": namespace} if namespace else {})}
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": server}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "c", "context": context}],
    }
    path.write_text(yaml.safe_dump(document))
    return path


@pytest.fixture
def kubeconfig(kube, tmp_path: Path) -> Path:
    return write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors (bad numbers among them): exit 2
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_submit_twice_status_logs_delete(kube, kubeconfig: Path, tmp_path: Path, capsys) -> None:
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    backend = ("--backend", "kubernetes", "--kubeconfig", str(kubeconfig))

    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 0 and "Submitted: demo." in out
    assert "Next: rlark-migrate status demo --backend kubernetes --watch" in out

    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 0 and "Not submitted again: demo." in out
    assert (
        len(
            kube.custom.list_namespaced_custom_object("rlark.io", "v1alpha1", NAMESPACE, "jobs")[
                "items"
            ]
        )
        == 1
    )

    kube.start_workers("demo")
    kube.run_all("demo")
    code, out, _ = cli(capsys, "status", "demo", *backend, "--json")
    data = json.loads(out)
    assert code == 0
    assert sorted((w["role"], w["phase"]) for w in data["snapshot"]["workers"]) == [
        ("actor", "Running"),
        ("env", "Running"),
        ("header", "Running"),
    ]
    # just submitted, no dashboard yet: the head is starting (within its start deadline)
    assert data["diagnosis"]["link"] in ("ray-head", "ray-members")
    assert data["diagnosis"]["title"].startswith("The Ray head is starting")

    code, out, _ = cli(capsys, "status", "demo", *backend)
    assert "header: 1/1 Workers (1 Running)" in out and "Ray members: 0/3 alive" in out

    code, out, _ = cli(capsys, "record", "demo", *backend, "-o", str(tmp_path / "record"))
    assert code == 0 and "Record written to" in out
    record = tmp_path / "record"
    assert (record / "job.yaml").read_text().startswith("apiVersion: rlark.io/v1alpha1")
    recorded = json.loads((record / "diagnosis.json").read_text())
    assert recorded["title"].startswith("The Ray head is starting")  # just submitted
    assert {p.name for p in (record / "logs").iterdir()} == {
        "header-0.log",
        "actor-0.log",
        "env-0.log",
    }

    kube.set_job_status("demo", "Succeeded")  # the run ended; its Workers still run
    served = kube.emulator.served

    def workers_exit() -> None:  # after a few refreshes of the finished Job
        deadline = time.monotonic() + 60
        while kube.emulator.served < served + 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        kube.end_workers("demo")

    driver = threading.Thread(target=workers_exit)
    driver.start()
    code, out, _ = cli(capsys, "status", "demo", *backend, "--watch", "--interval", "0.1")
    driver.join()
    held = (
        "demo has ended but still holds 3 Workers; Stop releases them: "
        "rlark-migrate stop demo --backend kubernetes"
    )
    # without a terminal (#24 item 18) nothing is redrawn: the report once, then the lines that
    # changed; the held line and the refresh note once each, however many refreshes came
    lines = out.splitlines()
    assert code == 0 and out.count("Job demo on kubernetes") == 1
    assert lines.count(held) == 1 and sum("(refreshing every 0.1 s" in line for line in lines) == 1
    assert lines.index(held) < len(lines) - 1  # watched on while held, until the Workers ended
    assert lines[-1] != held
    # with the Workers gone the Job is settled: one refresh
    code, out, _ = cli(capsys, "status", "demo", *backend, "--watch", "--interval", "0.1")
    assert code == 0 and out.count("Job demo on kubernetes") == 1

    code, _, _ = cli(capsys, "delete", "demo", *backend, "--yes")
    assert code == 0 and not kube.exists("jobs", "demo")


def test_forbidden_submit_exits_1_with_the_fix(
    kube, kubeconfig: Path, tmp_path: Path, capsys
) -> None:
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    kube.fail(
        "POST", "jobs", 403, 'jobs.rlark.io is forbidden: User "ana" cannot create resource "jobs"'
    )
    code, _, err = cli(
        capsys, "submit", str(job_file), "--backend", "kubernetes", "--kubeconfig", str(kubeconfig)
    )
    assert code == 1
    assert (
        "403 Forbidden" in err and "fix: Ask the cluster admin for 'create' on jobs.rlark.io" in err
    )


def test_unreachable_cluster_is_a_clear_message(tmp_path: Path, capsys) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9")
    code, _, err = cli(
        capsys, "status", "nothing", "--backend", "kubernetes", "--kubeconfig", str(config)
    )
    assert code == 1 and "error:" in err and "Traceback" not in err


def test_run_timeout_reaches_the_local_backend_and_is_checked(tmp_path: Path, capsys) -> None:
    from rlark_widgets.cli import build_parser
    from rlark_widgets.cli.backend_args import backend_from_args
    from rlark_widgets.cli.site_args import read_site_arg
    from rlark_widgets.examples import example_configs

    config = str(example_configs()["local_rehearsal_2node"])
    local = ("--backend", "local", "--workspace", str(tmp_path / "ws"))
    args = build_parser().parse_args(["submit", "--config", config, *local, "--run-timeout", "30"])
    read_site_arg(args)  # as main does before every command
    assert backend_from_args(args).options.run_timeout == 30.0
    code, _, err = cli(capsys, "submit", "--config", config, *local, "--run-timeout", "0")
    assert code == 2 and "argument --run-timeout: takes a number of seconds above 0" in err
    assert not (tmp_path / "ws").exists() or not any((tmp_path / "ws").iterdir())


@pytest.mark.slow
def test_local_journey_submit_wait_status_logs_stop(tmp_path: Path, capsys) -> None:
    """The CLI end to end on the local backend: a 2-node bundled config rehearsed on real Ray,
    with no --image (the rehearsal runs no image, so none is asked for)."""
    from test_local_backend import survivors

    from rlark_widgets.examples import example_configs

    workspace = tmp_path / "ws"
    local = ("--backend", "local", "--workspace", str(workspace))
    config = str(example_configs()["local_rehearsal_2node"])
    name = "cli-rehearsal"
    submit = (
        "submit",
        "--config",
        config,
        "--gpus-per-node",
        "2",
        "--name",
        name,
        *local,
    )
    try:
        code, out, _ = cli(capsys, *submit, "--wait", "checkpoint", "--timeout", "420")
        assert code == 0, out
        assert f"Submitted: {name}." in out and "Reached 'checkpoint'" in out
        assert "Not submitted" not in out and "EXAMPLE" in out  # the site profile says so

        code, out, _ = cli(capsys, *submit)
        assert code == 0 and f"Not submitted again: {name}." in out

        code, out, _ = cli(capsys, "status", name, *local, "--json")
        data = json.loads(out)
        alive = [m for m in data["snapshot"]["members"] if m["state"] == "ALIVE"]
        assert code == 0 and len(alive) == 2 and data["snapshot"]["expected_workers"] == 2
        assert data["snapshot"]["checkpoints"] and data["snapshot"]["rehearsal"] is True
        assert sorted(m["node_rank"] for m in alive) == [0, 1]

        code, out, _ = cli(capsys, "logs", name, *local, "--rank", "1", "--tail", "50")
        assert code == 0 and "RLINF_NODE_RANK 1" in out

        code, out, _ = cli(capsys, "stop", name, *local)
        assert code == 0 and f"Stopped Job '{name}'" in out
        assert survivors(workspace, name) == []
    finally:
        main(["delete", name, *local, "--yes"])


def test_a_missing_image_blocks_kubernetes_but_not_the_local_rehearsal() -> None:
    """The image is asked for where it matters: a cluster pulls it, the rehearsal runs none."""
    from rlark_widgets.backends import policy_of
    from rlark_widgets.examples import example_configs
    from rlark_widgets.pipeline import PlanRequest, plan_job
    from rlark_widgets.rlinf import GpuLayout, load_config

    config = load_config(example_configs()["local_rehearsal_2node"])
    planned = plan_job(PlanRequest(config, GpuLayout.parse(2), site=example_site()))
    cluster = {(f.rule_id, f.path) for f in policy_of("kubernetes").blocking(planned.findings)}
    assert ("JOB-IMAGE", "spec.tasks[0].template.spec.containers[0].image") in cluster
    assert ("JOB-SCHEMA", "spec.tasks[0].template.spec.containers[0].image") not in cluster
    assert policy_of("local").blocking(planned.findings) == []


@pytest.mark.slow
def test_submit_config_on_the_local_backend_needs_no_image(tmp_path: Path, capsys) -> None:
    """`submit --config X --backend local` without --image submits (the rehearsal runs no image);
    it is stopped at once and leaves nothing behind."""
    from test_local_backend import survivors

    from rlark_widgets.examples import example_configs

    workspace = tmp_path / "ws"
    local = ("--backend", "local", "--workspace", str(workspace))
    config = str(example_configs()["local_rehearsal_2node"])
    name = "no-image"
    try:
        code, out, err = cli(capsys, "submit", "--config", config, "--name", name, *local)
        assert code == 0, out + err
        assert f"Submitted: {name}." in out and "Not submitted" not in err
        # the image is still asked for, as what a cluster will need (one finding: JOB-IMAGE, not
        # also the schema's "should be non-empty"); it blocks nothing here
        assert "error(s) do not block a submission to the local backend: JOB-IMAGE, JOB-SEL" in out
        assert "JOB-SCHEMA" not in out
    finally:
        main(["stop", name, *local])
        assert survivors(workspace, name) == []
        main(["delete", name, *local, "--yes"])


def test_delete_asks_first_and_without_a_terminal_needs_yes(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #24 item 18: `delete` confirms; `--yes` deletes where nothing can answer."""
    import io

    from test_run_identity import local_job

    local_job(tmp_path)
    flags = ("--workspace", str(tmp_path))
    for lang, words in (
        ("en", "there is no terminal to ask on: add --yes to delete it."),
        ("zh", "当前没有可以提问的终端：加上 --yes 即可删除。"),
    ):
        code, _, err = cli(capsys, "--lang", lang, "delete", "again", *flags)
        assert code == 2 and words in err, err
    assert (tmp_path / "again").is_dir()  # nothing was deleted
    terminal = io.StringIO("n\n")
    terminal.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr("sys.stdin", terminal)
    code, out, _ = cli(capsys, "delete", "again", *flags)
    assert code == 0 and out.rstrip().endswith("Not deleted: again.")
    assert "Delete Job 'again' and what the backend created for it" in out
    assert (tmp_path / "again").is_dir()
    code, out, _ = cli(capsys, "delete", "again", "--yes", *flags)
    assert code == 0 and out.startswith("Deleted Job 'again'") and not (tmp_path / "again").exists()
