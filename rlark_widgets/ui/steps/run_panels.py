"""Inside the run (monitor step): training curves with a scalar picker, GPU use per Worker, links.

Thin over the session: it draws ``session.snapshot`` and keeps the user's pick of scalars across
refreshes; the figures update in place (:class:`LazyFigure`).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from ...i18n import Text, render
from ...viz.run_charts import default_tags, gpu_figure, scalar_figure
from ..figures import LazyFigure
from ..html import CSS, esc
from ..labels import Labels
from ..session import Session


class RunPanels:
    """Curves (picker + figure), GPU use, and the links out of the current snapshot."""

    def __init__(self, session: Session) -> None:
        self.s = session
        t = Labels(session)
        self.picker = t(
            w.SelectMultiple(options=[], rows=5, layout=w.Layout(width="420px")),
            description=Text("Scalars"),
        )
        self.picked: list[str] | None = None  # None: the user has not picked yet
        self._syncing = False
        self.curves, self.gpus = LazyFigure(), LazyFigure()
        self.links = w.HTML()
        self.tensorboard = t(w.Button(icon="line-chart"), description=Text("Open TensorBoard"))
        self.tensorboard.on_click(lambda _: session.open_tensorboard())
        t.on(self.picker, lambda _: self._pick())
        session.observe(lambda _: self.render(), ["snapshot", "lang"])
        self.widget = w.VBox(
            [t.heading(Text("Inside the run"), "h4"), self.picker, self.curves.box]
            + [self.gpus.box, self.tensorboard, self.links]
        )

    def _pick(self) -> None:
        if self._syncing:
            return
        self.picked = list(self.picker.value)
        self.render()

    def tags(self) -> list[str]:
        """The scalars drawn: the user's pick, else the first few logged."""
        snap = self.s.snapshot
        scalars = snap.scalars if snap is not None else {}
        return self.picked if self.picked is not None else default_tags(scalars)

    def render(self) -> None:
        snap, lang = self.s.snapshot, self.s.lang
        if snap is None:  # no run read yet: nothing of an earlier run's stays
            self._syncing = True
            try:
                self.picker.options = []
            finally:
                self._syncing = False
            self.curves.clear()
            self.gpus.clear()
            self.links.value = ""
            return
        options = sorted(snap.scalars)
        if options != list(self.picker.options):
            shown = tuple(t for t in self.tags() if t in options)
            self._syncing = True  # new options reset the selection: that is no pick
            try:
                self.picker.options = options
                self.picker.value = shown
            finally:
                self._syncing = False
        self.curves.show(scalar_figure(snap.scalars, self.tags(), lang))
        self.gpus.show(gpu_figure(snap.gpus, snap.gpu_note, lang))
        self.links.value = CSS + links_html(snap.links, lang)


def links_html(links: list[Any], lang: str) -> str:
    """Each link as an anchor (a URL) or a command to copy, under its label."""
    if not links:
        return ""
    rows = []
    for link in links:
        label = esc(render(link.label, lang))
        if link.url:
            body = f"<a href='{esc(link.url)}' target='_blank' rel='noopener'>{esc(link.url)}</a>"
        else:
            body = f"<code>{esc(link.command or '')}</code>"
        rows.append(f"<li>{label}: {body}</li>")
    title = esc(Text("Continue elsewhere").render(lang))
    return f"<div class='rlk'><b>{title}</b><ul>{''.join(rows)}</ul></div>"
