"""One row per Job for ``rlark-migrate list`` and the app's Runs panel, from its snapshot."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from ..i18n import Text
from .snapshot import RUNNING, JobPhase, JobSnapshot, phase_name


@dataclass
class JobRow:
    """What a researcher scans a list of runs for: phase, Workers, progress, latest checkpoint."""

    name: str
    phase: JobPhase | Literal["Gone", "Unknown"]  # no Job by that name; a phase RLark never writes
    run: str | None  # the run's id (None: the backend cannot tell runs apart)
    started: float | None  # the run's start, else the earliest Worker event, when known
    workers_running: int
    workers_expected: int
    last_step: int | None
    latest_checkpoint: str | None
    rehearsal: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def job_row(snap: JobSnapshot) -> JobRow:
    """The row of one Job's snapshot."""
    starts = [e.time for w in snap.workers for e in w.events if e.time is not None]
    if snap.run is not None and snap.run.started is not None:
        starts = [snap.run.started]
    latest = snap.latest_checkpoint
    return JobRow(
        name=snap.job,
        phase=snap.phase or ("Gone" if not snap.exists else "Unknown"),
        run=snap.run.id if snap.run is not None else None,
        started=min(starts) if starts else None,
        workers_running=sum(w.phase == RUNNING for w in snap.workers),
        workers_expected=snap.expected_workers,
        last_step=snap.progress.last_step,
        latest_checkpoint=f"global_step_{latest.step}" if latest is not None else None,
        rehearsal=snap.rehearsal,
    )


def row_text(row: JobRow, age: Text | str) -> Text:
    """One line of the list, in the reader's language when rendered."""
    return Text(
        "{name}  {phase}  run {run}  Workers {running}/{expected}  step {step}  {checkpoint}"
        "  started {age} ago",
        name=row.name,
        phase=phase_name(row.phase),
        run=row.run[:8] if row.run else "-",
        running=row.workers_running,
        expected=row.workers_expected,
        step="-" if row.last_step is None else row.last_step,
        checkpoint=row.latest_checkpoint or Text("no checkpoint"),
        age=age,
    )
