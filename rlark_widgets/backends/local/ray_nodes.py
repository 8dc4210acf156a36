"""Real Ray nodes on one machine: the ``ray start`` command of a Worker, its ports, its members.

Several nodes share this machine only if each has its own temp dir and ports, a node IP other
than 127.0.0.1 (Ray rewrites 127.0.0.1 to the machine's outward address) and worker processes
on OS-chosen ports (the default 10002-19999 range would be shared by every node). Members are
read from the head's dashboard REST API, ``GET /api/v0/nodes``, as on a cluster.
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.request
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

from ... import shell
from ...monitor.snapshot import RayMember
from ..ray_members import members_from_dashboard

HEAD_PORTS = ("gcs", "dashboard", "client_server")
NODE_PORTS = (
    "node_manager",
    "object_manager",
    "agent_listen",
    "agent_grpc",
    "metrics",
    "runtime_env_agent",
)
#: Plasma store per node: the rehearsal moves no data, and Ray's default (30% of RAM per node)
#: would reserve most of /dev/shm for a few nodes.
OBJECT_STORE_BYTES = 128 * 2**20
#: Environment of the head: members are checked every second and declared dead after three
#: misses (Ray's default, 3 s x 5, takes ~15 s to show a killed Worker's node DEAD).
HEAD_ENV = {
    "RAY_health_check_initial_delay_ms": "1000",
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_timeout_ms": "1000",
    "RAY_health_check_failure_threshold": "3",
}
#: Token auth off: a ``~/.ray/auth_token`` left by another Ray program would otherwise switch
#: it on, and the monitor's dashboard reads (which carry no token) would get 401s.
BASE_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
#: Written before each start of a Worker or run script, and between the prepare script and
#: Ray, so each attempt and a prepare-script failure can be told apart in the log.
START_MARK = "[rlark-local] start"
PREPARED_MARK = "[rlark-local] prepare script done; starting Ray"
#: The end of the exception Ray's ``ray start`` raises when its node does not register in time.
OVERLOADED_MARK = "the GCS has become overloaded"


def ray_executable() -> str:
    """The ``ray`` CLI next to this Python, so nodes and the rehearsal run the same Ray."""
    return str(Path(sys.executable).with_name("ray"))


def free_ports(ip: str, names: tuple[str, ...]) -> dict[str, int]:
    """One free TCP port on ``ip`` per name (all held open together, so all differ)."""
    with ExitStack() as stack:
        ports = {}
        for name in names:
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind((ip, 0))
            ports[name] = sock.getsockname()[1]
        return ports


def ray_start_argv(
    *,
    node_ip: str,
    temp_dir: str,
    ports: Mapping[str, int],
    head_address: str | None,
    num_gpus: int = 0,
    resources: Mapping[str, float] | None = None,
    labels: Mapping[str, str] | None = None,
) -> list[str]:
    """``ray start --block`` for one node: the head when ``head_address`` is None.

    ``resources`` and ``labels`` are the Worker's own (device resources, role and rank); the
    rest is what any node on a shared machine needs.
    """
    argv = [ray_executable(), "start", "--block", f"--node-ip-address={node_ip}"]
    if head_address is None:
        argv += [
            "--head",
            f"--port={ports['gcs']}",
            "--include-dashboard=true",
            f"--dashboard-host={node_ip}",
            f"--dashboard-port={ports['dashboard']}",
            f"--ray-client-server-port={ports['client_server']}",
        ]
    else:
        argv.append(f"--address={head_address}")
    argv += [
        f"--temp-dir={temp_dir}",
        f"--node-manager-port={ports['node_manager']}",
        f"--object-manager-port={ports['object_manager']}",
        f"--dashboard-agent-listen-port={ports['agent_listen']}",
        f"--dashboard-agent-grpc-port={ports['agent_grpc']}",
        f"--metrics-export-port={ports['metrics']}",
        f"--runtime-env-agent-port={ports['runtime_env_agent']}",
        "--min-worker-port=0",
        "--max-worker-port=0",
        f"--object-store-memory={OBJECT_STORE_BYTES}",
        f"--num-gpus={num_gpus}",
        "--disable-usage-stats",
    ]
    if resources:
        argv.append(f"--resources={json.dumps(dict(resources), sort_keys=True)}")
    if labels:
        argv.append("--labels=" + ",".join(f"{k}={v}" for k, v in labels.items()))
    return argv


def worker_script(prepare_script: str) -> str:
    """bash: the role's prepare script, then ``exec`` the command given as arguments.

    ``exec`` keeps ``ray start`` as the Worker's main process (the one whose exit is the
    Worker's exit), as RLark replaces a container's command with its Ray script.
    """
    return shell.script(
        [*shell.user_script(prepare_script), shell.echo(PREPARED_MARK), shell.exec_arguments()],
        strict=False,
    )


def last_attempt(lines: list[str]) -> list[str]:
    """The lines of a Worker log written since its last (re)start."""
    starts = [i for i, line in enumerate(lines) if line.startswith(START_MARK)]
    return lines[starts[-1] + 1 :] if starts else lines


def start_timed_out(lines: list[str]) -> bool:
    """Whether the last attempt ended with Ray's start timeout: its raylet did not register with
    the head within Ray's 30 s, which Ray words as "... or the GCS has become overloaded"
    (``ray/_private/node.py``). On this machine that is load, never memory."""
    return any(OVERLOADED_MARK in line for line in last_attempt(lines))


def prepare_failed(lines: list[str]) -> bool:
    """Whether the last attempt ended before its prepare script finished."""
    return PREPARED_MARK not in last_attempt(lines)


class MembersUnavailable(Exception):
    """The dashboard did not answer (not started yet, or gone)."""


def fetch_members(node_ip: str, dashboard_port: int, timeout: float = 3.0) -> list[RayMember]:
    """The Ray nodes the head knows, alive and dead, from ``/api/v0/nodes``."""
    url = f"http://{node_ip}:{dashboard_port}/api/v0/nodes?limit=10000&detail=true"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return members_from_dashboard(json.load(answer))
    except (OSError, ValueError) as exc:
        raise MembersUnavailable(str(exc)) from None
