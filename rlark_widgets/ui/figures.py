"""Steps that hold Plotly FigureWidgets: built when first shown, then updated in place.

Figures are drawn in ``session.lang`` and redrawn on the language toggle; titles and names
change, the traces do not, so the same widgets update in place.
"""

from __future__ import annotations

import base64
import tempfile
from functools import cache
from pathlib import Path

import ipywidgets as w

from ..i18n import Text, render
from ..monitor.history import HistoryPoint
from ..monitor.summary import summary_lines
from ..viz.flow import flow_figure
from ..viz.monitor_charts import checkpoint_figure, members_figure, worker_status_figure
from ..viz.palette import NEUTRAL
from ..viz.topology import node_rows, topology_figure
from .html import CSS, banner, esc
from .labels import Labels
from .plotly_bundle import FIGURE_ESM, plotly_bundle
from .session import Session

FIGURE_WIDTH = 1180  # fits the app's 1280 px column with its padding
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
            ".g-xtitle text",
            ".g-ytitle text",
            ".legendtext",
            ".legendtitletext",
            ".annotation-text",
            ".cbtitle text",
            ".node-label",
        )
    )
    + f" {{ fill: var(--jp-ui-font-color1, {NEUTRAL}) !important; }}</style>"
)


def _shape(figure) -> list[str]:
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


def _figure_widget(figure):
    widget = _figure_class()(figure)
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

    def show(self, figure) -> None:
        figure.update_layout(width=FIGURE_WIDTH)
        if self.widget is not None and _shape(self.widget) == _shape(figure):
            with self.widget.batch_update():
                for target, source in zip(self.widget.data, figure.data, strict=True):
                    target.update(source.to_plotly_json(), overwrite=True)
                self.widget.update_layout(figure.layout.to_plotly_json(), overwrite=True)
            return
        self.widget = _figure_widget(figure)
        self.box.children = [w.HTML(THEME_TEXT), self.widget]


def topology_rows(session: Session):
    """The plan's node rows, with each node's actual state once the Job is submitted."""
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
                worker.phase if worker else Text("no Worker"),
                f"Ray {member.state}" if member else Text("no Ray member"),
            ]
            row.state = " / ".join(render(part, session.lang) for part in parts)
    return rows


class TopologyStep:
    """Step 3: Ray nodes x GPUs (the plan, then the actual state), and components -> roles."""

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.grid, self.flow = LazyFigure(), LazyFigure()
        self.note = w.HTML()
        self.visible = False
        session.observe(lambda _: self.render(), ["revision", "snapshot", "lang"])
        self.widget = w.VBox([t.heading(Text("Topology")), self.note, self.grid.box, self.flow.box])

    def open(self) -> None:
        self.visible = True
        self.render()

    def render(self) -> None:
        if not self.visible:
            return
        lang = self.s.lang
        if self.s.job is None or self.s.report is None or not self.s.report.ok:
            self.note.value = banner(
                Text("Nothing to draw: import a config that RLinf accepts.").render(lang), "bad"
            )
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


class MonitorStep:
    """Step 6: Submit with progress, the diagnosis banner, charts, logs, Stop/Delete, record."""

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.submit = t(w.Button(button_style="success", icon="rocket"), description=Text("Submit"))
        self.progress = w.IntProgress(
            value=0,
            min=0,
            max=10,
            bar_style="info",
            layout=w.Layout(width="240px", visibility="hidden"),
        )
        self.stop = t(w.Button(icon="stop", button_style="warning"), description=Text("Stop"))
        self.delete = t(w.Button(icon="trash", button_style="danger"), description=Text("Delete"))
        self.refresh = t(w.Button(icon="refresh"), description=Text("Refresh"))
        self.status = w.HTML()
        self.summary = w.HTML()
        self.members, self.workers, self.checkpoints = LazyFigure(), LazyFigure(), LazyFigure()
        self.worker_choice = t(
            w.Dropdown(options=[], style={"description_width": "80px"}),
            description=Text("Worker log"),
        )
        self.log = w.Textarea(layout=w.Layout(width="100%", height="220px"), disabled=True)
        self.record = w.HTML()
        self.record_data: str | None = None  # the prepared record (base64); "": no Job; None: none
        record_button = t(w.Button(icon="archive"), description=Text("Prepare run record"))
        self.submit.on_click(lambda _: session.submit())
        self.stop.on_click(lambda _: session.stop())
        self.delete.on_click(lambda _: session.delete())
        self.refresh.on_click(lambda _: session.refresh())
        self.worker_choice.observe(lambda _: self.show_log(), "value")
        record_button.on_click(lambda _: self.prepare_record())
        session.observe(
            lambda _: self.render_controls(),
            ["revision", "acknowledged", "busy", "status", "backend_name", "lang"],
        )
        session.observe(lambda _: self.render_monitor(), ["snapshot", "lang"])
        session.observe(lambda _: self.render_record(), ["lang"])
        self.widget = w.VBox(
            [
                t.heading(Text("Submit and monitor")),
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
        hint = "" if s.busy else _disabled_hint(len(s.blocking()), len(s.unacknowledged()))
        self.status.value = CSS + banner(s.status, "note") + banner(render(hint, s.lang), "bad")

    def render_monitor(self) -> None:
        s = self.s
        snap, result, lang = s.snapshot, s.diagnosis, s.lang
        if snap is None:
            return
        desired = {r.name: r.replicas for r in s.job.roles} if s.job else {}
        kind = "good" if result and result.ok else "bad"
        lines = summary_lines(snap, desired, result, lang)
        self.summary.value = (
            CSS
            + banner(lines[-1] if result and result.ok else " ".join(lines[-2:]), kind)
            + ("<div class='rlk'><pre>" + esc("\n".join(lines[:-1])) + "</pre></div>")
        )
        history = s.history or [HistoryPoint.of(snap)]
        self.members.show(members_figure(history, lang))
        self.workers.show(worker_status_figure(history, lang))
        self.checkpoints.show(checkpoint_figure(snap, s.submitted_at, lang))
        options = [w_.key for w_ in snap.workers]
        if options != list(self.worker_choice.options):
            self.worker_choice.options = options
            self.worker_choice.value = options[0] if options else None

    def show_log(self) -> None:
        if self.worker_choice.value:
            self.log.value = self.s.logs(self.worker_choice.value)

    def prepare_record(self) -> None:
        path = self.s.record_zip(Path(tempfile.mkdtemp(prefix="rlark-record-")) / "run-record.zip")
        self.record_data = "" if path is None else base64.b64encode(path.read_bytes()).decode()
        self.render_record()

    def render_record(self) -> None:
        lang = self.s.lang
        if not self.record_data:
            self.record.value = (
                ""
                if self.record_data is None
                else f"<i>{esc(Text('No Job to record.').render(lang))}</i>"
            )
            return
        self.record.value = (
            f"<a download='{esc(self.s.job.name)}-record.zip' "
            f"href='data:application/zip;base64,{self.record_data}'>"
            f"{esc(Text('Download run record').render(lang))}</a>"
        )


def _disabled_hint(errors: int, warnings: int) -> Text | str:
    """Why Submit is disabled (one whole sentence per case: word order differs by language)."""
    if errors and warnings:
        return Text(
            "Submit is disabled: {errors} error(s) to fix, {warnings} warning(s) to acknowledge "
            "in the Job step.",
            errors=errors,
            warnings=warnings,
        )
    if errors:
        return Text("Submit is disabled: {errors} error(s) to fix.", errors=errors)
    if warnings:
        return Text(
            "Submit is disabled: {warnings} warning(s) to acknowledge in the Job step.",
            warnings=warnings,
        )
    return ""
