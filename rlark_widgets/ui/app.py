"""The Voila app: a header, the error banner, and the six steps as tabs over one Session."""

from __future__ import annotations

import ipywidgets as w

from .figures import MonitorStep, TopologyStep
from .html import CSS, banner
from .session import Session
from .steps import ClusterStep, ImportStep, JobStep, RolesStep

TITLES = ("1 Import", "2 Cluster", "3 Topology", "4 Roles", "5 Job", "6 Submit & monitor")


class App:
    """Builds the views once; every view observes the one session."""

    def __init__(self, session: Session | None = None) -> None:
        self.session = session or Session()
        s = self.session
        self.topology = TopologyStep(s)
        self.steps = [
            ImportStep(s),
            ClusterStep(s),
            self.topology,
            RolesStep(s),
            JobStep(s),
            MonitorStep(s),
        ]
        self.tabs = w.Tab(children=[step.widget for step in self.steps])
        for index, title in enumerate(TITLES):
            self.tabs.set_title(index, title)
        self.tabs.observe(self._tab_changed, "selected_index")
        self.error = w.HTML()
        self.header = w.HTML(
            CSS + "<div class='rlk'><h2 style='margin:4px 0'>rlark-widgets</h2>"
            "<div>Move an RLinf workload onto RLark: see your Ray nodes, GPUs and component processes "
            "as RLinf will place them, plan the roles, check the Job, then rehearse it locally or submit it.</div></div>"
        )
        s.observe(lambda c: setattr(self.error, "value", CSS + banner(c["new"], "bad")), ["error"])
        self.widget = w.VBox(
            [self.header, self.error, self.tabs], layout=w.Layout(max_width="1280px")
        )

    def _tab_changed(self, change) -> None:
        if change["new"] == TITLES.index("3 Topology"):
            self.topology.open()


def launch(example: str | None = None, **session_options) -> w.Widget:
    """The app widget, with a bundled example already imported (what `make app` shows)."""
    session = Session(**session_options)
    session.job_fields = {"image": "registry.example.com/rlinf:v0.3.0-cuda12.4"}
    session.load_example(example)
    return App(session).widget
