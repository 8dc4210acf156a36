"""Our own processes, found and ended by PID, session and job token, never by name.

Each Worker and the run script start in a new session: ``ray start`` keeps its helpers in its
process group, but Ray's worker processes (actors) get process groups of their own inside the
same session, so the session ID names all of one Worker's processes. Every process of a run
also carries ``RLARK_LOCAL_TOKEN`` (unique per run) in its environment, which Ray passes on,
so processes that left their session are found too. A PID is trusted only together with its
start time, so a reused PID is never signalled.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import psutil

from .layout import JobDir

TOKEN_ENV = "RLARK_LOCAL_TOKEN"


@dataclass(frozen=True)
class ProcessRef:
    """A process we started: its PID and the start time that proves it is still the same one."""

    pid: int
    create_time: float

    @classmethod
    def of(cls, pid: int) -> ProcessRef:
        """The process ``pid`` now; one that already ended gets start time 0 (never alive)."""
        try:
            return cls(pid, psutil.Process(pid).create_time())
        except psutil.Error:
            return cls(pid, 0.0)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ProcessRef | None:
        if not data or data.get("pid") is None:
            return None
        return cls(int(data["pid"]), float(data["create_time"]))

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "create_time": self.create_time}

    def matches(self, proc: psutil.Process) -> bool:
        """Whether ``proc`` (with this PID) is this process, not a later one reusing the PID."""
        return abs(proc.create_time() - self.create_time) < 0.05

    def process(self) -> psutil.Process | None:
        """The live process, or None when it ended (a zombie counts as ended)."""
        try:
            proc = psutil.Process(self.pid)
            if self.matches(proc) and proc.status() != psutil.STATUS_ZOMBIE:
                return proc
        except psutil.Error:
            pass
        return None

    @property
    def alive(self) -> bool:
        return self.process() is not None


@dataclass(frozen=True)
class RunLeaders:
    """The processes a run started directly: each leads its own session."""

    run: ProcessRef | None  # the run script
    workers: tuple[ProcessRef, ...]  # the non-head Workers' main processes (``ray start``)
    head: ProcessRef | None
    supervisor: ProcessRef | None

    @classmethod
    def read(cls, where: JobDir, head_key: str) -> RunLeaders:
        state = where.read("state.json") or {}
        records = state.get("workers", {})
        return cls(
            run=ProcessRef.from_json(state.get("run")),
            workers=tuple(
                ref
                for key, record in records.items()
                if key != head_key and (ref := ProcessRef.from_json(record))
            ),
            head=ProcessRef.from_json(records.get(head_key)),
            supervisor=ProcessRef.from_json(where.read("supervisor.json")),
        )

    @property
    def all(self) -> list[ProcessRef]:
        return [r for r in (self.run, *self.workers, self.head, self.supervisor) if r]


def job_processes(token: str, leaders: Iterable[ProcessRef] = ()) -> list[psutil.Process]:
    """Every live process of a run: those carrying ``token`` in their environment, and those
    in the session of one of ``leaders`` (Ray's agents write their process title over their
    whole environment block, so only their session names them)."""
    return _scan(leaders, token)


def session_processes(leader: ProcessRef) -> list[psutil.Process]:
    """The live processes of the session ``leader`` started (itself included, unless ended)."""
    return _scan([leader], None)


def _scan(leaders: Iterable[ProcessRef], token: str | None) -> list[psutil.Process]:
    """Live processes (never this one) in the sessions of ``leaders`` or carrying ``token``.

    A session member must have started after its leader: a session ID stays allocated while
    any process is in the session, so it can only name someone else's session once all of
    ours ended, and then its leader is a different live process (see :func:`_session_is_ours`).
    """
    sessions = {ref.pid: ref for ref in leaders if _session_is_ours(ref)}
    found = []
    for proc in psutil.process_iter(["status", "create_time"]):
        if proc.pid == os.getpid() or proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        session = _session_of(proc.pid)
        leader = sessions.get(session) if session is not None else None
        in_session = leader is not None and proc.info["create_time"] >= leader.create_time - 1
        if in_session or (token is not None and has_token(proc.pid, token)):
            found.append(proc)
    return found


def _session_is_ours(leader: ProcessRef) -> bool:
    try:
        return leader.matches(psutil.Process(leader.pid))
    except psutil.Error:  # the leader ended; members may still hold the session
        return True


def _session_of(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def has_token(pid: int, token: str) -> bool:
    """Whether ``pid`` was started with our token in its environment (read raw, because Ray
    processes write their title over the start of the block and parsers stop there)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            block = handle.read()
    except OSError:
        return False
    return f"\0{TOKEN_ENV}={token}\0".encode() in b"\0" + block + b"\0"


def signal_all(procs: Iterable[psutil.Process], sig: int) -> int:
    """Send ``sig`` to each process; the count of processes that received it."""
    sent = 0
    for proc in procs:
        try:
            proc.send_signal(sig)
            sent += 1
        except psutil.Error:
            pass
    return sent


def end_run(token: str, leaders: RunLeaders, grace: float, poll: float = 0.1) -> int:
    """End a run in order, never touching anything without its session or token.

    First the run script (SIGTERM to its whole session) and the non-head Workers, then the
    head: non-head nodes leave the Ray cluster cleanly while its head still answers. A Worker
    gets SIGTERM on its main process only: ``ray start`` then ends its node's processes in
    order (SIGTERM to all of them at once can hang a raylet until SIGKILL); a Worker whose
    main process is gone gets it on its whole session. Whatever is left after ``grace``
    seconds of each stage gets SIGKILL. Returns how many processes needed SIGKILL.
    """
    early = [r for r in (leaders.run, *leaders.workers) if r]
    stages: list[tuple[list[ProcessRef], Callable[[], list[psutil.Process]]]] = [
        (early, lambda: [p for ref in early for p in session_processes(ref)]),
        ([leaders.head] if leaders.head else [], lambda: job_processes(token, leaders.all)),
    ]
    killed = 0
    for targets, find in stages:
        for ref in targets:
            main = ref.process()
            # the run script, or no ray start left to end its session in order: the whole session
            parts = session_processes(ref) if ref is leaders.run or main is None else [main]
            signal_all(parts, signal.SIGTERM)
        deadline = time.monotonic() + grace
        left = find()
        while left and time.monotonic() < deadline:
            time.sleep(poll)
            left = find()
        killed += signal_all(left, signal.SIGKILL)
        psutil.wait_procs(left, timeout=5)
    return killed


def exit_reason(returncode: int) -> tuple[str, int]:
    """A Kubernetes-style (reason, exit code) for a return code (-9 -> Killed (SIGKILL), 137)."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"Killed ({name})", 128 - returncode
    return ("Completed" if returncode == 0 else "Error"), returncode
