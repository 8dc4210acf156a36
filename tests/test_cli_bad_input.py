"""Every bad input gets a clear answer: never a traceback, never a hang (issue #15).

Each case is run through the CLI as a user would, and asserts the exit code and the words of
the answer (which field or file, and the fix).
"""

from __future__ import annotations

import copy
import os
import threading
from pathlib import Path

import pytest
import yaml
from kube_emulator import NAMESPACE
from test_cli_jobs import cli, write_kubeconfig
from test_job_roundtrip import BASE
from test_kubernetes_backend import demo_job

from rlark_widgets.rlinf import load_text

SMALL_CONFIG = (
    "cluster: {num_nodes: 1, component_placement: {actor: all}}\nrunner: {task_type: embodied}\n"
)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "job.yaml"
    os.mkfifo(path)
    return path


def _within(seconds: float, run):
    """Run ``run`` in a thread; fail (not hang) if it does not return in time."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(run()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert result, f"still running after {seconds} s"
    return result[0]


@pytest.mark.parametrize("command", ["check", "submit"])
def test_a_fifo_is_refused_not_waited_on(command: str, fifo: Path, tmp_path: Path, capsys) -> None:
    extra = ["--workspace", str(tmp_path / "ws")] if command == "submit" else []
    code, _, err = _within(10, lambda: cli(capsys, command, str(fifo), *extra))
    assert code == 1 and "is a FIFO (named pipe), not a regular file" in err


def test_a_device_is_refused_not_read(capsys) -> None:
    code, _, err = _within(10, lambda: cli(capsys, "check", "/dev/zero"))
    assert code == 1 and "/dev/zero is a device, not a regular file" in err


def test_a_fifo_config_and_inventory_are_refused(fifo: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "config.yaml"
    os.mkfifo(config)
    code, _, err = _within(10, lambda: cli(capsys, "inspect", str(config)))
    assert code == 1 and "is a FIFO (named pipe)" in err
    job = tmp_path / "real.yaml"
    job.write_text(yaml.safe_dump(BASE))
    code, _, err = _within(10, lambda: cli(capsys, "check", str(job), "--inventory", str(fifo)))
    assert code == 2 and "is a FIFO (named pipe)" in err


def test_a_job_over_the_input_limit_is_refused(tmp_path: Path, capsys) -> None:
    document = copy.deepcopy(BASE)
    document["metadata"]["annotations"] = {"padding": "x" * 6_000_000}
    job = tmp_path / "big.yaml"
    job.write_text(yaml.safe_dump(document))
    for command in ("check", "submit"):
        code, _, err = (
            cli(capsys, command, str(job), "--workspace", str(tmp_path))[:3]
            if (command == "submit")
            else cli(capsys, command, str(job))
        )
        assert code == 1 and "big.yaml is 6.0 MB; inputs over 5.0 MB are refused." in err
        assert "RLARK_MAX_INPUT_MB" in err


@pytest.mark.parametrize(
    ("output", "says"),
    [
        ("missing/dir/job.yaml", "does not exist"),
        (".", "is a directory; the output is a file"),
        ("/dev/full", "cannot be written: No space left on device"),
    ],
)
def test_plan_output_problems_are_messages(
    output: str, says: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "cfg.yaml"
    config.write_text(SMALL_CONFIG)
    code, _, err = cli(
        capsys, "plan", str(config), "--no-compose", "--image", "r/x:1", "-o", output
    )
    assert code == 1 and says in err and "Traceback" not in err


def test_plan_output_onto_a_fifo_is_refused(fifo: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "cfg.yaml"
    config.write_text(SMALL_CONFIG)
    run = lambda: cli(  # noqa: E731
        capsys, "plan", str(config), "--no-compose", "--image", "r/x:1", "-o", str(fifo)
    )
    code, _, err = _within(10, run)
    assert code == 1 and "is a FIFO or a socket" in err


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_durations_must_be_positive(value: str, tmp_path: Path, capsys) -> None:
    code, _, err = cli(
        capsys, "status", "x", "--watch", "--interval", value, "--workspace", str(tmp_path)
    )
    assert code == 2 and "argument --interval: takes a number of seconds above 0" in err


def test_plan_output_dash_is_stdout(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "cfg.yaml"
    config.write_text(SMALL_CONFIG)
    code, out, _ = cli(capsys, "plan", str(config), "--no-compose", "--image", "r/x:1", "-o", "-")
    assert yaml.safe_load(out)["kind"] == "Job"
    assert not (tmp_path / "-").exists()


def test_deep_nesting_is_refused_with_the_line(tmp_path: Path, capsys) -> None:
    depth = 600
    config = tmp_path / "deep.yaml"
    config.write_text(SMALL_CONFIG + "x: " + "{a: " * depth + "1" + "}" * depth + "\n")
    for flags in ([], ["--no-compose"]):
        code, _, err = cli(capsys, "inspect", str(config), *flags)
        assert code == 1 and "nests more than 100 levels deep (at line 3)" in err, err
        assert "recursion" not in err and "defaults list" not in err
    job = tmp_path / "deep-job.yaml"
    job.write_text("spec: " + "[" * depth + "]" * depth + "\n")
    code, _, err = cli(capsys, "check", str(job))
    assert code == 1 and "nests more than 100 levels deep" in err


def test_a_duplicate_key_in_a_config_is_named_with_its_line(tmp_path: Path, capsys) -> None:
    config = tmp_path / "dup.yaml"
    config.write_text(
        "cluster:\n  num_nodes: 1\n  component_placement: {actor: all}\n  num_nodes: 2\n"
    )
    code, _, err = cli(capsys, "inspect", str(config))
    assert code == 1 and "line 4" in err and "the key 'num_nodes' appears twice" in err


def test_doubling_interpolations_end_quickly_as_unresolved_values() -> None:
    lines = [SMALL_CONFIG, "k0: abcdefgh\n"]
    lines += [f"k{i}: ${{k{i - 1}}}${{k{i - 1}}}\n" for i in range(1, 21)]
    config = _within(30, lambda: load_text("".join(lines)))
    reasons = {u.path: str(u.reason) for u in config.unresolved}
    assert "k20" in reasons and "resolution steps" in reasons["k20"]
    assert config.resolved["k3"] == "abcdefgh" * 8  # small ones still resolve


@pytest.mark.parametrize(
    "shape", ["['${{{prev}}}', '${{{prev}}}']", "{{a: '${{{prev}}}', b: '${{{prev}}}'}}"]
)
def test_sections_that_double_per_key_end_quickly(shape: str) -> None:
    lines = [SMALL_CONFIG, "k0: [x]\n"]
    lines += [f"k{i}: " + shape.format(prev=f"k{i - 1}") + "\n" for i in range(1, 31)]
    config = _within(30, lambda: load_text("".join(lines)))
    unresolved = {u.path for u in config.unresolved}
    assert {"k30[0]", "k30.a"} & unresolved, sorted(unresolved)[:5]


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
def test_many_references_to_a_large_product_keep_the_record_small(tmp_path: Path, capsys) -> None:
    text = SMALL_CONFIG + "big: ${multiply:'x',4000000}\n"
    text += "".join(f"r{i}: ${{big}}\n" for i in range(20))
    config = tmp_path / "mult.yaml"
    config.write_text(text)
    record = tmp_path / "record"
    cli(capsys, "plan", str(config), "--no-compose", "--image", "r/x:1", "--record", str(record))
    size = sum(p.stat().st_size for p in record.rglob("*") if p.is_file())
    assert size < 12_000_000, size  # was 61 MB
    code, out, _ = cli(capsys, "inspect", str(config), "--no-compose")
    assert "r19" in out and "input limit" in out


def test_logs_tail_and_unknown_jobs(kube, tmp_path: Path, capsys) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    backend = ("--backend", "kubernetes", "--kubeconfig", str(config))
    code, _, err = cli(capsys, "logs", "demo", "--tail", "-5", *backend)
    assert (
        code == 2 and "argument --tail: takes a whole number from 0 to 1,000,000; got '-5'" in err
    )
    code, _, err = cli(capsys, "logs", "ghost-job", *backend)
    assert code == 1 and "No Job named ghost-job" in err and "Worker" not in err
    code, _, err = cli(capsys, "logs", "ghost-job", "--worker", "header/0", *backend)
    assert code == 1 and "No Job named ghost-job" in err


@pytest.mark.parametrize(
    "status",
    [
        "Running",  # not a mapping
        ["Running"],
        {"phase": 7, "tasks": "all"},
        {"phase": "Running", "tasks": [1, {"name": "header", "replicas": "x"}]},
    ],
)
def test_status_and_logs_read_any_status_shape(status, kube, tmp_path: Path, capsys) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    backend = ("--backend", "kubernetes", "--kubeconfig", str(config))
    assert kube.backend().submit(demo_job()).created
    kube.start_workers("demo")
    kube.run_all("demo")
    for body in ({"status": None}, {"status": status}):  # anyone with status access may write it
        kube.custom.patch_namespaced_custom_object_status(
            "rlark.io", "v1alpha1", NAMESPACE, "jobs", "demo", body
        )
    assert kube.job("demo")["status"] == status
    for pod in kube.pods("demo"):  # a restart count that is no number
        kube.core.patch_namespaced_pod_status(
            pod["metadata"]["name"],
            NAMESPACE,
            {"status": {"containerStatuses": [{"name": "main", "restartCount": "many"}]}},
            _preload_content=False,
        )
    for argv in (("status", "demo"), ("status", "demo", "--json"), ("logs", "demo")):
        code, out, err = cli(capsys, *argv, *backend)
        assert "Traceback" not in out + err and code in (0, 1), (argv, err)


ROBOT_CONFIG = """
cluster:
  num_nodes: 2
  component_placement:
    actor: 0
    env: {node_group: franka, placement: 0}
  node_groups:
    - label: franka
      node_ranks: 1
      hardware:
        type: Franka
        configs:
          - node_rank: 1
            robot_ip: ${robot}
robot: ROBOT_IP
runner: {task_type: embodied, logger: {log_path: /mnt/output/logs}}
"""


def test_check_with_config_uses_the_overrides_the_job_records(tmp_path: Path, capsys) -> None:
    """A plan that passed with -o passes check --config without repeating it."""
    config = tmp_path / "robot.yaml"
    config.write_text(ROBOT_CONFIG)
    job = tmp_path / "job.yaml"
    fixed = "robot=10.0.0.2"
    common = ["--no-compose", "--gpus-per-node-map", "0:1,1:0"]
    cli(
        capsys,
        "plan",
        str(config),
        *common,
        "--image",
        "r/x:1",
        "--override",
        fixed,
        "-o",
        str(job),
    )
    assert fixed in job.read_text()
    _, out, _ = cli(capsys, "check", str(job), "--config", str(config), *common)
    assert "CFG-ROBOT-IP" not in out, out
    # without the Job's record of it, the placeholder is reported (the check is not blind)
    document = yaml.safe_load(job.read_text())
    document["metadata"]["annotations"].pop("rlark.io/rlinf-overrides")
    document["spec"]["runScript"] = document["spec"]["runScript"].replace(fixed, "")
    job.write_text(yaml.safe_dump(document))
    _, out, _ = cli(capsys, "check", str(job), "--config", str(config), *common)
    assert "CFG-ROBOT-IP" in out
