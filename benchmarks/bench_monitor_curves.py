"""The monitor refresh with training curves: the load benchmark's 1,000-Worker Job plus 10,000
scalar points in TensorBoard event files (issue #18).

One refresh as the app does it: the snapshot (which now also reads the event files and the
dashboard's node summary), the diagnosis with the steps' pace, the summary, the three monitor
figures, the curves figure of the three default scalars and the GPU figure. Measured warm (the
app's every refresh: the reader keeps its place in each file and reads what was appended) and
cold (the first refresh after attaching, every point parsed).

Run: ``.venv/bin/python benchmarks/bench_monitor_curves.py`` (no arguments; prints a table).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_monitor_load import full_history, loaded_job  # noqa: E402
from bench_monitor_refresh import CHECKPOINTS  # noqa: E402
from common import Result, best_time, print_table  # noqa: E402
from kube_emulator import Cluster, LoopThread  # noqa: E402
from tensorboard.compat.proto.event_pb2 import Event  # noqa: E402
from tensorboard.compat.proto.summary_pb2 import Summary  # noqa: E402
from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: E402

from rlark_widgets.backends import events  # noqa: E402
from rlark_widgets.monitor.diagnosis import diagnose  # noqa: E402
from rlark_widgets.monitor.history import extend  # noqa: E402
from rlark_widgets.monitor.summary import summary_lines  # noqa: E402
from rlark_widgets.viz.monitor_charts import (  # noqa: E402
    checkpoint_figure,
    members_figure,
    worker_status_figure,
)
from rlark_widgets.viz.run_charts import default_tags, gpu_figure, scalar_figure  # noqa: E402

TAGS, STEPS = 4, 2500  # 10,000 points


def write_curves(directory: Path, started: float) -> None:
    """RLinf-style events: one Event per step carrying every tag's value, logged between the
    run's start and now (the monitor counts only this run's events: those since it started)."""
    writer = EventFileWriter(str(directory))
    pace = (time.time() - started) / STEPS
    for step in range(1, STEPS + 1):
        values = [
            Summary.Value(tag=f"train/metric_{i}", simple_value=step * (i + 1.0))
            for i in range(TAGS)
        ]
        wall_time = started + step * pace
        writer.add_event(Event(wall_time=wall_time, step=step, summary=Summary(value=values)))
    writer.close()


def run() -> list[Result]:
    loop = LoopThread()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Cluster(loop, Path(tmp) / "output")
        try:
            loaded_job(cluster, "load")
            tensorboard = Path(tmp) / "output" / "load" / "tensorboard"
            tensorboard.mkdir(parents=True)
            backend = cluster.backend()
            run = backend.snapshot("load").run
            assert run is not None and run.started is not None
            write_curves(tensorboard, run.started)
            first = backend.snapshot("load")
            points = sum(len(s.steps) for s in first.scalars.values())
            assert points == TAGS * STEPS, (points, first.missing, CHECKPOINTS)
            history = full_history(first)
            desired = {"header": 1, "actor": len(first.workers) - 1}

            def refresh() -> None:
                snap = backend.snapshot("load")
                result = diagnose(snap)
                summary_lines(snap, desired, result)
                kept = extend(history, snap)
                members_figure(kept)
                worker_status_figure(kept)
                checkpoint_figure(snap, kept[0].time)
                scalar_figure(snap.scalars, default_tags(snap.scalars))
                gpu_figure(snap.gpus, snap.gpu_note)

            def cold() -> None:
                events._readers.clear()  # as after a kernel restart: every point parsed again
                refresh()

            warm_best, warm_median = best_time(refresh, rounds=5)
            cold_best, cold_median = best_time(cold, rounds=3)
        finally:
            cluster.close()
            loop.close()
    return [
        Result(
            "refresh with 10,000 scalar points (warm)",
            warm_best * 1000,
            "ms",
            500.0,
            f"median {warm_median * 1000:.0f} ms; the load benchmark's refresh plus event files,"
            " node summary, curves and GPU figures",
        ),
        Result(
            "refresh with 10,000 scalar points (cold: first read)",
            cold_best * 1000,
            "ms",
            500.0,
            f"median {cold_median * 1000:.0f} ms; every event parsed",
        ),
    ]


if __name__ == "__main__":
    print_table("Monitor refresh with training curves", run())
