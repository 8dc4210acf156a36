"""rlark-migrate list (issue #18): every Job of the backend with its phase, Workers, step and
latest checkpoint, against the emulator over real HTTP, as text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import CHECKPOINTS, NAMESPACE, demo_job, running


def test_list_shows_every_job_with_its_phase_workers_and_checkpoint(kube, tmp_path: Path, capsys):
    running(kube)
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 10)
    kube.backend().submit(demo_job("later"))
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    argv = ["--backend", "kubernetes", "--kubeconfig", str(config)]
    code, out, _ = cli(capsys, "list", *argv, "--json")
    rows = json.loads(out)
    assert code == 0 and [r["name"] for r in rows] == ["demo", "later"]
    demo, later = rows
    assert (demo["workers_running"], demo["workers_expected"]) == (3, 3)
    assert demo["latest_checkpoint"] == "global_step_10" and demo["last_step"] == 10
    assert (later["workers_running"], later["latest_checkpoint"]) == (0, None)
    code, out, _ = cli(capsys, "list", *argv)
    lines = out.splitlines()
    run = kube.job("demo")["metadata"]["uid"]
    assert demo["run"] == run and later["run"] != run
    assert lines[0].startswith(
        f"demo  Running  run {run[:8]}  Workers 3/3  step 10  global_step_10"
    )
    assert lines[1].startswith("later  ") and "no checkpoint" in lines[1]
    code, out, _ = cli(capsys, "list", *argv, "--lang", "zh")
    assert "Worker 3/3  第 10 步" in out.splitlines()[0]


def test_an_empty_namespace_says_so(kube, tmp_path: Path, capsys):
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    code, out, _ = cli(capsys, "list", "--backend", "kubernetes", "--kubeconfig", str(config))
    assert code == 0 and out.strip() == "No Jobs on the kubernetes backend."
