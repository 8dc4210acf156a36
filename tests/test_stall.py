"""Stall is a state of a running Job only (issue #24 item 3): a Succeeded run, or one whose run
script ended while its Workers hold their nodes, shows its last step, never "stalled", in the
app, ``status`` and ``status --watch``; and submitting it again says it finished, not that it
is "already running"."""

from __future__ import annotations

import dataclasses
import html
import time
from pathlib import Path

from test_cli_jobs import cli
from test_notices import snap
from test_run_identity import local_job

from rlark_widgets.backends.local.rehearsal import _tensorboard
from rlark_widgets.i18n import render
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.notices import STALL, notices
from rlark_widgets.monitor.snapshot import JobPhase
from rlark_widgets.monitor.summary import inside_lines
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session

STALLED_WORDS = ("stalled", "停滞")


def test_an_ended_run_has_no_pace_and_never_stalls() -> None:
    running = snap(steps=(10,))
    assert running.pace is not None
    late = 1090.0 + 150  # ten median steps after the last one
    assert dataclasses.replace(running, time=late).pace.state == "stalled"  # type: ignore[union-attr]
    for ended in (
        snap(JobPhase.SUCCEEDED, (10,), now=late),
        dataclasses.replace(snap(steps=(10,), now=late), run_script_state="succeeded"),
    ):
        assert ended.pace is None
        assert [n.kind for n in notices(running, ended) if n.kind == STALL] == []
        assert diagnose(ended).link != "steps-advancing"
        for lang in ("en", "zh"):
            shown = " ".join(render(line, lang) for line in inside_lines(ended))
            assert not any(word in shown for word in STALLED_WORDS), shown


def test_a_stall_notice_names_the_state_once() -> None:
    before = snap(steps=(10,))
    (told,) = notices(before, dataclasses.replace(before, time=1090.0 + 150))
    assert render(told.text).startswith("demo steps: stalled: step 10 came 150 s ago")
    assert render(told.text, "zh").count("停滞") == 1


def _finished_local_run(tmp_path: Path) -> None:
    """A local rehearsal that succeeded 60 s after its last step (its Workers are gone)."""
    _, where, plan = local_job(tmp_path)
    board = Path(plan["paths"]["tensorboard"]["local"])
    board.mkdir(parents=True, exist_ok=True)
    write = _tensorboard(board)
    assert write is not None
    last = time.time() - 60
    for step in range(1, 7):
        write({"step": step, "time": last - 6 + step, "loss": 1.0 / step})
    where.logs.mkdir(parents=True, exist_ok=True)
    where.run_log.write_text("[rlark-local] run mode: rehearsal\n")
    gone = {"pid": 2**22 + 1, "create_time": 1.0}
    run = {**gone, "started": last - 30, "ended": last + 1, "returncode": 0}
    where.write("state.json", {"phase": "ended", "workers": {}, "run": run})


def test_status_and_watch_show_a_finished_run_without_a_stall(tmp_path: Path, capsys) -> None:
    _finished_local_run(tmp_path)
    for lang in ("en", "zh"):
        for watch in ((), ("--watch", "--interval", "0.2")):
            argv = ("--lang", lang, "status", "again", "--workspace", str(tmp_path), *watch)
            code, out, err = cli(capsys, *argv)
            assert "loss=0.1667" in out, out + err  # the curves are read
            assert not any(word in out for word in STALLED_WORDS), out


def test_the_app_shows_a_finished_run_without_a_stall(tmp_path: Path) -> None:
    _finished_local_run(tmp_path)
    session = Session(workspace=tmp_path)
    app = App(session)
    monitor = app.steps[5]
    assert session.attach("again")
    session._monitor.join(timeout=30)
    assert session.refresh(), session.error
    for lang in ("en", "zh"):
        session.lang = lang
        shown = html.unescape(monitor.summary.value + app.run_notices.value)
        assert "loss=0.1667" in shown
        assert not any(word in shown for word in STALLED_WORDS), shown
