"""GPU use per Worker, as the Ray dashboard's node summary reports it (plain data)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class GpuUse:
    """One physical GPU of one Worker at the time of the snapshot.

    ``worker`` is the Worker's key (``role/index``) when the node could be matched to one,
    else the Ray node's IP; ``utilization`` is a percentage, memory in MiB (Ray's units).
    """

    worker: str
    index: int
    name: str
    utilization: float | None
    memory_used: float
    memory_total: float
    rank: int | None = None  # RLINF_NODE_RANK of the Worker, when known
