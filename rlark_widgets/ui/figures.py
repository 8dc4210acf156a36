"""Steps that hold Plotly FigureWidgets: built when first shown, then updated in place."""

from __future__ import annotations

import tempfile
from pathlib import Path

import ipywidgets as w

from ..monitor.summary import summary_lines
from ..viz.flow import flow_figure
from ..viz.monitor_charts import checkpoint_figure, members_figure, worker_status_figure
from ..viz.topology import node_rows, topology_figure
from .html import CSS, banner, esc
from .session import Session

FIGURE_WIDTH = 1180  # fits the app's 1280 px column with its padding


def _shape(figure) -> list[tuple[str, str | None]]:
    return [(trace.type, trace.name) for trace in figure.data]


class LazyFigure:
    """A FigureWidget created on first ``show`` (building one costs seconds in the kernel).

    Later figures of the same shape (trace types and names) update the widget in place; a
    figure of another shape gets a new widget, since adding and removing traces of a live
    widget is not reliably mirrored in the page.
    """

    def __init__(self) -> None:
        self.box = w.VBox()
        self.widget = None

    def show(self, figure) -> None:
        import plotly.graph_objects as go

        figure.update_layout(width=FIGURE_WIDTH)
        if self.widget is not None and _shape(self.widget) == _shape(figure):
            with self.widget.batch_update():
                for target, source in zip(self.widget.data, figure.data, strict=True):
                    target.update(source.to_plotly_json(), overwrite=True)
                self.widget.update_layout(figure.layout.to_plotly_json(), overwrite=True)
            return
        self.widget = go.FigureWidget(figure)
        self.box.children = [self.widget]


def topology_rows(session: Session):
    job, report = session.job, session.report
    roles = [(r.name, r.replicas) for r in job.roles] if job else []
    gpus = (
        {rank: role.gpus for role, ranks in job.node_rank_ranges() for rank in ranks}
        if job
        else None
    )
    rows = node_rows(report.expansion, roles, gpus)
    snap = session.snapshot
    if snap is not None:
        by_rank = {w.rank: w for w in snap.workers}
        members = {m.node_rank: m for m in snap.members}
        for row in rows:
            worker, member = by_rank.get(row.rank), members.get(row.rank)
            parts = [
                worker.phase if worker else "no Worker",
                f"Ray {member.state}" if member else "no Ray member",
            ]
            row.state = " / ".join(parts)
    return rows


class TopologyStep:
    """Step 3: Ray nodes x GPUs (the plan, then the actual state), and components -> roles."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.grid, self.flow = LazyFigure(), LazyFigure()
        self.note = w.HTML()
        self.visible = False
        session.observe(lambda _: self.render(), ["revision", "snapshot"])
        self.widget = w.VBox([w.HTML("<h3>Topology</h3>"), self.note, self.grid.box, self.flow.box])

    def open(self) -> None:
        self.visible = True
        self.render()

    def render(self) -> None:
        if not self.visible:
            return
        if self.s.job is None or self.s.report is None or not self.s.report.ok:
            self.note.value = banner("Nothing to draw: import a config that RLinf accepts.", "bad")
            return
        self.note.value = banner(
            "Each cell is one GPU of one Worker (rows: Ray nodes by RLINF_NODE_RANK, coloured "
            "by role). Hover for process ranks and visible devices."
        )
        self.grid.show(topology_figure(topology_rows(self.s)))
        self.flow.show(
            flow_figure(self.s.report.expansion, [(r.name, r.replicas) for r in self.s.job.roles])
        )


class MonitorStep:
    """Step 6: Submit with progress, the diagnosis banner, charts, logs, Stop/Delete, record."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.submit = w.Button(description="Submit", button_style="success", icon="rocket")
        self.progress = w.IntProgress(
            value=0,
            min=0,
            max=10,
            bar_style="info",
            layout=w.Layout(width="240px", visibility="hidden"),
        )
        self.stop = w.Button(description="Stop", icon="stop", button_style="warning")
        self.delete = w.Button(description="Delete", icon="trash", button_style="danger")
        self.refresh = w.Button(description="Refresh", icon="refresh")
        self.status = w.HTML()
        self.summary = w.HTML()
        self.members, self.workers, self.checkpoints = LazyFigure(), LazyFigure(), LazyFigure()
        self.worker_choice = w.Dropdown(
            description="Worker log", options=[], style={"description_width": "80px"}
        )
        self.log = w.Textarea(layout=w.Layout(width="100%", height="220px"), disabled=True)
        self.record = w.HTML()
        record_button = w.Button(description="Prepare run record", icon="archive")
        self.submit.on_click(lambda _: session.submit())
        self.stop.on_click(lambda _: session.stop())
        self.delete.on_click(lambda _: session.delete())
        self.refresh.on_click(lambda _: session.refresh())
        self.worker_choice.observe(lambda _: self.show_log(), "value")
        record_button.on_click(lambda _: self.prepare_record())
        session.observe(
            lambda _: self.render_controls(),
            ["revision", "acknowledged", "busy", "status", "backend_name"],
        )
        session.observe(lambda _: self.render_monitor(), ["snapshot"])
        self.widget = w.VBox(
            [
                w.HTML("<h3>Submit and monitor</h3>"),
                w.HBox([self.submit, self.progress, self.refresh, self.stop, self.delete]),
                self.status,
                self.summary,
                self.members.box,
                self.workers.box,
                self.checkpoints.box,
                w.HBox([self.worker_choice]),
                self.log,
                w.HBox([record_button, self.record]),
            ]
        )
        self.render_controls()

    def render_controls(self) -> None:
        s = self.s
        self.submit.disabled = not s.can_submit()
        self.progress.layout.visibility = "visible" if s.busy else "hidden"
        self.progress.value = (self.progress.value + 3) % 11 if s.busy else 0
        reasons = []
        if s.blocking():
            reasons.append(f"{len(s.blocking())} error(s) to fix")
        if s.unacknowledged():
            reasons.append(f"{len(s.unacknowledged())} warning(s) to acknowledge in the Job step")
        hint = f"Submit is disabled: {', '.join(reasons)}." if reasons and not s.busy else ""
        self.status.value = CSS + banner(s.status, "note") + banner(hint, "bad")

    def render_monitor(self) -> None:
        s = self.s
        snap, result = s.snapshot, s.diagnosis
        if snap is None:
            return
        desired = {r.name: r.replicas for r in s.job.roles} if s.job else {}
        kind = "good" if result and result.ok else "bad"
        lines = summary_lines(snap, desired, result)
        self.summary.value = (
            CSS
            + banner(lines[-1] if result and result.ok else " ".join(lines[-2:]), kind)
            + ("<div class='rlk'><pre>" + esc("\n".join(lines[:-1])) + "</pre></div>")
        )
        history = s.history or [snap]
        self.members.show(members_figure(history))
        self.workers.show(worker_status_figure(history))
        self.checkpoints.show(checkpoint_figure(snap, s.submitted_at))
        options = [w_.key for w_ in snap.workers]
        if options != list(self.worker_choice.options):
            self.worker_choice.options = options
            self.worker_choice.value = options[0] if options else None

    def show_log(self) -> None:
        if self.worker_choice.value:
            self.log.value = self.s.logs(self.worker_choice.value)

    def prepare_record(self) -> None:
        path = self.s.record_zip(Path(tempfile.mkdtemp(prefix="rlark-record-")) / "run-record.zip")
        if path is None:
            self.record.value = "<i>No Job to record.</i>"
            return
        import base64

        data = base64.b64encode(path.read_bytes()).decode("ascii")
        self.record.value = f"<a download='{esc(self.s.job.name)}-record.zip' href='data:application/zip;base64,{data}'>Download run record</a>"
