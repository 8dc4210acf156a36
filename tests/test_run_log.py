"""The run log is a first-class log: the run script's output in the CLI and the app, clean.

The rehearsal's verdict lines are parsed from it (no Ray needed: the rehearsal prints them in a
fixed form); terminal escapes are stripped and secrets redacted like in records.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import NAMESPACE, running
from test_run_identity import local_job

from rlark_widgets.backends.local.rehearsal import verdict
from rlark_widgets.rlark.logs import RUN_LOG, clean_log
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session

if TYPE_CHECKING:
    from kube_emulator import Cluster

KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
RAW = (
    "\x1b[37m2026-12-01 10:00:00,000\tINFO\x1b[0m starting\n"
    "\x1b]0;ray\x07loading 10%\rloading 100%\r\n"
    f"AWS_SECRET_ACCESS_KEY={KEY}\n"
)
PASSED_LOG = [
    "[rlark-local] run mode: rehearsal",
    "[rehearsal]   0.1s REHEARSAL, NOT TRAINING: checks the planned layout on real Ray nodes.",
    "[rehearsal]   9.0s placement verified: 20 processes on 2 nodes as planned",
    "[rehearsal]  12.0s step 6/6",
    "[rehearsal]  12.1s REHEARSAL PASSED: the layout matches the plan. Nothing was trained.",
]


def test_escapes_are_stripped_and_secrets_redacted() -> None:
    text = clean_log(RAW)
    assert text.splitlines()[:2] == [
        "2026-12-01 10:00:00,000\tINFO starting",
        "loading 100%",
    ]
    assert KEY not in text and "AWS_SECRET_ACCESS_KEY=«redacted:" in text
    assert "\x1b" not in text and "[37m" not in text


def test_the_rehearsal_verdict_is_read_from_its_run_log() -> None:
    passed = verdict(PASSED_LOG)
    assert passed is not None and passed.passed
    assert passed.placement == "placement verified: 20 processes on 2 nodes as planned"
    assert passed.line.startswith("REHEARSAL PASSED")
    failed = verdict(
        [*PASSED_LOG[:2], "[rehearsal]  60.0s REHEARSAL FAILED: only 1 of 2 Ray nodes joined"]
    )
    assert failed is not None and not failed.passed and failed.placement is None
    assert failed.line == "REHEARSAL FAILED: only 1 of 2 Ray nodes joined"
    assert verdict(PASSED_LOG[:3]) is None  # still running: no verdict yet


def test_a_local_run_log_carries_the_verdict_into_the_snapshot(tmp_path: Path) -> None:
    backend, where, _ = local_job(tmp_path)
    where.logs.mkdir(parents=True, exist_ok=True)
    where.run_log.write_text("\n".join(PASSED_LOG) + "\n")
    gone = {"pid": 2**22 + 1, "create_time": 1.0}
    run = {**gone, "started": 1.0, "ended": 2.0, "returncode": 0}
    where.write("state.json", {"phase": "ended", "workers": {}, "run": run})
    snap = backend.snapshot("again")
    assert snap.verdict is not None and snap.verdict.passed
    assert snap.verdict.placement == "placement verified: 20 processes on 2 nodes as planned"
    text = backend.logs("again", RUN_LOG)
    assert text.splitlines()[0].startswith("[rlark-local] run mode: rehearsal")
    assert text.splitlines()[-1].endswith(
        "REHEARSAL PASSED: the layout matches the plan. Nothing was trained."
    )


def test_logs_run_is_the_header_workers_log_on_kubernetes(kube: Cluster, tmp_path, capsys):
    backend = running(kube)
    kube.emulator.logs["demo-header-0"] = RAW
    kube.emulator.logs["demo-actor-0"] = "actor\n"
    assert backend.logs("demo", RUN_LOG) == backend.logs("demo", "header/0")
    assert backend.logs("demo", RUN_LOG).startswith("\x1b[37m2026-12-01")
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    flags = ("--backend", "kubernetes", "--kubeconfig", str(config))
    code, out, _ = cli(capsys, "logs", "demo", *flags, "--run")
    assert code == 0 and out.startswith("2026-12-01 10:00:00,000\tINFO starting\n")
    assert KEY not in out and "\x1b" not in out and "«redacted:" in out


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
def test_the_app_offers_the_run_log_first_and_follows_it(tmp_path: Path) -> None:
    backend, where, _ = local_job(tmp_path)
    where.logs.mkdir(parents=True, exist_ok=True)
    where.run_log.write_text(PASSED_LOG[0] + "\n")
    session = Session(workspace=tmp_path)
    app = App(session)
    monitor = app.steps[5]
    assert session.attach("again")
    session._monitor.join(timeout=30)
    assert session.refresh(), session.error
    assert list(monitor.worker_choice.options)[:2] == [
        ("Run script (on the Header's Worker)", RUN_LOG),
        ("header/0", "header/0"),
    ]
    assert monitor.worker_choice.value == RUN_LOG
    assert "run mode: rehearsal" in html.unescape(monitor.log.value)
    with where.run_log.open("a") as log:
        log.write("\x1b[32m" + PASSED_LOG[-1] + "\x1b[0m\n")
    assert session.refresh(), session.error  # the next refresh shows the new line
    shown = html.unescape(monitor.log.value)
    assert "REHEARSAL PASSED" in shown and "\x1b" not in shown
    assert "class='log'" in monitor.log.value  # the box that stays at its newest line
