"""The topology picture: Ray nodes (by RLINF_NODE_RANK, coloured by role) x GPU slots.

Each cell is one local GPU of one Worker and lists the component processes placed there; idle
GPUs are visible; robots are marked in a devices column; hover shows process ranks and the
visible devices. Above ``DETAIL_LIMIT`` nodes the picture aggregates (one row per role with
GPU-slot utilisation) instead of drawing thousands of labelled cells. Labels, titles and hover
text are in ``lang``; data (component, role and robot names, ranks) is shown as it is, escaped
for Plotly's markup (:func:`.markup.figure_text`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from math import ceil
from typing import Any

import plotly.graph_objects as go

from ..i18n import Text, render
from ..rlinf import Expansion
from .markup import figure_text
from .palette import CELL_TEXT, EMPTY, IDLE, STATE_COLOURS, role_colour, transparent_layout

DETAIL_LIMIT = 64  # nodes drawn cell by cell; above this the figure aggregates by role
# The grid is sized from its content, so no label is squeezed or thinned away (32 x 8 and up to
# DETAIL_LIMIT rows; tests/test_viz.py measures it, tests/test_app_browser.py in Chromium):
CELL_FONT = 11  # px, the component names in a cell
LINE_HEIGHT = 1.3  # Plotly's spacing of <br> lines, in font sizes
ROW_PADDING = 4  # px above and below a cell's text
GAP = 3  # px between cells
TOP_PX = 72  # the title, then the GPU labels above the grid
BOTTOM_PX = 56  # the role legend below the grid (two lines of entries)
DEVICE_COLUMN = Text("devices")
#: The column of the state dots after a submit (a category of its own: a number such as -0.75
#: on the grid's category axis became a stray column with "-0.75" as its label).
STATE_COLUMN = Text("state")
NO_WORKER = Text("(no Worker)")  # the role of a rank no role covers


@dataclass
class NodeRow:
    """One Ray node of the picture: its rank, role, GPUs and what runs on each GPU."""

    rank: int
    role: str
    role_index: int
    gpus: int
    cells: dict[int, list[str]] = field(
        default_factory=lambda: defaultdict(list)
    )  # gpu -> "actor#3"
    robots: list[str] = field(default_factory=list)
    node_processes: list[str] = field(default_factory=list)  # processes not tied to a GPU
    state: str | None = None  # actual state after submit (Worker phase / Ray member)


def node_rows(
    expansion: Expansion, roles: list[tuple[str, int]], gpus: dict[int, int] | None = None
) -> list[NodeRow]:
    """Rows for every node rank; ``roles`` is (role name, replicas) in role order."""
    owner: list[tuple[str, int]] = []
    for index, (name, replicas) in enumerate(roles):
        owner += [(name, index)] * replicas
    num_nodes = expansion.num_nodes or len(owner)
    rows = []
    for rank in range(num_nodes):
        name, index = owner[rank] if rank < len(owner) else (str(NO_WORKER), -1)
        count = (gpus or {}).get(rank, expansion.layout.count(rank))
        rows.append(NodeRow(rank, name, index, count))
    for component in expansion.components.values():
        for row in component.processes:
            if row.node_rank >= len(rows):
                continue
            target = rows[row.node_rank]
            label = f"{component.name}#{row.rank}"
            if row.hardware_type == "Accelerator":
                for gpu in row.local_hardware_ranks:
                    target.cells[gpu].append(label)
            else:
                target.node_processes.append(label)
                if row.hardware_type:
                    robot = f"{row.hardware_type}:{','.join(map(str, row.local_hardware_ranks))}"
                    if robot not in target.robots:
                        target.robots.append(robot)
    return rows


def _cell_text(labels: list[str]) -> str:
    """Component names in a cell, counted (``rollout×2``): data, the same in every language."""
    counts: dict[str, int] = defaultdict(int)
    for label in labels:
        counts[label.split("#")[0]] += 1
    return "<br>".join(
        f"{figure_text(name)}×{n}" if n > 1 else figure_text(name) for name, n in counts.items()
    )


def _row_label(row: NodeRow, lang: str) -> str:
    role = NO_WORKER if row.role_index < 0 else row.role
    if row.state:
        return figure_text(
            Text("rank {rank} · {role} · {state}", rank=row.rank, role=role, state=row.state), lang
        )
    return figure_text(Text("rank {rank} · {role}", rank=row.rank, role=role), lang)


def _listed(labels: list[str], lang: str) -> list[str]:
    """At most 12 process labels (escaped), then how many more."""
    more = [Text("… {count} more", count=len(labels) - 12).render(lang)] if len(labels) > 12 else []
    return [figure_text(label) for label in labels[:12]] + more


def _gpu_cell(row: NodeRow, gpu: int, lang: str) -> tuple[int | None, str, str]:
    """z, text and hover of one GPU cell: no such GPU, idle, or the processes on it."""
    label, labels = _row_label(row, lang), row.cells.get(gpu, [])
    if gpu >= row.gpus:
        return (
            None,
            "",
            Text("{node}<br>no GPU {gpu} on this node", node=label, gpu=gpu).render(lang),
        )
    if not labels:
        return (
            -1,
            Text("idle").render(lang),
            Text("{node}<br>GPU {gpu}: idle (requested, unused)", node=label, gpu=gpu).render(lang),
        )
    hover = Text(
        "{node}<br>GPU {gpu} (CUDA_VISIBLE_DEVICES includes {gpu})<br>{processes}",
        node=label,
        gpu=gpu,
        processes="<br>".join(_listed(labels, lang)),
    )
    return row.role_index, _cell_text(labels), hover.render(lang)


def _device_cell(row: NodeRow, lang: str) -> tuple[int | None, str, str]:
    """z, text and hover of the devices column: robots and processes not tied to a GPU."""
    count = len(row.node_processes)
    robots = [figure_text(robot) for robot in row.robots]
    extra = robots + (
        [Text("{count} node-level process(es)", count=count).render(lang)] if count else []
    )
    text = "<br>".join(robots) or (Text("{count} proc", count=count).render(lang) if count else "")
    processes = [figure_text(process) for process in row.node_processes[:12]]
    shown = "<br>".join(extra + processes) or Text("no devices").render(lang)
    return row.role_index if extra else None, text, f"{_row_label(row, lang)}<br>{shown}"


def topology_figure(
    rows: list[NodeRow], title: Text | str | None = None, lang: str = "en"
) -> go.Figure:
    """Detailed grid for up to DETAIL_LIMIT nodes, aggregated by role above."""
    title = render(title or Text("Ray nodes x GPUs"), lang)
    if len(rows) > DETAIL_LIMIT:
        return _aggregate_figure(rows, title, lang)
    width = max([r.gpus for r in rows] + [1])
    show_devices = any(r.robots or r.node_processes for r in rows)
    columns = [f"GPU {g}" for g in range(width)]
    columns += [DEVICE_COLUMN.render(lang)] if show_devices else []
    z, text, hover = [], [], []
    for row in rows:
        cells = [_gpu_cell(row, gpu, lang) for gpu in range(width)]
        cells += [_device_cell(row, lang)] if show_devices else []
        z.append([c[0] for c in cells])
        text.append([c[1] for c in cells])
        hover.append([c[2] for c in cells])
    roles = sorted({(r.role_index, r.role) for r in rows if r.role_index >= 0})
    scale = _discrete_scale([IDLE] + [role_colour(i) for i, _ in roles], lowest=-1)
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,
            y=[_row_label(r, lang) for r in rows],
            text=text,
            hovertext=hover,
            texttemplate="%{text}",
            hoverinfo="text",
            xgap=GAP,
            ygap=GAP,
            showscale=False,
            colorscale=scale,
            zmin=-1,
            zmax=max([i for i, _ in roles] + [0]),
            textfont=dict(color=CELL_TEXT, size=CELL_FONT),
        )
    )
    for index, role in roles:  # legend entries: one per role, in the role colour
        figure.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=figure_text(role),
                showlegend=True,
                marker=dict(size=12, symbol="square", color=role_colour(index)),
            )
        )
    _state_markers(figure, rows, lang)
    figure.update_layout(
        **transparent_layout(
            title=title,
            height=TOP_PX + BOTTOM_PX + len(rows) * row_height(text),
            margin=dict(l=10, r=10, t=TOP_PX, b=BOTTOM_PX),
            legend=dict(
                orientation="h", yanchor="top", y=0, x=0, title_text=Text("role ").render(lang)
            ),
        )
    )
    # every row and column keeps its label: Plotly would thin category ticks it finds crowded
    figure.update_yaxes(autorange="reversed", showgrid=False, dtick=1)
    figure.update_xaxes(side="top", showgrid=False, dtick=1)
    return figure


def row_height(text: list[list[str]]) -> int:
    """Pixels per node row: the tallest cell's lines, padded (two lines at least, to point at)."""
    lines = max((cell.count("<br>") + 1 for row in text for cell in row if cell), default=1)
    return ceil(max(lines, 2) * CELL_FONT * LINE_HEIGHT) + 2 * ROW_PADDING + GAP


def _discrete_scale(colours: list[str], lowest: int) -> list[list[Any]]:
    """A step colorscale mapping integers lowest..lowest+len-1 to ``colours``."""
    if len(colours) == 1:
        return [[0, colours[0]], [1, colours[0]]]
    n = len(colours)
    scale = []
    for i, colour in enumerate(colours):
        scale += [[i / n, colour], [(i + 1) / n, colour]]
    return scale


def _state_markers(figure: go.Figure, rows: list[NodeRow], lang: str) -> None:
    """After submit: a dot per node coloured by its actual state (Worker phase / Ray member)."""
    if not any(r.state for r in rows):
        return
    figure.add_trace(
        go.Scatter(
            x=[STATE_COLUMN.render(lang)] * len(rows),
            y=[_row_label(r, lang) for r in rows],
            mode="markers",
            hoverinfo="skip",
            marker=dict(
                size=12,
                color=[STATE_COLOURS.get((r.state or "Unknown").split()[0], IDLE) for r in rows],
            ),
            showlegend=False,
        )
    )


def _aggregate_figure(rows: list[NodeRow], title: str, lang: str) -> go.Figure:
    """Large clusters: one row per role, GPU slots coloured by how many nodes use them."""
    by_role: dict[tuple[int, str], list[NodeRow]] = defaultdict(list)
    for row in rows:
        by_role[(row.role_index, row.role)].append(row)
    width = max([r.gpus for r in rows] + [1])
    z, hover, labels = [], [], []
    for (_, role), members in sorted(by_role.items()):
        ranks, count = [m.rank for m in members], len(members)
        labels.append(
            figure_text(
                Text("{role} · 1 node (rank {first})", role=role, first=ranks[0])
                if count == 1
                else Text(
                    "{role} · {count} nodes (ranks {first}-{last})",
                    role=role,
                    count=count,
                    first=ranks[0],
                    last=ranks[-1],
                ),
                lang,
            )
        )
        used = [sum(1 for m in members if m.cells.get(g)) for g in range(width)]
        z.append([u / count for u in used])
        hover.append(
            [
                figure_text(
                    Text(
                        "{role}: GPU {gpu} used on {used} of {count} nodes",
                        role=role,
                        gpu=g,
                        used=u,
                        count=count,
                    ),
                    lang,
                )
                for g, u in enumerate(used)
            ]
        )
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"GPU {g}" for g in range(width)],
            y=labels,
            hovertext=hover,
            hoverinfo="text",
            colorscale=[[0, EMPTY], [1, role_colour(0)]],
            zmin=0,
            zmax=1,
            xgap=2,
            ygap=2,
            colorbar=dict(title=Text("share of nodes using the GPU").render(lang)),
        )
    )
    heading = Text("{title} ({count} nodes, aggregated by role)", title=title, count=len(rows))
    figure.update_layout(
        **transparent_layout(title=heading.render(lang), height=120 + 40 * len(labels))
    )
    figure.update_yaxes(autorange="reversed")
    return figure
