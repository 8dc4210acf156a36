"""What happened between two refreshes that a researcher wants to be told about.

A watched run reaching a checkpoint, ending, failing or stalling is announced once, when it
happens: the app shows it in its header whatever step is open, ``status --watch`` prints it on
its own line. Comparing the previous snapshot with the new one keeps this a pure function.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import Text
from .scalars import STALLED
from .snapshot import JobPhase, JobSnapshot, phase_name

CHECKPOINT, ENDED, FAILED, STALL = "checkpoint", "ended", "failed", "stalled"


@dataclass(frozen=True)
class Notice:
    """One event of a watched run: ``kind`` is checkpoint, ended, failed or stalled."""

    kind: str
    text: Text


def notices(before: JobSnapshot | None, after: JobSnapshot) -> list[Notice]:
    """The events between ``before`` (None: the first refresh, nothing to compare) and ``after``;
    none when ``after`` is another Job or another run of it (nothing of this run to compare)."""
    if before is None or before.job != after.job:
        return []
    if before.run is not None and before.run != after.run:
        return []
    found = []
    old = before.latest_checkpoint
    new = after.latest_checkpoint
    if new is not None and (old is None or new.step > old.step):
        text = Text("{job} saved checkpoint global_step_{step}.", job=after.job, step=new.step)
        found.append(Notice(CHECKPOINT, text))
    if after.ended and not before.ended:
        if after.phase == JobPhase.FAILED:
            text = Text("{job} failed.", job=after.job)
            found.append(Notice(FAILED, text))
        else:
            phase = phase_name(after.phase) if after.phase else Text("gone")
            found.append(Notice(ENDED, Text("{job} ended: {phase}.", job=after.job, phase=phase)))
    was, now = before.pace, after.pace
    if now is not None and now.state == STALLED and (was is None or was.state != STALLED):
        text = Text("{job} steps: {pace}.", job=after.job, pace=now.text)
        found.append(Notice(STALL, text))
    return found
