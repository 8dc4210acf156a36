"""The app's page offline, its figures at their container's width and its Job form in its
column, in a real browser (Chromium) against real Voila, at 1,280 and 1,920 px windows.

- Offline: every request the page makes goes to the loopback Voila server (Voila's own page
  linked Font Awesome from a CDN; the app's template drops the link, Voila's bundle carries the
  font), and the buttons' Font Awesome glyphs render from the local font file.
- Figures: every app figure (the Topology grid and Sankey; the monitor's members, Workers,
  checkpoints, curves and GPU use) is drawn at its container's width, including those drawn
  while their tab was closed, with no horizontal scrollbar and every tick label, legend entry,
  annotation and title inside the figure; no tick label is cut to a fragment such as ".0".
  The monitor is fed a refresh the way ``Session.refresh`` sets one (a snapshot with Workers,
  Ray members, checkpoints, curves and GPU use); a Ray run is not needed to draw it.
- Job form: no input runs under the YAML panel; each ends inside its column.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from servers import app_url, free_port, serving, voila_command
from test_app_browser import shot, tab, voila_url, workspace  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = [1280, 1920]

#: The app as `make app` shows it, after a refresh of a running Job: the Session's snapshot,
#: diagnosis and history set together, as ``Session.refresh`` sets them. Voila passes the page's
#: query to the kernel: ``?first`` is the first refresh, 2 s after the submit (one history
#: point, one step, no checkpoint, no curve and no GPU use yet: plotly's tightest ranges and
#: the charts that only say why they are empty); else 100 s into the run.
MONITOR_PAGE = """
import os, time
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.gpus import GpuUse
from rlark_widgets.monitor.history import extend
from rlark_widgets.monitor.scalars import ScalarSeries
from rlark_widgets.monitor.snapshot import (
    JobPhase,
    Checkpoint, JobSnapshot, RayMember, RunInfo, WorkerSnapshot,
)
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session
from rlark_widgets.ui.watched_run import WatchedRun

first = "first" in os.environ.get("QUERY_STRING", "")
session = Session()
session.load_example("local_rehearsal_2node")  # two roles: subplots
app = App(session)
display(app.widget)
start = time.time() - (2 if first else 100)
workers = [
    WorkerSnapshot(role.name, i, i, f"{role.name}-{i}", "Running")
    for role in session.job.roles for i in range(role.replicas)
]
members = [RayMember(f"n{w.rank}", f"10.0.0.{w.rank}", "ALIVE", w.rank == 0, w.rank) for w in workers]
history = []
for seconds in (1.5,) if first else (10, 40, 70, 100):
    snap = JobSnapshot(
        session.job.name, "local", start + seconds, phase=JobPhase.RUNNING,
        expected_workers=len(workers), workers=workers, members=members,
        run=RunInfo("run-1", start),
    )
    history = extend(history, snap)
snap.checkpoints = [] if first else [
    Checkpoint(step, f"/mnt/output/checkpoints/global_step_{step}", start + 30 + step)
    for step in (10, 20, 30)
]
snap.progress.last_step = 1 if first else 34
snap.progress.last_step_time = start + (1.2 if first else 95)
snap.progress.max_steps, snap.progress.save_interval = 40, 10
steps = [] if first else list(range(1, 35))
curves = {
    "train/loss": lambda s: 1 / s,
    "rollout/reward": lambda s: 0.02 * s,
    "time/step_seconds": lambda s: 12.5 + s % 3,
}
snap.scalars = {
    tag: ScalarSeries(tag, steps, [f(s) for s in steps], [start + 2 * s for s in steps])
    for tag, f in curves.items() if steps
}
snap.gpus = [] if first else [
    GpuUse(w.key, g, "NVIDIA A800", 60.0 + 5 * g, 40_000.0, 81_920.0)
    for w in workers for g in range(8)
]
session.run = WatchedRun(
    session.job.name, session.job, session.draft.generation, start,
    snapshot=snap, diagnosis=diagnose(snap), history=tuple(history),
)
"""

#: Per shown figure: its drawing's width, its container's, whether the container scrolls
#: sideways, its tick labels, and the texts (ticks, legend, annotations, title) outside it.
FIGURES = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .filter(p => p.getBoundingClientRect().width > 0)
  .map(p => {
    const box = p.querySelector('.main-svg').getBoundingClientRect();
    const container = p.closest('.rlk-figure');
    const ticks = '.xtick text, .ytick text, .cbaxis text';  // axes' and colour bars'
    const axisTitles = "[class^='g-x'][class$='title'] text, [class^='g-y'][class$='title'] text";
    const texts = ticks + ', .legendtext, .annotation-text, .gtitle, .cbtitle text, ' + axisTitles;
    const fill = e => getComputedStyle(e).fill;
    return {
      title: (p.querySelector('.gtitle') || {}).textContent || '',
      drawn: box.width,
      container: container.getBoundingClientRect().width,
      scrolls: container.scrollWidth > container.clientWidth + 1,
      ticks: [...p.querySelectorAll(ticks)].map(t => t.textContent),
      // every axis title in the title's (the theme's) colour, a subplot's second axis too
      offTheme: [...p.querySelectorAll(axisTitles)].filter(t => fill(t) !== fill(p.querySelector('.gtitle')))
        .map(t => t.textContent),
      outside: [...p.querySelectorAll(texts)].filter(t => {
        const r = t.getBoundingClientRect();
        return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1
          || r.top < box.top - 1 || r.bottom > box.bottom + 1);
      }).map(t => t.textContent),
    };
  })"""


@pytest.fixture(scope="module")
def monitor_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("monitor-page")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(MONITOR_PAGE)]
    nbformat.write(notebook, folder / "monitor.ipynb")
    port = free_port()
    argv, env = voila_command(folder / "monitor.ipynb", port)
    with serving(argv, port, env={**env, "RLARK_WORKSPACE": str(folder / "workspace")}):
        yield app_url(port, env)


def open_page(page, url: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1400})
    page.set_default_timeout(60_000)
    page.goto(url, timeout=180_000)
    page.wait_for_selector(".widget-tab", timeout=180_000)


def shown_figures(page, count: int) -> list[dict]:
    page.wait_for_function(
        "n => [...document.querySelectorAll('.js-plotly-plot .main-svg')]"
        ".filter(s => s.getBoundingClientRect().width > 0).length >= n",
        arg=count,
        timeout=180_000,
    )
    page.wait_for_timeout(1_000)  # a resize redraw after the tab showed
    return page.evaluate(FIGURES)


def assert_fits(figures: list[dict]) -> None:
    for figure in figures:
        name = figure["title"]
        # drawn at the container's width: never wider, and not left at plotly's 700 px default
        assert figure["container"] - 2 <= figure["drawn"] <= figure["container"] + 1, figure
        assert not figure["scrolls"], f"{name}: a horizontal scrollbar"
        assert not figure["outside"], f"{name}: text outside the figure: {figure['outside']}"
        assert not figure["offTheme"], f"{name}: not in the theme's colour: {figure['offTheme']}"
        cut = [t for t in figure["ticks"] if t.startswith(".")]
        assert not cut, f"{name}: tick labels cut to {cut}"


@pytest.mark.parametrize("width", WIDTHS)
def test_every_figure_takes_its_containers_width_with_its_labels_inside(
    page, monitor_url: str, width: int
) -> None:
    open_page(page, monitor_url, width)
    tab(page, "3 Topology")
    topology = shown_figures(page, 2)
    assert [f["title"] for f in topology] == [
        "Ray nodes x GPUs",
        "Components → node groups → roles (process counts)",
    ]
    # the state dots after a submit have their own column, not a stray numeric one
    grid_ticks = topology[0]["ticks"]
    assert "state" in grid_ticks and not any(
        t.lstrip("-−").replace(".", "").isdigit() for t in grid_ticks
    )
    assert_fits(topology)
    tab(page, "6 Submit & monitor")
    monitor = shown_figures(page, 5)
    assert [f["title"] for f in monitor] == [
        "Ray members: alive vs expected",
        "Workers per role",
        "Checkpoint progress",
        "Training curves (TensorBoard events)",
        "GPU use per Worker (Ray dashboard)",
    ]
    assert_fits(monitor)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"monitor-figures-{width}")


def test_the_first_refresh_in_chinese_keeps_its_labels_inside(page, monitor_url: str) -> None:
    """Seconds after a submit the ranges are tightest (0-2 s, step 1); Chinese labels differ."""
    open_page(page, f"{monitor_url}&first", 1280)
    page.get_by_text("中文", exact=True).click()
    page.get_by_text("6 提交与监控", exact=True).first.click()
    page.wait_for_function(  # the figures redrawn in Chinese
        "() => [...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('Ray 成员'))"
    )
    monitor = shown_figures(page, 5)
    assert "0.4" in monitor[0]["ticks"]  # the first refresh's seconds, not 100 s of history
    assert monitor[3]["ticks"] == monitor[4]["ticks"] == []  # no curve, no GPU use: no axes
    assert_fits(monitor)
    shot(page, "monitor-first-refresh-zh")


def is_loopback(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("data", "blob"):
        return is_loopback(parts.path) if parts.scheme == "blob" else True
    host = parts.hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: The shown Font Awesome icons: class, font family, the glyph drawn before them, and whether
#: the page holds the solid face loaded.
ICONS = """async () => {
  await document.fonts.ready;
  return {
    icons: [...document.querySelectorAll('.fa')].filter(e => e.offsetParent).map(e => ({
      name: e.className,
      family: getComputedStyle(e).fontFamily,
      glyph: getComputedStyle(e, '::before').content,
    })),
    loaded: [...document.fonts].some(f => /Font Awesome/.test(f.family) && f.status === 'loaded'),
  };
}"""


def test_the_page_asks_no_other_host_and_draws_its_icons_from_the_local_font(
    page,
    voila_url: str,  # noqa: F811
) -> None:
    requested: list[str] = []
    fonts: list[tuple[int, str]] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on(
        "response",
        lambda r: (
            fonts.append((r.status, r.url))
            if Path(urllib.parse.urlsplit(r.url).path).suffix in (".woff2", ".woff", ".ttf")
            else None
        ),
    )
    open_page(page, voila_url, 1280)
    tab(page, "6 Submit & monitor")  # Submit, Refresh, Stop, Delete: icons
    page.get_by_role("button", name="Refresh").wait_for()
    found = page.evaluate(ICONS)
    assert requested and all(is_loopback(url) for url in requested), [
        url for url in requested if not is_loopback(url)
    ]
    names = {icon["name"] for icon in found["icons"]}
    assert {"fa fa-rocket", "fa fa-refresh", "fa fa-stop", "fa fa-trash"} <= names, names
    for icon in found["icons"]:
        assert "Font Awesome" in icon["family"], icon
        assert icon["glyph"] not in ("none", "normal", '""'), icon  # a glyph, not an empty box
    assert found["loaded"]
    assert fonts and all(status == 200 and is_loopback(url) for status, url in fonts), fonts


#: The Job form's inputs, its column and the YAML panel's column, as page boxes.
JOB_FORM = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const form = document.querySelector('.rlk-job-form');
  return {
    form: box(form),
    preview: box(document.querySelector('.rlk-job-preview')),
    inputs: [...form.querySelectorAll('input, textarea')].map(box),
  };
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_job_form_stays_in_its_column(page, voila_url: str, width: int) -> None:  # noqa: F811
    open_page(page, voila_url, width)
    tab(page, "5 Job")
    page.locator(".rlk-job-form input").first.wait_for()
    boxes = page.evaluate(JOB_FORM)
    form, preview = boxes["form"], boxes["preview"]
    assert len(boxes["inputs"]) == 11  # nine fields, the prepare script and the SSH keys
    for field in boxes["inputs"]:
        assert form["left"] <= field["left"] and field["right"] <= form["right"] + 0.5, field
        assert field["right"] <= preview["left"], f"runs under the YAML panel: {field}"
    shot(page, f"job-form-{width}")


def test_the_aggregated_topology_keeps_its_labels_inside(page, voila_url: str) -> None:  # noqa: F811
    """Above 64 nodes the grid aggregates by role, with a colour bar: 128 nodes x 8 GPUs."""
    open_page(page, voila_url, 1280)
    page.locator(".widget-dropdown select").first.select_option("maniskill_ppo_openvlaoft")
    overrides = ["cluster.num_nodes=128"] + [
        f"cluster.component_placement.{name}=all" for name in ("actor", "rollout", "env")
    ]
    page.get_by_placeholder("cluster.num_nodes=2 (one per line)").fill("\n".join(overrides))
    page.get_by_role("button", name="Load example").click()
    page.get_by_text("maniskill_ppo_openvlaoft — task type embodied, 128 Ray node(s)").wait_for()
    tab(page, "3 Topology")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes('128 nodes'))",
        timeout=120_000,
    )
    figures = shown_figures(page, 2)
    assert "0.5" in figures[0]["ticks"]  # the colour bar's labels are measured too
    assert_fits(figures)
    shot(page, "topology-128-aggregated")
