"""Step 3, Topology: Ray nodes x GPUs (the plan, then the actual state), components -> roles."""

from __future__ import annotations

import logging
import threading

import ipywidgets as w

from ...i18n import Text, render
from ...viz.flow import flow_figure
from ...viz.topology import NodeRow, node_rows, topology_figure
from ..figures import LazyFigure
from ..html import banner
from ..labels import Labels
from ..session import Session


def topology_rows(session: Session) -> list[NodeRow]:
    """The plan's node rows, with each node's actual state once this config's Job runs (a
    run of another config is never drawn on this one)."""
    job, report = session.job, session.report
    roles = [(r.name, r.replicas) for r in job.roles] if job else []
    gpus = (
        {rank: role.gpus for role, ranks in job.node_rank_ranges() for rank in ranks}
        if job
        else None
    )
    if report is None:
        return []
    rows = node_rows(report.expansion, roles, gpus)
    snap = session.snapshot
    if snap is not None and session.drawn_on_topology():
        by_rank = {w.rank: w for w in snap.workers}
        members = {m.node_rank: m for m in snap.members}
        for row in rows:
            worker, member = by_rank.get(row.rank), members.get(row.rank)
            parts = [
                worker.phase if worker else Text("no Worker"),
                f"Ray {member.state}" if member else Text("no Ray member"),
            ]
            row.state = " / ".join(render(part, session.lang) for part in parts)
    return rows


log = logging.getLogger(__name__)


class TopologyStep:
    """Step 3: Ray nodes x GPUs (the plan, then the actual state), and components -> roles."""

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.grid, self.flow = LazyFigure(), LazyFigure()
        self.note = w.HTML()
        self.visible = False
        self._drawing = threading.Lock()
        session.observe(lambda _: self.render(), ["revision", "snapshot", "lang"])
        session.observe(lambda _: self.prepare(), ["revision"])
        self.widget = w.VBox([t.heading(Text("Topology")), self.note, self.grid.box, self.flow.box])

    def open(self) -> None:
        self.visible = True
        self.render()

    def prepare(self) -> None:
        """Before the step was ever opened, a new Job's figures are built in the background, so
        the first click on the tab shows them instead of waiting for them (building a figure
        widget takes about a second here). The first paint of the page builds none."""
        if self.visible or self.s.job is None:
            return
        threading.Thread(target=self._prepare_now, name="rlark-topology", daemon=True).start()

    def _prepare_now(self) -> None:
        try:
            self._draw()
        except Exception:  # drawn again when the tab opens; the kernel log keeps why
            log.exception("preparing the Topology figures failed")

    def render(self) -> None:
        if self.visible:
            self._draw()

    def _draw(self) -> None:
        with self._drawing:  # a background build and a click never draw at once
            self._draw_now()

    def _draw_now(self) -> None:
        lang = self.s.lang
        if self.s.job is None or self.s.report is None or not self.s.report.ok:
            self.note.value = banner(
                Text("Nothing to draw: import a config that RLinf accepts.").render(lang), "bad"
            )
            self.grid.clear()
            self.flow.clear()
            return
        self.note.value = banner(
            Text(
                "Each cell is one GPU of one Worker (rows: Ray nodes by RLINF_NODE_RANK, coloured "
                "by role). Hover for process ranks and visible devices."
            ).render(lang)
        )
        roles = [(r.name, r.replicas) for r in self.s.job.roles]
        self.grid.show(topology_figure(topology_rows(self.s), lang=lang))
        self.flow.show(flow_figure(self.s.report.expansion, roles, lang=lang))
