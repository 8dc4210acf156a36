"""One palette for the whole product: role colours, component colours and states.

Colours are chosen to stay legible on JupyterLab's light and dark themes (mid-luminance hues,
white cell text) and to be told apart by the common colour-vision deficiencies (Okabe-Ito base).
"""

from __future__ import annotations

ROLE_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#8C6D31",
    "#7570B3",
)
COMPONENT_COLOURS = {
    "actor": "#0072B2",
    "rollout": "#E69F00",
    "env": "#009E73",
    "inference": "#CC79A7",
    "reward": "#D55E00",
    "critic": "#56B4E9",
    "agent": "#7570B3",
}
FALLBACK_COMPONENT_COLOURS = ("#8C6D31", "#1B9E77", "#E7298A", "#66A61E", "#A6761D")
IDLE = "rgba(158,158,158,0.45)"
EMPTY = "rgba(158,158,158,0.15)"
STATE_COLOURS = {
    "Running": "#009E73",
    "ALIVE": "#009E73",
    "Pending": "#E69F00",
    "Succeeded": "#0072B2",
    "Failed": "#D55E00",
    "DEAD": "#D55E00",
    "Unknown": "#9E9E9E",
}
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=12)


def role_colour(index: int) -> str:
    return ROLE_COLOURS[index % len(ROLE_COLOURS)]


def component_colour(name: str, order: list[str] | None = None) -> str:
    if name in COMPONENT_COLOURS:
        return COMPONENT_COLOURS[name]
    others = [n for n in (order or [name]) if n not in COMPONENT_COLOURS]
    index = others.index(name) if name in others else 0
    return FALLBACK_COMPONENT_COLOURS[index % len(FALLBACK_COMPONENT_COLOURS)]


def transparent_layout(**extra) -> dict:
    """Layout that inherits the page background, so light and dark themes both read well."""
    return dict(
        paper_bgcolor="rgba(0,0,0,0)",
        plot_bgcolor="rgba(0,0,0,0)",
        font={**FONT, "color": "#7f7f7f"},
        margin=dict(l=10, r=10, t=40, b=10),
        **extra,
    )
