"""Step 6, Monitor: Submit, the diagnosis, charts, logs, Stop/Delete and the run record."""

from __future__ import annotations

import base64
from typing import Any

import ipywidgets as w

from ...i18n import Text, render
from ...monitor.history import HistoryPoint
from ...monitor.summary import summary_lines
from ...resume import LATEST
from ...rlark.logs import RUN_LOG
from ...viz.monitor_charts import (
    checkpoint_figure,
    members_figure,
    run_start,
    worker_status_figure,
)
from ..figures import LazyFigure
from ..html import CSS, banner, esc, log_html
from ..labels import Labels
from ..session import Session
from .log_panel import LogPanel
from .run_panels import RunPanels
from .runs_panel import RunsPanel


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
        self.resume_choice = t(
            w.Dropdown(
                options=[], style={"description_width": "initial"}, layout=w.Layout(width="300px")
            ),
            description=Text("Resume from"),
        )
        self.resume = t(w.Button(icon="play", button_style="info"), description=Text("Resume"))
        self._redrawing = False
        self.confirm_text = w.HTML()
        self.confirm = t(w.Button(icon="trash", button_style="danger"), description=Text("Delete"))
        self.cancel = t(w.Button(), description=Text("Cancel"))
        self.confirm_box = w.VBox(
            [self.confirm_text, w.HBox([self.confirm, self.cancel])],
            layout=w.Layout(display="none"),
        )
        self.status = w.HTML()
        self.summary = w.HTML()
        self.members, self.workers, self.checkpoints = LazyFigure(), LazyFigure(), LazyFigure()
        self.worker_choice = t(
            w.Dropdown(options=[], style={"description_width": "80px"}),
            description=Text("Log"),
        )
        self.log = w.HTML(layout=w.Layout(width="100%"))
        self.record = w.HTML()
        self.record_data: str | None = None  # the prepared record (base64); "": no Job; None: none
        record_button = t(w.Button(icon="archive"), description=Text("Prepare run record"))
        self.submit.on_click(lambda _: session.submit())
        self.stop.on_click(lambda _: session.stop())
        self.delete.on_click(lambda _: session.request_delete())
        self.confirm.on_click(lambda _: session.delete())
        self.cancel.on_click(lambda _: session.cancel_delete())
        self.refresh.on_click(lambda _: session.refresh())
        self.resume.on_click(lambda _: session.resume(self.resume_choice.value or None))
        self.resume_choice.observe(self._chosen_resume, "value")
        self.worker_choice.observe(lambda _: self.show_log(), "value")
        record_button.on_click(lambda _: self.prepare_record())
        session.observe(
            lambda _: self.render_controls(),
            [
                "revision",
                "acknowledged",
                "busy",
                "status",
                "backend_name",
                "lang",
                "submitted",
                "snapshot",
                "delete_pending",
            ],
        )
        session.observe(lambda _: self.forget_record(), ["config"])
        session.observe(lambda _: self.render_monitor(), ["snapshot", "lang"])
        session.observe(lambda _: self.show_log(), ["snapshot"])  # follow new lines
        session.observe(lambda _: self.render_record(), ["lang"])
        # made after the observers above: a refresh draws the banner and the Ray and Worker
        # charts first, then the panels inside the run (a 1,000-Worker GPU heatmap takes longer)
        self.inside = RunPanels(session)  # curves, GPU use, links out
        self.runs = RunsPanel(session)  # every Job of the backend; reattach to one
        self.all_logs = LogPanel(session)  # search, follow and zip every Worker's log
        self.widget = w.VBox(
            [
                t.heading(Text("Submit and monitor")),
                w.HBox([self.submit, self.progress, self.refresh, self.stop, self.delete]),
                w.HBox([self.resume_choice, self.resume]),
                self.confirm_box,
                self.runs.widget,
                self.status,
                self.summary,
                self.members.box,
                self.workers.box,
                self.checkpoints.box,
                self.inside.widget,
                w.HBox([self.worker_choice]),
                self.log,
                self.all_logs.widget,
                w.HBox([record_button, self.record]),
            ]
        )
        self.render_controls()

    def render_controls(self) -> None:
        s = self.s
        self.submit.disabled = not s.can_submit()
        self.stop.disabled = not s.can_stop()
        self.delete.disabled = not s.can_delete() or bool(s.delete_pending)
        self.refresh.disabled = not s.submitted
        self.render_resume()
        self.confirm_text.value = CSS + banner(s.delete_pending, "bad")
        self.confirm_box.layout.display = "flex" if s.delete_pending else "none"
        self.progress.layout.visibility = "visible" if s.busy else "hidden"
        self.progress.value = (self.progress.value + 3) % 11 if s.busy else 0
        hint = "" if s.busy else _disabled_hint(len(s.blocking()), len(s.unacknowledged()))
        self.status.value = CSS + banner(s.status, "note") + banner(render(hint, s.lang), "bad")

    def render_resume(self) -> None:
        """The picker offers latest and each checkpoint of the watched Job; the choice stays."""
        s = self.s
        latest = Text("latest (highest step of any run)").render(s.lang)
        options = [(latest if c == LATEST else c, c) for c in s.resume_choices()]
        chosen = s.resume_from
        self._redrawing = True  # new options select the first one: that is no choice of the user's
        try:
            if options != list(self.resume_choice.options):
                self.resume_choice.options = options
            values = [value for _, value in options]
            if values:
                self.resume_choice.value = chosen if chosen in values else LATEST
        finally:
            self._redrawing = False
        self.resume.disabled = not s.can_resume()

    def _chosen_resume(self, change: dict[str, Any]) -> None:
        if change["new"] and not self._redrawing:
            self.s.resume_from = change["new"]

    def forget_record(self) -> None:
        """A new config: the previous one's run record does not stay on the page."""
        self.record_data = None
        self.render_record()

    def forget_run(self) -> None:
        """No run read yet (none watched, or a new one): nothing of an earlier run shows."""
        self.summary.value = self.log.value = ""
        for chart in (self.members, self.workers, self.checkpoints):
            chart.clear()
        self.worker_choice.options = []

    def render_monitor(self) -> None:
        s = self.s
        snap, result, lang = s.snapshot, s.diagnosis, s.lang
        if snap is None:
            self.forget_run()
            return
        desired = s.run.desired() if s.run is not None else {}
        kind = "good" if result and result.ok else "bad"
        lines = summary_lines(snap, desired, result, lang)
        self.summary.value = (
            CSS
            + banner(lines[-1] if result and result.ok else " ".join(lines[-2:]), kind)
            + ("<div class='rlk'><pre>" + esc("\n".join(lines[:-1])) + "</pre></div>")
        )
        history = s.history or [HistoryPoint.of(snap)]
        start = run_start(snap, s.submitted_at)
        self.members.show(members_figure(history, lang, start))
        self.workers.show(worker_status_figure(history, lang, start))
        self.checkpoints.show(checkpoint_figure(snap, s.submitted_at, lang))
        run = Text("Run script (on the Header's Worker)").render(lang)
        options = [(run, RUN_LOG), *((w_.key, w_.key) for w_ in snap.workers)]
        if options != list(self.worker_choice.options):
            chosen = self.worker_choice.value
            values = [value for _, value in options]
            self.worker_choice.options = options
            self.worker_choice.value = chosen if chosen in values else RUN_LOG

    def show_log(self) -> None:
        """The chosen log, read again at each refresh so the box follows new lines (none while
        the run has no Worker yet: a new run's first refresh asks for no log that cannot be)."""
        chosen, snap = self.worker_choice.value, self.s.snapshot
        readable = chosen and self.s.submitted and snap is not None and snap.workers
        self.log.value = log_html(self.s.logs(chosen)) if readable else ""

    def prepare_record(self) -> None:
        data = self.s.record_bytes()
        self.record_data = "" if data is None else base64.b64encode(data).decode()
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
        name = self.s.job.name if self.s.job else "job"
        self.record.value = (
            f"<a download='{esc(name)}-record.zip' "
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
