"""RLinf's placement strategies (flexible, node, packed), producing one row per process.

Each function mirrors the ``get_placement`` of the RLinf class it is named after, including
the checks RLinf only runs at that stage and the packed strategy's known off-by-one.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ..i18n import Text
from .errors import RLinfCheckError
from .topology import ACCELERATOR, ResourceGroup, Topology


@dataclass(slots=True)
class ProcessPlacement:
    """Where one component process runs: RLinf's ``Placement`` for that rank."""

    rank: int
    node_rank: int
    node_group: str
    hardware_type: str | None
    local_hardware_ranks: tuple[int, ...]
    visible_accelerators: tuple[int, ...]
    local_accelerator_rank: int
    local_rank: int = 0
    local_world_size: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "node_rank": self.node_rank,
            "node_group": self.node_group,
            "local_hardware_ranks": list(self.local_hardware_ranks),
            "visible_accelerators": list(self.visible_accelerators),
            "local_accelerator_rank": self.local_accelerator_rank,
            "local_rank": self.local_rank,
            "local_world_size": self.local_world_size,
        }


class StrategyError(RLinfCheckError):
    """A strategy check failed; the caller adds the component context."""


class _AllGpus:
    """Shared ``range(n)`` tuples: processes that see all GPUs of a node share one tuple."""

    def __init__(self, gpus: list[int]) -> None:
        self._gpus = gpus
        self._cache: dict[int, tuple[int, ...]] = {}

    def __call__(self, node: int) -> tuple[int, ...]:
        visible = self._cache.get(node)
        if visible is None:
            visible = self._cache[node] = tuple(range(self._gpus[node]))
        return visible


def _hardware_row(
    rank: int, node: int, group: ResourceGroup, local: tuple[int, ...], all_gpus: _AllGpus
) -> ProcessPlacement:
    """A process on hardware of ``group``: GPU processes see their GPUs, robot ones all GPUs."""
    visible = local if group.hardware_type == ACCELERATOR else all_gpus(node)
    return ProcessPlacement(
        rank, node, group.label, group.hardware_type, local, visible, visible[0] if visible else -1
    )


def check_node_order(nodes: list[int]) -> None:
    """The check of :func:`assign_local_ranks` without the rows."""
    if nodes != sorted(nodes):
        raise StrategyError(Text("Placements must be sorted by node_id."))


def assign_local_ranks(rows: list[ProcessPlacement]) -> None:
    """Number processes per node in order; RLinf requires non-decreasing node ranks."""
    if not rows:
        return
    counts: dict[int, int] = {}
    current = rows[0].node_rank
    local = 0
    for row in rows:
        if row.node_rank != current:
            if row.node_rank < current:
                raise StrategyError(Text("Placements must be sorted by node_id."))
            counts[current] = local
            current, local = row.node_rank, 0
        row.local_rank = local
        local += 1
    counts[current] = local
    for row in rows:
        row.local_world_size = counts[row.node_rank]


def check_flexible_processes(hardware_lists: list[list[int]]) -> None:
    """FlexiblePlacementStrategy.__init__'s check (the rest waits for get_placement)."""
    if not hardware_lists:
        raise StrategyError(Text("The hardware_ranks_list must not be empty."))


def check_node_processes(hardware_lists: list[list[int]]) -> None:
    """What RLinf's parser checks before it builds a NodePlacementStrategy."""
    for process, resources in enumerate(hardware_lists):
        if len(resources) != 1:
            raise StrategyError(
                Text(
                    "Process rank {process} is allocated to node ranks {nodes}, which is "
                    "impossible as one process cannot run across multiple nodes.",
                    process=process,
                    nodes=resources,
                )
            )
    if not hardware_lists:
        raise StrategyError(Text("The node_ranks list must not be empty."))


def flexible_placement(
    hardware_lists: list[list[int]],
    groups: list[ResourceGroup],
    topo: Topology,
    rows: bool = True,
) -> list[ProcessPlacement]:
    """FlexiblePlacementStrategy over the concatenated resources of ``groups``.

    With ``rows=False`` only RLinf's verdict is computed (every check, no rows): what a
    search over GPU counts needs.
    """
    check_flexible_processes(hardware_lists)
    if len(groups) == 1:
        g = groups[0]
        res_node, res_local = g.resource_node, g.resource_local
        res_group = None
        group_of = [g]
    else:
        res_node, res_local, res_group = [], [], []
        group_of = groups
        for index, g in enumerate(groups):
            res_node += g.resource_node
            res_local += g.resource_local
            res_group += [index] * g.count
    total = len(res_node)
    checks = (res_node, res_group, group_of, total)
    if all(len(hw) == 1 for hw in hardware_lists):  # one resource per process: check at once
        firsts = [hw[0] for hw in hardware_lists]
        if firsts and not (min(firsts) >= 0 and max(firsts) < total):
            _verified(next(hw for hw in hardware_lists if not 0 <= hw[0] < total), *checks)
        verified = sorted(hardware_lists, key=itemgetter(0))
    else:
        verified = [_verified(hw, *checks) for hw in hardware_lists]
        verified.sort(key=itemgetter(0))
    if not rows:
        check_node_order([res_node[hw[0]] for hw in verified])
        return []
    all_gpus = _AllGpus(topo.gpus)
    placed: list[ProcessPlacement] = []
    for rank, hw in enumerate(verified):
        group = group_of[res_group[hw[0]]] if res_group is not None else group_of[0]
        local = tuple(res_local[h] for h in hw)
        placed.append(_hardware_row(rank, res_node[hw[0]], group, local, all_gpus))
    assign_local_ranks(placed)
    return placed


def _verified(
    hw: list[int],
    res_node: list[int],
    res_group: list[int] | None,
    group_of: list[ResourceGroup],
    total: int,
) -> list[int]:
    """FlexiblePlacementStrategy._verify_hw_ranks_for_process; the ranks come back sorted."""
    if len(hw) == 1 and 0 <= hw[0] < total:
        return hw
    for h in hw:
        if not 0 <= h < total:
            raise StrategyError(
                Text(
                    "Hardware rank {rank} is out of range. Must be between 0 and {last}.",
                    rank=h,
                    last=total - 1,
                )
            )
    nodes = {res_node[h] for h in hw}
    if len(nodes) != 1:
        raise StrategyError(
            Text(
                "All hardware ranks {ranks} for a process must be on the same node. "
                "Instead, the hardware exist across node ranks {nodes}",
                ranks=hw,
                nodes=nodes,
            )
        )
    if len(set(hw)) != len(hw):
        raise StrategyError(
            Text("All hardware ranks {ranks} for a process must be unique.", ranks=hw)
        )
    if res_group is not None:
        types = {group_of[res_group[h]].hardware_type for h in hw}
        if None not in types and len(types) > 1:
            raise StrategyError(
                Text(
                    "All hardware ranks {ranks} for a process must use the same hardware "
                    "type, but got {types}.",
                    ranks=hw,
                    types="{" + ", ".join(sorted(repr(t) for t in types)) + "}",
                )
            )
    return sorted(hw)


def node_placement(
    hardware_lists: list[list[int]],
    groups: list[ResourceGroup],
    topo: Topology,
    rows: bool = True,
) -> list[ProcessPlacement]:
    """NodePlacementStrategy: each process on one node of the groups, seeing all its GPUs.

    With ``rows=False`` only the verdict is computed (see :func:`flexible_placement`).
    """
    check_node_processes(hardware_lists)
    indices = [resources[0] for resources in hardware_lists]
    indices.sort()
    flat: list[tuple[int, str]] = []
    seen: set[int] = set()
    labels = [g.label for g in groups]
    for g in groups:
        overlap = seen.intersection(g.node_ranks)
        if overlap:
            raise StrategyError(
                Text(
                    "Node groups {labels} have overlapping nodes {overlap}. "
                    "Node placement across multiple groups requires disjoint node sets.",
                    labels=labels,
                    overlap=overlap,
                )
            )
        seen.update(g.node_ranks)
        flat.extend((n, g.label) for n in g.node_ranks)
    distinct = sorted(set(indices))
    outside = next((i for i in distinct if not 0 <= i < len(flat)), None)
    if outside is not None:
        raise StrategyError(
            Text(
                "Node rank {index} is out of range for selected node groups {labels} "
                "(total nodes {total}).",
                index=outside,
                labels=labels,
                total=len(flat),
            )
        )
    if not rows:
        check_node_order([flat[i][0] for i in distinct])
        return []
    all_gpus = _AllGpus(topo.gpus)
    placed = []
    for rank, index in enumerate(indices):
        node, label = flat[index]
        visible = all_gpus(node)
        placed.append(ProcessPlacement(rank, node, label, None, (), visible, 0 if visible else -1))
    assign_local_ranks(placed)
    return placed


def check_packed(start: int, end: int, per_process: object = 1, stride: object = 1) -> None:
    """PackedPlacementStrategy.__init__'s checks (its placement comes later, per component)."""
    count = end - start + 1
    if start < 0 or end < start:
        raise StrategyError(
            Text("The hardware ranks [{start}, {end}] are not a valid range.", start=start, end=end)
        )
    if count % (per_process * stride):  # type: ignore[operator]
        raise StrategyError(
            Text(
                "The number of hardware {count} must be divisible by num_hardware_per_process * "
                "stride ({step}).",
                count=count,
                step=per_process * stride,  # type: ignore[operator]
            )
        )
    if per_process < 0 or stride < 0:  # type: ignore[operator]
        raise StrategyError(
            Text(
                "{per_process} hardware per process with stride {stride} takes no hardware: "
                "RLinf's packed placement would loop forever here.",
                per_process=per_process,
                stride=stride,
            )
        )


def packed_placement(
    start: int,
    end: int,
    group: ResourceGroup,
    topo: Topology,
    per_process: int = 1,
    stride: int = 1,
) -> list[ProcessPlacement]:
    """PackedPlacementStrategy as in rlinf 0.3.0, off-by-one in the same-node check included.

    The check lets a process start on the last GPU of a node and run one index past it
    (e.g. local GPUs [7, 8] on an 8-GPU node, whose global ranks reach into the next node);
    RLinf does this, so the plan shows it, and the next process starts at the next free
    local rank of whichever node holds the next free global rank.
    """
    check_packed(start, end, per_process, stride)
    count = end - start + 1
    if end >= group.count:
        raise StrategyError(
            Text(
                "Hardware ranks [{start}, {end}] exceed available resources ({available}) across "
                "selected node groups.",
                start=start,
                end=end,
                available=group.count,
            )
        )
    if group.hardware_type is None:
        raise StrategyError(
            Text(
                "Packed placement requires hardware resources, but at least one selected node "
                "group does not expose hardware."
            )
        )
    res_node, res_local = group.resource_node, group.resource_local
    # index h - start; a float size passes RLinf's checks and then stops range() below
    used = [False] * (count + int(per_process * stride))
    first_free = 0
    all_gpus = _AllGpus(topo.gpus)
    rows: list[ProcessPlacement] = []
    hw_start, node, local_hw = start, res_node[start], res_local[start]
    while True:
        on_node = topo.gpus[node]  # packed placement runs on the cluster group's GPUs
        if local_hw + (per_process - 1) * stride > on_node:
            raise StrategyError(
                Text(
                    "Trouble finding placement for Rank {rank} which starts at hardware {local} "
                    "in node {node} and node group {label}, with {per_process} hardware and "
                    "stride {stride}. But only {on_node} hardware available in the node. As a "
                    "result, this process will spread across multiple nodes, which is impossible.",
                    rank=len(rows),
                    local=local_hw,
                    node=node,
                    label=group.label,
                    per_process=per_process,
                    stride=stride,
                    on_node=on_node,
                )
            )
        local = tuple(range(local_hw, local_hw + per_process * stride, stride))
        for h in range(hw_start, hw_start + per_process * stride, stride):
            if h >= group.count:  # RLinf looks up the type of every rank the process takes
                raise StrategyError(
                    Text(
                        "Global hardware rank {rank} is out of range (0-{last})",
                        rank=h,
                        last=group.count - 1,
                    )
                )
            used[h - start] = True
        rows.append(_hardware_row(len(rows), node, group, local, all_gpus))
        while first_free < count and used[first_free]:
            first_free += 1
        if first_free == count:
            break
        # RLinf takes the local rank of the next free hardware every time: after a process
        # overflowed onto the next node's first GPUs, the next one starts after them, not at 0.
        hw_start = start + first_free
        node, local_hw = res_node[hw_start], res_local[hw_start]
    assign_local_ranks(rows)
    return rows
