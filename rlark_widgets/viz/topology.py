"""The topology picture: Ray nodes (by RLINF_NODE_RANK, coloured by role) x GPU slots.

Each cell is one local GPU of one Worker and lists the component processes placed there; idle
GPUs are visible; robots are marked in a devices column; hover shows process ranks and the
visible devices. Above ``DETAIL_LIMIT`` nodes the picture aggregates (one row per role with
GPU-slot utilisation) instead of drawing thousands of labelled cells.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import plotly.graph_objects as go

from ..rlinf import Expansion
from .palette import EMPTY, IDLE, STATE_COLOURS, role_colour, transparent_layout

DETAIL_LIMIT = 64  # nodes drawn cell by cell; above this the figure aggregates by role
DEVICE_COLUMN = "devices"


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
        name, index = owner[rank] if rank < len(owner) else ("(no Worker)", -1)
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
    counts: dict[str, int] = defaultdict(int)
    for label in labels:
        counts[label.split("#")[0]] += 1
    return "<br>".join(f"{name}×{n}" if n > 1 else name for name, n in counts.items())


def _row_label(row: NodeRow) -> str:
    state = f" · {row.state}" if row.state else ""
    return f"rank {row.rank} · {row.role}{state}"


def topology_figure(rows: list[NodeRow], title: str = "Ray nodes x GPUs") -> go.Figure:
    """Detailed grid for up to DETAIL_LIMIT nodes, aggregated by role above."""
    if len(rows) > DETAIL_LIMIT:
        return _aggregate_figure(rows, title)
    width = max([r.gpus for r in rows] + [1])
    show_devices = any(r.robots or r.node_processes for r in rows)
    columns = [f"GPU {g}" for g in range(width)] + ([DEVICE_COLUMN] if show_devices else [])
    z, text, hover = [], [], []
    for row in rows:
        z_row, text_row, hover_row = [], [], []
        for gpu in range(width):
            labels = row.cells.get(gpu, [])
            if gpu >= row.gpus:
                (
                    z_row.append(None),
                    text_row.append(""),
                    hover_row.append(f"{_row_label(row)}<br>no GPU {gpu} on this node"),
                )
            elif not labels:
                (
                    z_row.append(-1),
                    text_row.append("idle"),
                    hover_row.append(f"{_row_label(row)}<br>GPU {gpu}: idle (requested, unused)"),
                )
            else:
                z_row.append(row.role_index)
                text_row.append(_cell_text(labels))
                hover_row.append(
                    f"{_row_label(row)}<br>GPU {gpu} (CUDA_VISIBLE_DEVICES includes {gpu})<br>"
                    + "<br>".join(labels[:12])
                    + (f"<br>… {len(labels) - 12} more" if len(labels) > 12 else "")
                )
        if show_devices:
            extra = row.robots + (
                [f"{len(row.node_processes)} node-level process(es)"] if row.node_processes else []
            )
            z_row.append(row.role_index if extra else None)
            text_row.append(
                "<br>".join(row.robots)
                or (f"{len(row.node_processes)} proc" if row.node_processes else "")
            )
            hover_row.append(
                f"{_row_label(row)}<br>"
                + ("<br>".join(extra + row.node_processes[:12]) or "no devices")
            )
        z.append(z_row), text.append(text_row), hover.append(hover_row)
    roles = sorted({(r.role_index, r.role) for r in rows if r.role_index >= 0})
    scale = _discrete_scale([IDLE] + [role_colour(i) for i, _ in roles], lowest=-1)
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,
            y=[_row_label(r) for r in rows],
            text=text,
            hovertext=hover,
            texttemplate="%{text}",
            hoverinfo="text",
            xgap=3,
            ygap=3,
            showscale=False,
            colorscale=scale,
            zmin=-1,
            zmax=max([i for i, _ in roles] + [0]),
            textfont=dict(color="white", size=11),
        )
    )
    for index, role in roles:  # legend entries: one per role, in the role colour
        figure.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=role,
                showlegend=True,
                marker=dict(size=12, symbol="square", color=role_colour(index)),
            )
        )
    _state_markers(figure, rows)
    figure.update_layout(
        legend=dict(orientation="h", yanchor="bottom", y=-0.02, x=0, title_text="role ")
    )
    height = 90 + 46 * len(rows)
    figure.update_layout(**transparent_layout(title=title, height=min(max(height, 220), 1600)))
    figure.update_yaxes(autorange="reversed", showgrid=False)
    figure.update_xaxes(side="top", showgrid=False)
    return figure


def _discrete_scale(colours: list[str], lowest: int) -> list[list]:
    """A step colorscale mapping integers lowest..lowest+len-1 to ``colours``."""
    if len(colours) == 1:
        return [[0, colours[0]], [1, colours[0]]]
    n = len(colours)
    scale = []
    for i, colour in enumerate(colours):
        scale += [[i / n, colour], [(i + 1) / n, colour]]
    return scale


def _state_markers(figure: go.Figure, rows: list[NodeRow]) -> None:
    """After submit: a dot per node coloured by its actual state (Worker phase / Ray member)."""
    if not any(r.state for r in rows):
        return
    figure.add_trace(
        go.Scatter(
            x=[-0.75] * len(rows),
            y=[_row_label(r) for r in rows],
            mode="markers",
            hoverinfo="skip",
            marker=dict(
                size=12,
                color=[STATE_COLOURS.get((r.state or "Unknown").split()[0], IDLE) for r in rows],
            ),
            showlegend=False,
        )
    )


def _aggregate_figure(rows: list[NodeRow], title: str) -> go.Figure:
    """Large clusters: one row per role, GPU slots coloured by how many nodes use them."""
    by_role: dict[tuple[int, str], list[NodeRow]] = defaultdict(list)
    for row in rows:
        by_role[(row.role_index, row.role)].append(row)
    width = max([r.gpus for r in rows] + [1])
    z, hover, labels = [], [], []
    for (_, role), members in sorted(by_role.items()):
        ranks = [m.rank for m in members]
        labels.append(f"{role} · {len(members)} nodes (ranks {ranks[0]}-{ranks[-1]})")
        used = [sum(1 for m in members if m.cells.get(g)) for g in range(width)]
        z.append([u / len(members) for u in used])
        hover.append(
            [f"{role}: GPU {g} used on {u} of {len(members)} nodes" for g, u in enumerate(used)]
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
            colorbar=dict(title="share of nodes using the GPU"),
        )
    )
    figure.update_layout(
        **transparent_layout(
            title=f"{title} ({len(rows)} nodes, aggregated by role)", height=120 + 40 * len(labels)
        )
    )
    figure.update_yaxes(autorange="reversed")
    return figure
