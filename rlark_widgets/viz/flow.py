"""Components -> node groups -> roles: how RLinf's placement lands on RLark's roles (a Sankey).

Node labels, hover text and the title are in ``lang``; component, group and role names are data, escaped
(:func:`.markup.figure_text`).
"""

from __future__ import annotations

from collections import Counter

import plotly.graph_objects as go

from ..i18n import Text
from ..rlinf import Expansion
from .markup import figure_text
from .palette import (
    FALLBACK_COMPONENT_COLOURS,
    NEUTRAL,
    ROLE_COLOURS,
    component_colour,
    role_colour,
    transparent_layout,
)
from .topology import NO_WORKER


def flow_figure(expansion: Expansion, roles: list[tuple[str, int]], lang: str = "en") -> go.Figure:
    """Link widths are process counts: component -> node group it was placed through -> role."""
    owner: list[str] = []
    for name, replicas in roles:
        owner += [name] * replicas
    component_group: Counter[tuple[str, str]] = Counter()
    group_role: Counter[tuple[str, str]] = Counter()
    for component in expansion.components.values():
        for row in component.processes:
            role = owner[row.node_rank] if row.node_rank < len(owner) else str(NO_WORKER)
            component_group[(component.name, row.node_group)] += 1
            group_role[(row.node_group, role)] += 1
    components = sorted({c for c, _ in component_group})
    groups = sorted({g for _, g in component_group})
    role_names = [name for name, _ in roles]
    labels = (
        [figure_text(c) for c in components]
        + [figure_text(Text("group: {group}", group=g), lang) for g in groups]
        + [figure_text(Text("role: {role}", role=r), lang) for r in role_names]
    )
    index = {("c", c): i for i, c in enumerate(components)}
    index.update({("g", g): len(components) + i for i, g in enumerate(groups)})
    index.update({("r", r): len(components) + len(groups) + i for i, r in enumerate(role_names)})
    paint = _component_colours(components, len(role_names))
    source, target, value, colour = [], [], [], []
    for (c, g), n in sorted(component_group.items()):
        source.append(index[("c", c)])
        target.append(index[("g", g)])
        value.append(n)
        colour.append(paint[c])
    for (g, r), n in sorted(group_role.items()):
        if ("r", r) not in index:
            continue
        source.append(index[("g", g)])
        target.append(index[("r", r)])
        value.append(n)
        colour.append(role_colour(role_names.index(r)))
    node_colours = (
        [paint[c] for c in components]
        + [NEUTRAL] * len(groups)
        + [role_colour(i) for i in range(len(role_names))]
    )
    figure = go.Figure(
        go.Sankey(
            node=dict(label=labels, color=node_colours, pad=18, thickness=16),
            link=dict(
                source=source,
                target=target,
                value=value,
                color=[_fade(c) for c in colour],
                hovertemplate=Text("{count} process(es)", count="%{value:,.0f}").render(lang)
                + "<extra></extra>",
            ),
        )
    )
    figure.update_layout(
        **transparent_layout(
            title=Text("Components → node groups → roles (process counts)").render(lang),
            height=360,
        )
    )
    return figure


def _component_colours(components: list[str], roles: int) -> dict[str, str]:
    """Each component's colour, never one of the roles' colours in the same figure (actor and
    the first role were both blue): a taken colour gives way to the next free one."""
    taken = {role_colour(i) for i in range(roles)}
    spare = [c for c in (*ROLE_COLOURS, *FALLBACK_COMPONENT_COLOURS) if c not in taken]
    paint: dict[str, str] = {}
    for name in components:
        wanted = component_colour(name, components)
        if wanted in taken or wanted in paint.values():
            free = [c for c in spare if c not in paint.values()]
            wanted = free[0] if free else wanted
        paint[name] = wanted
    return paint


def _fade(hex_colour: str, alpha: float = 0.4) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"
