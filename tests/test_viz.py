"""Figure builders: the data in the Plotly figures says what the plan says (no browser needed)."""

from __future__ import annotations

import re

import pytest

from rlark_widgets.monitor.history import HISTORY_LIMIT, HistoryPoint, extend
from rlark_widgets.monitor.snapshot import (
    Checkpoint,
    JobSnapshot,
    Progress,
    RayMember,
    WorkerSnapshot,
)
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlinf import expand_placement, inspect_config, load_text, parse_cluster
from rlark_widgets.ui.figures import NARROWEST_CONTAINER
from rlark_widgets.viz.flow import flow_figure
from rlark_widgets.viz.monitor_charts import checkpoint_figure, members_figure, worker_status_figure
from rlark_widgets.viz.palette import (
    CELL_TEXT,
    COMPONENT_COLOURS,
    FALLBACK_COMPONENT_COLOURS,
    IDLE,
    NEUTRAL,
    ROLE_COLOURS,
    STATE_COLOURS,
)
from rlark_widgets.viz.topology import DETAIL_LIMIT, LINE_HEIGHT, node_rows, topology_figure

FRANKA = """
cluster:
  num_nodes: 3
  component_placement:
    actor: 0
    rollout: {node_group: "4090", placement: "0:0-1"}
    env: {node_group: franka, placement: 0-1}
  node_groups:
    - {label: "4090", node_ranks: 0}
    - label: franka
      node_ranks: 1-2
      hardware: {type: Franka, configs: [{node_rank: 1, robot_ip: 10.0.0.1}, {node_rank: 2, robot_ip: 10.0.0.2}]}
runner: {task_type: embodied}
"""


def _plan():
    report = inspect_config(load_text(FRANKA), 8, search_gpus=False)
    return report, plan_roles(report)


def test_topology_cells_show_processes_robots_and_requested_gpus() -> None:
    report, plan = _plan()
    rows = node_rows(
        report.expansion, [(r.name, r.replicas) for r in plan.roles], dict(plan.gpu_layout.per_node)
    )
    figure = topology_figure(rows)
    heatmap = figure.data[0]
    assert list(heatmap.y) == ["rank 0 · header", "rank 1 · franka", "rank 2 · franka"]
    assert list(heatmap.x) == ["GPU 0", "devices"]
    assert heatmap.text[0][0] == "actor<br>rollout×2"  # both on GPU 0 of node 0
    assert heatmap.text[1][1] == "Franka:0" and heatmap.text[2][1] == "Franka:0"
    assert heatmap.z[1][0] is None  # robot PCs request no GPU: no GPU cell drawn
    assert "env#0" in heatmap.hovertext[1][1]
    assert {t.name for t in figure.data[1:]} == {"header", "franka"}  # the role legend


def test_topology_shows_actual_state_after_submit() -> None:
    report, plan = _plan()
    rows = node_rows(report.expansion, [(r.name, r.replicas) for r in plan.roles])
    rows[1].state = "Failed"
    figure = topology_figure(rows)
    assert figure.data[-1].marker.color[1] == "#D55E00"
    assert "rank 1 · franka · Failed" in figure.data[0].y


def test_large_clusters_aggregate_by_role() -> None:
    nodes = DETAIL_LIMIT * 4
    expansion = expand_placement(
        parse_cluster({"num_nodes": nodes, "component_placement": {"actor": "all"}}), 8
    )
    figure = topology_figure(node_rows(expansion, [("header", 1), ("workers", nodes - 1)]))
    heatmap = figure.data[0]
    assert len(heatmap.y) == 2 and "aggregated by role" in figure.layout.title.text
    assert list(heatmap.y) == [
        "header · 1 node (rank 0)",
        f"workers · {nodes - 1} nodes (ranks 1-{nodes - 1})",
    ]
    assert heatmap.z[1] == [1.0] * 8  # every GPU of every worker node runs an actor process
    assert len(figure.to_json()) < 2_000_000


def test_flow_links_carry_process_counts() -> None:
    report, plan = _plan()
    figure = flow_figure(report.expansion, [(r.name, r.replicas) for r in plan.roles])
    sankey = figure.data[0]
    labels = list(sankey.node.label)
    env_to_franka = [
        v
        for s, t, v in zip(sankey.link.source, sankey.link.target, sankey.link.value, strict=True)
        if labels[s] == "env" and labels[t] == "group: franka"
    ]
    assert env_to_franka == [2]
    assert "role: header" in labels and "role: franka" in labels


def test_monitor_charts_from_snapshots() -> None:
    history = []
    for t, (alive, phase) in enumerate([(0, "Pending"), (1, "Running"), (2, "Running")]):
        workers = [
            WorkerSnapshot("header", 0, 0, "h", phase),
            WorkerSnapshot("franka", 0, 1, "f", phase),
        ]
        members = [RayMember(str(i), f"10.0.0.{i}", "ALIVE", i == 0, i) for i in range(alive)]
        history.append(
            JobSnapshot(
                "j", "local", 100.0 + 10 * t, expected_workers=2, workers=workers, members=members
            )
        )
    points = [HistoryPoint.of(snap) for snap in history]
    members = members_figure(points)
    assert list(members.data[1].y) == [0, 1, 2] and list(members.data[0].y) == [2, 2, 2]
    status = worker_status_figure(points)
    assert [list(t.y) for t in status.data if t.name == "Running"] == [[0, 1, 1], [0, 1, 1]]
    assert {a.text for a in status.layout.annotations} == {"header", "franka"}
    latest = history[-1]
    latest.checkpoints = [
        Checkpoint(2, "/x/global_step_2", 125.0),
        Checkpoint(4, "/x/global_step_4", 128.0),
    ]
    latest.progress = Progress(True, 5, 129.0, max_steps=6, save_interval=2)
    checkpoints = checkpoint_figure(latest, submitted_at=100.0)
    assert list(checkpoints.data[0].y) == [2, 4] and list(checkpoints.data[0].x) == [25.0, 28.0]
    assert (
        len([s for s in checkpoints.layout.shapes]) >= 3
    )  # cadence lines at 2, 4, 6 and max steps


def test_cadence_lines_stay_few_for_long_runs() -> None:
    """500 expected saves: at most 20 dotted lines, on multiples of the save interval."""
    snap = JobSnapshot("j", "kubernetes", 10_000.0, expected_workers=1)
    snap.checkpoints = [
        Checkpoint(s, f"/x/global_step_{s}", 5000.0 + s) for s in range(10, 5001, 10)
    ]
    snap.progress = Progress(True, 5000, 9999.0, save_interval=10)
    lines = [shape.y0 for shape in checkpoint_figure(snap, 0.0).layout.shapes]
    assert len(lines) == 20 and all(y % 10 == 0 for y in lines) and max(lines) == 5000
    short = Progress(True, 6, 9999.0, save_interval=2)
    snap.checkpoints, snap.progress = [], short
    assert [s.y0 for s in checkpoint_figure(snap, 0.0).layout.shapes] == [2, 4, 6]


@pytest.mark.parametrize(
    ("expected", "step"), [(2, 1), (10, 1), (11, 2), (64, 10), (1000, 100), (1001, 200)]
)
def test_member_counts_get_a_few_whole_ticks_at_any_job_size(expected: int, step: int) -> None:
    """One tick per member stays for a small Job; a 1,000-node Job gets about ten round ones
    (1,001 labels took Chromium 10-25 s to lay out at every refresh)."""
    snap = JobSnapshot("j", "kubernetes", 100.0, expected_workers=expected)
    axis = members_figure([HistoryPoint.of(snap)]).layout.yaxis
    assert axis.dtick == step and expected / axis.dtick <= 10 and axis.rangemode == "tozero"


def test_history_keeps_counts_and_drops_the_oldest() -> None:
    workers = [WorkerSnapshot("actor", 1, i, f"a{i}", "Running") for i in range(1000)]
    workers[3].phase = "Failed"
    members = [RayMember(str(i), "10.0.0.1", "ALIVE", i == 0, i) for i in range(999)]
    snap = JobSnapshot(
        "j", "kubernetes", 1.0, expected_workers=1000, workers=workers, members=members
    )
    history: list[HistoryPoint] = []
    for _ in range(HISTORY_LIMIT + 5):
        history = extend(history, snap)
    point = history[-1]
    assert len(history) == HISTORY_LIMIT
    assert (point.expected, point.alive) == (1000, 999)
    assert (point.workers("actor", "Running"), point.workers("actor", "Failed")) == (999, 1)
    assert point.workers("header", "Running") == 0


# --- Chinese (issue #7): labels in the reader's language, data as it is ---------------------------
CJK = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"(?<!%)\{\w+\}")  # %{value} is Plotly's own hover syntax


def strings(value: object) -> list[str]:
    """Every string in a figure's JSON: titles, names, labels, hover text, annotations."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings(v)]
    return []


def assert_rendered(figure) -> None:
    left = [s for s in strings(figure.to_plotly_json()) if PLACEHOLDER.search(s)]
    assert not left, left


def test_topology_in_chinese_translates_labels_and_keeps_data() -> None:
    report, plan = _plan()
    rows = node_rows(report.expansion, [("header", 1)], dict(plan.gpu_layout.per_node))
    rows[0].state = "Running / Ray ALIVE"
    figure = topology_figure(rows, lang="zh")
    heatmap = figure.data[0]
    assert figure.layout.title.text == "Ray 节点 × GPU"
    assert list(heatmap.x) == ["GPU 0", "设备"]
    assert list(heatmap.y) == [
        "节点 rank 0 · header · Running / Ray ALIVE",
        "节点 rank 1 · （无 Worker）",
        "节点 rank 2 · （无 Worker）",
    ]
    assert heatmap.text[0][0] == "actor<br>rollout×2"  # component names are data
    assert "GPU 0（CUDA_VISIBLE_DEVICES 包含 0）<br>actor#0" in heatmap.hovertext[0][0]
    assert heatmap.hovertext[1][0].endswith("此节点没有 GPU 0")
    assert heatmap.text[1][1] == "Franka:0" and "1 个节点级进程" in heatmap.hovertext[1][1]
    assert figure.layout.legend.title.text == "角色 "
    assert_rendered(figure)


def test_idle_gpus_and_aggregates_in_chinese() -> None:
    expansion = expand_placement(
        parse_cluster({"num_nodes": 1, "component_placement": {"actor": "0-1"}}), 4
    )
    cells = topology_figure(node_rows(expansion, [("header", 1)]), lang="zh").data[0]
    assert cells.text[0][2] == "空闲" and cells.hovertext[0][2].endswith(
        "GPU 2：空闲（已申请，未使用）"
    )
    nodes = DETAIL_LIMIT * 2
    expansion = expand_placement(
        parse_cluster({"num_nodes": nodes, "component_placement": {"actor": "all"}}), 8
    )
    figure = topology_figure(
        node_rows(expansion, [("header", 1), ("workers", nodes - 1)]), lang="zh"
    )
    heatmap = figure.data[0]
    assert figure.layout.title.text == f"Ray 节点 × GPU（{nodes} 个节点，按角色汇总）"
    assert list(heatmap.y) == [
        "header · 1 个节点（编号 0）",
        f"workers · {nodes - 1} 个节点（编号 1-{nodes - 1}）",
    ]
    assert heatmap.hovertext[1][0] == f"workers：{nodes - 1} 个节点中有 {nodes - 1} 个使用 GPU 0"
    assert heatmap.colorbar.title.text == "使用该 GPU 的节点比例"
    assert_rendered(figure)


def test_flow_in_chinese() -> None:
    report, plan = _plan()
    figure = flow_figure(report.expansion, [(r.name, r.replicas) for r in plan.roles], lang="zh")
    sankey = figure.data[0]
    assert {"env", "节点组：franka", "角色：header", "角色：franka"} <= set(sankey.node.label)
    assert sankey.link.hovertemplate == "%{value:,.0f} 个进程<extra></extra>"  # whole numbers
    assert figure.layout.title.text == "组件 → 节点组 → 角色（进程数）"
    assert_rendered(figure)


def test_monitor_charts_in_chinese() -> None:
    workers = [WorkerSnapshot("header", 0, 0, "h", "Running")]
    snap = JobSnapshot("j", "local", 100.0, expected_workers=1, workers=workers)
    snap.checkpoints = [Checkpoint(2, "/x/global_step_2", 120.0)]
    snap.progress = Progress(True, 3, 125.0, max_steps=4, save_interval=2)
    point = [HistoryPoint.of(snap)]
    members, status = members_figure(point, "zh"), worker_status_figure(point, "zh")
    checkpoints = checkpoint_figure(snap, 100.0, "zh")
    assert members.layout.title.text == "Ray 成员：存活与预期"
    assert [t.name for t in members.data] == ["预期（num_nodes）", "存活"]
    assert members.layout.xaxis.title.text == "提交后经过的秒数"
    assert status.layout.title.text == "各角色的 Worker" and status.data[0].name == "运行中"
    assert worker_status_figure([], "zh").layout.title.text == "各角色的 Worker：没有 Worker"
    assert checkpoints.layout.title.text == "Checkpoint 进度"
    assert checkpoints.layout.yaxis.title.text == "步数"
    assert [t.name for t in checkpoints.data] == [
        "已保存的 checkpoint（global_step_N）",
        "最新步数",
    ]
    annotations = {a.text for a in checkpoints.layout.annotations}
    assert annotations == {"预期每 2 步保存一次", "最大步数"}
    for figure in (members, status, checkpoints):
        assert_rendered(figure)


# --- 32 nodes x 8 GPUs: room for every label (issue #6) -------------------------------------------
# Estimates in font sizes, on the safe side for the app's sans-serif font: a Latin glyph is at
# most 0.6 em wide on average, a CJK glyph 1 em; Plotly spaces lines at 1.3 em and makes titles
# 1.4 x the layout font. tests/test_app_browser.py measures the real boxes in Chromium.
LATIN_EM, CJK_EM, TITLE_SCALE = 0.6, 1.0, 1.4
LEGEND_ENTRY_PX = 40  # a legend entry's symbol and gaps besides its text
LEGEND_PAD_PX = 10  # Plotly's legend padding, above and below


def text_px(text: str, size: float) -> float:
    """Widest line of a Plotly text (``<br>`` lines), in pixels."""
    return max(
        sum((CJK_EM if CJK.match(ch) else LATIN_EM) * size for ch in line)
        for line in text.split("<br>")
    )


def full_cluster(nodes: int):
    """Every GPU of every node runs actor, rollout and env: the tallest cells there are."""
    placement = {"actor": "all", "rollout": "all", "env": "all"}
    expansion = expand_placement(
        parse_cluster({"num_nodes": nodes, "component_placement": placement}), 8
    )
    return node_rows(expansion, [("header", 1), ("workers", nodes - 1)])


@pytest.mark.parametrize("nodes", [32, DETAIL_LIMIT])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_row_and_column_has_room_for_its_labels(nodes: int, lang: str) -> None:
    figure = topology_figure(full_cluster(nodes), lang=lang)
    figure.update_layout(width=NARROWEST_CONTAINER)  # the app's narrowest container
    heatmap, layout = figure.data[0], figure.layout
    font, cell_font = layout.font.size, heatmap.textfont.size
    assert (len(heatmap.y), len(heatmap.x)) == (nodes, 8)
    assert layout.yaxis.dtick == 1 and layout.xaxis.dtick == 1  # no tick label thinned away

    # vertically: each row holds its three-line cells and its tick label
    row_px = (layout.height - layout.margin.t - layout.margin.b) / nodes
    lines = max(cell.count("<br>") + 1 for row in heatmap.text for cell in row)
    assert lines == 3
    assert lines * cell_font * LINE_HEIGHT <= row_px - heatmap.ygap
    assert font * LINE_HEIGHT <= row_px
    # above the grid the title and the GPU labels; below it the role legend, on one line
    assert (TITLE_SCALE * font + font) * LINE_HEIGHT <= layout.margin.t
    legend = [t.name for t in figure.data[1:]] + [layout.legend.title.text]
    assert sum(text_px(n, font) + LEGEND_ENTRY_PX for n in legend) <= layout.width
    assert font * LINE_HEIGHT + 2 * LEGEND_PAD_PX <= layout.margin.b

    # horizontally: the row labels, then eight columns each wider than its text
    label_px = max(text_px(y, font) for y in heatmap.y)
    column_px = (layout.width - layout.margin.l - layout.margin.r - label_px) / 8
    widest = max(text_px(cell, cell_font) for row in heatmap.text for cell in row)
    assert widest <= column_px - heatmap.xgap and text_px(heatmap.x[-1], font) <= column_px


# --- legibility on JupyterLab's light and dark themes: WCAG contrast ----------------------------
LIGHT = "#ffffff"
# JupyterLab dark: the page (--jp-layout-color0) and the panels Voila shows widgets on
# (--jp-layout-color1, measured in tests/test_app_browser.py)
DARK, DARK_PANEL = "#111111", "#212121"
BACKGROUNDS = (LIGHT, DARK, DARK_PANEL)
NAMED = {"white": "#ffffff"}


def luminance(colour: str) -> float:
    """WCAG relative luminance of a #rrggbb colour (or a named one)."""
    hex_colour = NAMED.get(colour, colour).lstrip("#")

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(hex_colour[i : i + 2], 16)) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_ratios_are_what_wcag_says() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert round(contrast("#777777", "#ffffff"), 2) == 4.48  # WebAIM's checker gives 4.48


def test_every_palette_colour_stands_out_on_light_and_dark_pages() -> None:
    """Fills, lines, markers and the fallback text grey: >= 3:1 (graphics, large text) on each."""
    colours = {
        *ROLE_COLOURS,
        *COMPONENT_COLOURS.values(),
        *FALLBACK_COMPONENT_COLOURS,
        *STATE_COLOURS.values(),
        IDLE,
        NEUTRAL,
    }
    weakest = min(contrast(c, page) for c in colours for page in BACKGROUNDS)
    assert weakest >= 3, weakest
    assert (
        min(contrast(NEUTRAL, LIGHT), contrast(NEUTRAL, DARK)) >= 4.3
    )  # as near 4.5 as one grey gets


def test_cell_text_reads_on_every_cell_fill() -> None:
    """The 11 px cell text is small text: >= 4.5:1 on each fill the grid uses."""
    heatmap = topology_figure(full_cluster(2)).data[0]
    fills = {colour for _, colour in heatmap.colorscale}
    assert heatmap.textfont.color == CELL_TEXT and IDLE in fills
    assert fills <= {IDLE, *ROLE_COLOURS}
    assert min(contrast(CELL_TEXT, fill) for fill in (IDLE, *ROLE_COLOURS)) >= 4.5
