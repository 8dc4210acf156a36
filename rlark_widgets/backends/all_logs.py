"""Every Worker's log of a Job, and the run log, gathered through any backend; as one zip.

Logs are redacted exactly as run records are, and without terminal escapes
(:func:`rlark_widgets.rlark.logs.clean_log`), whichever way they leave: shown, searched (by
level too) or downloaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from ..output_files import write_archive
from ..rlark.logs import RUN_LOG, clean_log
from .base import Backend, BackendError


def all_logs(backend: Backend, name: str, tail: int = 2000) -> dict[str, str]:
    """``{worker: redacted log}`` for the run log (when the backend keeps one) and every Worker
    of the Job's snapshot, in rank order; a Worker whose log cannot be read says why. Where the
    run log is a Worker's own log (Kubernetes: the Header's), it is listed once, as that Worker's.
    """
    listed = backend.snapshot(name).workers  # listed once for every log (1,000 Workers: not
    workers = [w.key for w in listed]  # 1,000 listings of 1,000 pods)
    found: dict[str, str] = {}
    with suppress(BackendError):  # a backend without a separate run log: the Header's has it
        found[RUN_LOG] = clean_log(backend.logs(name, RUN_LOG, tail, workers=listed))
    for worker in workers:
        try:
            found[worker] = clean_log(backend.logs(name, worker, tail, workers=listed))
        except BackendError as exc:
            found[worker] = f"({exc.text})"
    if RUN_LOG in found and any(found[RUN_LOG] == found[w] for w in workers):
        del found[RUN_LOG]
    return found


def logs_zip(logs: dict[str, str], path: Path, inputs: Iterable[str] = ()) -> Path:
    """``logs`` as ``<worker>.log`` files (``role/index`` becomes ``role-index``) in one zip,
    written whole or not at all, never over one of ``inputs``."""
    return write_archive(
        path,
        {f"logs/{worker.replace('/', '-')}.log": text for worker, text in logs.items()},
        inputs=inputs,
        option="--zip",
    )
