"""The benchmark scripts keep working (values only; timings are reported, never asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_expansion  # noqa: E402


def test_synthetic_cluster_expands_to_every_process_row():
    expansion = bench_expansion.synthetic_expansion()
    sizes = {name: c.world_size for name, c in expansion.components.items()}
    assert sizes == {"actor": 8192, "rollout": 4096, "env": 16384, "agent": 102400}
    assert expansion.total_processes == 131_072
    # agent on the reserved `node` group: 100 processes per node, each seeing all 8 GPUs
    agent = expansion.components["agent"].processes
    assert agent[100].node_rank == 1 and agent[100].local_rank == 0
    assert agent[100].local_world_size == 100 and agent[100].visible_accelerators == tuple(range(8))
    assert len(expansion.per_node) == 1024


def test_ending_a_session_survives_a_process_that_just_exited(monkeypatch):
    """#24 item 18: ``make bench`` failed when bench_local_start signalled a process that had
    exited between listing the session and signalling it (psutil.NoSuchProcess)."""
    import subprocess

    import bench_local_start
    import psutil

    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    listed = psutil.Process(child.pid)
    child.kill()
    child.wait()  # gone (and reaped) after it was listed
    monkeypatch.setattr(bench_local_start.psutil, "process_iter", lambda: [listed])
    monkeypatch.setattr(bench_local_start, "_sid", lambda pid: child.pid)
    bench_local_start.end_session(child.pid)  # no NoSuchProcess
    assert not psutil.pid_exists(child.pid) or psutil.Process(child.pid).create_time() != (
        listed.create_time()
    )
