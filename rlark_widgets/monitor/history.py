"""What the monitor charts keep of each refresh: counts, not whole snapshots.

A snapshot of a 1,000-Worker Job holds every Worker, Ray member and checkpoint (about 1 MB of
Python objects); keeping 720 of them for the charts took 650 MB. The charts only need, per
refresh, the time, the expected and alive member counts and the Workers per role and phase,
so the history keeps exactly that and stays a few hundred KB at any Job size.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .snapshot import JobSnapshot, WorkerPhase

#: Refreshes kept: 36 minutes at the app's 3 s interval, then the oldest are dropped.
HISTORY_LIMIT = 720


@dataclass(frozen=True)
class HistoryPoint:
    """One refresh, as the monitor charts draw it."""

    time: float
    expected: int
    alive: int
    phases: tuple[tuple[str, WorkerPhase, int], ...]  # (role, phase, Workers)

    @classmethod
    def of(cls, snap: JobSnapshot) -> HistoryPoint:
        counts = Counter((w.role, w.phase) for w in snap.workers)
        return cls(
            snap.time,
            snap.expected_workers,
            snap.members_alive,
            tuple((role, phase, n) for (role, phase), n in counts.items()),
        )

    def workers(self, role: str, phase: WorkerPhase) -> int:
        return sum(n for r, p, n in self.phases if r == role and p == phase)


def extend(history: list[HistoryPoint], snap: JobSnapshot) -> list[HistoryPoint]:
    """A new history list with ``snap`` appended and at most :data:`HISTORY_LIMIT` points."""
    return [*history[-(HISTORY_LIMIT - 1) :], HistoryPoint.of(snap)]
