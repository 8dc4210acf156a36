"""All Workers' logs (monitor step): search by text, Worker and level, follow, download as zip."""

from __future__ import annotations

import base64
import logging
import tempfile
import threading
from pathlib import Path

import ipywidgets as w

from ...backends.all_logs import logs_zip
from ...i18n import Text
from ...monitor.log_levels import LEVELS
from ...monitor.log_search import search
from ..html import esc
from ..labels import Labels
from ..session import Session

LEVEL_NAMES = (
    Text("DEBUG and above"),
    Text("INFO and above"),
    Text("WARNING and above"),
    Text("ERROR and above"),
    Text("CRITICAL"),
)
#: Matching lines shown at once (the newest); the zip holds everything.
SHOWN = 500

log = logging.getLogger(__name__)


class LogPanel:
    """The search form, its results, Follow (search again at every refresh) and the zip link."""

    def __init__(self, session: Session) -> None:
        self.s = session
        t = Labels(session)
        self.text = t(w.Text(), description=Text("Find"))
        self.workers = t(w.SelectMultiple(options=[], rows=4), description=Text("Search in"))
        self.level = t.choice(
            w.Dropdown,
            [(Text("any level"), "")] + list(zip(LEVEL_NAMES, LEVELS, strict=True)),
            "",
            Text("Level"),
        )
        self.follow = t(w.Checkbox(value=False), description=Text("Follow"))
        find = t(w.Button(icon="search"), description=Text("Search logs"))
        download = t(w.Button(icon="download"), description=Text("Download all logs (zip)"))
        self.results = w.Textarea(layout=w.Layout(width="100%", height="220px"), disabled=True)
        self.link = w.HTML()
        find.on_click(lambda _: self.run())
        download.on_click(lambda _: self.download())
        self.following: threading.Thread | None = None  # the search Follow started last
        self._searching = threading.Lock()
        session.observe(lambda _: self.follow_up(), ["snapshot"])
        session.observe(lambda _: self.forget(), ["run"])
        self.widget = w.VBox(
            [
                t.heading(Text("All Workers' logs"), "h4"),
                w.HBox([self.text, self.level, self.follow]),
                self.workers,
                w.HBox([find, download, self.link]),
                self.results,
            ]
        )

    def forget(self) -> None:
        """Another run (or none) is watched: the earlier run's Workers and results go."""
        run = self.s.run
        if run is not None and run.snapshot is not None:
            return  # a refresh of the same run
        self.workers.options = []
        self.results.value = self.link.value = ""

    def run(self) -> None:
        logs = self.s.all_logs()
        if list(self.workers.options) != list(logs):
            self.workers.options = list(logs)
        chosen = list(self.workers.value) or None
        found = search(logs, self.text.value, chosen, self.level.value or None)
        self.results.value = "\n".join(str(line) for line in found[-SHOWN:])

    def follow_up(self) -> None:
        """Follow: search again after each refresh, in the background. Reading every Worker's
        log takes seconds for a 1,000-Worker Job, and the refresh (the banner, the charts) does
        not wait for it; a refresh while the last search still runs starts none."""
        if not self.follow.value or not self._searching.acquire(blocking=False):
            return
        self.following = threading.Thread(target=self._search, name="rlark-log-follow", daemon=True)
        self.following.start()

    def _search(self) -> None:
        try:
            self.run()
        except Exception:  # searched again at the next refresh; the kernel log keeps why
            log.exception("following the Workers' logs failed")
        finally:
            self._searching.release()

    def download(self) -> None:
        logs = self.s.all_logs()
        name = self.s.submitted or "job"
        path = logs_zip(logs, Path(tempfile.mkdtemp(prefix="rlark-logs-")) / f"{name}-logs.zip")
        data = base64.b64encode(path.read_bytes()).decode()
        label = esc(Text("Download all logs (zip)").render(self.s.lang))
        self.link.value = (
            f"<a download='{esc(path.name)}' href='data:application/zip;base64,{data}'>{label}</a>"
        )
