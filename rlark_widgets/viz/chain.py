"""The whole chain in one static picture: config -> node ranks -> roles -> Workers (Pods) ->
Ray nodes -> GPUs -> component processes (a Sankey whose widths are process counts).

It is the one diagram the teaching notebooks and the book draw from a real plan, so the names
on it (ranks, roles, GPUs, components) are the plan's own, escaped (:func:`.markup.figure_text`). Labels and the title are in ``lang``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import plotly.graph_objects as go

from ..i18n import Text
from ..rlinf import Expansion
from .markup import figure_text
from .palette import NEUTRAL, component_colour, role_colour, transparent_layout

COLUMNS = (
    Text("RLinf config"),
    Text("node ranks (RLINF_NODE_RANK)"),
    Text("roles"),
    Text("Workers (Pods)"),
    Text("Ray nodes"),
    Text("GPUs"),
    Text("component processes"),
)


def chain_figure(
    expansion: Expansion, rank_map: list[tuple[int, str, int]], lang: str = "en"
) -> go.Figure:
    """One link per step of the chain; a node without processes (a controller) still shows.

    ``rank_map`` is the plan's (RLINF_NODE_RANK, role, worker index) list, roles in Job order.
    """
    role_of = {rank: (role, index) for rank, role, index in rank_map}
    components = list(expansion.components)
    per_node: Counter[int] = Counter()
    per_gpu: Counter[tuple[int, int | None]] = Counter()
    per_component: Counter[tuple[int, int | None, str]] = Counter()
    for component in expansion.components.values():
        for row in component.processes:
            slot = row.visible_accelerators[0] if row.visible_accelerators else None
            per_node[row.node_rank] += 1
            per_gpu[(row.node_rank, slot)] += 1
            per_component[(row.node_rank, slot, component.name)] += 1

    labels: list[str] = []
    colours: list[str] = []
    index: dict[tuple[Any, ...], int] = {}

    def node(key: tuple[Any, ...], label: Text | str, colour: str = NEUTRAL) -> int:
        if key not in index:
            index[key] = len(labels)
            labels.append(figure_text(label, lang))
            colours.append(colour)
        return index[key]

    source: list[int] = []
    target: list[int] = []
    value: list[int] = []

    def link(a: int, b: int, width: int) -> None:
        source.append(a)
        target.append(b)
        value.append(width)

    config = node(("config",), Text("cluster.num_nodes = {n}", n=len(role_of)))
    role_names = list(dict.fromkeys(role for _, role, _ in rank_map))
    for rank, (role, worker_index) in sorted(role_of.items()):
        width = max(per_node[rank], 1)
        colour = role_colour(role_names.index(role))
        ranked = node(("rank", rank), Text("RLINF_NODE_RANK {rank}", rank=rank), colour)
        grouped = node(("role", role), Text("role {role}", role=role), colour)
        worker = node(
            ("worker", rank), Text("Worker {role}/{index} (Pod)", role=role, index=worker_index)
        )
        ray = node(
            ("ray", rank),
            Text("Ray node {rank} (head)", rank=rank)
            if rank == 0
            else Text("Ray node {rank}", rank=rank),
            colour,
        )
        for a, b in ((config, ranked), (ranked, grouped), (grouped, worker), (worker, ray)):
            link(a, b, width)
        if not per_node[rank]:
            continue
        for (gpu_rank, slot), count in sorted(per_gpu.items(), key=lambda kv: str(kv[0])):
            if gpu_rank != rank:
                continue
            gpu = node(
                ("gpu", rank, slot),
                Text("node {rank} · GPU {gpu}", rank=rank, gpu=slot)
                if slot is not None
                else Text("node {rank} · no GPU", rank=rank),
            )
            link(ray, gpu, count)
            for (r, s, name), n in sorted(per_component.items(), key=lambda kv: str(kv[0])):
                if (r, s) == (rank, slot):
                    link(gpu, node(("c", name), name, component_colour(name, components)), n)

    figure = go.Figure(
        go.Sankey(
            arrangement="snap",
            node=dict(label=labels, color=colours, pad=10, thickness=14),
            link=dict(
                source=source,
                target=target,
                value=value,
                hovertemplate=Text("{count} process(es)", count="%{value}").render(lang)
                + "<extra></extra>",
            ),
        )
    )
    steps = " → ".join(column.render(lang) for column in COLUMNS)
    figure.update_layout(**transparent_layout(title=steps, height=420 + 18 * len(role_of)))
    return figure
