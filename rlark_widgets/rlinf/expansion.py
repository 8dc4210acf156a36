"""Placement expansion: every component process of a config on an assumed GPU layout.

``expand_placement`` reproduces what RLinf's placement classes compute at start-up (the
golden data under ``rlinf-configs/expected/`` is RLinf's own output), and summarises each
node: components, process count, GPUs used, minimum GPUs needed and robots used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..i18n import Text
from .cluster import ClusterSpec, PlacementEntry
from .errors import PlacementError, RLinfConfigError
from .grammar import GrammarError, parse_rank_map, process_resources
from .model_parallel import (
    ConfigLookup,
    ModelParallelError,
    ParallelSizes,
    model_parallel_eval_placement,
    model_parallel_placement,
)
from .strategies import ProcessPlacement, StrategyError, flexible_placement, node_placement
from .topology import ACCELERATOR, GpuLayout, ResourceGroup, Topology, build_topology

SUPPORTED_TASK_TYPES = (
    "embodied",
    "embodied_eval",
    "reasoning",
    "reasoning_eval",
    "coding_online_rl",
    "sft",
    "offline",
)
#: Which RLinf placement class the entry point of each task type uses (spec §4).
PLACEMENT_CLASS_BY_TASK = {
    "embodied": "hybrid",
    "embodied_eval": "hybrid",
    "sft": "hybrid",
    "offline": "hybrid",
    "reasoning": "model_parallel",
    "coding_online_rl": "model_parallel",
    "reasoning_eval": "model_parallel_eval",
}
PLACEMENT_CLASSES = ("hybrid", "component", "model_parallel", "model_parallel_eval")
GPU_SEARCH_RANGE = range(1, 17)


@dataclass
class ComponentExpansion:
    """One component's processes; components named in one key share the same rows."""

    name: str
    strategy: str
    processes: list[ProcessPlacement]
    path: str

    @property
    def world_size(self) -> int:
        return len(self.processes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "world_size": self.world_size,
            "processes": [p.to_dict() for p in self.processes],
        }


@dataclass
class NodeSummary:
    """What one Ray node (one RLark Worker) carries."""

    node_rank: int
    labels: list[str]
    accelerators_on_node: int
    components: list[str]
    processes: int
    accelerators_used: list[int]
    other_hardware_used: list[str]

    @property
    def min_accelerators_needed(self) -> int:
        return max(self.accelerators_used) + 1 if self.accelerators_used else 0

    @property
    def idle_accelerators(self) -> list[int]:
        used = set(self.accelerators_used)
        return [g for g in range(self.accelerators_on_node) if g not in used]

    def to_dict(self) -> dict[str, Any]:
        return {
            "accelerators_on_node": self.accelerators_on_node,
            "accelerators_used": self.accelerators_used,
            "components": self.components,
            "labels": self.labels,
            "min_accelerators_needed": self.min_accelerators_needed,
            "other_hardware_used": self.other_hardware_used,
            "processes": self.processes,
        }


@dataclass
class Expansion:
    """The placement of a config on one GPU layout, or the reason RLinf rejects it."""

    layout: GpuLayout
    task_type: str | None
    placement_class: str
    cluster: ClusterSpec | None = None
    placement_mode: str | None = None
    components: dict[str, ComponentExpansion] = field(default_factory=dict)
    error: RLinfConfigError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def num_nodes(self) -> int | None:
        return self.cluster.num_nodes if self.cluster else None

    @cached_property
    def per_node(self) -> dict[int, NodeSummary]:
        """Nodes that run at least one component process, by node rank."""
        if not self.ok or self.cluster is None:
            return {}
        comps: dict[int, set[str]] = {}
        counts: dict[int, int] = {}
        gpus_used: dict[int, set[int]] = {}
        robots: dict[int, set[str]] = {}
        for comp in self.components.values():
            for row in comp.processes:
                node = row.node_rank
                comps.setdefault(node, set()).add(comp.name)
                counts[node] = counts.get(node, 0) + 1
                if row.hardware_type == ACCELERATOR:
                    gpus_used.setdefault(node, set()).update(row.local_hardware_ranks)
                elif row.hardware_type is not None:
                    robots.setdefault(node, set()).update(
                        f"{row.hardware_type}:{r}" for r in row.local_hardware_ranks
                    )
        return {
            node: NodeSummary(
                node_rank=node,
                labels=self.cluster.labels_of_node(node),
                accelerators_on_node=self.layout.count(node),
                components=sorted(comps[node]),
                processes=counts.get(node, 0),
                accelerators_used=sorted(gpus_used.get(node, ())),
                other_hardware_used=sorted(robots.get(node, ())),
            )
            for node in sorted(comps)
        }

    @property
    def total_processes(self) -> int:
        return sum(c.world_size for c in self.components.values())

    def to_json(self) -> dict[str, Any]:
        """The fields of ``rlinf-configs/expected/*.json`` (RLinf's own expansion)."""
        return {
            "ok": self.ok,
            "error": str(self.error.message) if self.error else None,
            "error_path": self.error.path if self.error else None,
            "task_type": self.task_type,
            "placement_class": self.placement_class,
            "placement_mode": self.placement_mode,
            "num_nodes": self.num_nodes,
            "gpus_per_node": self.layout.default
            if not self.layout.per_node
            else dict(self.layout.per_node),
            "per_node": {str(n): s.to_dict() for n, s in self.per_node.items()},
            "components": {name: c.to_dict() for name, c in sorted(self.components.items())},
        }


def placement_class_for(task_type: str | None) -> str:
    return PLACEMENT_CLASS_BY_TASK.get(task_type or "embodied", "hybrid")


def _no_lookup(path: str, default: Any) -> Any:
    return default


def expand_placement(
    cluster: ClusterSpec,
    gpus: GpuLayout | int | str | Mapping[int, int] = 8,
    *,
    task_type: str | None = "embodied",
    lookup: ConfigLookup = _no_lookup,
    placement_class: str | None = None,
) -> Expansion:
    """Expand every component of ``cluster`` on the GPU layout, as RLinf would at start-up.

    ``lookup(path, default)`` reads other config values (TP sizes for reasoning placements).
    Never raises for config problems: the returned expansion carries the typed error.
    """
    layout = GpuLayout.parse(gpus)
    chosen = placement_class or placement_class_for(task_type)
    expansion = Expansion(layout, task_type, chosen, cluster)
    try:
        topo = build_topology(cluster, layout)
        hardware = _expand_generic(cluster, topo, expansion.components)
        if chosen in ("model_parallel", "model_parallel_eval"):
            _replace_model_parallel(expansion, hardware, ParallelSizes.from_config(lookup), topo)
        elif chosen == "hybrid":
            expansion.placement_mode = "HYBRID"
    except RLinfConfigError as exc:
        expansion.error = exc
        expansion.components = {}
    return expansion


def _expand_generic(
    cluster: ClusterSpec, topo: Topology, out: dict[str, ComponentExpansion]
) -> dict[str, list[int]]:
    """RLinf's ComponentPlacement: parse every entry and place it; return GPU ranks per name."""
    hardware: dict[str, list[int]] = {}
    for entry in cluster.placements:
        groups = _resolve_groups(entry, topo)
        total = sum(g.count for g in groups)
        node_mode = any(g.hardware_type is None for g in groups)
        type_name = "Node" if node_mode else ", ".join(g.type_name for g in groups)
        try:
            parts = parse_rank_map(entry.placement, total, type_name)
        except GrammarError as exc:
            raise _placement_error(exc.text, entry) from None
        per_process = process_resources(parts)
        try:
            if node_mode:
                rows, strategy = node_placement(per_process, groups, topo), "NodePlacementStrategy"
            else:
                rows, strategy = (
                    flexible_placement(per_process, groups, topo),
                    "FlexiblePlacementStrategy",
                )
        except StrategyError as exc:
            raise _placement_error(
                Text(
                    "Error in component placement for components {components}. {reason}",
                    components=list(entry.components),
                    reason=exc.text,
                ),
                entry,
            ) from None
        ranks = [r for part in parts for r in part.resources]
        for name in entry.components:
            if name in out:
                raise _placement_error(
                    Text("Component {name} has multiple placements defined.", name=name), entry
                )
            out[name] = ComponentExpansion(name, strategy, rows, entry.path)
            hardware[name] = ranks
    return hardware


def _resolve_groups(entry: PlacementEntry, topo: Topology) -> list[ResourceGroup]:
    labels = ("cluster",) if entry.node_groups is None else entry.node_groups
    if not labels:
        raise PlacementError(
            Text(
                "node_group of components {components} lists no node group, so no resource can "
                "be placed.",
                components=list(entry.components),
            ),
            f"{entry.path}.node_group",
            Text("Name at least one node group, or drop node_group to use the whole cluster."),
        )
    groups = []
    for label in labels:
        group = topo.groups.get(label)
        if group is None:
            raise PlacementError(
                Text(
                    'Node group not found for components {components} with label "{label}".',
                    components=list(entry.components),
                    label=label,
                ),
                f"{entry.path}.node_group",
                _known_groups_fix([g for g in topo.groups if g not in ("cluster", "node")]),
            )
        groups.append(group)
    return groups


def _known_groups_fix(known: list[str]) -> Text:
    if not known:
        return Text(
            "Use one of the labels in cluster.node_groups (none defined), 'cluster' or 'node'."
        )
    return Text(
        "Use one of the labels in cluster.node_groups ({labels}), 'cluster' or 'node'.",
        labels=", ".join(known),
    )


_GRAMMAR_FIX = Text(
    "Check the placement grammar: 'resources[:processes]' parts separated by commas, ascending "
    "and continuous, the process count a multiple or a divisor of the resource count, and "
    "resource ranks within the GPUs (or robots, or nodes) the selected node groups have."
)
_MODEL_PARALLEL_FIX = Text(
    "Reasoning placements need actor, rollout and reward; contiguous GPU ranges; and "
    "GPU counts per node that fit the tensor-parallel sizes (see RLinf's execution modes)."
)


def _placement_error(message: Text, entry: PlacementEntry) -> PlacementError:
    return PlacementError(message, entry.path, _GRAMMAR_FIX)


def _replace_model_parallel(
    expansion: Expansion, hardware: dict[str, list[int]], sizes: ParallelSizes, topo: Topology
) -> None:
    place = (
        model_parallel_placement
        if expansion.placement_class == "model_parallel"
        else model_parallel_eval_placement
    )
    try:
        mode, rows = place(hardware, sizes, topo)
    except ModelParallelError as exc:
        raise PlacementError(exc.text, "cluster.component_placement", _MODEL_PARALLEL_FIX) from None
    expansion.placement_mode = mode
    for name, placed in rows.items():
        previous = expansion.components.get(name)
        path = previous.path if previous else "cluster.component_placement"
        expansion.components[name] = ComponentExpansion(
            name, "PackedPlacementStrategy", placed, path
        )


def gpu_requirements(
    cluster: ClusterSpec,
    *,
    task_type: str | None = "embodied",
    lookup: ConfigLookup = _no_lookup,
    counts: range = GPU_SEARCH_RANGE,
) -> tuple[int | None, list[int]]:
    """The smallest uniform GPUs-per-node count that RLinf accepts, and the counts it rejects."""
    failing = []
    smallest = None
    for count in counts:
        result = expand_placement(cluster, count, task_type=task_type, lookup=lookup)
        if result.ok:
            smallest = count if smallest is None else smallest
        else:
            failing.append(count)
    return smallest, failing
