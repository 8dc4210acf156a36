"""GPU use per Worker from the Ray dashboard's node summary (``GET /nodes?view=summary``).

Each node's reporter agent lists the physical GPUs it sees (``gpus``: index, name,
utilizationGpu %, memoryUsed / memoryTotal MiB). Logical GPUs (``--num-gpus`` without a device,
as in the local rehearsal) appear in ``raylet.resourcesTotal`` only: then there is no GPU use to
show, and the snapshot says so rather than drawing zeros. Used by both backends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..contract import RANK_LABEL
from ..i18n import Text
from ..monitor.gpus import GpuUse
from ..monitor.snapshot import JobSnapshot
from .ray_members import as_int

#: The summary path on the dashboard (the same server as ``/api/v0/nodes``).
SUMMARY_PATH = "/nodes?view=summary"


def summary_rows(answer: Any) -> list[Mapping[str, Any]]:
    """The node rows of a node-summary answer; ValueError when it is not one."""
    if not isinstance(answer, Mapping) or not isinstance(answer.get("data"), Mapping):
        raise ValueError("the dashboard did not answer with a node summary")
    if answer.get("result") is False:
        raise ValueError(answer.get("msg") or "the dashboard reported a failure")
    rows = answer["data"].get("summary") or []
    return [row for row in rows if isinstance(row, Mapping)]


def gpu_use_into(snap: JobSnapshot, answer: Any) -> None:
    """``snap.gpus`` from a node-summary answer, per Worker by its node's rank label (else the
    node's IP); ``snap.gpu_note`` says why there is none when no node reports a GPU."""
    keys = {w.rank: w.key for w in snap.workers if w.rank is not None}
    declared = 0.0
    found: list[GpuUse] = []
    for row in summary_rows(answer):
        raylet = row.get("raylet") or {}
        if raylet.get("state", "ALIVE") != "ALIVE":
            continue
        declared += float((raylet.get("resourcesTotal") or {}).get("GPU", 0) or 0)
        rank = as_int((raylet.get("labels") or {}).get(RANK_LABEL))
        worker = keys.get(rank) if rank is not None else None
        for gpu in row.get("gpus") or []:
            if not isinstance(gpu, Mapping):
                continue
            utilization = gpu.get("utilizationGpu")
            found.append(
                GpuUse(
                    worker=worker or str(row.get("ip") or raylet.get("nodeManagerAddress") or "?"),
                    index=as_int(gpu.get("index")) or 0,
                    name=str(gpu.get("name") or ""),
                    utilization=float(utilization) if utilization is not None else None,
                    memory_used=float(gpu.get("memoryUsed") or 0),
                    memory_total=float(gpu.get("memoryTotal") or 0),
                    rank=rank,
                )
            )
    snap.gpus = sorted(found, key=lambda g: (g.rank is None, g.rank or 0, g.worker, g.index))
    if found:
        snap.gpu_note = None
    elif declared:
        snap.gpu_note = Text(
            "No GPU metrics: Ray counts {count} GPU(s) but sees no GPU device on any node"
            " (logical GPUs, as in the local rehearsal, have no utilisation or memory).",
            count=f"{declared:g}",
        )
    else:
        snap.gpu_note = Text("No GPU metrics: no Worker declares a GPU.")
