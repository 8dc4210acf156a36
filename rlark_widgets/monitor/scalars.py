"""Training curves: the scalars RLinf logs as TensorBoard events, and whether their steps advance.

Backends fill :class:`ScalarSeries` from the run's event files; the snapshot carries them, the
charts draw them and the diagnosis reads their steps (the seeds' "steps advancing" link) as the
pace of the run: healthy, slow, or stalled when no new step came for several times the median
step time.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from ..i18n import Text

#: No new step for this many median step times: slow; for STALLED_FACTOR of them: stalled.
SLOW_FACTOR, STALLED_FACTOR = 3.0, 10.0
#: Fewer steps than this give no median worth judging by.
MIN_STEPS_FOR_PACE = 3
HEALTHY, SLOW, STALLED = "healthy", "slow", "stalled"
PACE_NAMES = {HEALTHY: Text("healthy"), SLOW: Text("slow"), STALLED: Text("stalled")}


@dataclass
class ScalarSeries:
    """One logged scalar (a TensorBoard tag): its steps, values and wall times, in step order."""

    tag: str
    steps: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)

    @property
    def latest(self) -> dict[str, Any] | None:
        """The last point as ``{step, value, time}`` (None for an empty series)."""
        if not self.steps:
            return None
        return {"step": self.steps[-1], "value": self.values[-1], "time": self.times[-1]}


@dataclass
class StepPace:
    """How the run's steps advance: ``state`` is healthy, slow or stalled (see module doc)."""

    state: str
    last_step: int
    since: float  # seconds since the last step's event
    median: float  # the median seconds per step

    @property
    def text(self) -> Text:
        return Text(
            "{state}: step {step} came {since} s ago; a step takes {median} s (median)",
            state=PACE_NAMES[self.state],
            step=self.last_step,
            since=f"{self.since:.0f}",
            median=f"{self.median:.3g}",
        )


def latest_values(scalars: dict[str, ScalarSeries]) -> dict[str, dict[str, Any]]:
    """Each tag's last point, as ``status --json`` reports it."""
    return {tag: point for tag, series in scalars.items() if (point := series.latest)}


def step_times(scalars: dict[str, ScalarSeries]) -> list[tuple[int, float]]:
    """Every distinct step with the earliest wall time any tag logged it at, in step order."""
    first: dict[int, float] = {}
    for series in scalars.values():
        for step, stamp in zip(series.steps, series.times, strict=True):
            if step not in first or stamp < first[step]:
                first[step] = stamp
    return sorted(first.items())


def step_pace(scalars: dict[str, ScalarSeries], now: float) -> StepPace | None:
    """The pace from the event steps; None with too few steps to know a step's length."""
    points = step_times(scalars)
    if len(points) < MIN_STEPS_FOR_PACE:
        return None
    gaps = [
        (t1 - t0) / (s1 - s0)
        for (s0, t0), (s1, t1) in zip(points, points[1:], strict=False)
        if s1 > s0 and t1 >= t0
    ]
    if not gaps:
        return None
    median = max(statistics.median(gaps), 1e-3)
    last_step, last_time = points[-1]
    since = max(0.0, now - last_time)
    state = (
        STALLED
        if since > STALLED_FACTOR * median
        else SLOW
        if since > SLOW_FACTOR * median
        else HEALTHY
    )
    return StepPace(state, last_step, since, median)
