"""The Voila app in a real browser (Debian Chromium via Playwright) against a real Voila server.

One journey: load the app, import a bundled config, read the topology from the Plotly data in
the page, edit a role and see the YAML and findings change, acknowledge warnings, submit to the
local backend, see Ray members reach N/N and a checkpoint appear, then stop. Every step saves a
screenshot under tests/artifacts/ (git-ignored) for a reviewer to look at. Beside it: the language
toggle, and 32 nodes x 8 GPUs measured on the light and the dark theme (``?theme=dark``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from servers import app_url, free_port, serving, voila_command
from test_viz import DARK, DARK_PANEL

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
EXAMPLE = "local_rehearsal_2node"
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
def voila_url(workspace: Path):
    port = free_port()
    argv, env = voila_command(REPO / "notebooks/app.ipynb", port)
    with serving(argv, port, env={**env, "RLARK_WORKSPACE": str(workspace)}):
        yield app_url(port, env)
    _delete_local_jobs(workspace)


def _delete_local_jobs(workspace: Path) -> None:
    """Whatever the test left behind, nothing of the Job keeps running."""
    from rlark_widgets.backends.local.backend import LocalBackend
    from rlark_widgets.rlark.site import example_site

    backend = LocalBackend(workspace, site=example_site())
    for job_dir in workspace.iterdir():
        if job_dir.is_dir():
            backend.delete(job_dir.name)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def tab(page, title: str) -> None:
    page.get_by_text(title, exact=True).first.click()


def plotly_data(page) -> list[dict]:
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(el => el.data.map(t => ({type: t.type, x: t.x, y: t.y, text: t.text})))"
    )


def plotly_members(page) -> list[list[dict]]:
    """Traces (name, y) of every Plotly figure in the page."""
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(el => el.data.map(t => ({name: t.name, y: t.y})))"
    )


def test_app_from_import_to_rehearsal(page, voila_url: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 1600})
    page.set_default_timeout(60_000)
    page.goto(voila_url, timeout=180_000)
    page.wait_for_selector(".widget-tab", timeout=180_000)
    shot(page, "01-app-loaded")

    # 1 Import: a bundled example
    page.locator(".widget-dropdown select").first.select_option(EXAMPLE)
    page.get_by_role("button", name="Load example").click()
    page.get_by_text(f"{EXAMPLE} — task type embodied, 2 Ray node(s)").wait_for()
    shot(page, "02-imported")

    # 2 Cluster: two (logical) GPUs on each node
    tab(page, "2 Cluster")
    page.get_by_placeholder("0:8,1:4 (overrides the slider)").fill("0:2,1:2")
    page.get_by_role("button", name="Apply").click()
    shot(page, "03-cluster")

    # 3 Topology: rows are Ray nodes by RLINF_NODE_RANK, cells list the processes on each GPU
    tab(page, "3 Topology")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    # The kernel re-plans after Apply; the figure drawn before that (8 GPUs) is replaced in place.
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot').data?.[0]?.x?.length === 2",
        timeout=60_000,
    )
    heatmap = plotly_data(page)[0][0]
    assert heatmap["type"] == "heatmap"
    assert heatmap["y"] == ["rank 0 · header", "rank 1 · workers"]
    assert heatmap["x"] == ["GPU 0", "GPU 1"]
    assert heatmap["text"] == [
        ["actor<br>env", "actor<br>rollout"],
        ["actor<br>env", "actor<br>rollout"],
    ]
    shot(page, "04-topology")

    # 4 Roles: ask for one GPU on the Header, see the YAML and a finding change
    tab(page, "4 Roles")
    gpus = page.locator(".widget-inline-hbox:has(label:text('GPUs/Worker')) input").first
    gpus.fill("1")
    gpus.press("Enter")
    tab(page, "5 Job")
    page.get_by_text("PLN-GPU-COVER").first.wait_for()
    assert "nvidia.com/gpu: 1" in page.locator("pre.yaml").inner_text()
    shot(page, "05-edited-role")
    tab(page, "4 Roles")
    gpus = page.locator(".widget-inline-hbox:has(label:text('GPUs/Worker')) input").first
    gpus.fill("2")
    gpus.press("Enter")

    # 5 Job: acknowledge every warning
    tab(page, "5 Job")
    page.get_by_text("PLN-GPU-COVER").first.wait_for(state="detached")
    boxes = page.get_by_label("I understand")
    for index in range(boxes.count()):
        boxes.nth(index).check()
    assert all(boxes.nth(i).is_checked() for i in range(boxes.count()))
    shot(page, "06-job")

    # 6 Submit to the local backend and watch it rehearse
    tab(page, "6 Submit & monitor")
    submit = page.get_by_role("button", name="Submit")
    submit.wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('button')].some(b => b.textContent.trim() === 'Submit' && !b.disabled)"
    )
    submit.click()
    page.get_by_text("Ray members: 2/2 alive").wait_for(timeout=300_000)
    shot(page, "07-members")
    page.get_by_text("Latest checkpoint: global_step_").wait_for(timeout=300_000)
    page.get_by_text("(rehearsal, not training)").wait_for()
    shot(page, "08-checkpoint")
    time.sleep(4)  # one more refresh, so the charts have been updated in place at least once
    charts = {traces[0]["name"] if traces else None: traces for traces in plotly_members(page)}
    alive = charts["expected (num_nodes)"][1]["y"]
    # max, not the last point: on a slow machine the short rehearsal may already have ended
    assert max(alive) == 2 and charts["expected (num_nodes)"][0]["y"][-1] == 2
    # Inside the run: the rehearsal's TensorBoard curves, the runs list, every log as one zip
    assert set(charts["rehearsal/nodes_answering"][0]["y"]) == {2}  # both nodes every step
    page.get_by_role("button", name="List runs").click()
    job = EXAMPLE.replace("_", "-")
    page.locator("select option", has_text=f"{job}  ").first.wait_for()
    page.get_by_role("button", name="Download all logs (zip)").click()
    page.locator(f"a[download='{job}-logs.zip']").wait_for()
    page.get_by_role("button", name="Stop").click()
    page.get_by_text(f"Stopped Job '{EXAMPLE.replace('_', '-')}'").wait_for()
    shot(page, "09-stopped")


def test_language_toggle_switches_the_page_to_chinese_and_back(page, voila_url: str) -> None:
    """The header toggle: Chinese tabs, headings, findings and figure, the typed Job name kept."""
    from rlark_widgets.ui.session import Session

    expected = Session(workspace=Path("/nonexistent-workspace"))
    assert expected.load_example()  # what launch() shows (no image: none is pre-filled)
    warning = next(f for f in expected.findings if f.rule_id == "JOB-GPU-CAPACITY")

    page.set_viewport_size({"width": 1280, "height": 1600})
    page.set_default_timeout(60_000)
    page.goto(voila_url, timeout=180_000)
    page.wait_for_selector(".widget-tab", timeout=180_000)
    tab(page, "5 Job")
    name = page.locator(".widget-text:has(label:text('Job name')) input")
    name.fill("zh-rehearsal")
    name.press("Enter")
    page.get_by_text("name: zh-rehearsal").first.wait_for()

    page.get_by_role("button", name="中文").click()
    page.get_by_role("heading", name="Job 配置").wait_for()
    page.get_by_text(warning.message_in("zh")).first.wait_for()
    assert page.get_by_text("5 Job 配置", exact=True).first.is_visible()
    assert page.locator(".widget-text:has(label:text('Job 名称')) input").input_value() == (
        "zh-rehearsal"
    )
    shot(page, "app-zh")

    tab(page, "3 拓扑")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot').data[0].y[0].startsWith('节点 rank 0')"
    )
    shot(page, "app-zh-topology")

    page.get_by_role("button", name="English").click()
    page.get_by_text("5 Job", exact=True).first.wait_for()
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot').data[0].y[0].startsWith('rank 0')"
    )


# --- 32 nodes x 8 GPUs on light and dark themes (issue #6) ----------------------------------------
FULL_CLUSTER = "\n".join(
    [
        "cluster.num_nodes=32",
        "cluster.component_placement.actor=all",
        "cluster.component_placement.rollout=all",
        "cluster.component_placement.env=all",
    ]
)
# Every text of the first figure (title, ticks, legend, cells; not the hover layer): its box,
# its text and its computed fill; plus the plot area and the page background behind the figure.
FIGURE_TEXTS = """() => {
  const plot = document.querySelector('.js-plotly-plot');
  const texts = sel => [...plot.querySelectorAll(sel)].map(t => {
    const b = t.getBoundingClientRect();
    return {x: b.x, y: b.y, w: b.width, h: b.height, text: t.textContent,
            fill: getComputedStyle(t).fill};
  });
  let el = plot, background = 'rgba(0, 0, 0, 0)';
  while (el && /rgba\\(.*, 0\\)|transparent/.test(background)) {
    background = getComputedStyle(el).backgroundColor;
    el = el.parentElement;
  }
  return {
    size: plot._fullLayout._size,
    yticks: texts('.ytick text'), xticks: texts('.xtick text'),
    cells: texts('.heatmaplayer text'),
    others: texts('.gtitle, .legendtext, .legendtitletext'),
    background,
  };
}"""


def load_full_cluster(page, url: str) -> dict:
    """Open the app, import 32 nodes x 8 GPUs (actor, rollout, env on every GPU), draw it."""
    page.set_viewport_size({"width": 1280, "height": 2400})  # the whole grid in the screenshot
    page.set_default_timeout(120_000)
    page.goto(url, timeout=180_000)
    page.wait_for_selector(".widget-tab", timeout=180_000)
    page.locator(".widget-dropdown select").first.select_option("maniskill_ppo_openvlaoft")
    page.get_by_placeholder("cluster.num_nodes=2 (one per line)").fill(FULL_CLUSTER)
    page.get_by_role("button", name="Load example").click()
    page.get_by_text("maniskill_ppo_openvlaoft — task type embodied, 32 Ray node(s)").wait_for()
    tab(page, "3 Topology")
    page.wait_for_function(
        "() => document.querySelectorAll('.js-plotly-plot .heatmaplayer text').length === 256",
        timeout=180_000,
    )
    return page.evaluate(FIGURE_TEXTS)


def overlaps(boxes: list[dict]) -> list[tuple[str, str]]:
    """Pairs of boxes that overlap by more than half a pixel either way."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            dx = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
            dy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
            if dx > 0.5 and dy > 0.5:
                found.append((a["text"], b["text"]))
    return found


def rgba(css: str) -> tuple[float, float, float, float]:
    """``rgb(r, g, b)`` / ``rgba(r, g, b, a)`` as numbers."""
    values = [float(v) for v in re.findall(r"[\d.]+", css)]
    return (*values[:3], values[3] if len(values) > 3 else 1.0)


def contrast_on(fill: str, background: str) -> float:
    """WCAG contrast of a (possibly translucent) text colour over an opaque background."""
    *text, alpha = rgba(fill)
    page = rgba(background)[:3]
    shown = [alpha * t + (1 - alpha) * p for t, p in zip(text, page, strict=True)]

    def luminance(rgb) -> float:
        linear = [
            c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
            for c in rgb
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(shown), luminance(page)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_topology_at_32_nodes_x_8_gpus_on_light_and_dark_themes(page, voila_url: str) -> None:
    """No label overlaps another, each cell's text fits its cell, text reads on either theme."""
    light = load_full_cluster(page, voila_url)
    shot(page, "topology-32x8")
    size = light["size"]
    row_px, column_px = size["h"] / 32, size["w"] / 8
    labels = ["rank 0 · header", *(f"rank {r} · workers" for r in range(1, 32))]
    assert sorted(t["text"] for t in light["yticks"]) == sorted(labels)  # every row labelled
    assert len(light["xticks"]) == 8
    texts = light["yticks"] + light["xticks"] + light["cells"] + light["others"]
    assert not overlaps(texts), overlaps(texts)[:5]
    assert max(c["h"] for c in light["cells"]) <= row_px - 3  # three lines inside the cell
    assert max(c["w"] for c in light["cells"]) <= column_px - 3
    # the ticks sit left of the grid and above it, never on the cells
    assert max(t["x"] + t["w"] for t in light["yticks"]) <= min(c["x"] for c in light["cells"])
    assert max(t["y"] + t["h"] for t in light["xticks"]) <= min(c["y"] for c in light["cells"])
    light_ratio = min(contrast_on(t["fill"], light["background"]) for t in light["yticks"])
    assert light_ratio >= 4.5, (light["yticks"][0]["fill"], light["background"])

    dark = load_full_cluster(page, voila_url + "&theme=dark")
    shot(page, "topology-32x8-dark")
    assert page.evaluate("() => document.body.dataset.jpThemeLight") == "false"
    # behind the figure: a dark background the palette is checked against (tests/test_viz.py)
    shade = "#{:02x}{:02x}{:02x}".format(*map(int, rgba(dark["background"])[:3]))
    assert shade in (DARK, DARK_PANEL), shade
    texts = dark["yticks"] + dark["xticks"] + dark["others"]
    dark_ratio = min(contrast_on(t["fill"], dark["background"]) for t in texts)
    assert dark_ratio >= 4.5, (dark["yticks"][0]["fill"], dark["background"])
