"""Plotly FigureWidgets for the steps: built when first shown, then updated in place.

Figures are drawn in ``session.lang`` and redrawn on the language toggle; titles and names
change, the traces do not, so the same widgets update in place.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import ipywidgets as w

from ..viz.palette import NEUTRAL
from .plotly_bundle import FIGURE_ESM, plotly_bundle

#: The narrowest container the figures are laid out for: JupyterLab's notebook column in a
#: 1,280 px window with the file browser open. Figures take their container's width (up to
#: Voila's 1,280 px column); their labels are sized to fit at this one.
NARROWEST_CONTAINER = 800
# Figure text (titles, axes, legends, annotations) in the page theme's text colour: one fixed
# colour cannot read at 4.5:1 on both a white and a #111111 page. Cell text and hover labels
# keep their own colours (they sit on fills, not on the page).
THEME_TEXT = (
    "<style>"
    + ", ".join(
        f".rlk-figure {part}"
        for part in (
            ".gtitle",
            ".xtick text",
            ".ytick text",
            "[class^='g-x'][class$='title'] text",  # every subplot's: g-xtitle, g-x2title, ...
            "[class^='g-y'][class$='title'] text",
            ".legendtext",
            ".legendtitletext",
            ".annotation-text",
            ".cbtitle text",
            ".node-label",
        )
    )
    + f" {{ fill: var(--jp-ui-font-color1, {NEUTRAL}) !important; }}</style>"
)


def _shape(figure: Any) -> list[str]:
    """Trace types in order: what a live widget can take in place (names may change)."""
    return [trace.type for trace in figure.data]


@cache
def _figure_class() -> type:
    """FigureWidget with plotly's widget code shared per page, announced once it holds data.

    The module each widget carries is a few lines that take plotly's widget from the page's
    one copy (see :mod:`.plotly_bundle`). The widget is announced to the page only once its
    traces and layout are set: plotly sets them just after announcing an empty widget, and the
    page draws a view from the state it has when the view is created; under load that was the
    empty one, and it stayed empty. (A class made on first use: importing plotly's widgets
    costs seconds.)
    """
    import plotly.graph_objects as go

    class SharedFigureWidget(go.FigureWidget):
        _esm = FIGURE_ESM
        _announce = False

        def open(self) -> None:
            if self._announce:
                super().open()

    return SharedFigureWidget


def _figure_widget(figure: Any) -> Any:
    widget = _figure_class()(figure)
    # responsive: plotly redraws the figure at its container's width on a window resize (the
    # module in :mod:`.plotly_bundle` also sends one when the figure's element changes width)
    widget._config = {**widget._config, "responsive": True}
    widget._announce = True
    widget.open()
    return widget


class LazyFigure:
    """A FigureWidget created on first ``show`` (building one costs seconds in the kernel).

    Later figures of the same shape (the same trace types) update the widget in place; a
    figure of another shape gets a new widget, since adding and removing traces of a live
    widget is not reliably mirrored in the page.
    """

    def __init__(self) -> None:
        plotly_bundle()  # plotly's code reaches the page now, while it waits for no figure
        self.box = w.VBox()
        self.box.add_class("rlk-figure")
        self.widget = None

    def show(self, figure: Any) -> None:
        # no fixed width: the figure takes its container's (Voila's column, a JupyterLab cell)
        figure.update_layout(width=None, autosize=True)
        if self.widget is not None and _shape(self.widget) == _shape(figure):
            with self.widget.batch_update():
                for target, source in zip(self.widget.data, figure.data, strict=True):
                    target.update(source.to_plotly_json(), overwrite=True)
                self.widget.update_layout(figure.layout.to_plotly_json(), overwrite=True)
            return
        self.widget = _figure_widget(figure)
        self.box.children = [w.HTML(THEME_TEXT), self.widget]

    def clear(self) -> None:
        """No figure (a new config: the previous one's charts must not stay on the page)."""
        self.widget = None
        self.box.children = []
