"""A local Job's snapshot, read from its directory, its processes and its Ray head.

Workers: process state and exit code (Kubernetes-style phases and reasons); Ray members from
the head's dashboard; the run script's state and log tail; checkpoints and progress from the
files the rehearsal (or RLinf) writes. Works from any process: nothing is kept in memory.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

from ...i18n import Text
from ...monitor.diagnosis import START_TIMED_OUT
from ...monitor.links import Link, local_links
from ...monitor.runs import split_checkpoints
from ...monitor.snapshot import (
    FAILED,
    GPUS,
    MEMBERS,
    PENDING,
    PLAN,
    RUNNING,
    STOPPED,
    SUCCEEDED,
    SUPERVISOR,
    EventRecord,
    JobPhase,
    JobSnapshot,
    Progress,
    RunInfo,
    WorkerSnapshot,
)
from ..checkpoints import local_checkpoints
from ..events import scalars_into
from ..gpu_use import SUMMARY_PATH, gpu_use_into
from .layout import JobDir, slug, tail_lines
from .procs import ProcessRef, exit_reason
from .ray_nodes import (
    MembersUnavailable,
    fetch_members,
    last_attempt,
    prepare_failed,
    start_timed_out,
)
from .rehearsal import verdict
from .spec import Spec, WorkerSpec
from .tensorboard import running_url

LOG_TAIL = 20
#: Lines of the run log searched for the rehearsal's verdict.
VERDICT_LINES = 400
#: Phase and reason of a Worker the supervisor ended, by why it ended it: a stop is neither
#: success nor failure; the end of a finished run is success; a supervisor error is a failure.
STOPPED_BY = {
    "stop": (STOPPED, "Stopped"),
    "completed": (SUCCEEDED, "Completed"),
    "error": (FAILED, "SupervisorError"),
}


def read_snapshot(where: JobDir) -> JobSnapshot:
    """Everything known about the Job in ``where``; ``exists=False`` when it was never submitted."""
    snap = JobSnapshot(job=where.name, backend="local", time=time.time())
    spec_data = where.read("spec.json")
    if spec_data is None:
        snap.exists = False
        return snap
    spec = Spec.from_json(spec_data)
    state = where.read("state.json") or {}
    plan = where.read("plan.json") or {}
    stopped = where.file("stop.json").is_file()
    snap.rehearsal = spec.run.mode == "rehearsal"
    snap.run = RunInfo(spec.run_id, spec.submitted)
    snap.expected_workers = plan.get("num_nodes", len(spec.workers))
    supervisor = ProcessRef.from_json(where.read("supervisor.json"))
    watched = supervisor is not None and supervisor.alive
    if not watched and state.get("phase") != "ended":
        snap.lack(SUPERVISOR, Text("it exited early: exit codes of Workers may be unknown"))
    records = state.get("workers", {})
    snap.workers = [
        _worker(spec, w, records.get(w.key), stopped, watched)
        for w in sorted(spec.workers, key=lambda w: w.rank)
    ]
    snap.tasks = _tasks(snap.workers)
    _members(snap, spec, state)
    _run_script(snap, spec, state.get("run"), stopped, watched, where.read("rehearsal.json"))
    _outputs(snap, plan, (state.get("run") or {}).get("started"), spec.submitted)
    if not snap.rehearsal:  # the Job's own run: its step budget, not the rehearsal's
        snap.progress.max_steps = plan.get("planned_steps")
    snap.phase = _phase(snap, stopped)
    snap.links = _links(snap, where, spec, state)
    return snap


def _links(snap: JobSnapshot, where: JobDir, spec: Spec, state: dict[str, Any]) -> list[Link]:
    """The head's Ray dashboard while it runs; TensorBoard's URL once started, else how to."""
    head = state.get("head")
    up = any(w.head and w.phase == RUNNING for w in snap.workers)
    dashboard = f"http://{spec.options.node_ip}:{head['dashboard_port']}" if head and up else None
    logdir = (((where.read("plan.json") or {}).get("paths") or {}).get("tensorboard") or {}).get(
        "local"
    )
    return local_links(dashboard, running_url(where), logdir)


def _worker(
    spec: Spec, worker: WorkerSpec, record: dict[str, Any] | None, stopped: bool, watched: bool
) -> WorkerSnapshot:
    """``watched``: the supervisor is alive, so an exit it has not recorded yet soon will be."""
    snap = WorkerSnapshot(
        role=worker.role,
        index=worker.index,
        rank=worker.rank,
        name=f"{spec.job}-{slug(worker.role)}-{worker.index}",
        node=socket.gethostname(),
        ip=spec.options.node_ip,
        head=worker.head,
    )
    if record is None:
        snap.phase, snap.reason = (STOPPED, "NotStarted") if stopped else (PENDING, "Waiting")
        snap.message = (
            Text("never started: the Job was stopped first")
            if stopped
            else Text("Workers start one after another")
        )
        return snap
    snap.events = _events(record)
    snap.restarts = record.get("restarts", 0)
    returncode = record.get("returncode")
    if returncode is None and (watched or _alive(record)):
        snap.phase = RUNNING
        snap.message = record.get("note")
        return snap
    by = record.get("stopped_by")  # set by the supervisor on the processes it ended
    if returncode is None:  # nobody recorded the exit: a stop explains it, else it is lost
        by = by or ("stop" if stopped else None)
        snap.phase, snap.reason = STOPPED_BY[by] if by else (FAILED, "Gone")
        snap.message = (
            None if by else Text("it ended while no supervisor watched it: exit code unknown")
        )
        return snap
    reason, snap.exit_code = exit_reason(returncode)
    if by:
        snap.phase, snap.reason = STOPPED_BY[by]
        return snap
    lines = tail_lines(Path(worker.log), 400)
    timed_out = not prepare_failed(lines) and start_timed_out(lines)
    snap.phase, snap.reason = FAILED, START_TIMED_OUT if timed_out else reason
    snap.message = _failure_message(lines, returncode < 0, bool(record.get("joined")))
    return snap


def _failure_message(lines: list[str], killed: bool, joined: bool) -> Text:
    """The last line of the Worker's last attempt, framed by what it means (a line of Ray's
    alone, in English, read as if it were ours)."""
    last = next((line.strip() for line in reversed(last_attempt(lines)) if line.strip()), "")
    if not prepare_failed(lines):
        if start_timed_out(lines):
            return Text(
                "Ray gave up starting its node: it did not register with the Ray head within "
                'Ray\'s 30 s, which Ray words as "the GCS has become overloaded"; on this '
                "machine that means it was busy, not short of memory."
            )
        if joined:
            return Text("its Ray node ended; the last line of its log: {line}", line=last)
        return Text("Ray ended before its node joined; the last line of its log: {line}", line=last)
    if killed:
        return Text("it was killed during its prepare script (last line: {line})", line=last)
    return Text("the prepare script failed: {line}", line=last)


def _events(record: dict[str, Any]) -> list[EventRecord]:
    events = [
        EventRecord(e["reason"], e["message"], "Warning", time=e["time"])
        for e in record.get("events", [])
    ]
    events.append(EventRecord("Started", Text("process started"), time=record.get("started")))
    if record.get("joined"):
        events.append(EventRecord("RayJoined", Text("Ray node ALIVE"), time=record["joined"]))
    if record.get("ended"):
        code = record.get("returncode")
        kind = "Normal" if code == 0 or record.get("stopped_by") else "Warning"
        exited = Text("return code {code}", code=code)
        events.append(EventRecord("Exited", exited, kind, time=record["ended"]))
    return events


def _tasks(workers: list[WorkerSnapshot]) -> list[dict[str, Any]]:
    tasks: dict[str, dict[str, Any]] = {}
    for worker in workers:
        task = tasks.setdefault(
            worker.role,
            {"name": worker.role, "replicas": 0, "pending": 0, "running": 0, "failed": 0},
        )
        task["replicas"] += 1
        column = {PENDING: "pending", RUNNING: "running", FAILED: "failed"}.get(worker.phase)
        if column:
            task[column] += 1
    return list(tasks.values())


def _members(snap: JobSnapshot, spec: Spec, state: dict[str, Any]) -> None:
    """Members from the head's dashboard; none, and why, once the head has failed."""
    head = state.get("head")
    head_worker = next(w for w in snap.workers if w.key == spec.head.key)
    if head_worker.phase == FAILED:  # the dashboard went with it: no member can be known
        why = Text("the Ray head's Worker {worker} is not running", worker=head_worker.key)
        snap.lack(MEMBERS, why)
        return
    if head is None or head_worker.phase != RUNNING:  # not started yet, or ended normally
        return
    try:
        members = fetch_members(spec.options.node_ip, head["dashboard_port"])
    except MembersUnavailable as exc:
        snap.lack(MEMBERS, Text("the Ray dashboard did not answer: {error}", error=str(exc)))
        return
    snap.members = sorted(members, key=lambda m: (m.node_rank is None, m.node_rank or 0))
    _gpu_use(snap, spec.options.node_ip, head["dashboard_port"])


def _gpu_use(snap: JobSnapshot, node_ip: str, port: int) -> None:
    """GPU use per Worker from the head's node summary (logical GPUs: a note, no zeros)."""
    try:
        with urllib.request.urlopen(f"http://{node_ip}:{port}{SUMMARY_PATH}", timeout=3) as answer:
            gpu_use_into(snap, json.load(answer))
    except (OSError, ValueError) as exc:
        snap.lack(GPUS, Text("the Ray dashboard did not answer: {error}", error=str(exc)))


def _run_script(
    snap: JobSnapshot,
    spec: Spec,
    run: dict[str, Any] | None,
    stopped: bool,
    watched: bool,
    report: dict[str, Any] | None,
) -> None:
    if run is None:
        snap.run_script_state = "not started"
        return
    lines = tail_lines(Path(spec.run.log), VERDICT_LINES)
    snap.log_tail = lines[-LOG_TAIL:]
    if spec.run.mode == "rehearsal":
        snap.verdict = verdict(lines, report)
    returncode = run.get("returncode")
    if returncode is None:
        unrecorded = "stopped" if stopped else "failed"
        snap.run_script_state = "running" if watched or _alive(run) else unrecorded
        return
    _, snap.run_script_exit_code = exit_reason(returncode)
    if returncode == 0:
        snap.run_script_state = "succeeded"
    else:
        snap.run_script_state = "stopped" if run.get("stopped_by") else "failed"


def _outputs(
    snap: JobSnapshot, plan: dict[str, Any], run_started: float | None, submitted: float | None
) -> None:
    """This run's checkpoints (written since it was submitted, or the one it resumed from);
    progress from this run's config.yaml and metrics lines."""
    paths = plan.get("paths") or {}
    if not paths:
        snap.lack(PLAN, Text("the file is missing or unreadable"))
        return
    checkpoints = paths["checkpoints"]
    found = local_checkpoints(Path(checkpoints["local"]), checkpoints["local"])
    resumed = (paths.get("resume_dir") or {}).get("local")
    snap.checkpoints, snap.earlier_checkpoints = split_checkpoints(found, submitted, resumed)
    snap.progress = Progress(max_steps=plan.get("steps"), save_interval=plan.get("save_interval"))
    if run_started is None:
        return
    config = Path(paths["config"]["local"])
    snap.progress.config_saved = config.is_file() and config.stat().st_mtime >= run_started - 1
    last = _last_metrics(Path(paths["metrics"]["local"]), run_started)
    if last is not None:
        snap.progress.last_step, snap.progress.last_step_time = last["step"], last["time"]
    if paths.get("tensorboard"):
        scalars_into(snap, Path(paths["tensorboard"]["local"]), run_started - 1)


def _last_metrics(path: Path, since: float) -> dict[str, Any] | None:
    for line in reversed(tail_lines(path, 50)):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("time", 0) >= since and "step" in row:
            return row
    return None


def _alive(record: dict[str, Any]) -> bool:
    ref = ProcessRef.from_json(record)
    return ref is not None and ref.alive


def _phase(snap: JobSnapshot, stopped: bool) -> JobPhase:
    """The run script's result (kept when the Job is stopped afterwards) > Stopped > a failed
    Worker > Running > Pending."""
    if snap.run_script_state == "succeeded":
        return JobPhase.SUCCEEDED
    if snap.run_script_state == "failed":
        return JobPhase.FAILED
    if stopped:
        return JobPhase.STOPPED
    if any(w.phase == FAILED for w in snap.workers):
        return JobPhase.FAILED
    if any(w.phase == RUNNING for w in snap.workers):
        return JobPhase.RUNNING
    return JobPhase.PENDING
