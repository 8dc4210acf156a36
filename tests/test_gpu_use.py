"""GPU use per Worker from the Ray dashboard's node summary (issue #18), on recorded answers.

``node_summary_logical_gpus.json`` is a real answer of Ray 2.60's dashboard for a node started
with two logical GPUs (as the local rehearsal does); ``node_summary_two_gpu_nodes.json`` is the
same answer for two nodes with two physical GPUs each, rows in Ray's ``GpuUtilizationInfo``
shape (dashboard/modules/reporter/reporter_models.py).
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from pathlib import Path

import pytest

from rlark_widgets.backends.gpu_use import gpu_use_into, summary_rows
from rlark_widgets.i18n import render
from rlark_widgets.monitor.gpus import GpuUse
from rlark_widgets.monitor.snapshot import RUNNING, JobSnapshot, WorkerSnapshot
from rlark_widgets.monitor.summary import gpu_line
from rlark_widgets.viz.run_charts import GPU_BAR_LIMIT, HEATMAP_HEIGHT, gpu_figure

RECORDED = Path(__file__).parent / "golden" / "ray_dashboard"


def recorded(name: str) -> dict:
    return json.loads((RECORDED / name).read_text(encoding="utf-8"))


def two_workers() -> JobSnapshot:
    snap = JobSnapshot("demo", "kubernetes", time.time())
    snap.workers = [
        WorkerSnapshot("header", 0, 0, "demo-header-0", RUNNING, head=True),
        WorkerSnapshot("actor", 0, 1, "demo-actor-0", RUNNING),
    ]
    return snap


def test_physical_gpus_are_listed_per_worker_by_its_node_rank():
    snap = two_workers()
    gpu_use_into(snap, recorded("node_summary_two_gpu_nodes.json"))
    assert [(g.worker, g.index, g.utilization, g.memory_used) for g in snap.gpus] == [
        ("header/0", 0, 87.0, 61234.0),
        ("header/0", 1, 91.0, 60011.0),
        ("actor/0", 0, 12.0, 8123.0),
        ("actor/0", 1, 0.0, 0.0),
    ]
    assert {g.memory_total for g in snap.gpus} == {81920.0} and snap.gpu_note is None
    figure = gpu_figure(snap.gpus, snap.gpu_note)
    assert list(figure.data[0].x) == [
        "header/0 · GPU 0",
        "header/0 · GPU 1",
        "actor/0 · GPU 0",
        "actor/0 · GPU 1",
    ]
    assert list(figure.data[0].y) == [87, 91, 12, 0]
    assert figure.data[1].y[0] == pytest.approx(100 * 61234 / 81920)


def test_logical_gpus_are_said_to_have_no_metrics_instead_of_drawn_as_zeros():
    snap = two_workers()
    gpu_use_into(snap, recorded("node_summary_logical_gpus.json"))
    assert snap.gpus == []
    assert render(snap.gpu_note) == (
        "No GPU metrics: Ray counts 2 GPU(s) but sees no GPU device on any node (logical GPUs,"
        " as in the local rehearsal, have no utilisation or memory)."
    )
    assert render(snap.gpu_note, "zh").startswith("没有 GPU 指标：Ray 统计到 2 块 GPU")
    figure = gpu_figure(snap.gpus, snap.gpu_note, "zh")
    assert not figure.data and figure.layout.title.text == render(snap.gpu_note, "zh")
    assert figure.layout.xaxis.visible is False and figure.layout.yaxis.visible is False


def test_a_node_unknown_to_the_job_is_named_by_its_ip_and_dead_nodes_are_skipped():
    answer = recorded("node_summary_two_gpu_nodes.json")
    answer["data"]["summary"][0]["raylet"]["labels"] = {}
    answer["data"]["summary"][1]["raylet"]["state"] = "DEAD"
    snap = two_workers()
    gpu_use_into(snap, answer)
    assert {g.worker for g in snap.gpus} == {"10.0.0.10"} and len(snap.gpus) == 2


def test_an_answer_that_is_not_a_node_summary_is_refused():
    with pytest.raises(ValueError, match="node summary"):
        summary_rows({"result": True, "data": None})
    with pytest.raises(ValueError, match="boom"):
        summary_rows({"result": False, "msg": "boom", "data": {}})


def gpu_uses(workers: int, per_worker: int = 8) -> list[GpuUse]:
    return [
        GpuUse(f"actor/{w}", i, "NVIDIA A800-SXM4-80GB", float((w + i) % 101), 8192.0 * i, 81920.0)
        for w in range(workers)
        for i in range(per_worker)
    ]


def test_a_few_gpus_are_bars_and_many_a_worker_by_gpu_heatmap():
    """Up to GPU_BAR_LIMIT GPUs one bar each; a 1,000-node Job's 8,000 are one row per Worker
    and one column per GPU (16,000 bars took Chromium over a second at every refresh)."""
    assert {t.type for t in gpu_figure(gpu_uses(GPU_BAR_LIMIT // 8), None).data} == {"bar"}
    gpus = gpu_uses(1000)
    del gpus[5]  # actor/0 did not report its GPU 5: a gap, not a zero
    figure = gpu_figure(gpus, None)
    utilisation, memory = figure.data
    assert (utilisation.type, memory.type) == ("heatmap", "heatmap")
    assert list(utilisation.x) == list(range(8)) and len(utilisation.y) == 1000
    assert utilisation.y[0] == "actor/0" and utilisation.y[-1] == "actor/999"
    assert utilisation.z[3][2] == 5.0 and memory.z[3][2] == pytest.approx(20.0)
    assert math.isnan(utilisation.z[0][5]) and math.isnan(memory.z[0][5])
    assert (figure.layout.coloraxis.cmin, figure.layout.coloraxis.cmax) == (0, 100)
    assert figure.layout.height <= HEATMAP_HEIGHT[1]
    zh = gpu_figure(gpus, None, "zh")
    assert zh.layout.title.text.startswith("各 Worker 的 GPU 使用情况")
    assert [a.text for a in zh.layout.annotations] == ["利用率 %", "显存占用 %"]


def test_the_summary_lists_a_few_gpus_and_sums_up_many():
    """Each GPU of a small Job by name; a 1,000-node Job's 8,000 as their count, mean, lowest
    and highest (listed one by one they made a 150 KB line at every refresh)."""
    few = gpu_uses(2)
    assert render(gpu_line(few)) == "GPU use: " + ", ".join(
        f"actor/{w}#{i} {float((w + i) % 101)}%" for w in range(2) for i in range(8)
    )
    many = gpu_uses(1000)
    line = gpu_line(many)
    mean = sum(g.utilization or 0.0 for g in many) / len(many)
    assert render(line) == (
        f"GPU use: 8000 GPUs, mean {mean:.0f}%, lowest actor/0#0 0.0%, highest actor/93#7 100.0%"
    )
    assert render(line, "zh") == (
        f"GPU 使用：共 8000 块 GPU，平均 {mean:.0f}%，最低 actor/0#0 0.0%，最高 actor/93#7 100.0%"
    )
    unknown = [dataclasses.replace(g, utilization=None) for g in many]
    assert render(gpu_line(unknown)) == "GPU use: 8000 GPUs, none reports its utilisation"
