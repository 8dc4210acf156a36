"""Training curves and GPU use of a Job on a cluster (issue #18), against the kmock emulator:
event files read through the head Worker (exec, as checkpoints are) or a local mount, and GPU use
from the head dashboard's node summary through the API server's pod proxy."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_kubernetes_backend import CHECKPOINTS, running
from test_scalars import write_events

from rlark_widgets.i18n import render
from rlark_widgets.monitor.diagnosis import diagnose

if TYPE_CHECKING:
    from kube_emulator import Cluster

RECORDED = Path(__file__).parent / "golden" / "ray_dashboard"
#: (Worker, GPU index, utilisation %) in the recorded two-node summary, by the nodes' ranks 0, 1.
RECORDED_GPUS = [
    ("header/0", 0, 87.0),
    ("header/0", 1, 91.0),
    ("actor/0", 0, 12.0),
    ("actor/0", 1, 0.0),
]
#: The embodied runner's TensorBoard directory: <log_path>/tensorboard, log_path above the
#: experiment (rlinf-cluster-spec §5); CHECKPOINTS is <log_path>/<experiment>/checkpoints.
TENSORBOARD = str(Path(CHECKPOINTS).parent.parent / "tensorboard")


def events_on_the_volume(kube: Cluster, rows: list[tuple[int, float, dict[str, float]]]) -> None:
    local = kube.output_dir / Path(TENSORBOARD).relative_to("/mnt/output")
    local.mkdir(parents=True, exist_ok=True)
    write_events(local, rows)


def started(kube: Cluster) -> float:
    """When this run's Job was created (its curves are the points written since)."""
    run = kube.backend().snapshot("demo").run
    assert run is not None and run.started is not None
    return run.started


def test_curves_come_through_the_head_worker_and_drive_the_steps(kube: Cluster, tmp_path):
    running(kube)
    kube.ray("demo")
    start = started(kube)
    earlier = (9, start - 60.0, {"train/reward": -1.0})  # an earlier run's point, same directory
    rows = [(s, start + 0.001 * s, {"train/reward": float(s)}) for s in (1, 2, 3)]
    events_on_the_volume(kube, [earlier, *rows])
    time.sleep(0.05)  # 50 median step times (1 ms) after the last step: stalled
    backend = kube.backend(checkpoint_root=None)
    snap = backend.snapshot("demo")
    assert snap.scalars["train/reward"].steps == [1, 2, 3]
    assert snap.progress.last_step == 3
    assert snap.progress.last_step_time == pytest.approx(start + 0.003)
    assert diagnose(snap).title.startswith("Steps stalled at step 3")
    data = snap.to_dict()
    assert data["scalars"]["train/reward"]["value"] == 3.0 and data["pace"]["state"] == "stalled"


def test_curves_are_read_from_a_local_mount_when_there_is_one(kube: Cluster):
    running(kube)
    kube.ray("demo")
    start = started(kube)
    events_on_the_volume(kube, [(6, start - 60.0, {"loss": 0.9}), (7, start + 1.0, {"loss": 0.5})])
    snap = kube.backend().snapshot("demo")
    assert snap.scalars["loss"].steps == [7]
    assert snap.scalars["loss"].latest == {"step": 7, "value": 0.5, "time": start + 1.0}


def test_gpu_use_per_worker_comes_from_the_recorded_node_summary(kube: Cluster):
    running(kube)
    kube.ray("demo")
    answer = json.loads((RECORDED / "node_summary_two_gpu_nodes.json").read_text())
    kube.emulator.summaries["demo-header-0"] = answer
    snap = kube.backend().snapshot("demo")
    assert [(g.worker, g.index, g.utilization) for g in snap.gpus] == RECORDED_GPUS
    assert snap.gpu_note is None and snap.missing == []


def test_nodes_without_gpu_devices_say_no_gpu_metrics(kube: Cluster):
    running(kube)
    kube.ray("demo")  # 8 GPUs per node in resources, no device rows
    snap = kube.backend().snapshot("demo")
    assert snap.gpus == [] and render(snap.gpu_note).startswith(
        "No GPU metrics: Ray counts 24 GPU(s)"
    )
