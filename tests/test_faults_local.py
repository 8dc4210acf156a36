"""Faults on the local backend (issue #8): real Ray processes killed or hanging, files unwritable.

The slow tests start real Ray nodes; each ends its Job and checks by PID, session and run token
that no process is left (``ray stop`` is never used: it would end other runs on this machine).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from test_cli_plan import cli
from test_local_backend import (
    ONE_NODE,
    START_TIMEOUT,
    finished,
    planned,
    stop_and_check,
    survivors,
    wait_for,
)

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.layout import JobDir, tail_lines
from rlark_widgets.examples import example_configs
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.snapshot import FAILED, MEMBERS, JobSnapshot
from rlark_widgets.rlark.record import RecordError, RunRecord
from rlark_widgets.rlark.site import example_site
from rlark_widgets.ui.session import Session

PREPARING = "waiting for the robot arm at 10.0.0.9"


def record_of(workspace: Path, name: str, key: str) -> dict:
    """The supervisor's record of one Worker (PID, start time, exit)."""
    return (JobDir.of(workspace, name).read("state.json") or {}).get("workers", {}).get(key) or {}


def wait_until(check, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def session_members(leader: int) -> list[psutil.Process]:
    """Live processes of the session ``leader`` started."""
    found = []
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getsid(proc.pid) == leader and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("local-faults")


@pytest.fixture(scope="module")
def startup(workspace: Path) -> Iterator[tuple[LocalBackend, JobSnapshot]]:
    """A 2-Worker rehearsal whose second Worker is killed while its prepare script runs; the
    head stays up (its Ray node lingers) for the head test that follows."""
    backend = LocalBackend(workspace, member_timeout=3, step_seconds=0.2, site=example_site())
    job, report = planned("killed-at-start")
    job.roles[1].prepare_script = f"echo '{PREPARING}'\nsleep 300\n"
    backend.submit(job, expansion=report.expansion)
    try:
        log = Path(JobDir.of(workspace, job.name).worker_log("workers/0"))
        wait_until(lambda: PREPARING in "\n".join(tail_lines(log, 5)))
        os.killpg(record_of(workspace, job.name, "workers/0")["pid"], signal.SIGKILL)
        yield backend, wait_for(backend, job.name, finished, START_TIMEOUT)
    finally:
        stop_and_check(backend, workspace, job.name)


@pytest.mark.slow
def test_a_worker_killed_during_start_up_fails_the_job_naming_it(startup) -> None:
    _, snap = startup
    assert (snap.phase, snap.run_script_state) == ("Failed", "failed")
    worker = snap.workers[1]
    assert (worker.key, worker.phase, worker.reason, worker.exit_code, worker.restarts) == (
        "workers/0",
        FAILED,
        "Killed (SIGKILL)",
        137,
        0,  # killed before Ray started: not restarted like a Ray that fails to join
    )
    assert (
        str(worker.message) == f"it was killed during its prepare script (last line: {PREPARING})"
    )
    assert (
        diagnose(snap).title
        == "Worker workers/0 (RLINF_NODE_RANK 1) failed: Killed (SIGKILL) (exit code 137)."
    )
    # the rehearsal stops waiting once that Worker is given up, and names it
    assert (
        "RLINF_NODE_RANK 1 (Worker workers/0) could not start and was given up" in snap.log_tail[-1]
    )


@pytest.mark.slow
def test_a_killed_head_leaves_no_member_and_the_diagnosis_names_it(startup, workspace) -> None:
    backend, _ = startup
    head = record_of(workspace, "killed-at-start", "header/0")
    os.killpg(head["pid"], signal.SIGKILL)
    snap = wait_for(backend, "killed-at-start", lambda s: s.workers[0].phase == FAILED, 10.0)
    header = snap.workers[0]
    assert (header.key, header.head, header.reason, header.exit_code) == (
        "header/0",
        True,
        "Killed (SIGKILL)",
        137,
    )
    assert snap.members == [] and snap.members_alive == 0
    assert str(snap.lacks(MEMBERS)) == "Ray members: the Ray head's Worker header/0 is not running"
    verdict = diagnose(snap)
    assert verdict.title == (
        "The Ray head's Worker header/0 (RLINF_NODE_RANK 0) failed: Killed (SIGKILL) "
        "(exit code 137)."
    )
    assert verdict.fix.startswith("Every Ray member depends on the head")


@pytest.mark.slow
def test_a_run_script_that_hangs_is_ended_by_the_run_timeout(workspace: Path) -> None:
    script = "echo 'connecting to the robot at 10.0.0.9'\nsleep 600\n"
    backend = LocalBackend(workspace, run_mode="job", run_timeout=4, grace=2, site=example_site())
    job, _ = planned("hangs", ONE_NODE, run_script=script)
    backend.submit(job)
    try:
        snap = wait_for(backend, job.name, finished, START_TIMEOUT)
        assert (snap.phase, snap.run_script_state, snap.run_script_exit_code) == (
            "Failed",
            "failed",
            143,  # SIGTERM
        )
        line = (
            "[rlark-local] timeout: the run script did not finish within run_timeout (4 s) and "
            "was ended: it may hang (waiting for Ray members, a lock or input)."
        )
        assert snap.log_tail[-2:] == ["connecting to the robot at 10.0.0.9", line]
        verdict = diagnose(snap)
        assert (verdict.title, verdict.detail) == (
            "The run script failed with exit code 143.",
            line,
        )
        run = JobDir.of(workspace, job.name).read("state.json")["run"]
        assert run["ended"] - run["started"] < 4 + 2 + 5  # the timeout, the grace, polling
        assert session_members(run["pid"]) == []  # its sleep went with it, before any stop
        assert survivors(workspace, job.name)  # the Workers stay up for inspection
    finally:
        stop_and_check(backend, workspace, job.name)


# --- files that cannot be written (no Ray) -------------------------------------------------------
def test_an_unwritable_workspace_is_refused_naming_the_path_and_a_fix(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the workspace should be")
    job, report = planned("nowhere", ONE_NODE)
    with pytest.raises(BackendError) as caught:
        LocalBackend(blocker / "workspace", site=example_site()).submit(
            job, expansion=report.expansion
        )
    assert caught.value.message == (
        f"Cannot write the local Job's files in {blocker}/workspace/nowhere: Not a directory."
    )
    assert caught.value.fix.startswith(
        "Choose a writable workspace (--workspace or $RLARK_WORKSPACE)"
    )
    assert blocker.read_text() == "a file where the workspace should be"


def test_a_run_timeout_must_be_positive() -> None:
    with pytest.raises(BackendError) as caught:
        LocalBackend("/tmp", run_timeout=0, site=example_site())
    assert caught.value.message == "run_timeout must be a positive number of seconds, not 0."


@pytest.mark.parametrize("name", ["record", "record.zip"])
def test_a_record_under_a_file_names_the_file_in_the_way(tmp_path: Path, name: str) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("")
    with pytest.raises(RecordError) as caught:
        RunRecord({"job.yaml": "kind: Job\n"}, []).write(blocker / name)
    assert str(caught.value) == (
        f"Cannot write the run record to {blocker / name}: {blocker} is a file, not a directory. "
        "Choose a writable directory."
    )


def test_a_record_where_even_root_cannot_write_says_why() -> None:
    """/proc refuses new entries to root too (CI runs as root, where chmod stops nothing)."""
    with pytest.raises(RecordError) as caught:
        RunRecord({"job.yaml": "kind: Job\n"}, []).write("/proc/rlark-record")
    assert str(caught.value) == (
        "Cannot write the run record to /proc/rlark-record: No such file or directory. "
        "Choose a writable directory."
    )


def test_plan_record_into_a_file_fails_with_the_message(tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("")
    config = example_configs()["local_rehearsal_2node"]
    code, _, err = cli(capsys, "plan", str(config), "--record", str(blocker / "record"))
    assert code == 1 and "Traceback" not in err
    assert f"{blocker} is a file, not a directory. Choose a writable directory." in err


def test_the_app_keeps_its_plan_when_the_record_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("")
    s = Session(workspace=tmp_path / "workspace")
    assert s.load_example("local_rehearsal_2node"), s.error
    before = s.job_yaml
    assert s.record_zip(blocker / "record.zip") is None
    assert s.error == (
        f"Record: Cannot write the run record to {blocker / 'record.zip'}: {blocker} is a file, "
        "not a directory. Choose a writable directory."
    )
    assert s.job_yaml == before
