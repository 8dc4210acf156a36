"""Container paths on this machine: mounts become directories of the Job's workspace.

A Job names container paths (``/mnt/output/...``); locally there is no container, so each
mount path maps to a directory: a hostPath mount to its source when that directory exists on
this machine, anything else (object storage, a missing hostPath source) to
``<job>/mounts/<name>``. Paths outside every mount map under ``<job>/root``; relative paths
are taken from ``/workspace``, the working directory the rehearsal assumes.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ...rlark.job import Job
from .layout import slug

CONTAINER_CWD = PurePosixPath("/workspace")


@dataclass(frozen=True)
class MountMap:
    """Container mount paths -> local directories, longest mount path first."""

    entries: tuple[tuple[str, str], ...]  # (mount path, local directory)
    root: str  # the local directory standing for the container's '/'
    read_only: tuple[str, ...] = ()  # the mount paths mounted readOnly: true

    @classmethod
    def for_job(cls, job: Job, job_root: Path) -> MountMap:
        chosen: dict[str, str] = {}
        read_only: list[str] = []
        for role in job.roles:
            for mount in role.mounts:
                source = Path(mount.source)
                if mount.kind == "hostPath" and source.is_absolute() and source.is_dir():
                    local = source
                else:
                    local = job_root / "mounts" / slug(mount.name)
                path = str(PurePosixPath(mount.mount_path))
                if path not in chosen and mount.read_only:
                    read_only.append(path)
                chosen.setdefault(path, str(local))
        ordered = sorted(chosen.items(), key=lambda item: len(item[0]), reverse=True)
        return cls(tuple(ordered), str(job_root / "root"), tuple(sorted(read_only)))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MountMap:
        entries = tuple((m, d) for m, d in data["entries"])
        return cls(entries, data["root"], tuple(data.get("read_only", ())))

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": [list(e) for e in self.entries],
            "root": self.root,
            "read_only": list(self.read_only),
        }

    def read_only_mount(self, container_path: str) -> str | None:
        """The read-only mount holding ``container_path`` (its mount path), or None: a Pod's
        write there fails with EROFS, so the rehearsal's must too."""
        mount = self._holding(container_path)
        return mount if mount in self.read_only else None

    def _holding(self, container_path: str) -> str | None:
        path = PurePosixPath(posixpath.normpath(CONTAINER_CWD / container_path))
        for mount_path, _ in self.entries:
            mount = PurePosixPath(mount_path)
            if path == mount or mount in path.parents:
                return mount_path
        return None

    def local(self, container_path: str) -> Path:
        """Where ``container_path`` lives on this machine."""
        path = PurePosixPath(posixpath.normpath(CONTAINER_CWD / container_path))
        holding = self._holding(container_path)
        if holding is not None:
            return Path(dict(self.entries)[holding], path.relative_to(holding))
        return Path(self.root, path.relative_to("/"))
