"""The Runs panel (monitor step): every Job of the backend; picking one reattaches the monitor."""

from __future__ import annotations

import time

import ipywidgets as w

from ...i18n import Text, render
from ...monitor.job_list import JobRow, row_text
from ...monitor.summary import age
from ..labels import Labels
from ..session import Session


class RunsPanel:
    """A list of the backend's Jobs (refreshed on demand) and a button to watch the chosen one."""

    def __init__(self, session: Session) -> None:
        self.s = session
        t = Labels(session)
        self.rows: list[JobRow] = []
        self.choice = w.Select(options=[], rows=6, layout=w.Layout(width="100%"))
        self.reload = t(w.Button(icon="list"), description=Text("List runs"))
        self.watch = t(w.Button(icon="eye"), description=Text("Watch this run"))
        self.reload.on_click(lambda _: self.load())
        self.watch.on_click(lambda _: self.attach())
        session.observe(lambda _: self.render(), ["lang"])
        session.observe(lambda change: self.forget(change["new"]), ["deleted"])
        self.widget = w.VBox(
            [t.heading(Text("Runs"), "h4"), w.HBox([self.reload, self.watch]), self.choice]
        )

    def load(self) -> None:
        self.rows = self.s.job_rows()
        self.render()

    def render(self) -> None:
        now, lang = time.time(), self.s.lang
        options = [
            (render(row_text(r, age(now - r.started) if r.started else "-"), lang), r.name)
            for r in self.rows
        ]
        chosen = self.choice.value
        self.choice.options = options
        if chosen in [name for _, name in options]:
            self.choice.value = chosen

    def forget(self, name: str) -> None:
        """A Job deleted from here leaves the list at once (no List runs click needed)."""
        if name and any(row.name == name for row in self.rows):
            self.rows = [row for row in self.rows if row.name != name]
            self.render()

    def attach(self) -> None:
        if self.choice.value:
            self.s.attach(self.choice.value)
