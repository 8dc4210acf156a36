"""A snapshot in plain words: per role desired vs actual Workers, members, checkpoints, diagnosis."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .diagnosis import Diagnosis, diagnose
from .snapshot import JobSnapshot


@dataclass(frozen=True)
class RoleLine:
    role: str
    desired: int
    actual: int
    phases: dict[str, int]

    def text(self) -> str:
        phases = ", ".join(f"{n} {p}" for p, n in sorted(self.phases.items())) or "none yet"
        return f"{self.role}: {self.actual}/{self.desired} Workers ({phases})"


def role_lines(snap: JobSnapshot, desired: dict[str, int]) -> list[RoleLine]:
    """One line per role, in role order; roles seen only in the snapshot come last."""
    by_role: dict[str, Counter] = {}
    for worker in snap.workers:
        by_role.setdefault(worker.role, Counter())[worker.phase] += 1
    roles = list(desired) + [r for r in by_role if r not in desired]
    return [
        RoleLine(
            r,
            desired.get(r, 0),
            sum(by_role.get(r, Counter()).values()),
            dict(by_role.get(r, Counter())),
        )
        for r in roles
    ]


def age(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)} s"
    if seconds < 5400:
        return f"{int(seconds // 60)} min"
    return f"{seconds / 3600:.1f} h"


def summary_lines(
    snap: JobSnapshot, desired: dict[str, int], result: Diagnosis | None = None
) -> list[str]:
    result = result or diagnose(snap)
    label = " (rehearsal, not training)" if snap.rehearsal else ""
    lines = [f"Job {snap.job} on {snap.backend}{label}: {snap.phase or 'unknown phase'}"]
    lines += ["  " + line.text() for line in role_lines(snap, desired)]
    lines.append(f"  Ray members: {snap.members_alive}/{snap.expected_workers} alive")
    latest = snap.latest_checkpoint
    if latest is None:
        lines.append("  Checkpoints: none yet")
    else:
        when = f", {age(snap.time - latest.time)} ago" if latest.time else ""
        lines.append(f"  Latest checkpoint: global_step_{latest.step}{when} ({latest.path})")
    if snap.missing:
        lines.append(f"  Could not read: {', '.join(snap.missing)}")
    mark = "OK" if result.ok else "!!"
    lines.append(f"{mark} {result.sentence()}")
    if not result.ok and result.fix:
        lines.append(f"   fix: {result.fix}")
    return lines
