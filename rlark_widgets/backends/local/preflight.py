"""What a local run needs from this machine, checked before anything starts.

Errors refuse the submission (a Header to start the Ray head, memory for every Worker, a node
IP to listen on); infos say what the local backend does not model.

Memory measured on this project's machine kind (2 cores, 24 GiB, Ray 2.60) as the proportional
set size (PSS: shared pages counted once) of each Worker's processes; RSS sums are about twice
as large because every Ray process maps the same libraries. ``benchmarks/bench_local_start.py``
prints the idle figures again.

- the Header's Worker, idle (GCS, dashboard and its modules, autoscaler monitor, client
  server, raylet, agents): 846 MiB; the rehearsal driver adds ~70 MiB;
- any other Worker, idle (raylet, dashboard and runtime-env agents, log monitor): 332 MiB;
- each Ray actor the rehearsal starts (one probe per node, and at most ``PLACEMENT_BATCH``
  placement actors at a time): 60-70 MiB;
- a whole 2-Worker rehearsal with 8 placement actors: 1.9 GiB more memory in use at its peak
  (this guard estimates 2.2 GiB for it, margin excluded).
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import psutil

from ...findings import Finding, Severity
from ...i18n import Text
from ...rlark.job import Job
from ..base import BackendError
from ..prepare_here import prepare_here_finding
from .rehearsal import PLACEMENT_BATCH
from .spec import REHEARSAL_COMMAND

MIB = 2**20
HEAD_MIB = 1000  # the head Worker plus the rehearsal driver
WORKER_MIB = 400
ACTOR_MIB = 80
MARGIN_MIB = 1024  # left for the notebook, the browser and the system
SOURCE = "rlark-widgets: local backend"
MEMORY_SOURCE = "benchmarks/bench_local_start.py (memory per Worker measured on this machine kind)"
NOT_MODELLED = Text(
    "The local backend does not model images (every Worker runs this machine's Python and "
    "Ray), node selectors (every Worker runs here), CPU or memory limits, or real GPUs "
    "(GPUs are logical Ray resources)."
)


def preflight_findings(
    job: Job, node_ip: str, rehearsal: bool, planned: bool = True
) -> list[Finding]:
    """What would stop ``job`` from running here (errors), and what it will not model;
    ``planned``: a plan comes with the Job, so the rehearsal can verify its placement."""
    found = []
    header = job.header
    if header is None or header.replicas != 1:
        found.append(
            _finding(
                "LOC-HEADER",
                "spec.tasks",
                Text(
                    "The Job needs exactly one Header role with exactly one Worker: it starts the"
                    " Ray head."
                ),
                Text("Mark one role as the Header (head: true) with 1 replica."),
            )
        )
    memory = memory_finding(job)
    if memory is not None:
        found.append(memory)
    if not _can_bind(node_ip):
        found.append(
            _finding(
                "LOC-NODE-IP",
                "node_ip",
                Text("Cannot listen on {ip} on this machine.", ip=node_ip),
                Text(
                    "Use a loopback address such as 127.0.0.2 (Linux routes all of 127.0.0.0/8"
                    " to lo)."
                ),
            )
        )
    if rehearsal:
        found.append(
            _finding(
                "LOC-REHEARSAL",
                "spec.runScript",
                Text(
                    "Locally the run script is the rehearsal ({command}): it checks members,"
                    " ranks and placement and writes checkpoints, but trains nothing.",
                    command=REHEARSAL_COMMAND,
                ),
                Text("Use run_mode='job' to run the Job's runScript on this machine instead."),
                Severity.INFO,
            )
        )
    if rehearsal and not planned:
        found.append(
            _finding(
                "LOC-NO-PLAN",
                "spec.tasks",
                Text(
                    "No plan was given with this Job (a Job YAML carries none), so the rehearsal"
                    " will run but cannot verify the placement: it checks members and ranks only."
                ),
                Text(
                    "Submit it with the config it was planned from (--config FILE) to verify"
                    " every process's node and GPUs."
                ),
                Severity.WARNING,
            )
        )
    found.append(_finding("LOC-NOT-MODELLED", "spec.tasks", NOT_MODELLED, "", Severity.INFO))
    here = prepare_here_finding(job)
    if here is not None:
        found.append(here)
    for t, role in enumerate(job.roles):
        for m, mount in enumerate(role.mounts):
            if mount.kind == "hostPath" and not Path(mount.source).is_dir():
                found.append(
                    _finding(
                        "LOC-HOSTPATH",
                        f"spec.tasks[{t}].template.spec.volumes[{m}]",
                        Text(
                            "hostPath {source} does not exist here: {mount_path} maps to a"
                            " directory of the Job's workspace instead.",
                            source=mount.source,
                            mount_path=mount.mount_path,
                        ),
                        Text("Create the directory to use it, or ignore this for a rehearsal."),
                        Severity.INFO,
                    )
                )
    return found


def check_node_ip(node_ip: str) -> None:
    """Refuse what cannot be a local Ray node IP (127.0.0.1 is rewritten by Ray)."""
    try:
        address = ipaddress.ip_address(node_ip)
    except ValueError:
        raise BackendError(
            Text("'{ip}' is not an IP address.", ip=node_ip),
            Text("Use a loopback address such as 127.0.0.2."),
        ) from None
    if str(address) == "127.0.0.1":
        raise BackendError(
            Text(
                "Ray rewrites 127.0.0.1 to the machine's outward address, so nodes would not find"
                " each other."
            ),
            Text("Use another loopback address, such as 127.0.0.2."),
        )


def required_mib(workers: int) -> int:
    """Memory a local run of ``workers`` Workers needs, margin included."""
    actors = workers + PLACEMENT_BATCH
    return HEAD_MIB + (workers - 1) * WORKER_MIB + actors * ACTOR_MIB + MARGIN_MIB


def memory_finding(job: Job, available_mib: float | None = None) -> Finding | None:
    """An error when the Job's Workers would not fit in this machine's available memory."""
    available = psutil.virtual_memory().available / MIB if available_mib is None else available_mib
    workers = job.total_workers
    needed = required_mib(workers)
    if needed <= available:
        return None
    fitting = max_workers(available)
    return Finding(
        "LOC-MEMORY",
        Severity.ERROR,
        "spec.tasks",
        Text(
            "{workers} Workers need about {needed} GiB here ({head} MiB for the Header, {worker}"
            " MiB per other Worker, {actor} MiB per rehearsal actor, {margin} MiB margin), but"
            " only {available} GiB is available: this machine fits {fitting}.",
            workers=workers,
            needed=f"{needed / 1024:.1f}",
            head=HEAD_MIB,
            worker=WORKER_MIB,
            actor=ACTOR_MIB,
            margin=MARGIN_MIB,
            available=f"{available / 1024:.1f}",
            fitting=fitting,
        ),
        Text(
            "Rehearse a smaller layout (cluster.num_nodes <= {fitting}, the same roles with fewer"
            " replicas), free memory, or submit to the cluster with the kubernetes backend.",
            fitting=fitting,
        ),
        MEMORY_SOURCE,
    )


def max_workers(available_mib: float) -> int:
    """The largest Worker count :func:`required_mib` fits in ``available_mib``."""
    count = 0
    while required_mib(count + 1) <= available_mib:
        count += 1
    return count


def _finding(
    rule: str, path: str, message: Text, fix: Text | str, severity: Severity = Severity.ERROR
) -> Finding:
    return Finding(rule, severity, path, message, fix, SOURCE)


def _can_bind(ip: str) -> bool:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((ip, 0))
    except OSError:
        return False
    return True
