"""The run the monitor watches: one Job, as submitted or attached, and what its refreshes said.

A :class:`WatchedRun` is created on Submit, Resume or Watch this run and replaced as a whole,
never reset field by field: a new run starts with no snapshot, no history and no events, so no
panel can show an earlier run's curves, links, Workers or alerts beside it. It carries its own
Job (its roles, as submitted or as the backend keeps it), so a run watched while another config
is loaded counts its own roles and is never drawn on that config's Topology.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from ..monitor.diagnosis import Diagnosis, diagnose
from ..monitor.history import HistoryPoint, extend
from ..monitor.notices import Notice, notices
from ..monitor.snapshot import JobSnapshot
from ..rlark.job import Job

#: Events of the watched run shown in the header (checkpoint, end, failure, stall).
NOTICES_KEPT = 3
#: Seconds a run started from here is watched before a settled snapshot counts as its end: the
#: first refreshes after a resubmission can still read the previous run's ended state, and on a
#: busy two-core machine a rehearsal's Ray nodes took over 110 s to start (90 s was too short:
#: the monitor stopped before the resumed run's first checkpoint).
START_GRACE = 600.0
_keys = itertools.count(1)


@dataclass(frozen=True)
class WatchedRun:
    """One watched run; :meth:`refreshed` gives the next state, :func:`dataclasses.replace`
    keeps its ``key`` (the identity a late refresh is checked against)."""

    name: str
    job: Job | None = None  # its own Job; None until the backend has given it (attached runs)
    draft: int | None = None  # the config generation it was submitted from; None: attached
    submitted_at: float | None = None
    snapshot: JobSnapshot | None = None
    diagnosis: Diagnosis | None = None
    history: tuple[HistoryPoint, ...] = ()
    notices: tuple[Notice, ...] = ()
    seen_live: bool = False  # a refresh has seen it running (or not yet ended)
    key: int = field(default_factory=lambda: next(_keys))

    def refreshed(self, snap: JobSnapshot, job: Job | None = None) -> WatchedRun:
        """This run after a refresh that read ``snap``. Another run of the same Job (submitted
        again elsewhere) starts its charts and events afresh."""
        before = self.snapshot
        other_run = before is not None and before.run is not None and snap.run != before.run
        history = () if other_run else self.history
        told = tuple(notices(before, snap))
        kept = () if other_run else self.notices
        return replace(
            self,
            job=self.job if self.job is not None else job,
            snapshot=snap,
            diagnosis=diagnose(snap),
            history=tuple(extend(list(history), snap)),
            notices=(kept + told)[-NOTICES_KEPT:],
            seen_live=self.seen_live or not snap.settled,
        )

    def watched_on(self, now: float) -> bool:
        """Whether the monitor keeps refreshing: until the Job has ended and its Workers are
        gone; a run started from here only once it was seen live, or after
        :data:`START_GRACE` (a settled snapshot before that may be the previous run's)."""
        snap = self.snapshot
        if snap is None or not snap.settled:
            return True
        started = self.submitted_at
        return not self.seen_live and started is not None and now - started < START_GRACE

    def desired(self) -> dict[str, int]:
        """Workers per role of this run's own Job (empty while it is not known)."""
        return {r.name: r.replicas for r in self.job.roles} if self.job is not None else {}

    def drawn_on(self, generation: int, job: Job | None) -> bool:
        """Whether this run's Worker states belong on the Topology of the config ``generation``
        whose Job is ``job``: submitted from it, or the same Job (name and roles) attached."""
        if self.draft is not None:
            return self.draft == generation
        if self.job is None or job is None:
            return False
        return self.job.name == job.name and _shape(self.job) == _shape(job)


def _shape(job: Job) -> list[tuple[str, int, int]]:
    return [(r.name, r.replicas, r.gpus) for r in job.roles]
