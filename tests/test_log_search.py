"""All Workers' logs at once (issue #18): search by text, Worker and level, follow, and one zip
of every log redacted as records are; against the emulator's pod logs over real HTTP."""

from __future__ import annotations

import zipfile
from pathlib import Path

from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import NAMESPACE, running

from rlark_widgets.monitor.log_levels import header_level
from rlark_widgets.monitor.log_search import appended, search

LOGS = {
    "header/0": "INFO step 1\nWARNING slow collective\nplain line\nERROR NCCL timeout",
    "actor/0": "INFO step 1\nWARN disk almost full\nFATAL actor died",
}


def test_search_filters_by_text_worker_and_level():
    assert [str(x) for x in search(LOGS, "step")] == [
        "[header/0] INFO step 1",
        "[actor/0] INFO step 1",
    ]
    assert [x.text for x in search(LOGS, level="WARNING")] == [
        "WARNING slow collective",
        "ERROR NCCL timeout",
        "WARN disk almost full",
        "FATAL actor died",
    ]
    assert [(x.worker, x.number) for x in search(LOGS, "", ["actor/0"], "ERROR")] == [
        ("actor/0", 3)
    ]
    assert [x.text for x in search(LOGS, "nccl")] == ["ERROR NCCL timeout"]
    assert (header_level("WARN x"), header_level("FATAL y"), header_level("no level")) == (
        "WARNING",
        "CRITICAL",
        None,
    )


def test_follow_takes_only_the_lines_written_since_the_last_read():
    before = ["a", "b", "c"]
    assert appended(before, ["b", "c", "d", "e"]) == ["d", "e"]  # the tail moved on by one
    assert appended(before, ["a", "b", "c"]) == []
    assert appended(before, ["x", "y"]) == ["x", "y"]  # nothing shared: all is new
    assert appended([], ["a"]) == ["a"]


def test_logs_all_searches_every_worker_and_zips_them_redacted(kube, tmp_path: Path, capsys):
    running(kube)
    kube.ray("demo")
    kube.emulator.logs["demo-header-0"] = "INFO step 3\nERROR NCCL timeout on rank 1\n"
    kube.emulator.logs["demo-actor-0"] = (
        "INFO loading\nexport AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    )
    kube.emulator.logs["demo-env-0"] = "WARNING robot camera slow\n"
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    argv = ["--backend", "kubernetes", "--kubeconfig", str(config)]
    code, out, _ = cli(capsys, "logs-all", "demo", *argv, "--level", "WARNING")
    assert code == 0
    assert out.splitlines() == [
        "[header/0] ERROR NCCL timeout on rank 1",
        "[env/0] WARNING robot camera slow",
    ]
    code, out, _ = cli(
        capsys, "logs-all", "demo", *argv, "--grep", "loading", "--worker", "actor/0"
    )
    assert out.splitlines() == ["[actor/0] INFO loading"]
    target = tmp_path / "logs.zip"
    code, out, _ = cli(capsys, "logs-all", "demo", *argv, "--zip", str(target))
    assert code == 0 and out.strip() == f"Wrote 3 logs to {target}"
    with zipfile.ZipFile(target) as archive:
        assert sorted(archive.namelist()) == [
            "logs/actor-0.log",
            "logs/env-0.log",
            "logs/header-0.log",
        ]
        actor = archive.read("logs/actor-0.log").decode()
    assert "wJalrXUtnFEMI" not in actor and "«redacted:" in actor
