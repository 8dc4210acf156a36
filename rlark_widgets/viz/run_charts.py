"""What happens inside a run: training curves per scalar, and GPU use per Worker.

Plain data in (:class:`ScalarSeries`, :class:`GpuUse`), ``go.Figure`` out. A chart with nothing
to draw says why in its title instead of drawing zeros (logical GPUs report no use).
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..i18n import Text
from ..monitor.gpus import GpuUse
from ..monitor.scalars import ScalarSeries
from .palette import role_colour, transparent_layout

#: Curves drawn at once: more would make panels too thin to read; the picker chooses.
MAX_PANELS = 6
PANEL_HEIGHT = 170


def _saying(title: Text, lang: str) -> go.Figure:
    """A chart with nothing to draw: its title says why, and no empty axes (plotly's default
    -1..6 and 0..4 ticks) suggest values."""
    figure = go.Figure()
    figure.update_layout(**transparent_layout(title=title.render(lang), height=80))
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure


def default_tags(scalars: dict[str, ScalarSeries], count: int = 3) -> list[str]:
    """The curves shown before the user picks: the first ``count`` tags, in name order."""
    return sorted(scalars)[:count]


def scalar_figure(scalars: dict[str, ScalarSeries], tags: list[str], lang: str = "en") -> go.Figure:
    """One panel per picked scalar (values against step), sharing the step axis."""
    shown = [tag for tag in tags if tag in scalars][:MAX_PANELS]
    if not shown:
        title = (
            Text("Training curves: no scalar logged yet")
            if not scalars
            else Text("Training curves: pick scalars to draw")
        )
        return _saying(title, lang)
    figure = make_subplots(
        rows=len(shown), cols=1, shared_xaxes=True, subplot_titles=shown, vertical_spacing=0.08
    )
    for row, tag in enumerate(shown, start=1):
        series = scalars[tag]
        figure.add_trace(
            go.Scattergl(
                x=series.steps,
                y=series.values,
                name=tag,
                mode="lines+markers" if len(series.steps) < 50 else "lines",
                line=dict(color=role_colour(row - 1)),
                showlegend=False,
            ),
            row=row,
            col=1,
        )
    figure.update_layout(
        **transparent_layout(
            title=Text("Training curves (TensorBoard events)").render(lang),
            height=80 + PANEL_HEIGHT * len(shown),
        )
    )
    figure.update_xaxes(title_text=Text("step").render(lang), row=len(shown), col=1)
    return figure


def gpu_figure(gpus: list[GpuUse], note: Text | None, lang: str = "en") -> go.Figure:
    """Utilisation and memory per GPU, grouped by Worker; the note instead when there is none."""
    if not gpus:
        return _saying(note or Text("GPU use: no GPU metrics reported"), lang)
    labels = [f"{g.worker} · GPU {g.index}" for g in gpus]
    memory = [100 * g.memory_used / g.memory_total if g.memory_total else 0.0 for g in gpus]
    hover = [f"{g.name}<br>{g.memory_used:.0f} / {g.memory_total:.0f} MiB" for g in gpus]
    figure = go.Figure(
        [
            go.Bar(
                x=labels,
                y=[g.utilization for g in gpus],
                name=Text("utilisation %").render(lang),
                marker_color=role_colour(0),
                hovertext=hover,
            ),
            go.Bar(
                x=labels,
                y=memory,
                name=Text("memory used %").render(lang),
                marker_color=role_colour(1),
                hovertext=hover,
            ),
        ]
    )
    figure.update_layout(
        **transparent_layout(
            title=Text("GPU use per Worker (Ray dashboard)").render(lang),
            height=280,
            barmode="group",
        )
    )
    figure.update_yaxes(range=[0, 100])
    return figure
