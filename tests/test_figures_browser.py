"""Figure widgets made while the page is busy still update in place (Chromium, real Voila).

plotly's FigureWidget carried its 5 MB module with every widget, and anywidget drops every
message to a widget whose module takes over 2 s to load: on a loaded 2-core machine a monitor
chart made during Ray start-up never moved again (CI caught it in the app journey). Here the
page's CPU is throttled 6x, and figures are made and updated from a background thread, as the
monitor does: the page must show every update. (With plotly's own module per widget the page
had drawn 3 of 8 updates after 100 s.)
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from servers import app_url, free_port, serving, voila_command

pytestmark = [pytest.mark.browser, pytest.mark.slow]

UPDATES = 8
#: One figure updated in place (the members chart) beside two that change shape at every
#: update and so get a new widget each time (the Worker and checkpoint charts do when a phase
#: or a checkpoint appears): each new widget once brought 5 MB of plotly code with it.
NOTEBOOK = f"""
import threading, time
import ipywidgets as w
import plotly.graph_objects as go
from rlark_widgets.ui.figures import LazyFigure

stable, churn = LazyFigure(), [LazyFigure(), LazyFigure()]
progress = w.HTML("waiting")
start = w.Button(description="Start")
display(w.VBox([start, progress, stable.box, *[f.box for f in churn]]))

def lines(n, count):
    return go.Figure([go.Scatter(x=list(range(n)), y=[k] * n) for k in range(count)])

def run():
    time.sleep(2)  # the test throttles the page meanwhile
    for n in range(1, {UPDATES} + 1):
        stable.show(lines(n, 1))
        for figure in churn:
            figure.show(lines(n, 1 + n % 2))
        progress.value = f"sent {{n}}"
        time.sleep(0.5)

start.on_click(lambda _: threading.Thread(target=run, daemon=True).start())
"""


@pytest.fixture
def voila_url(tmp_path: Path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(NOTEBOOK)]
    nbformat.write(notebook, tmp_path / "figures.ipynb")
    port = free_port()
    argv, env = voila_command(tmp_path / "figures.ipynb", port)
    with serving(argv, port, env=env):
        yield app_url(port, env)


def test_figures_made_under_load_take_every_update(page, voila_url: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(error.message))
    page.goto(voila_url, timeout=180_000)
    page.get_by_role("button", name="Start").wait_for(timeout=180_000)
    page.get_by_role("button", name="Start").click()
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 6})
    page.get_by_text(f"sent {UPDATES}").wait_for(timeout=180_000)
    page.wait_for_function(
        f"""() => {{
            const plots = [...document.querySelectorAll('.js-plotly-plot')];
            return plots.length === 3 && plots.every(p => p.data[0].x.length === {UPDATES});
        }}""",
        polling=1_000,
        timeout=120_000,
    )
    assert not [e for e in errors if "anywidget" in e], errors
