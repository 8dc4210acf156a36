"""The app in JupyterLab: every figure fits its notebook output (Chromium, real JupyterLab).

JupyterLab's notebook column in a 1,400 px window with the file browser open is narrower
than Voila's page: figures fixed at 1,180 px put GPUs 6-7, the right of the Sankey and the
monitor's legends behind a scrollbar there. The notebook shows the app after a monitor refresh
(:data:`test_app_layout_browser.MONITOR_PAGE`); the test runs it in a real kernel, opens the
Topology and the monitor steps, and measures each drawn figure against its output area.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import nbformat
import pytest
from servers import LOOPBACK, free_port, serving
from test_app_browser import shot
from test_app_layout_browser import MONITOR_PAGE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Per shown figure: its drawing's width, its output area's, and whether that area scrolls.
IN_OUTPUTS = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(p => p.getBoundingClientRect().width > 0)
  .map(p => {
    const output = p.closest('.jp-OutputArea-output');
    return {
      title: (p.querySelector('.gtitle') || {}).textContent || '',
      drawn: p.querySelector('.main-svg').getBoundingClientRect().width,
      output: output.getBoundingClientRect().width,
      // the app's tabs: its column, at most 1,280 px wide (the app's own limit)
      column: p.closest('.widget-tab').getBoundingClientRect().width,
      scrolls: output.scrollWidth > output.clientWidth + 1,
    };
  })"""


def _lab(folder: Path) -> tuple[int, str, list[str], dict[str, str]]:
    """A JupyterLab on ``folder``, on loopback with a fresh token and settings of its own."""
    port, token = free_port(), secrets.token_hex(16)
    argv = [
        str(Path(sys.executable).parent / "jupyter-lab"),
        "--no-browser",
        f"--port={port}",
        f"--ServerApp.ip={LOOPBACK}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={folder}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--allow-root",  # CI containers run as root
    ]
    env = {
        "JUPYTERLAB_SETTINGS_DIR": str(folder / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(folder / "workspaces"),
    }
    return port, token, argv, env


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    """JupyterLab on loopback with a token, its settings and workspaces kept in a temp dir."""
    folder = tmp_path_factory.mktemp("lab")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(MONITOR_PAGE)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, folder / "app.ipynb")
    port, token, argv, env = _lab(folder)
    env["RLARK_WORKSPACE"] = str(folder / "workspace")
    with serving(argv, port, env=env, log=folder / "lab.log"):
        yield f"http://{LOOPBACK}:{port}/lab/tree/app.ipynb?token={token}"


def shown(page, count: int) -> list[dict]:
    page.wait_for_function(
        "n => [...document.querySelectorAll('.js-plotly-plot .main-svg')]"
        ".filter(s => s.getBoundingClientRect().width > 0).length >= n",
        arg=count,
        timeout=60_000,
    )
    page.wait_for_timeout(1_000)
    return page.evaluate(IN_OUTPUTS)


def assert_inside(figures: list[dict]) -> None:
    for figure in figures:
        assert figure["drawn"] <= figure["output"] + 1, figure
        assert figure["drawn"] >= figure["column"] - 40, figure  # fills it, not 700 px
        assert not figure["scrolls"], figure


def test_every_figure_fits_the_notebook_output_with_the_file_browser_open(
    page, lab_url: str
) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.set_default_timeout(60_000)
    page.goto(lab_url, timeout=90_000)
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    browser = page.locator(".jp-FileBrowser")
    if not browser.is_visible():
        page.locator("[data-id='filebrowser']").click()
    browser.wait_for()
    assert browser.bounding_box()["width"] > 150  # the file browser takes its share
    kernel = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    page.locator(".jp-Dialog").or_(kernel).first.wait_for()
    if page.locator(".jp-Dialog").count():  # which kernel: the notebook's own
        page.locator(".jp-Dialog button", has_text="Select").click()
    news = page.locator(".Toastify__toast").get_by_role("button", name="No", exact=True)
    if news.count():  # "notified about official Jupyter news?" would cover the app's tabs
        news.click()
    kernel.wait_for()
    page.locator(".jp-Cell .cm-content").first.click()
    page.keyboard.press("Shift+Enter")
    page.locator(".jp-OutputArea .widget-tab").first.wait_for(timeout=60_000)
    page.get_by_text("3 Topology", exact=True).first.click()
    topology = shown(page, 2)
    assert len(topology) == 2
    assert_inside(topology)
    page.get_by_text("6 Submit & monitor", exact=True).first.click()
    monitor = shown(page, 5)
    assert [f["title"] for f in monitor][-1] == "GPU use per Worker (Ray dashboard)"
    assert_inside(monitor)
    shot(page, "jupyterlab-monitor-1400")
    for width in (1280, 1920):  # the window resized: every figure follows its column
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(1_500)
        resized = shown(page, 5)
        assert_inside(resized)
        assert resized[0]["drawn"] != monitor[0]["drawn"]  # the figures did follow
        page.get_by_text("3 Topology", exact=True).first.click()
        assert_inside(shown(page, 2))
        page.get_by_text("6 Submit & monitor", exact=True).first.click()


@pytest.fixture(scope="module")
def repo_notebooks_lab(tmp_path_factory):
    """JupyterLab on copies of the repository's notebooks (opening must not change them)."""
    import shutil

    folder = tmp_path_factory.mktemp("notebooks")
    repo = Path(__file__).resolve().parents[1] / "notebooks"
    for name in OPENED:
        shutil.copy(repo / name, folder / name)
    port, token, argv, env = _lab(folder)
    with serving(argv, port, env=env, log=folder / "lab.log"):
        yield f"http://{LOOPBACK}:{port}/lab/tree", token


#: The app and a teaching pair: every notebook carries the metadata docs/bilingual.py writes.
OPENED = ("app.ipynb", "00-the-whole-chain.en.ipynb", "00-the-whole-chain.zh.ipynb")


@pytest.mark.parametrize("name", OPENED)
def test_opening_a_notebook_does_not_mark_it_modified(page, repo_notebooks_lab, name: str) -> None:
    """#24 item 18: the kernel's start wrote its kernelspec and language_info into a notebook
    that carried less, so JupyterLab showed it modified before anyone typed."""
    base, token = repo_notebooks_lab
    page.set_default_timeout(90_000)
    page.goto(f"{base}/{name}?reset&token={token}", timeout=90_000)  # no earlier tab restored
    page.locator(".jp-Notebook .jp-Cell:visible").first.wait_for()
    kernel = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']:visible")
    page.locator(".jp-Dialog").or_(kernel).first.wait_for()
    if page.locator(".jp-Dialog").count():
        page.locator(".jp-Dialog button", has_text="Select").click()
    kernel.wait_for()
    page.wait_for_timeout(3_000)  # the kernel's info arrives after idle
    assert page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty").count() == 0
