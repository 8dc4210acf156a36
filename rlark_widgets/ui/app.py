"""The Voila app: a header with the language toggle, the error banner, and the six steps as
tabs over one Session."""

from __future__ import annotations

from typing import Any, Protocol

import ipywidgets as w

from ..i18n import LANGUAGE_NAMES, Text, render
from .html import CSS, banner, esc
from .labels import Labels
from .session import Session
from .steps import ClusterStep, ImportStep, JobStep, MonitorStep, RolesStep, TopologyStep


class Step(Protocol):
    """What the app needs of a step view: its widget (every step renders itself)."""

    widget: w.Widget


TITLES = (
    Text("1 Import"),
    Text("2 Cluster"),
    Text("3 Topology"),
    Text("4 Roles"),
    Text("5 Job"),
    Text("6 Submit & monitor"),
)
TOPOLOGY_TAB = 2
INTRO = Text(
    "Move an RLinf workload onto RLark: see your Ray nodes, GPUs and component processes "
    "as RLinf will place them, plan the roles, check the Job, then rehearse it locally or "
    "submit it."
)


def header_html(lang: str) -> str:
    return (
        CSS + "<div class='rlk'><h2 style='margin:4px 0'>rlark-widgets</h2>"
        f"<div>{esc(INTRO.render(lang))}</div></div>"
    )


class App:
    """Builds the views once; every view observes the one session.

    The language toggle calls ``session.set_language``; each view then re-labels its own
    widgets, so what was typed, selected and drawn stays.
    """

    def __init__(self, session: Session | None = None) -> None:
        self.session = session or Session()
        s = self.session
        self.topology = TopologyStep(s)
        self.steps: list[Step] = [
            ImportStep(s),
            ClusterStep(s),
            self.topology,
            RolesStep(s),
            JobStep(s),
            MonitorStep(s),
        ]
        t = self.labels = Labels(s)
        self.tabs = t(
            w.Tab(children=[step.widget for step in self.steps]),
            titles=lambda lang: tuple(title.render(lang) for title in TITLES),
        )
        self.tabs.observe(self._tab_changed, "selected_index")
        self.error = w.HTML(CSS + banner(s.error, "bad"))
        self.language = w.ToggleButtons(
            options=[(name, code) for code, name in LANGUAGE_NAMES.items()],
            value=s.lang,
            style={"button_width": "72px"},
            layout=w.Layout(width="auto", margin="6px 0 0 auto"),
        )
        self.language.observe(lambda c: s.set_language(c["new"]), "value")
        s.observe(lambda c: setattr(self.language, "value", c["new"]), ["lang"])
        self.run_notices = w.HTML()  # the watched run's events, whatever step is open
        s.observe(lambda _: self._show_notices(), ["notices", "lang"])
        self.header = w.HBox([t(w.HTML(), value=header_html), self.language, self.run_notices])
        s.observe(lambda c: setattr(self.error, "value", CSS + banner(c["new"], "bad")), ["error"])
        self.notice = w.HTML(CSS + banner(s.notice, "note"))
        s.observe(
            lambda c: setattr(self.notice, "value", CSS + banner(c["new"], "note")), ["notice"]
        )
        self.widget = w.VBox(
            [self.header, self.error, self.notice, self.tabs], layout=w.Layout(max_width="1280px")
        )

    def _show_notices(self) -> None:
        s = self.session
        told = "  ·  ".join(render(n.text, s.lang) for n in reversed(s.notices))
        self.run_notices.value = CSS + banner(told, "note") if told else ""

    def _tab_changed(self, change: dict[str, Any]) -> None:
        if change["new"] == TOPOLOGY_TAB:
            self.topology.open()


def launch(example: str | None = None, **session_options: Any) -> w.Widget:
    """The app widget, with a bundled example already imported (what `make app` shows)."""
    session = Session(**session_options)
    session.load_example(example)
    return App(session).widget
