"""Resource universes: what a placement's resource ranks count in each node group.

RLinf numbers a group's resources by walking its nodes in node-rank order: the GPUs of each
node (type ``Accelerator``), the robots of a hardware group, or the nodes themselves when the
group has no hardware type. This module builds those numberings for assumed GPU counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..i18n import Text, TextError
from .cluster import MAX_NODES, ClusterSpec

ACCELERATOR = "Accelerator"
NODE_RESOURCE = "Node"


#: Our bound, not RLinf's: no node carries more GPUs, and one typo (``0:1000000000``) would
#: otherwise build a plan of a billion GPU slots.
MAX_GPUS_PER_NODE = 1_024
LAYOUT_FIX = Text("Write GPUs per node as a whole number such as 8, or per node rank as 0:8,1:4.")


class GpuLayoutError(TextError, ValueError):
    """A GPU count or per-node map that cannot describe real nodes."""


def _whole(value: object, what: Text, limit: int) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise GpuLayoutError(
            Text("{what} '{value}' is not a whole number.", what=what, value=str(value)[:40]),
            LAYOUT_FIX,
        ) from None
    if not 0 <= number <= limit:
        raise GpuLayoutError(
            Text(
                "{what} {value} is outside 0 to {limit}.",
                what=what,
                value=number,
                limit=f"{limit:,}",
            ),
            LAYOUT_FIX,
        )
    return number


@dataclass(frozen=True)
class GpuLayout:
    """GPUs on each node rank: uniform, or per node rank (missing ranks use ``default``)."""

    default: int
    per_node: Mapping[int, int]

    @classmethod
    def uniform(cls, count: int | str) -> GpuLayout:
        return cls(_whole(count, Text("GPUs per node"), MAX_GPUS_PER_NODE), {})

    @classmethod
    def parse(cls, value: int | str | Mapping[int, int] | GpuLayout) -> GpuLayout:
        """Accept 8, "8", {0: 8, 1: 4} or "0:8,1:4" (unlisted ranks get the largest count)."""
        if isinstance(value, GpuLayout):
            return value
        items: list[tuple[int | str, int | str]]
        if isinstance(value, Mapping):
            items = list(value.items())
        elif ":" in str(value):
            items = [(p[0], p[2]) for p in (item.partition(":") for item in str(value).split(","))]
        else:
            return cls.uniform(value)
        counts = {
            _whole(rank, Text("Node rank"), MAX_NODES - 1): _whole(
                count, Text("GPU count"), MAX_GPUS_PER_NODE
            )
            for rank, count in items
        }
        return cls(max(counts.values(), default=0), counts)

    def count(self, node_rank: int) -> int:
        return self.per_node.get(node_rank, self.default)

    def describe(self) -> Text:
        """``8 per node`` or ``node 0: 8, node 1: 4``, in the reader's language."""
        if not self.per_node:
            return Text("{count} per node", count=self.default)
        return _node_listing(sorted(self.per_node.items()))


def _node_listing(counts: list[tuple[int, int]]) -> Text:
    """``node 0: 8, node 1: 4, ...`` built around the middle entry, so each template holds a
    whole phrase for the translator and thousands of nodes nest only log2(n) deep."""
    middle = len(counts) // 2
    rank, count = counts[middle]
    if middle == 0:
        return Text("node {rank}: {count}", rank=rank, count=count)
    before = _node_listing(counts[:middle])
    if middle == len(counts) - 1:
        return Text("{before}, node {rank}: {count}", before=before, rank=rank, count=count)
    return Text(
        "{before}, node {rank}: {count}, {after}",
        before=before,
        rank=rank,
        count=count,
        after=_node_listing(counts[middle + 1 :]),
    )


@dataclass
class ResourceGroup:
    """One node group's numbered resources (RLinf's ``NodeGroupInfo``)."""

    label: str
    node_ranks: tuple[int, ...]
    hardware_type: str | None  # ACCELERATOR, a robot type, or None (nodes are the resources)
    resource_node: list[int]  # resource rank -> global node rank
    resource_local: list[int]  # resource rank -> index among that node's resources of the type

    @property
    def count(self) -> int:
        return len(self.resource_node)

    @property
    def type_name(self) -> str:
        return self.hardware_type or NODE_RESOURCE


@dataclass
class Topology:
    """The cluster as RLinf sees it after node discovery, for one assumed GPU layout."""

    num_nodes: int
    gpus: list[int]  # per node rank
    groups: dict[str, ResourceGroup]

    @property
    def total_gpus(self) -> int:
        return sum(self.gpus)


def build_topology(spec: ClusterSpec, layout: GpuLayout) -> Topology:
    """Each group's resources as RLinf's ``NodeGroupInfo`` numbers them.

    A group's type is ``hardware.type`` or its explicit ``hardware_type`` as written (robot,
    ``Accelerator`` or any other name); only a group with neither detects ``Accelerator`` when
    one of its nodes has GPUs and ``ignore_hardware`` is false, else its nodes are resources.
    A typed group counts, on each of its nodes, that node's devices of the type: its GPUs, or
    the robots of that type any group declares on the node (another group's, for an alias).
    """
    gpus = [layout.count(rank) for rank in range(spec.num_nodes)]
    all_nodes = tuple(range(spec.num_nodes))
    robots_on: dict[tuple[int, str], int] = {}
    for robot in spec.robots:
        key = (robot.node_rank, robot.hardware_type)
        robots_on[key] = robots_on.get(key, 0) + 1

    def count(node: int, hardware_type: str) -> int:
        return (
            gpus[node] if hardware_type == ACCELERATOR else robots_on.get((node, hardware_type), 0)
        )

    groups: dict[str, ResourceGroup] = {}
    for group in spec.node_groups:
        hardware_type = group.hardware_type
        if hardware_type is None and not group.ignore_hardware:
            hardware_type = ACCELERATOR if any(gpus[n] for n in group.node_ranks) else None
        groups[group.label] = (
            _typed_group(group.label, group.node_ranks, hardware_type, count)
            if hardware_type is not None
            else _node_group(group.label, group.node_ranks)
        )
    groups["cluster"] = (
        _typed_group("cluster", all_nodes, ACCELERATOR, count)
        if any(gpus)
        else _node_group("cluster", all_nodes)
    )
    groups["node"] = _node_group("node", all_nodes)
    return Topology(spec.num_nodes, gpus, groups)


def _typed_group(
    label: str, nodes: tuple[int, ...], hardware_type: str, count: Callable[[int, str], int]
) -> ResourceGroup:
    resource_node: list[int] = []
    resource_local: list[int] = []
    for node in nodes:
        on_node = count(node, hardware_type)
        resource_node.extend([node] * on_node)
        resource_local.extend(range(on_node))
    return ResourceGroup(label, nodes, hardware_type, resource_node, resource_local)


def _node_group(label: str, nodes: tuple[int, ...]) -> ResourceGroup:
    return ResourceGroup(label, nodes, None, list(nodes), [0] * len(nodes))
