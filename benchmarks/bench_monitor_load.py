"""The monitor under load: 1,000 Workers, 1,000 Ray members and 500 checkpoints (issue #8).

One refresh as the app's monitor step does it, against kmock's emulator over real HTTP:
``KubernetesBackend.snapshot`` (pods, events, Ray members, checkpoints), ``diagnose``, the status
summary, the history point, and the three monitor figures drawn from a full history of
:data:`HISTORY_LIMIT` refreshes. Memory: the heap a refresh allocates at its peak, and what the
full history keeps, which must not grow with the number of Workers.

Run: ``.venv/bin/python benchmarks/bench_monitor_load.py`` (no arguments; prints a table).
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_monitor_refresh import CHECKPOINTS, big_job  # noqa: E402
from common import Result, best_time, peak_memory_mb, print_table  # noqa: E402
from kube_emulator import Cluster, LoopThread  # noqa: E402

from rlark_widgets.monitor.diagnosis import diagnose  # noqa: E402
from rlark_widgets.monitor.history import HISTORY_LIMIT, HistoryPoint, extend  # noqa: E402
from rlark_widgets.monitor.snapshot import JobSnapshot  # noqa: E402
from rlark_widgets.monitor.summary import summary_lines  # noqa: E402
from rlark_widgets.viz.monitor_charts import (  # noqa: E402
    checkpoint_figure,
    members_figure,
    worker_status_figure,
)

WORKERS, CHECKPOINT_COUNT = 1000, 500


def full_history(snap: JobSnapshot) -> list[HistoryPoint]:
    """A history at its limit, one point per 3 s refresh, each point built anew from ``snap``."""
    return [
        dataclasses.replace(HistoryPoint.of(snap), time=snap.time - 3.0 * (HISTORY_LIMIT - 1 - i))
        for i in range(HISTORY_LIMIT)
    ]


def loaded_job(cluster: Cluster, name: str) -> None:
    """A Running 1,000-Worker Job with every Ray member alive and 500 checkpoints on its volume."""
    cluster.backend().submit(big_job(name, WORKERS))
    cluster.start_workers(name)
    cluster.run_all(name)
    cluster.ray(name)
    for step in range(10, 10 * CHECKPOINT_COUNT + 1, 10):
        cluster.checkpoint(CHECKPOINTS.format(name=name), step)


def run() -> list[Result]:
    loop = LoopThread()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Cluster(loop, Path(tmp) / "output")
        try:
            loaded_job(cluster, "load")
            backend = cluster.backend()
            first = backend.snapshot("load")
            assert (len(first.workers), first.members_alive, len(first.checkpoints)) == (
                WORKERS,
                WORKERS,
                CHECKPOINT_COUNT,
            ), first.missing
            history = full_history(first)
            desired = {"header": 1, "actor": WORKERS - 1}

            def refresh() -> None:
                snap = backend.snapshot("load")
                result = diagnose(snap)
                summary_lines(snap, desired, result)
                points = extend(history, snap)
                members_figure(points)
                worker_status_figure(points)
                checkpoint_figure(snap, points[0].time)

            best, median = best_time(refresh, rounds=5)
            snap_best, _ = best_time(lambda: backend.snapshot("load"), rounds=5)
            peak = peak_memory_mb(refresh)
            kept = peak_memory_mb(lambda: full_history(first))
        finally:
            cluster.close()
            loop.close()
    return [
        Result(
            "refresh: snapshot + diagnosis + summary + 3 figures",
            best * 1000,
            "ms",
            500.0,
            f"median {median * 1000:.0f} ms; 1,000 Workers and members, 500 checkpoints, "
            f"{HISTORY_LIMIT}-point history; of which the snapshot {snap_best * 1000:.0f} ms",
        ),
        Result(
            "refresh, peak heap",
            peak,
            "MB",
            100.0,
            "tracemalloc peak during one refresh (freed after it)",
        ),
        Result(
            f"history kept for the charts ({HISTORY_LIMIT} refreshes)",
            kept,
            "MB",
            5.0,
            "counts per role and phase, not snapshots: the same at any Job size",
        ),
    ]


if __name__ == "__main__":
    print_table("Monitor load benchmark", run())
