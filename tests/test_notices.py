"""Telling the user when something happens (issue #18): a checkpoint, the end, a failure or a
stall of a watched run, once each; in the app's header and on its own line in status --watch."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from test_scalars import series

from rlark_widgets.i18n import render
from rlark_widgets.monitor.notices import CHECKPOINT, ENDED, FAILED, STALL, notices
from rlark_widgets.monitor.snapshot import Checkpoint, JobPhase, JobSnapshot, RunInfo
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session


def snap(
    phase: JobPhase = JobPhase.RUNNING, steps: tuple[int, ...] = (), now: float = 1095.0
) -> JobSnapshot:
    out = JobSnapshot("demo", "local", now, phase=phase)
    out.checkpoints = [Checkpoint(s, f"/ckpt/global_step_{s}") for s in steps]
    out.scalars = series(list(range(1, 11)), 10.0)
    return out


def test_each_event_is_told_once_when_it_happens():
    first = snap()
    assert notices(None, first) == []  # attaching is no event
    saved = snap(steps=(10,))
    (told,) = notices(first, saved)
    assert (told.kind, render(told.text)) == (CHECKPOINT, "demo saved checkpoint global_step_10.")
    assert notices(saved, snap(steps=(10,))) == []
    stalled = snap(steps=(10,), now=1090.0 + 150)
    (told,) = notices(saved, stalled)
    assert told.kind == STALL and render(told.text).startswith("demo steps: stalled: step 10")
    assert notices(stalled, dataclasses.replace(stalled, time=1090.0 + 200)) == []
    assert [n.kind for n in notices(saved, snap(JobPhase.FAILED, (10,)))] == [FAILED]
    (ended,) = notices(saved, snap(JobPhase.SUCCEEDED, (10,)))
    assert ended.kind == ENDED and render(ended.text, "zh") == "demo 已结束：已成功。"


def test_another_run_of_the_job_is_no_event_of_this_one():
    before, after = snap(), snap(JobPhase.FAILED, (10,))
    before.run, after.run = RunInfo("uid-1", 1000.0), RunInfo("uid-2", 1050.0)
    assert notices(before, after) == []  # submitted again elsewhere: its charts start afresh
    after.run = RunInfo("uid-1", 1000.0)
    assert [n.kind for n in notices(before, after)] == [CHECKPOINT, FAILED]


def test_the_app_header_shows_the_events_whatever_step_is_open(tmp_path: Path):
    session = Session(workspace=tmp_path)
    app = App(session)
    session.notices = notices(snap(), snap(steps=(10,)))
    assert "demo saved checkpoint global_step_10." in app.run_notices.value
    session.lang = "zh"
    assert "demo 已保存 checkpoint global_step_10。" in app.run_notices.value
    assert app.run_notices in app.header.children


def test_status_watch_prints_each_event_on_its_own_line(kube, tmp_path: Path, capsys):
    import threading

    from test_cli_jobs import cli, write_kubeconfig
    from test_kubernetes_backend import CHECKPOINTS, NAMESPACE, running

    running(kube)
    kube.ray("demo")
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    served = kube.emulator.served

    def cluster_side() -> None:
        deadline = time.monotonic() + 60
        while kube.emulator.served < served + 8 and time.monotonic() < deadline:
            time.sleep(0.01)  # a refresh or two without a checkpoint
        kube.checkpoint(CHECKPOINTS, 10)
        time.sleep(1.0)
        kube.set_job_status("demo", "Succeeded")
        time.sleep(0.5)
        kube.end_workers("demo")  # the watch goes on until the Workers are gone

    driver = threading.Thread(target=cluster_side)
    driver.start()
    argv = ["--backend", "kubernetes", "--kubeconfig", str(config)]
    code, out, _ = cli(capsys, "status", "demo", *argv, "--watch", "--interval", "0.1")
    driver.join()
    lines = out.splitlines()
    assert code == 0
    # without a terminal each notice is printed once, not under every refresh (#24 item 18)
    assert lines.count("» demo saved checkpoint global_step_10.") == 1
    assert lines.count("» demo ended: Succeeded.") == 1
    held = "demo has ended but still holds 3 Workers; Stop releases them:"
    assert any(line.startswith(held) for line in lines)
