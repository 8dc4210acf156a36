"""The one door through which the local backend removes anything: never outside where it may.

``delete`` removed the ``temp_root`` read from the Job's own ``spec.json``: a state file naming
``/home/me`` (written by hand, by another version, or by anyone who can write the workspace)
would have removed it. Every removal now goes through :func:`remove_within`, which resolves
the entry's location (its parent through every symlink, then its own name) and removes it only
when that lies strictly inside the directory it is given; a symlink is removed as a link, never
followed. Ray's temp root is not read from the state at all: :func:`ray_temp_root` derives it
from the run id, and a run id that is not ours (32 hex digits) names none.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

RUN_ID = re.compile(r"[0-9a-f]{32}")
#: Ray's temp roots are short paths under the system temp dir (Unix socket paths are limited to
#: 107 bytes): ``<tmp>/rlark-<first 8 hex digits of the run id>``.
RAY_TEMP_PREFIX = "rlark-"


def temp_dir() -> Path:
    """The system temp dir, the only place besides the workspace the backend writes and removes."""
    return Path(tempfile.gettempdir()).resolve()


def ray_temp_root(run_id: str) -> Path | None:
    """Ray's temp root of the run ``run_id``; None when ``run_id`` is not one we made."""
    if not RUN_ID.fullmatch(run_id):
        return None
    return temp_dir() / f"{RAY_TEMP_PREFIX}{run_id[:8]}"


def inside(path: Path, folder: Path) -> Path | None:
    """Where ``path`` itself lies (parents resolved, its own name kept), when that is strictly
    inside ``folder`` (resolved); None when it is ``folder`` itself or anywhere else."""
    location = path.parent.resolve() / path.name
    root = folder.resolve()
    if path.name in ("", ".", "..") or root not in location.parents:
        return None
    return location


def remove_within(path: str | Path, folder: Path) -> bool:
    """Remove ``path`` (a tree, a file or a link) if it lies strictly inside ``folder``.

    Returns whether it was inside (and so removed, or already absent). Nothing outside is ever
    touched: a symlink is unlinked, not followed, and ``shutil.rmtree`` does not follow the
    links inside the tree either.
    """
    location = inside(Path(path), folder)
    if location is None:
        return False
    if location.is_symlink() or location.is_file():
        location.unlink(missing_ok=True)
    elif location.is_dir():
        shutil.rmtree(location, ignore_errors=True)
    return True
