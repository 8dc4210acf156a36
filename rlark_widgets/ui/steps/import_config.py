"""Step 1, Import: a bundled example, a path or an upload, with overrides and variables."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w

from ...examples import example_configs
from ...i18n import Text, render
from ...rlinf.loader import RLinfConfig
from ...rlinf.report import mode_name, strategy_name
from ..html import CSS, esc, findings_html, table
from ..labels import Labels
from ..session import Session
from .fields import STYLE, WIDE, text_input


def imported_from(config: RLinfConfig) -> Text:
    """Which file the summary describes: a bundled example by name, a path or upload as given."""
    if config.source in {str(path) for path in example_configs().values()}:
        return Text("Imported: the bundled example {file}", file=Path(config.source).name)
    return Text("Imported: {file}", file=config.source)


class ImportStep:
    """Step 1: a bundled example, a path, or an upload; overrides and searchpath variables."""

    HEADERS = (Text("component"), Text("processes"), Text("strategy"))

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.example = t(
            w.Dropdown(
                options=list(example_configs()), value=session.example, style=STYLE, layout=WIDE
            ),
            description=Text("Bundled example"),
        )
        load_example = t(
            w.Button(button_style="primary", icon="download"), description=Text("Load example")
        )
        self.path = text_input(
            t,
            Text("Config file"),
            session.config_path,
            "/path/to/RLinf/examples/embodiment/config/x.yaml",
        )
        load_path = t(w.Button(icon="folder-open"), description=Text("Load file"))
        self.upload = t(
            w.FileUpload(accept=".yaml,.yml", multiple=False), description=Text("Upload YAML")
        )
        self.overrides = text_input(
            t,
            Text("Overrides"),
            session.overrides_text,
            Text("cluster.num_nodes=2 (one per line)"),
            area=True,
        )
        self.env = text_input(
            t,
            Text("Search paths"),
            session.env_text,
            "EMBODIED_PATH=/path/to/RLinf/examples/embodiment",
            area=True,
        )
        self.summary = w.HTML()
        load_example.on_click(
            lambda _: self._load(lambda: session.load_example(self.example.value))
        )
        load_path.on_click(lambda _: self._load(lambda: session.load_path(self.path.value)))
        self.upload.observe(self._uploaded, "value")
        session.observe(lambda _: self.render(), ["revision", "lang"])
        self.widget = w.VBox(
            [
                t.heading(Text("Import your RLinf config")),
                w.HBox([self.example, load_example]),
                w.HBox([self.path, load_path]),
                self.upload,
                self.overrides,
                self.env,
                self.summary,
            ]
        )
        self.render()

    def _sync(self) -> None:
        self.s.overrides_text, self.s.env_text = self.overrides.value, self.env.value

    def _load(self, load: Callable[[], bool]) -> None:
        """Take the typed overrides and variables, then import."""
        self._sync()
        load()

    def _uploaded(self, change: dict[str, Any]) -> None:
        files = change["new"]
        if files:
            item = files[0]
            self._sync()
            self.s.load_upload(item["name"], bytes(item["content"]))

    def render(self) -> None:
        report, lang = self.s.report, self.s.lang
        if report is None:
            self.summary.value = ""
            return
        e = report.expansion
        rows = [
            (c.name, c.world_size, strategy_name(c.strategy))
            for c in sorted(e.components.values(), key=lambda c: c.name)
        ]
        config_findings = [f for f in report.findings if f.rule_id.startswith(("CFG", "PLC"))]
        line = Text(
            "{name} — task type {task_type}, {nodes} Ray node(s), mode {mode}",
            name=self.s.config.name if self.s.config else "?",
            task_type=e.task_type or "?",
            nodes=e.num_nodes or "?",
            mode=mode_name(e.placement_mode),
        )
        self.summary.value = CSS + (
            f"<div class='rlk'><b>{esc(line.render(lang))}</b>"
            + (
                f"<div class='path'>{esc(render(imported_from(self.s.config), lang))}</div>"
                if self.s.config
                else ""
            )
            + "</div>"
            + (table(self.HEADERS, rows, lang) if rows else "")
            + findings_html(config_findings, lang=lang)
        )
