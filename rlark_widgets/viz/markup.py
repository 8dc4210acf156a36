"""The one escaper of figure text: names from configs, Jobs and runs shown as they are in Plotly.

Plotly reads a subset of HTML in every text it draws (titles, tick labels, legend names, hover,
annotations, Sankey labels): ``<br>``, ``<b>``, ``<span style>``, ``<a href>`` (a link, possibly
``javascript:``), and typesets ``$...$`` as TeX where MathJax is on the page (Jupyter, Voila). A
role, component, node group or TensorBoard tag is data: :func:`figure_text` writes its ``&``,
``<``, ``>`` and ``$`` as entities (which Plotly shows as the characters, and never reads as
markup) and its invisible characters as escapes (:mod:`rlark_widgets.visible_text`). Our own
markup (``<br>`` between lines, ``<extra>`` in hover templates) goes around escaped values, never
into them: a :class:`Text`'s template is ours, its values are escaped.
"""

from __future__ import annotations

from ..i18n import Listing, Text
from ..visible_text import visible

#: Plotly decodes these entities (``&amp;``, ``&lt;``, ``&gt;`` by name, ``&#36;`` by number).
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"})


def figure_text(value: object, lang: str = "en") -> str:
    """``value`` for a figure: a :class:`Text` in ``lang`` with its values escaped, anything else
    (a name, a number) escaped whole."""
    if isinstance(value, Listing):
        items: tuple[object, ...] = value.params["items"]  # type: ignore[assignment]
        return Listing((figure_text(item, lang) for item in items), value.template).render(lang)
    if isinstance(value, Text):
        escaped = {key: figure_text(v, lang) for key, v in value.params.items()}
        return value.with_values(escaped).render(lang)
    return visible(str(value)).translate(_ENTITIES)
