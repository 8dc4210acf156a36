"""What happens inside a run: training curves per scalar, and GPU use per Worker.

Plain data in (:class:`ScalarSeries`, :class:`GpuUse`), ``go.Figure`` out. A chart with nothing
to draw says why in its title instead of drawing zeros (logical GPUs report no use). Tags, Worker
and GPU names are data, escaped (:func:`.markup.figure_text`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..i18n import Text
from ..monitor.gpus import GpuUse
from ..monitor.scalars import ScalarSeries
from .markup import figure_text
from .palette import role_colour, saying, transparent_layout

#: Curves drawn at once: more would make panels too thin to read; the picker chooses.
MAX_PANELS = 6
PANEL_HEIGHT = 170
#: GPUs drawn one bar each up to this many; more are a Worker x GPU heatmap (16,000 bars of a
#: 1,000-node Job took Chromium over a second to draw, and their labels could not be read).
GPU_BAR_LIMIT = 64
#: The heatmap's height: a few pixels per Worker, between these bounds.
HEATMAP_HEIGHT = (280, 560)


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
        return saying(title, lang)
    figure = make_subplots(
        rows=len(shown),
        cols=1,
        shared_xaxes=True,
        subplot_titles=[figure_text(tag) for tag in shown],
        vertical_spacing=0.08,
    )
    for row, tag in enumerate(shown, start=1):
        series = scalars[tag]
        figure.add_trace(
            go.Scattergl(
                x=series.steps,
                y=series.values,
                name=figure_text(tag),
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
        return saying(note or Text("GPU use: no GPU metrics reported"), lang)
    if len(gpus) > GPU_BAR_LIMIT:
        return gpu_heatmap(gpus, lang)
    labels = [f"{figure_text(g.worker)} · GPU {g.index}" for g in gpus]
    memory = [100 * g.memory_used / g.memory_total if g.memory_total else 0.0 for g in gpus]
    hover = [
        f"{figure_text(g.name)}<br>{g.memory_used:.0f} / {g.memory_total:.0f} MiB" for g in gpus
    ]
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


def gpu_heatmap(gpus: list[GpuUse], lang: str = "en") -> go.Figure:
    """Utilisation and memory of many GPUs: one row per Worker (in ``gpus``' order), one column
    per GPU index, side by side on one 0-100 % colour scale; a GPU not reported is a gap (NaN).
    The cells are float32 arrays: plotly checks a list's 8,000 values one by one at every refresh
    (0.1-0.3 s of the kernel's time for a 1,000-node Job), an array's at once."""
    workers = list(dict.fromkeys(g.worker for g in gpus))
    indices = sorted({g.index for g in gpus})
    row, column = {w: i for i, w in enumerate(workers)}, {g: j for j, g in enumerate(indices)}
    utilisation = np.full((len(workers), len(indices)), np.nan, dtype=np.float32)
    memory = np.full((len(workers), len(indices)), np.nan, dtype=np.float32)
    for g in gpus:
        cell = row[g.worker], column[g.index]
        if g.utilization is not None:
            utilisation[cell] = g.utilization
        if g.memory_total:
            memory[cell] = 100 * g.memory_used / g.memory_total
    names = [Text("utilisation %").render(lang), Text("memory used %").render(lang)]
    figure = make_subplots(rows=1, cols=2, shared_yaxes=True, subplot_titles=names)
    for col, (name, z) in enumerate(zip(names, (utilisation, memory), strict=True), start=1):
        figure.add_trace(
            go.Heatmap(
                x=indices,
                y=[figure_text(worker) for worker in workers],
                z=z,
                name=name,
                coloraxis="coloraxis",
                hovertemplate="%{y} · GPU %{x}<br>" + name + ": %{z:.0f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    low, high = HEATMAP_HEIGHT
    title = Text("GPU use per Worker (Ray dashboard): one row per Worker, one column per GPU")
    figure.update_layout(
        **transparent_layout(
            title=title.render(lang),
            height=min(high, max(low, 120 + 4 * len(workers))),
            margin=dict(l=10, r=10, t=80, b=10),  # the title above the panels' own titles
            coloraxis=dict(cmin=0, cmax=100, colorscale="Viridis"),
        )
    )
    figure.update_xaxes(dtick=1, tickprefix="GPU ")
    figure.update_yaxes(autorange="reversed")  # the first Worker (the Header) at the top
    return figure
