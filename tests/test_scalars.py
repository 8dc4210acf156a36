"""Training curves (issue #18): TensorBoard event files read with TensorBoard's own reader, the
steps' pace in the diagnosis, the curves in status --json and in Plotly figures."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from rlark_widgets.backends.events import read_scalars, scalars_into
from rlark_widgets.backends.k8s.events import TAIL_SCRIPT, apply_tails
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.scalars import HEALTHY, SLOW, STALLED, ScalarSeries, step_pace
from rlark_widgets.monitor.snapshot import (
    RUNNING,
    JobPhase,
    JobSnapshot,
    Progress,
    RayMember,
    WorkerSnapshot,
)
from rlark_widgets.viz.run_charts import default_tags, scalar_figure


def write_events(directory: Path, rows: list[tuple[int, float, dict[str, float]]]) -> Path:
    """Events as RLinf's MetricLogger writes them: one Event per step with its scalars."""
    writer = EventFileWriter(str(directory))
    for step, stamp, values in rows:
        summary = Summary(value=[Summary.Value(tag=t, simple_value=v) for t, v in values.items()])
        writer.add_event(Event(wall_time=stamp, step=step, summary=summary))
    writer.close()
    (path,) = [p for p in directory.iterdir() if p.name.startswith("events.out.tfevents")]
    return path


def test_scalars_are_read_per_tag_in_step_order_from_the_run_start(tmp_path):
    rows = [(s, 1000.0 + s, {"train/reward": s / 10, "train/loss": 1 / s}) for s in range(1, 6)]
    write_events(tmp_path, rows)
    scalars = read_scalars(tmp_path)
    assert sorted(scalars) == ["train/loss", "train/reward"]
    reward = scalars["train/reward"]
    assert reward.steps == [1, 2, 3, 4, 5]
    assert reward.values == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])  # float32 on disk
    assert reward.latest == {"step": 5, "value": 0.5, "time": 1005.0}
    later = read_scalars(tmp_path, since=1003.0)  # an earlier run's points are not this run's
    assert later["train/reward"].steps == [3, 4, 5]


def test_a_refresh_reads_the_events_written_since_and_a_replaced_file_again(tmp_path):
    path = write_events(tmp_path, [(1, 10.0, {"r": 1.0}), (2, 11.0, {"r": 2.0})])
    assert read_scalars(tmp_path)["r"].steps == [1, 2]
    writer = EventFileWriter(str(tmp_path / "more"))
    writer.add_event(Event(wall_time=12.0, step=3, summary=Summary(value=[])))
    writer.close()
    path.unlink()  # a new run rewrote the directory
    write_events(tmp_path, [(1, 20.0, {"r": 9.0})])
    assert read_scalars(tmp_path)["r"].values == [9.0]


def test_event_files_in_subdirectories_are_named_as_tensorboard_names_runs(tmp_path):
    write_events(tmp_path / "all", [(1, 1.0, {"reward": 0.5})])
    assert list(read_scalars(tmp_path)) == ["all/reward"]


def test_missing_directory_gives_no_curves_and_no_error(tmp_path):
    snap = JobSnapshot("demo", "local", time.time())
    scalars_into(snap, tmp_path / "absent", None)
    assert snap.scalars == {} and snap.missing == []


def series(steps: list[int], seconds: float, start: float = 1000.0) -> dict[str, ScalarSeries]:
    times = [start + seconds * (s - steps[0]) for s in steps]
    return {"loss": ScalarSeries("loss", steps, [1.0] * len(steps), times)}


def test_the_pace_is_healthy_slow_or_stalled_against_the_median_step_time():
    curve = series(list(range(1, 11)), 10.0)  # a step every 10 s, the last at 1090
    assert step_pace(curve, 1095.0).state == HEALTHY
    assert step_pace(curve, 1090.0 + 45).state == SLOW
    stalled = step_pace(curve, 1090.0 + 150)
    assert stalled.state == STALLED and stalled.last_step == 10 and stalled.median == 10.0
    assert step_pace(series([1, 2], 10.0), 5000.0) is None  # too few steps to judge


def running_snapshot(now: float, scalars: dict[str, ScalarSeries]) -> JobSnapshot:
    snap = JobSnapshot("demo", "kubernetes", now, phase=JobPhase.RUNNING, expected_workers=1)
    snap.workers = [WorkerSnapshot("header", 0, 0, "demo-header-0", RUNNING, head=True)]
    snap.members = [RayMember("n0", "10.0.0.1", "ALIVE", True, 0)]
    snap.progress = Progress(config_saved=True)
    snap.scalars = scalars
    from rlark_widgets.backends.events import progress_from_events

    progress_from_events(snap)
    return snap


def test_a_stalled_curve_breaks_the_steps_advancing_link_and_a_slow_one_is_named():
    curve = series(list(range(1, 11)), 10.0)
    stalled = diagnose(running_snapshot(1090.0 + 150, curve))
    assert stalled.link == "steps-advancing" and not stalled.ok
    assert stalled.title == (
        "Steps stalled at step 10: no new step for 150 s, more than 15 times the median step time."
    )
    assert stalled.sentence("zh").startswith("训练步数停滞在第 10 步")
    slow = diagnose(running_snapshot(1090.0 + 45, curve))
    assert slow.ok and slow.title == "Training: step 10."
    assert slow.detail == "slow: step 10 came 45 s ago; a step takes 10 s (median)"
    healthy = diagnose(running_snapshot(1092.0, curve))
    assert healthy.ok and healthy.detail == ""


def test_status_json_carries_the_latest_value_of_each_scalar_and_the_pace():
    snap = running_snapshot(1095.0, series(list(range(1, 11)), 10.0))
    data = json.loads(json.dumps(snap.to_dict(), default=str))
    assert data["scalars"] == {"loss": {"step": 10, "value": 1.0, "time": 1090.0}}
    assert data["pace"]["state"] == "healthy" and data["progress"]["last_step"] == 10


def test_the_curves_figure_draws_the_picked_scalars_one_panel_each():
    curves = {
        "b/loss": ScalarSeries("b/loss", [1, 2], [0.9, 0.5], [1.0, 2.0]),
        "a/reward": ScalarSeries("a/reward", [1, 2, 3], [0.1, 0.2, 0.4], [1.0, 2.0, 3.0]),
    }
    assert default_tags(curves) == ["a/reward", "b/loss"]
    figure = scalar_figure(curves, ["b/loss", "a/reward", "gone"])
    assert [t.name for t in figure.data] == ["b/loss", "a/reward"]
    assert list(figure.data[1].y) == [0.1, 0.2, 0.4] and list(figure.data[1].x) == [1, 2, 3]
    assert figure.layout.title.text == "Training curves (TensorBoard events)"
    empty = scalar_figure({}, [], "zh")
    assert not empty.data and empty.layout.title.text == "训练曲线：尚未记录任何标量"
    assert empty.layout.xaxis.visible is False  # no empty -1..6 axis suggesting values


def test_the_head_pods_event_files_are_mirrored_by_their_new_bytes_only(tmp_path):
    """TAIL_SCRIPT under a real sh: the first exec copies the file, the next sends nothing new."""
    pod = tmp_path / "pod" / "tensorboard"
    pod.mkdir(parents=True)
    write_events(pod, [(1, 1.0, {"r": 1.0}), (2, 2.0, {"r": 2.0})])
    mirror = tmp_path / "mirror"

    def tail(known: list[str]) -> str:
        argv = ["sh", "-c", TAIL_SCRIPT, "sh", *known, str(tmp_path / "absent"), str(pod)]
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout

    apply_tails(mirror, tail([]))
    assert read_scalars(mirror / "2")["r"].values == [1.0, 2.0]
    (copy,) = (mirror / "2").iterdir()
    again = tail([f"2/{copy.name}={copy.stat().st_size}"])
    assert again.splitlines() == [f"== 2/{copy.name} {copy.stat().st_size}", ""]


def test_the_status_report_gives_each_curves_latest_value_and_the_pace():
    from rlark_widgets.monitor.summary import summary_lines

    snap = running_snapshot(1095.0, series(list(range(1, 11)), 10.0))
    lines = summary_lines(snap, {"header": 1})
    assert "  Curves: loss=1; healthy: step 10 came 5 s ago; a step takes 10 s (median)" in lines
    zh = summary_lines(snap, {"header": 1}, lang="zh")
    assert "  曲线：loss=1；正常：第 10 步出现在 5 秒前；每步中位耗时 10 秒" in zh
