"""Scalars from TensorBoard event files on this machine, read with TensorBoard's own reader.

RLinf's MetricLogger writes ``events.out.tfevents.*`` under ``<log_path>/tensorboard`` (the
local rehearsal writes there too). Each file is read by an ``EventAccumulator`` kept per file,
so a refresh reads only the events written since the last one (``Reload`` is incremental);
a file that shrank or was replaced is read again from its start. Only the run's own points
count: those written at or after the run started (earlier runs write to the same directory).
"""

from __future__ import annotations

import threading
from pathlib import Path

from ..i18n import Text
from ..monitor.scalars import ScalarSeries, step_times
from ..monitor.snapshot import SCALARS, JobSnapshot

EVENT_GLOB = "events.out.tfevents.*"
#: Points kept per tag and file: enough for any chart; TensorBoard keeps the last one always.
POINTS_PER_TAG = 100_000


class _FileReader:
    """One event file's accumulator, and the file identity it was opened on."""

    def __init__(self, path: Path, identity: tuple[int, int]) -> None:
        from tensorboard.backend.event_processing.event_accumulator import (
            SCALARS,
            EventAccumulator,
        )

        self.identity = identity
        self.accumulator = EventAccumulator(str(path), size_guidance={SCALARS: POINTS_PER_TAG})


_readers: dict[Path, _FileReader] = {}
_lock = threading.Lock()


def event_files(directory: Path) -> list[Path]:
    """Every event file under ``directory`` (a run may log into subdirectories), sorted."""
    return sorted(directory.rglob(EVENT_GLOB)) if directory.is_dir() else []


def _tag(directory: Path, path: Path, tag: str) -> str:
    """A tag is prefixed by its file's subdirectory, as TensorBoard names runs."""
    sub = path.parent.relative_to(directory).as_posix()
    return tag if sub == "." else f"{sub}/{tag}"


def read_scalars(directory: Path, since: float | None = None) -> dict[str, ScalarSeries]:
    """Every scalar tag under ``directory``, points at or after ``since`` (epoch seconds)."""
    found: dict[str, ScalarSeries] = {}
    for path in event_files(directory):
        stat = path.stat()
        identity = (stat.st_ino, stat.st_size)
        with _lock:
            reader = _readers.get(path)
            if (
                reader is None
                or reader.identity[0] != stat.st_ino
                or reader.identity[1] > stat.st_size
            ):
                reader = _readers[path] = _FileReader(path, identity)
            reader.accumulator.Reload()
            reader.identity = identity
            accumulator = reader.accumulator
        for tag in accumulator.Tags()["scalars"]:
            series = found.setdefault(
                _tag(directory, path, tag), ScalarSeries(_tag(directory, path, tag))
            )
            for event in accumulator.Scalars(tag):
                if since is None or event.wall_time >= since:
                    series.steps.append(event.step)
                    series.values.append(float(event.value))
                    series.times.append(event.wall_time)
    for series in found.values():
        _sort(series)
    return {tag: series for tag, series in sorted(found.items()) if series.steps}


def _sort(series: ScalarSeries) -> None:
    """Step order (files of one tag may interleave); the latest write of a step wins."""
    by_step: dict[int, tuple[float, float]] = {}
    for step, value, stamp in zip(series.steps, series.values, series.times, strict=True):
        if step not in by_step or stamp >= by_step[step][1]:
            by_step[step] = (value, stamp)
    ordered = sorted(by_step.items())
    series.steps = [step for step, _ in ordered]
    series.values = [value for _, (value, _) in ordered]
    series.times = [stamp for _, (_, stamp) in ordered]


def scalars_into(snap: JobSnapshot, directory: Path, since: float | None) -> None:
    """Fill ``snap.scalars`` from ``directory``; the event steps become the run's progress
    (the seeds' "steps advancing" link) when they are ahead of what it had."""
    try:
        snap.scalars = read_scalars(directory, since)
    except OSError as exc:
        why = Text(
            "cannot read {path}: {error}", path=str(directory), error=exc.strerror or str(exc)
        )
        snap.lack(SCALARS, why)
        return
    progress_from_events(snap)


def progress_from_events(snap: JobSnapshot) -> None:
    """The last event step as ``snap.progress``, unless the progress already is further on."""
    points = step_times(snap.scalars)
    if not points:
        return
    step, stamp = points[-1]
    if snap.progress.last_step is None or step >= snap.progress.last_step:
        snap.progress.last_step, snap.progress.last_step_time = step, stamp
