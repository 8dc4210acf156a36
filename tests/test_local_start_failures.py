"""A Worker that cannot start on a busy machine, said as that (#24 item 16), in both languages.

``ray start`` that times out registering with the head ends with Ray's "... or the GCS has
become overloaded": the Worker's reason is StartTimedOut, its message frames Ray's words and the
fix is about load, never memory (the generic fix had told every failed Worker about OOMKilled).
Once the supervisor gives a Worker up, the rehearsal stops waiting for its node at once, and
the submit message's expected start time is what this machine measured.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from test_i18n_backends import FakeRay, chinese, failure, node, rehearsal

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.rehearsal import GIVEN_UP_ENV
from rlark_widgets.backends.local.spec import build_plan, build_spec
from rlark_widgets.backends.local.start_times import join_seconds, start_estimate
from rlark_widgets.monitor.diagnosis import START_TIMED_OUT, diagnose
from rlark_widgets.monitor.snapshot import FAILED
from rlark_widgets.rlark.job import Job, Role
from rlark_widgets.rlark.site import example_site

RAY_TIMEOUT = (
    "Exception: The current node timed out during startup. This could happen because some of "
    "the raylet failed to startup or the GCS has become overloaded."
)
GONE = {"pid": 2**22 + 1, "create_time": 1.0}  # above pid_max: never a live process


def _failed_job(tmp_path: Path, last_line: str, joined: bool = False) -> LocalBackend:
    backend = LocalBackend(tmp_path, site=example_site())
    job = Job("busy", [Role("header", 1, head=True), Role("workers", 1)])
    where = JobDir.of(tmp_path, job.name)
    spec = build_spec(job, where, backend.options, site=example_site())
    where.write("spec.json", spec.to_json())
    mounts = MountMap.for_job(job, where.root)
    where.write("plan.json", build_plan(job, where, backend.options, None, None, mounts))
    where.write("supervisor.json", GONE)
    log = Path(spec.workers[1].log)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        "[rlark-local] start 10:00:00 Worker workers/0\n"
        "[rlark-local] prepare script done; starting Ray\n"
        f"Traceback (most recent call last):\n{last_line}\n"
    )
    worker = {**GONE, "started": 1.0, "ended": 40.0, "returncode": 1, "restarts": 2}
    if joined:
        worker["joined"] = 20.0
    where.write(
        "state.json",
        {
            "phase": "ended",
            "workers": {
                "header/0": {
                    **GONE,
                    "started": 0.5,
                    "joined": 1.0,
                    "ended": 50.0,
                    "returncode": -15,
                    "stopped_by": "completed",
                },
                "workers/0": worker,
            },
        },
    )
    return backend


def test_a_start_timeout_is_load_not_memory_in_both_languages(tmp_path: Path) -> None:
    snap = _failed_job(tmp_path, RAY_TIMEOUT).snapshot("busy")
    worker = snap.workers[1]
    assert (worker.phase, worker.reason) == (FAILED, START_TIMED_OUT)
    assert "the GCS has become overloaded" in str(worker.message)
    assert "busy, not short of memory" in str(worker.message)
    assert "机器太忙" in chinese(worker.message)
    diagnosis = diagnose(snap)
    assert "OOMKilled" not in str(diagnosis.fix) and "memory" in str(diagnosis.fix)
    assert str(diagnosis.fix).startswith("Its Ray node could not register with the head in time")
    assert "加内存没有用" in chinese(diagnosis.fix_text)


def test_another_failure_is_framed_and_gets_no_memory_advice(tmp_path: Path) -> None:
    snap = _failed_job(tmp_path, "RuntimeError: port 6380 taken").snapshot("busy")
    worker = snap.workers[1]
    assert worker.reason == "Error"
    assert str(worker.message) == (
        "Ray ended before its node joined; the last line of its log: RuntimeError: port 6380 taken"
    )
    assert chinese(worker.message).startswith("Ray 在节点加入之前就退出了")
    fix = diagnose(snap).fix
    assert "OOMKilled" not in str(fix) and "日志" in chinese(diagnose(snap).fix_text)


def test_the_rehearsal_stops_waiting_once_a_worker_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    waiting = rehearsal(tmp_path, member_timeout=600)
    monkeypatch.setenv(GIVEN_UP_ENV, "RLINF_NODE_RANK 1 (Worker workers/0)")
    began = time.monotonic()
    said = failure(lambda: waiting.wait_for_members(FakeRay([node(0)])))
    assert time.monotonic() - began < 5  # not the 600 s member timeout
    assert said == (
        "only 1 of 2 Ray nodes joined, and no more will: RLINF_NODE_RANK 1 (Worker workers/0)"
        " could not start and was given up. RLinf would wait forever here; read that Worker's log."
    )


def test_the_expected_start_time_is_what_this_machine_measured(tmp_path: Path) -> None:
    assert join_seconds(tmp_path) == []
    assert "nothing measured here yet" in str(start_estimate(tmp_path))
    for name, seconds in (("a", [20.0, 110.0]), ("b", [30.0])):
        (tmp_path / name).mkdir()
        workers = {f"w/{i}": {"started": 100.0, "joined": 100.0 + s} for i, s in enumerate(seconds)}
        workers["never"] = {"started": 100.0}  # never joined: nothing measured
        (tmp_path / name / "state.json").write_text(json.dumps({"workers": workers}))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "state.json").write_text("{not json")
    assert sorted(join_seconds(tmp_path)) == [20.0, 30.0, 110.0]
    estimate = start_estimate(tmp_path)
    assert str(estimate) == "30 s each in the recent runs here, up to 110 s"
    assert chinese(estimate) == "本机最近几次运行中每个约 30 秒，最长 110 秒"


def test_the_submit_message_carries_the_measured_time(tmp_path: Path) -> None:
    (tmp_path / "earlier").mkdir()
    record = {"workers": {"header/0": {"started": 1.0, "joined": 58.0}}}
    (tmp_path / "earlier" / "state.json").write_text(json.dumps(record))
    backend = LocalBackend(tmp_path, site=example_site())
    os.environ.pop(GIVEN_UP_ENV, None)
    from rlark_widgets.backends.local.backend import _started_message

    job = Job("new", [Role("header", 1, head=True)])
    where = JobDir.of(tmp_path, job.name)
    spec = build_spec(job, where, backend.options, site=example_site())
    plan = build_plan(job, where, backend.options, None, None, MountMap.for_job(job, where.root))
    message = _started_message(job, spec, plan, False, None, tmp_path)
    assert "(the Ray head first; 57 s each in the recent runs here, up to 57 s)" in str(message)
    assert "roughly 15-45 s" not in str(message)
    assert "本机最近几次运行中每个约 57 秒" in chinese(message)
    # the workspace is said to be shared (#24 item 18)
    assert str(message).endswith(
        f"The workspace {tmp_path} is shared by every rlark-widgets process of this user (the app,"
        " the CLI, the notebooks): a Job name is one Job there; $RLARK_WORKSPACE (or --workspace)"
        " gives a project its own."
    )
    assert f"工作区 {tmp_path} 由当前用户的所有 rlark-widgets 进程" in chinese(message)
