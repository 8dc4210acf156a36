"""Checkpoints on this machine: ``global_step_N`` directories under a locally mounted output.

RLinf writes ``<log_path>/<experiment>/checkpoints/global_step_N/actor/``; the planner records
that directory in the Job's ``rlark.io/checkpoint-dir`` annotation. The local backend always
reads it here; the Kubernetes backend does when the output volume is mounted on this machine.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path, PurePosixPath

from ..monitor.snapshot import Checkpoint
from ..rlark.job import Job

STEP_DIR = re.compile(r"^global_step_(\d+)$")


def step_checkpoint(directory: str, step: int, mtime: float | None, readable: bool) -> Checkpoint:
    """The checkpoint of ``step`` under ``directory`` (a container path)."""
    return Checkpoint(step, f"{directory}/global_step_{step}", mtime, readable)


def local_directory(job: Job, directory: str, checkpoint_root: Path) -> Path | None:
    """Where ``directory`` (a container path) is on this machine, via the mount that holds it."""
    path = PurePosixPath(directory)
    mounts = [m.mount_path for role in job.roles for m in role.mounts]
    holders = [m for m in mounts if PurePosixPath(m) == path or PurePosixPath(m) in path.parents]
    if not holders:
        return None
    mount = max(holders, key=len)
    return checkpoint_root / path.relative_to(mount)


def local_checkpoints(local: Path, directory: str) -> list[Checkpoint]:
    """Checkpoints under a locally mounted directory (none yet when it does not exist)."""
    if not local.is_dir():
        return []
    found = []
    for entry in local.iterdir():
        match = STEP_DIR.match(entry.name)
        if match and entry.is_dir():
            actor = entry / "actor"
            readable = actor.is_dir() and os.access(actor, os.R_OK | os.X_OK)
            found.append(step_checkpoint(directory, int(match[1]), written(entry), readable))
    return sorted(found, key=lambda c: c.step)


def written(step_dir: Path) -> float:
    """When a checkpoint was last written: the newest of ``global_step_N``, its ``actor/`` and
    the files in it (a run that saves the same step again overwrites the files in place, which
    leaves the directories' times as the earlier run set them)."""
    actor = step_dir / "actor"
    times = [step_dir.stat().st_mtime]
    with contextlib.suppress(OSError):  # no actor/, or not readable: the directory's own time
        times += [actor.stat().st_mtime, *(f.stat().st_mtime for f in actor.iterdir())]
    return max(times)
