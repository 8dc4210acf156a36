"""One snapshot joins three layers: Workers (Pods or local processes), Ray members, RLinf progress.

Backends fill these plain dataclasses; the diagnosis, the CLI and the figures only read them.
Anything a backend could not read is named in ``JobSnapshot.missing`` rather than guessed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from ..i18n import Text, render
from .gpus import GpuUse
from .links import Link
from .scalars import ScalarSeries, StepPace, latest_values, step_pace


class WorkerPhase(StrEnum):
    """Worker phases: Kubernetes pod phases, onto which local processes map. STOPPED: ended by a
    stop of the Job (or never started before it), which is neither success nor failure."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    UNKNOWN = "Unknown"
    STOPPED = "Stopped"

    @classmethod
    def read(cls, value: object) -> WorkerPhase:
        """A pod's status.phase: PENDING while it has none yet, UNKNOWN when it is not one of
        Kubernetes' phases (anyone may write a status)."""
        if not value:
            return cls.PENDING
        return next((phase for phase in cls if phase == value), cls.UNKNOWN)


#: The members by their short names, for the modules that compare Workers' phases.
PENDING, RUNNING, SUCCEEDED, FAILED, UNKNOWN, STOPPED = WorkerPhase


class JobPhase(StrEnum):
    """Job phases as RLark reports them in status.phase (a str, so it compares with one)."""

    PENDING = "Pending"
    RUNNING = "Running"
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"
    STOPPED = "Stopped"

    @classmethod
    def read(cls, value: object) -> JobPhase | None:
        """A status.phase as written (anyone may write it): None when it is not one of these."""
        return next((phase for phase in cls if phase == value), None)

    @property
    def ended(self) -> bool:
        """Nothing more will happen: the monitor stops refreshing, ``status --watch`` exits."""
        return self in (JobPhase.SUCCEEDED, JobPhase.FAILED, JobPhase.STOPPED)


#: Parts of a snapshot a backend may fail to read (``Missing.part``): stable keys the
#: diagnosis tests, whatever language the reason is shown in.
JOB_SPEC, PODS, EVENTS, MEMBERS, CHECKPOINTS, LOG_TAIL, SUPERVISOR, PLAN = (
    "job spec",
    "pods",
    "events",
    "ray members",
    "checkpoints",
    "log tail",
    "supervisor",
    "plan",
)
#: Parts added with training curves and GPU use.
SCALARS, GPUS = "scalars", "gpu use"
PART_NAMES = {
    SCALARS: Text("training curves (TensorBoard events)"),
    GPUS: Text("GPU use (Ray dashboard node summary)"),
    JOB_SPEC: Text("Job spec"),
    PODS: Text("Workers (pods)"),
    EVENTS: Text("Worker events"),
    MEMBERS: Text("Ray members"),
    CHECKPOINTS: Text("checkpoints"),
    LOG_TAIL: Text("Header log tail"),
    SUPERVISOR: Text("local supervisor"),
    PLAN: Text("rehearsal plan (plan.json)"),
}


@dataclass
class Missing:
    """A part of the snapshot that this refresh could not read, and why, in plain words.

    The rest of the snapshot is still filled: a failed list degrades the view, it never
    hides what the other lists said.
    """

    part: str  # one of the keys above
    why: Text | str

    @property
    def text(self) -> Text:
        return Text("{part}: {why}", part=PART_NAMES[self.part], why=self.why)

    def render(self, lang: str = "en") -> str:
        return render(self.text, lang)

    def __str__(self) -> str:
        return self.render()


@dataclass
class EventRecord:
    """A Kubernetes event (or a local equivalent) about one Worker."""

    reason: str
    message: Text | str  # the local backend's own events are Text, rendered when shown
    type: str = "Normal"
    count: int = 1
    time: float | None = None


@dataclass
class WorkerSnapshot:
    """One RLark Worker: its role, index and RLINF_NODE_RANK, and what it is doing."""

    role: str
    index: int
    rank: int | None  # RLINF_NODE_RANK; None when it cannot be read
    name: str  # pod name, or the local process group's name
    phase: WorkerPhase = WorkerPhase.PENDING
    node: str | None = None
    ip: str | None = None
    restarts: int = 0
    reason: str | None = None  # ImagePullBackOff, CrashLoopBackOff, OOMKilled, Error, ...
    message: Text | str | None = None
    exit_code: int | None = None
    events: list[EventRecord] = field(default_factory=list)
    head: bool = False  # runs the Ray head: every member depends on it
    apart: str | None = None  # TERMINATING or EARLIER_RUN: listed apart, never counted

    @property
    def key(self) -> str:
        return f"{self.role}/{self.index}"


@dataclass
class RayMember:
    """A node of the Ray cluster, as the head's dashboard reports it."""

    node_id: str
    ip: str
    state: str  # ALIVE or DEAD
    is_head: bool = False
    node_rank: int | None = None  # from the label rlinf.io/node-rank when present
    resources: dict[str, float] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        return self.state == "ALIVE"


@dataclass
class Checkpoint:
    """A ``global_step_N`` directory under the checkpoint root."""

    step: int
    path: str
    time: float | None = None
    readable: bool = True  # ``actor/`` exists and can be listed
    resumed: bool = False  # the checkpoint this run resumed from (runner.resume_dir)


#: Why a Worker is listed apart from this run's (``WorkerSnapshot.apart``).
TERMINATING, EARLIER_RUN, EARLIER_TERMINATING = "terminating", "earlier run", "earlier, terminating"
APART_NAMES = {
    TERMINATING: Text("terminating"),
    EARLIER_RUN: Text("from an earlier run"),
    EARLIER_TERMINATING: Text("from an earlier run, terminating"),
}

#: A Job's or Worker's phase as the reader sees it, in the reader's language (the JSON keeps
#: the phase itself: Kubernetes' word).
PHASE_NAMES = {
    PENDING: Text("Pending"),
    RUNNING: Text("Running"),
    SUCCEEDED: Text("Succeeded"),
    FAILED: Text("Failed"),
    UNKNOWN: Text("Unknown"),
    STOPPED: Text("Stopped"),
    "Gone": Text("Gone"),
}


def phase_name(phase: str | None) -> Text | str:
    """``phase`` for a message; another word (a backend's own) as it is."""
    return PHASE_NAMES.get(phase or UNKNOWN, phase or "")


@dataclass
class RunInfo:
    """Which submission a snapshot describes: its id and when it started (epoch seconds).

    Kubernetes: the Job object's ``metadata.uid`` and ``creationTimestamp`` (a Job submitted
    again after a stop is a new object, so a new run); local: the run token and submit time.
    """

    id: str
    started: float | None = None


@dataclass
class Progress:
    """RLinf's progress signals: the saved final config and the latest step."""

    config_saved: bool | None = None  # None: could not be checked
    last_step: int | None = None
    last_step_time: float | None = None
    max_steps: int | None = None
    save_interval: int | None = None


@dataclass
class Verdict:
    """The rehearsal's verdict from its run log: passed (placement verified), ran (placement
    not verified: no plan), or failed, and why."""

    passed: bool  # ran to its end (placement verified only when ``placement`` says so)
    line: str  # the verdict line as the rehearsal printed it
    placement: str | None = None  # "placement verified: N processes on M nodes as planned"
    text: Text | str = ""  # ``line`` in the reader's language
    placement_text: Text | None = None  # ``placement`` in the reader's language

    @property
    def said(self) -> Text | str:
        return self.text or self.line


class PodMaker(StrEnum):
    """Who turns a submitted Job into pods: what a Job without any is waiting for."""

    RLARK = "rlark"  # RLark's controller generates the Job's Tasks
    KUBERAY = "kuberay"  # the KubeRay operator creates the RayCluster's pods


@dataclass
class JobSnapshot:
    """Everything known about a Job at ``time``; ``missing`` names what could not be read."""

    job: str
    backend: str
    time: float
    exists: bool = True
    phase: JobPhase | None = None  # None: no Job, or a phase RLark does not write
    expected_workers: int = 0
    tasks: list[dict[str, Any]] | None = None  # None: the cluster reports no Task resources
    pods_by: PodMaker = PodMaker.RLARK  # set by the backend that reads the snapshot
    workers: list[WorkerSnapshot] = field(default_factory=list)
    members: list[RayMember] = field(default_factory=list)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    scalars: dict[str, ScalarSeries] = field(default_factory=dict)  # by TensorBoard tag
    gpus: list[GpuUse] = field(default_factory=list)  # per GPU per Worker, when Ray reports it
    gpu_note: Text | None = None  # why no GPU use is shown (logical GPUs, no dashboard answer)
    links: list[Link] = field(default_factory=list)  # the dashboard, TensorBoard, kubectl
    progress: Progress = field(default_factory=Progress)
    run_script_state: str | None = None  # not started / running / succeeded / failed / stopped
    run_script_exit_code: int | None = None
    log_tail: list[str] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    rehearsal: bool = False  # the local backend's rehearsal: never reported as training
    run: RunInfo | None = None  # None: the backend cannot tell runs apart
    others: list[WorkerSnapshot] = field(default_factory=list)  # not this run's (``apart``)
    earlier_checkpoints: list[Checkpoint] = field(default_factory=list)  # before this run
    verdict: Verdict | None = None  # the rehearsal's own last word, from the run log

    @property
    def ended(self) -> bool:
        """The Job is gone or in a phase that :attr:`JobPhase.ended` (unknown phases have not)."""
        return not self.exists or (self.phase is not None and self.phase.ended)

    @property
    def settled(self) -> bool:
        """Ended, and no Worker still runs (a finished Job can hold its Workers' nodes until it
        is stopped): nothing more changes by itself, so the app stops refreshing."""
        return self.ended and not any(w.phase == RUNNING for w in self.workers)

    @property
    def pace(self) -> StepPace | None:
        """How the steps advance, for a running run only: an ended Job, or one whose run script
        has ended (a finished Job that still holds its Workers), has a last step, not a pace,
        so it never stalls."""
        if self.ended or self.run_script_state not in (None, "running"):
            return None
        return step_pace(self.scalars, self.time)

    @property
    def members_alive(self) -> int:
        return sum(m.alive for m in self.members)

    def lacks(self, part: str) -> Missing | None:
        """Why ``part`` could not be read in this refresh (None when it was read)."""
        return next((m for m in self.missing if m.part == part), None)

    def lack(self, part: str, why: Text | str) -> None:
        """Record that ``part`` could not be read, and why."""
        self.missing.append(Missing(part, why))

    @property
    def latest_checkpoint(self) -> Checkpoint | None:
        return max(self.checkpoints, key=lambda c: c.step, default=None)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON and records; each scalar as its latest point (the curves
        themselves stay in the event files), with the steps' pace."""
        data = asdict(self)
        data["scalars"] = latest_values(self.scalars)
        pace = self.pace
        data["pace"] = asdict(pace) if pace is not None else None
        if self.verdict is not None:
            placement = self.verdict.placement_text
            data["verdict"]["text"] = render(self.verdict.said)
            data["verdict"]["placement_text"] = render(placement) if placement else None
        return data
