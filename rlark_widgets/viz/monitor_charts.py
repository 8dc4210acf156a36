"""Monitor charts: Worker states per role and Ray members over the refresh history, checkpoints.

Titles, axes and legend names are in ``lang``; Worker phases and role names are data, escaped
(:func:`.markup.figure_text`).
"""

from __future__ import annotations

from itertools import count
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..i18n import Text, render
from ..monitor.history import HistoryPoint
from ..monitor.snapshot import (
    FAILED,
    PENDING,
    RUNNING,
    STOPPED,
    SUCCEEDED,
    UNKNOWN,
    JobSnapshot,
    phase_name,
)
from .markup import figure_text
from .palette import NEUTRAL, STATE_COLOURS, saying, transparent_layout

WORKER_STATES = (RUNNING, PENDING, FAILED, SUCCEEDED, STOPPED, UNKNOWN)
SINCE_SUBMIT = Text("seconds since submit")


def run_start(snapshot: JobSnapshot | None, submitted_at: float | None = None) -> float | None:
    """Where the charts' time axis starts: this run's start, else when the app submitted it."""
    run = snapshot.run if snapshot is not None else None
    return run.started if run is not None and run.started is not None else submitted_at


def worker_status_figure(
    history: list[HistoryPoint], lang: str = "en", start: float | None = None
) -> go.Figure:
    """Stacked Worker counts per state over time, one panel per role; ``start``: the run's
    start (default: the first refresh).

    Every state drawn has its legend entry (the first panel it appears in shows it: a state only
    one role reached, or the only state there is, had none); with no Worker left (a deleted
    Job) the title says so and no empty axes are drawn."""
    roles = list(dict.fromkeys(role for point in history for role, _, _ in point.phases))
    if not any(point.workers(r, s) for point in history for r in roles for s in WORKER_STATES):
        return saying(Text("Workers per role: no Worker"), lang)
    figure = make_subplots(
        rows=1, cols=len(roles), shared_yaxes=True, subplot_titles=list(map(figure_text, roles))
    )
    start = start if start is not None else history[0].time
    shown: set[str] = set()
    for col, role in enumerate(roles, start=1):
        for state in WORKER_STATES:
            counts = [point.workers(role, state) for point in history]
            if not any(counts):
                continue
            figure.add_trace(
                go.Scatter(
                    x=[point.time - start for point in history],
                    y=counts,
                    name=render(phase_name(state), lang),
                    stackgroup=role,
                    line=dict(color=STATE_COLOURS[state]),
                    legendgroup=state,
                    showlegend=state not in shown,
                ),
                row=1,
                col=col,
            )
            shown.add(state)
    figure.update_layout(
        **transparent_layout(title=Text("Workers per role").render(lang), height=260),
        showlegend=True,
    )
    figure.update_xaxes(title_text=SINCE_SUBMIT.render(lang), rangemode="tozero")
    top = max(sum(point.workers(r, s) for s in WORKER_STATES) for point in history for r in roles)
    figure.update_yaxes(rangemode="tozero", dtick=count_step(top))
    return figure


def members_figure(
    history: list[HistoryPoint], lang: str = "en", start: float | None = None
) -> go.Figure:
    """Ray members alive against the expected count (cluster.num_nodes), from ``start``."""
    start = start if start is not None else history[0].time if history else 0.0
    x = [s.time - start for s in history]
    figure = go.Figure(
        [
            go.Scatter(
                x=x,
                y=[point.expected for point in history],
                name=Text("expected (num_nodes)").render(lang),
                line=dict(dash="dash", color=NEUTRAL),
            ),
            go.Scatter(
                x=x,
                y=[point.alive for point in history],
                name=Text("alive").render(lang),
                mode="lines+markers",
                line=dict(color=STATE_COLOURS["ALIVE"]),
            ),
        ]
    )
    figure.update_layout(
        **transparent_layout(title=Text("Ray members: alive vs expected").render(lang), height=260)
    )
    figure.update_xaxes(title_text=SINCE_SUBMIT.render(lang), rangemode="tozero")
    top = max([0, *(p.expected for p in history), *(p.alive for p in history)])
    figure.update_yaxes(rangemode="tozero", dtick=count_step(top))
    return figure


#: Tick labels on a count axis: about this many at most, whatever the Job's size.
MAX_COUNT_TICKS = 10


def count_step(top: int) -> int:
    """A whole, round tick step (1, 2, 5, 10, 20, ...) giving at most MAX_COUNT_TICKS labels up
    to ``top``. One label per member of a 1,000-node Job made the page lay out 1,001 labels,
    measuring each: 10-25 s per refresh in Chromium."""
    steps = (base * 10**magnitude for magnitude in count() for base in (1, 2, 5))
    return int(next(step for step in steps if top <= step * MAX_COUNT_TICKS))


#: More dotted cadence lines than this are thinned to every k-th save (the chart stays legible
#: and fast: 500 expected saves once took minutes as one ``add_hline`` each).
MAX_CADENCE_LINES = 20


def cadence_lines(interval: int, top: int) -> list[dict[str, Any]]:
    """Dotted lines at the steps where a checkpoint is expected, at most MAX_CADENCE_LINES."""
    stride = interval * max(1, -(-top // interval // MAX_CADENCE_LINES))
    line = dict(dash="dot", width=1, color=NEUTRAL)
    return [
        dict(type="line", xref="paper", x0=0, x1=1, yref="y", y0=step, y1=step, line=line)
        for step in range(stride, top + 1, stride)
    ]


def checkpoint_figure(
    snapshot: JobSnapshot, submitted_at: float | None = None, lang: str = "en"
) -> go.Figure:
    """This run's steps and checkpoints over wall time since its start, against the expected
    save cadence (an earlier run's checkpoints are not drawn)."""
    start = run_start(snapshot, submitted_at)
    start = start if start is not None else snapshot.time
    points = sorted((c.time or snapshot.time, c.step) for c in snapshot.checkpoints)
    figure = go.Figure(
        go.Scatter(
            x=[t - start for t, _ in points],
            y=[step for _, step in points],
            mode="markers+lines",
            name=Text("checkpoints (global_step_N)").render(lang),
            marker=dict(size=10, symbol="diamond"),
        )
    )
    progress = snapshot.progress
    if progress.last_step is not None and progress.last_step_time is not None:
        figure.add_trace(
            go.Scatter(
                x=[progress.last_step_time - start],
                y=[progress.last_step],
                mode="markers",
                name=Text("latest step").render(lang),
                marker=dict(size=9),
            )
        )
    interval = progress.save_interval
    if interval and interval > 0:
        top = (
            max([progress.max_steps or 0, progress.last_step or 0] + [s for _, s in points])
            or interval
        )
        figure.update_layout(shapes=cadence_lines(interval, top))
        figure.add_annotation(
            text=Text("expected every {interval} steps", interval=interval).render(lang),
            xref="paper",
            yref="y",
            x=1,
            y=interval,
            showarrow=False,
            yshift=8,
        )
    if progress.max_steps:
        figure.add_hline(  # its label at the left: the latest step's dot is at the right
            y=progress.max_steps,
            line=dict(color=NEUTRAL),
            annotation_text=Text("max steps").render(lang),
            annotation_position="top left",
        )
    figure.update_layout(
        **transparent_layout(title=Text("Checkpoint progress").render(lang), height=280)
    )
    # from the run's start to now, like its sibling charts (not just around the last points)
    xs = [x for trace in figure.data for x in (trace.x or ())]
    figure.update_xaxes(
        title_text=SINCE_SUBMIT.render(lang), range=[0, max([snapshot.time - start, *xs, 1.0])]
    )
    figure.update_yaxes(title_text=Text("step").render(lang), rangemode="tozero")
    return figure
