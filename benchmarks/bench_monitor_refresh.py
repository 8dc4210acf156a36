"""Monitor refresh on Kubernetes: one snapshot of a 1,000-Worker Job against the API emulator.

Measures the client side of ``KubernetesBackend.snapshot`` (requests, JSON decoding, joining
pods, events, Ray members and checkpoints) against kmock's emulator over real HTTP, and counts
the HTTP requests per refresh, which must not grow with the number of Workers.

Run: ``.venv/bin/python benchmarks/bench_monitor_refresh.py`` (no arguments; prints a table).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from common import Result, best_time, print_table  # noqa: E402
from kube_emulator import Cluster, LoopThread  # noqa: E402

from rlark_widgets.backends.kube.backend import KubernetesBackend  # noqa: E402
from rlark_widgets.rlark.job import Job, Mount, Role  # noqa: E402

IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"
CHECKPOINTS = "/mnt/output/{name}/exp/checkpoints"


def big_job(name: str, workers: int) -> Job:
    """A Header plus ``workers - 1`` actor Workers on the cloud nodes, with an output volume."""
    output = Mount("output", "storage", "oss-rlinf", "/mnt/output")
    cloud = {"rlark.io/node-category": "cloud"}
    return Job(
        name,
        [
            Role("header", 1, IMAGE, head=True, gpus=8, node_selector=cloud, mounts=[output]),
            Role("actor", workers - 1, IMAGE, gpus=8, node_selector=cloud, mounts=[output]),
        ],
        run_script="cd /workspace/RLinf && bash run.sh",
        namespace="research",
        annotations={
            "rlark.io/rlinf-num-nodes": str(workers),
            "rlark.io/checkpoint-dir": CHECKPOINTS.format(name=name),
            "rlark.io/save-interval": "10",
        },
    )


def running_job(cluster: Cluster, name: str, workers: int) -> None:
    """Submit, start every Worker, make them Running with Ray members and three checkpoints."""
    backend = cluster.backend()
    backend.submit(big_job(name, workers))
    cluster.start_workers(name)
    cluster.run_all(name)
    cluster.ray(name)
    for step in (10, 20, 30):
        cluster.checkpoint(CHECKPOINTS.format(name=name), step)


def requests_per_refresh(backend: KubernetesBackend, name: str) -> int:
    before = backend.api.requests
    snap = backend.snapshot(name)
    assert snap.members_alive == len(snap.workers) == snap.expected_workers, snap.missing
    return backend.api.requests - before


def run() -> list[Result]:
    loop = LoopThread()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Cluster(loop, Path(tmp) / "output")
        try:
            running_job(cluster, "big", 1000)
            running_job(cluster, "small", 10)
            local, remote = cluster.backend(), cluster.backend(checkpoint_root=None)
            best, median = best_time(lambda: local.snapshot("big"), rounds=5)
            exec_best, _ = best_time(lambda: remote.snapshot("big"), rounds=3)
            big = requests_per_refresh(cluster.backend(), "big")
            small = requests_per_refresh(cluster.backend(), "small")
            by_exec = requests_per_refresh(remote, "big")
        finally:
            cluster.close()
            loop.close()
    return [
        Result(
            "snapshot of a 1,000-Worker Job (client side, emulator)",
            best * 1000,
            "ms",
            300.0,
            f"median {median * 1000:.0f} ms; pods, events, Ray members, checkpoints",
        ),
        Result(
            "the same, checkpoints listed by exec in the head pod",
            exec_best * 1000,
            "ms",
            300.0,
            "one websocket exec running sh instead of reading a local mount",
        ),
        Result(
            "HTTP requests per refresh, 1,000 Workers",
            big,
            "requests",
            5,
            f"{small} for 10 Workers: constant, never one per pod ({by_exec} with exec)",
        ),
    ]


if __name__ == "__main__":
    print_table("Monitor refresh benchmark", run())
