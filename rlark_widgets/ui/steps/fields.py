"""Widget helpers every step shares: field styles, labelled text inputs, node categories."""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from ...rlark.site import CONSOLE_CATEGORIES
from ..labels import Labels, Message

WIDE = w.Layout(width="420px")
STYLE = {"description_width": "150px"}
ROW_STYLE = {"description_width": "55px"}


def text_input(
    labels: Labels,
    description: Message,
    value: str = "",
    placeholder: Message = "",
    area: bool = False,
    width: str = "640px",
    **kwargs: Any,
) -> w.Widget:
    """A labelled text box (``area``: several lines); ``width="100%"`` fills its column."""
    cls = w.Textarea if area else w.Text
    widget = cls(
        value=value,
        style=STYLE,
        layout=w.Layout(width=width, height="90px" if area else None),
        **kwargs,
    )
    hint = {"placeholder": placeholder} if placeholder else {}  # else ipywidgets' own blank
    return labels(widget, description=description, **hint)


def category_label(key: str, lang: str) -> str:
    """The console's node categories are Chinese (云算力 …); English shows the key beside them."""
    name = CONSOLE_CATEGORIES.get(key, "")
    return name if lang == "zh" and name else f"{key} {name}".strip()
