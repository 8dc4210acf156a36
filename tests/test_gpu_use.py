"""GPU use per Worker from the Ray dashboard's node summary (issue #18), on recorded answers.

``node_summary_logical_gpus.json`` is a real answer of Ray 2.60's dashboard for a node started
with two logical GPUs (as the local rehearsal does); ``node_summary_two_gpu_nodes.json`` is the
same answer for two nodes with two physical GPUs each, rows in Ray's ``GpuUtilizationInfo``
shape (dashboard/modules/reporter/reporter_models.py).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rlark_widgets.backends.gpu_use import gpu_use_into, summary_rows
from rlark_widgets.i18n import render
from rlark_widgets.monitor.snapshot import RUNNING, JobSnapshot, WorkerSnapshot
from rlark_widgets.viz.run_charts import gpu_figure

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
