"""Local backend start-up: submit until both Ray members are ALIVE, against plain ``ray start``.

In the same run, the same two Ray nodes (head with dashboard, then one worker once the head is
up) are started by hand with the same ``ray start`` flags minus ours (labels, device
resources, RLINF_NODE_RANK, the run token). Both sides poll the head's ``/api/v0/nodes``
every 0.25 s (what ``snapshot`` reads, without its file and process checks). Prints the ratio (target <= 1.1) and the memory (PSS) of each Worker.

Run: ``.venv/bin/python benchmarks/bench_local_start.py`` (about 4-5 minutes; the best of each
side over ``RLARK_BENCH_ROUNDS`` rounds, default 4, is compared: one Ray start on 2 cores varies
from 26 to 33 s, so two rounds had compared noise).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psutil  # noqa: E402
from common import Result, print_table  # noqa: E402

from rlark_widgets.backends.local.backend import LocalBackend  # noqa: E402
from rlark_widgets.backends.local.layout import JobDir  # noqa: E402
from rlark_widgets.backends.local.procs import (  # noqa: E402
    ProcessRef,
    session_processes,
    signal_all,
)
from rlark_widgets.backends.local.ray_nodes import (  # noqa: E402
    BASE_ENV,
    HEAD_PORTS,
    NODE_PORTS,
    MembersUnavailable,
    fetch_members,
    free_ports,
    ray_start_argv,
)
from rlark_widgets.rlark.job import Job, Role  # noqa: E402
from rlark_widgets.rlark.site import example_site  # noqa: E402


def memory_mib(procs: list[psutil.Process]) -> float:
    """Proportional set size (PSS) of ``procs`` in MiB: shared pages counted once overall."""
    total = 0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            total += proc.memory_full_info().pss
    return total / 2**20


NODE_IP = "127.0.0.2"
POLL = 0.25
TIMEOUT = 300.0
GPUS = 2


def wait_alive(dashboard_port: Callable[[], int | None], count: int, deadline: float) -> None:
    """Poll the head's member list until ``count`` members are ALIVE."""
    while time.monotonic() < deadline:
        port = dashboard_port()
        with contextlib.suppress(MembersUnavailable):
            if port and sum(m.alive for m in fetch_members(NODE_IP, port)) >= count:
                return
        time.sleep(POLL)
    raise TimeoutError(f"fewer than {count} Ray members ALIVE after {TIMEOUT:g} s")


def by_hand(temp: Path) -> tuple[float, list[float]]:
    """Seconds until both nodes are ALIVE, and PSS (MiB) of each node's processes."""
    env = {**os.environ, **BASE_ENV}
    temp.mkdir(parents=True)
    started = time.monotonic()
    deadline = started + TIMEOUT
    head_ports = free_ports(NODE_IP, HEAD_PORTS + NODE_PORTS)
    nodes = []
    for index, head_address in enumerate([None, f"{NODE_IP}:{head_ports['gcs']}"]):
        ports = head_ports if head_address is None else free_ports(NODE_IP, NODE_PORTS)
        argv = ray_start_argv(
            node_ip=NODE_IP,
            temp_dir=str(temp / str(index)),
            ports=ports,
            head_address=head_address,
            num_gpus=GPUS,
        )
        log = open(temp / f"node-{index}.log", "wb")  # noqa: SIM115 (closed with the node)
        nodes.append(
            (subprocess.Popen(argv, env=env, stdout=log, stderr=log, start_new_session=True), log)
        )
        wait_alive(lambda: head_ports["dashboard"], index + 1, deadline)
    elapsed = time.monotonic() - started
    memory = [memory_mib(session_processes(ProcessRef.of(p.pid))) for p, _ in nodes]
    for proc, log in nodes:
        end_session(proc.pid)
        proc.wait()
        log.close()
    return elapsed, memory


def end_session(leader: int) -> None:
    """SIGTERM a node's session, SIGKILL what is left after 15 s (never ``ray stop``). A
    process that exits between the listing and its signal is ended already (``signal_all``
    skips it: ``terminate`` raised psutil.NoSuchProcess and failed ``make bench``)."""
    procs = [p for p in psutil.process_iter() if _sid(p.pid) == leader]
    signal_all(procs, signal.SIGTERM)
    _, alive = psutil.wait_procs(procs, timeout=15)
    signal_all(alive, signal.SIGKILL)


def _sid(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def local_backend(workspace: Path) -> tuple[float, list[float]]:
    """Seconds from submit until both members are ALIVE, and PSS (MiB) of each Worker."""
    job = Job(
        "bench-start",
        [Role("header", 1, head=True, gpus=GPUS), Role("workers", 1, gpus=GPUS)],
        run_script="sleep 600\n",
    )
    backend = LocalBackend(workspace, NODE_IP, run_mode="job", site=example_site())
    where = JobDir.of(workspace, job.name)
    started = time.monotonic()
    backend.submit(job)
    deadline = started + TIMEOUT
    wait_alive(
        lambda: ((where.read("state.json") or {}).get("head") or {}).get("dashboard_port"),
        2,
        deadline,
    )
    elapsed = time.monotonic() - started
    records = where.read("state.json")["workers"]
    memory = [
        memory_mib(session_processes(ProcessRef.from_json(records[key])))
        for key in ("header/0", "workers/0")
    ]
    backend.delete(job.name)
    return elapsed, memory


def run() -> list[Result]:
    """Alternate which side starts first each round (the first Ray start warms caches)."""
    rounds = int(os.environ.get("RLARK_BENCH_ROUNDS", "4"))
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    memory = []
    sides = {"ours": local_backend, "theirs": by_hand}
    with tempfile.TemporaryDirectory(prefix="rlark-bench-", dir="/tmp") as tmp:
        for index in range(rounds):
            order = ["ours", "theirs"] if index % 2 == 0 else ["theirs", "ours"]
            for side in order:
                elapsed, mem = sides[side](Path(tmp) / f"{side}{index}")
                times[side].append(elapsed)
                memory.append(mem)
    ours, theirs = min(times["ours"]), min(times["theirs"])
    each = ", ".join(
        f"{a:.0f}/{b:.0f}" for a, b in zip(times["ours"], times["theirs"], strict=True)
    )
    return [
        Result("local backend: submit -> 2 members ALIVE", ours, "s", None, f"rounds {each} s"),
        Result(
            "plain ray start by hand: 2 members ALIVE", theirs, "s", None, "same flags minus ours"
        ),
        Result("ratio local / by hand", ours / theirs, "x", 1.1, "best of each side"),
        Result(
            "memory of the Header's Worker (PSS)", min(m[0] for m in memory), "MiB", None, "idle"
        ),
        Result("memory of another Worker (PSS)", min(m[1] for m in memory), "MiB", None, "idle"),
    ]


if __name__ == "__main__":
    print_table("Local backend start-up", run())
