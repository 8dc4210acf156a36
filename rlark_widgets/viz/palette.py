"""One palette for the whole product: role colours, component colours and states.

Legible on JupyterLab's light and dark themes, by measure (WCAG contrast, tests/test_viz.py):

- every colour keeps >= 3:1 against a white page and JupyterLab dark's #111111 page and #212121
  panels (what Voila shows behind a widget), as graphics need, so no fill disappears;
- cell fills (roles, idle) sit in the luminance band where white 11 px cell text keeps >= 4.5:1;
- hues follow Okabe-Ito, darkened into that band; every row also names its role, so colour is
  never the only cue.

Figure text uses ``NEUTRAL``, a grey as far from white as from #111111 (4.3:1 on both); in the
app the page's theme colour replaces it (ui/figures.py), which reads >= 4.5:1 on either theme.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..i18n import Text

ROLE_COLOURS = (
    "#0072B2",  # blue
    "#9E6C00",  # ochre (Okabe-Ito orange, darkened)
    "#007B59",  # bluish green
    "#A46085",  # reddish purple
    "#C25500",  # vermillion
    "#6A65A2",  # violet
    "#6F6F23",  # olive
    "#00828F",  # teal
)
CELL_TEXT = "white"  # on every role colour and IDLE
COMPONENT_COLOURS = {
    "actor": ROLE_COLOURS[0],
    "rollout": ROLE_COLOURS[1],
    "env": ROLE_COLOURS[2],
    "inference": ROLE_COLOURS[3],
    "reward": ROLE_COLOURS[4],
    "agent": ROLE_COLOURS[5],
    "critic": ROLE_COLOURS[7],
}
FALLBACK_COMPONENT_COLOURS = (ROLE_COLOURS[6], "#8C6D31", "#A34FA2", "#4F7A28", "#A6761D")
IDLE = "#737373"  # an idle GPU: opaque, so its text reads the same on either theme
EMPTY = "rgba(158,158,158,0.15)"  # aggregate view, no node uses the slot (no text on it)
NEUTRAL = "#797979"
STATE_COLOURS = {
    "Running": "#009E73",
    "ALIVE": "#009E73",
    "Pending": "#A87200",
    "Succeeded": "#0072B2",
    "Failed": "#D55E00",
    "DEAD": "#D55E00",
    "Unknown": "#878787",
    "Stopped": "#6A65A2",
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


def transparent_layout(**extra: Any) -> dict[str, Any]:
    """Layout that inherits the page background, so light and dark themes both read well."""
    return {
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {**FONT, "color": NEUTRAL},
        "margin": dict(l=10, r=10, t=40, b=10),
        **extra,
    }


def saying(title: Text, lang: str) -> go.Figure:
    """A chart with nothing to draw: its title says why, and no empty axes (plotly's default
    -1..6 and 0..4 ticks) suggest values."""
    figure = go.Figure()
    figure.update_layout(**transparent_layout(title=title.render(lang), height=80))
    figure.update_xaxes(visible=False)
    figure.update_yaxes(visible=False)
    return figure
