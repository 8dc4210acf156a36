"""Where a local Job lives on disk: one directory per Job, readable by any later process.

Every fact a later ``LocalBackend`` (another CLI call, the app after a restart) needs is in the
Job's directory, so nothing is kept in memory between calls::

    <workspace>/<job>/
      job.yaml          the submitted Job
      spec.json         what the supervisor starts (Workers, run script, options)   [per run]
      plan.json         what the rehearsal checks (placement, steps, paths)         [per run]
      supervisor.json   the supervisor's PID and start time                         [per run]
      state.json        written by the supervisor only: PIDs, ports, times, exits   [per run]
      stop.json         written by stop(): when a stop was asked                    [per run]
      rehearsal.json    the rehearsal's report (members, ranks, placement, steps)   [per run]
      logs/             this run's supervisor.log, <role>-<index>.log per Worker, run.log
      runs/<run id>/    an earlier run's records, kept when the Job is submitted again: its
                        per-run files above and its logs/ (laid out as here, so a JobDir reads them)
      workers/<role>-<index>/   a Worker's working directory (the Header's holds run.sh in job mode)
      mounts/<name>/    object storage, and hostPath mounts whose source does not exist
      root/             container paths outside every mount (kept across runs, like storage)

Ray's own temp directories are short paths under the system temp dir (Unix socket paths are
limited to 107 bytes), named in ``spec.json`` and removed by ``delete``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ...contract import DNS_LABEL
from ...i18n import Text
from ..base import BackendError
from .removal import RUN_ID

#: Files that describe one run; a restart replaces them (outputs under mounts/ and root/ stay).
RUN_FILES = (
    "spec.json",
    "plan.json",
    "supervisor.json",
    "state.json",
    "stop.json",
    "rehearsal.json",
)
RUN_DIRS = ("logs", "workers")
#: Where earlier runs' records are kept (``runs/<run id>/``).
EARLIER_RUNS = "runs"


@dataclass(frozen=True)
class JobDir:
    """The paths of one local Job."""

    root: Path

    @classmethod
    def of(cls, workspace: Path, name: str) -> JobDir:
        if not DNS_LABEL.fullmatch(name or ""):
            raise BackendError(
                Text("'{name}' is not a valid Job name.", name=name),
                Text("Use 1-63 lower-case letters, digits or '-', with no '-' at either end."),
            )
        return cls(Path(workspace).expanduser().resolve() / name)

    @property
    def name(self) -> str:
        return self.root.name

    def file(self, name: str) -> Path:
        return self.root / name

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def worker_log(self, key: str) -> Path:
        return self.logs / f"{slug(key)}.log"

    @property
    def run_log(self) -> Path:
        return self.logs / "run.log"

    @property
    def supervisor_log(self) -> Path:
        return self.logs / "supervisor.log"

    def earlier_run(self, run_id: str) -> JobDir:
        """An earlier run's records (``runs/<run id>/``), laid out as the Job's own."""
        return JobDir(self.root / EARLIER_RUNS / run_id)

    def keep_run(self) -> None:
        """Move the current run's files and logs to ``runs/<its run id>/`` (its Worker
        directories and Ray temp dirs go): a new run starts clean, the earlier logs stay
        readable. A Job with no run yet has nothing to keep."""
        data = self.read("spec.json")
        if not data or not RUN_ID.fullmatch(str(data.get("run_id", ""))):
            return  # no run, or a run id we did not make: `runs/<it>` could lead anywhere
        kept = self.earlier_run(str(data["run_id"]))
        kept.root.mkdir(parents=True, exist_ok=True)
        for name in RUN_FILES:
            if self.file(name).exists():
                os.replace(self.file(name), kept.file(name))
        if self.logs.is_dir() and not kept.logs.exists():
            os.replace(self.logs, kept.logs)

    def worker_dir(self, key: str) -> Path:
        return self.root / "workers" / slug(key)

    def read(self, name: str) -> dict[str, Any] | None:
        """A JSON file of the Job, or None when it is absent (or being replaced)."""
        try:
            return cast(dict[str, Any], json.loads(self.file(name).read_text(encoding="utf-8")))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def write(self, name: str, data: dict[str, Any]) -> None:
        write_json(self.file(name), data)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Serialise submit/stop/delete of this Job across processes (every change to the Job's
        directory takes it, so none is made through a Job directory that is a symlink)."""
        if self.root.is_symlink():
            raise BackendError(
                Text(
                    "{path} is a symbolic link; the local backend neither writes nor removes"
                    " anything through it.",
                    path=str(self.root),
                ),
                Text(
                    "Remove the link (rm {path}; what it points to is not touched) or use another"
                    " Job name.",
                    path=str(self.root),
                ),
            )
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            handle = open(self.root / ".lock", "w")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise unwritable(self.root, exc) from None
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def unwritable(path: Path, exc: OSError) -> BackendError:
    """A Job directory that cannot be written (a read-only or full disk, a file in the way)."""
    return BackendError(
        Text(
            "Cannot write the local Job's files in {path}: {error}.",
            path=str(path),
            error=exc.strerror or str(exc),
        ),
        Text(
            "Choose a writable workspace (--workspace or $RLARK_WORKSPACE), or free space on "
            "its disk."
        ),
    )


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: readers in other processes never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def slug(text: str) -> str:
    """A file-name and Ray-label safe form of a role name or Worker key (``header/0`` -> ``header-0``)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-_.")
    return cleaned[:63].rstrip("-_.") or "role"


def tail_lines(path: Path, count: int, max_bytes: int = 256 * 1024) -> list[str]:
    """The last ``count`` lines of a log (reads at most ``max_bytes`` from its end)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - max_bytes))
            data = handle.read()
    except FileNotFoundError:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[-count:] if count > 0 else []
