"""Which outputs belong to this run: checkpoints written since it started, or the one it resumed.

Storage outlives runs (a stopped Job keeps its PVCs, a local Job its mounts/), so the checkpoint
directory of a Job submitted again still holds the earlier run's ``global_step_N``. Counting
them would report a run that never had a Ray member as having checkpointed. A checkpoint counts
for this run when it was written after the run started, or when it is the checkpoint named by
``runner.resume_dir`` (marked ``resumed``); every other one is an earlier run's.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath

from .snapshot import Checkpoint

#: Seconds a checkpoint may seem older than its run: ``creationTimestamp`` is whole seconds
#: and the storage's clock is not the API server's.
CLOCK_SKEW = 2.0


def split_checkpoints(
    found: list[Checkpoint], started: float | None, resumed_from: str | None = None
) -> tuple[list[Checkpoint], list[Checkpoint]]:
    """(this run's, earlier runs'). ``started`` None: runs cannot be told apart, all count.

    A checkpoint whose time is unknown cannot be shown to be this run's, so it is not counted
    (unless it is the resumed one).
    """
    if started is None:
        return list(found), []
    resumed = _normal(resumed_from) if resumed_from else None
    ours, earlier = [], []
    for checkpoint in found:
        if resumed is not None and _normal(checkpoint.path) == resumed:
            ours.append(replace(checkpoint, resumed=True))
        elif checkpoint.time is not None and checkpoint.time >= started - CLOCK_SKEW:
            ours.append(checkpoint)
        else:
            earlier.append(checkpoint)
    return ours, earlier


def _normal(path: str) -> str:
    return str(PurePosixPath(path.rstrip("/")))
