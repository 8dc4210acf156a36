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
from .errors import PlacementError, RLinfConfigError, TaskTypeError
from .grammar import (
    GrammarError,
    RankPart,
    ResourcesOutsideError,
    parse_rank_map,
    process_resources,
)
from .model_parallel import (
    ConfigLookup,
    ModelParallelError,
    PackedSpec,
    ParallelSizes,
    model_parallel_eval_placement,
    model_parallel_placement,
)
from .strategies import (
    ProcessPlacement,
    StrategyError,
    check_flexible_processes,
    check_node_processes,
    flexible_placement,
    node_placement,
)
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

    def to_json(self, components: bool = True) -> dict[str, Any]:
        """The fields of ``rlinf-configs/expected/*.json`` (RLinf's own expansion).

        Without ``components`` the per-process and per-node parts are left out, for a caller
        that streams them.
        """
        data: dict[str, Any] = {
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
        }
        if components:
            data["per_node"] = {str(n): s.to_dict() for n, s in self.per_node.items()}
            data["components"] = {name: c.to_dict() for name, c in sorted(self.components.items())}
        return data


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
    verdicts: dict[Any, Any] | None = None,
) -> Expansion:
    """Expand every component of ``cluster`` on the GPU layout, as RLinf would at start-up.

    ``lookup(path, default)`` reads other config values (TP sizes for reasoning placements).
    Never raises for config problems: the returned expansion carries the typed error.
    With ``verdicts`` (a dict the caller keeps across layouts) only RLinf's verdict is
    computed: no process rows, and entries whose node groups number their resources the same
    way on two layouts are checked once.
    """
    layout = GpuLayout.parse(gpus)
    chosen = placement_class or placement_class_for(task_type)
    expansion = Expansion(layout, task_type, chosen, cluster)
    try:
        check_task_type(task_type)
        topo = build_topology(cluster, layout)
        entries, hardware = _parse_components(cluster, topo, verdicts)
        packed: dict[str, PackedSpec] = {}
        sizes = ParallelSizes(lookup)
        try:
            if chosen in ("model_parallel", "model_parallel_eval"):
                expansion.placement_mode, packed = _model_parallel(chosen, hardware, sizes, topo)
            elif chosen == "hybrid":
                expansion.placement_mode = "HYBRID"
            _place(entries, packed, topo, expansion.components, rows=verdicts is None)
        except (TypeError, ZeroDivisionError) as exc:  # only a parallel size can cause these
            raise sizes.crash_error(exc) from None
    except RLinfConfigError as exc:
        expansion.error = exc
        expansion.components = {}
        expansion.placement_mode = None
    return expansion


@dataclass
class _ParsedEntry:
    """One component_placement key after RLinf's parser: its strategy, not yet placed."""

    entry: PlacementEntry
    groups: list[Any]
    parts: list[RankPart]
    node_mode: bool
    rows: list[ProcessPlacement] | None = None

    @cached_property
    def per_process(self) -> list[list[int]]:
        return process_resources(self.parts)

    def check_constructor(self) -> None:
        """What RLinf checks before it builds the strategy (see strategies.check_*)."""
        if not any(part.processes for part in self.parts):
            (check_node_processes if self.node_mode else check_flexible_processes)([])
        if self.node_mode and any(len(p.resources) > len(p.processes) for p in self.parts):
            check_node_processes(self.per_process)  # raises, naming the process

    def place(self, topo: Topology, rows: bool = True) -> tuple[list[ProcessPlacement], str]:
        """get_placement of the entry's strategy; components of one key share the rows."""
        strategy = "NodePlacementStrategy" if self.node_mode else "FlexiblePlacementStrategy"
        if self.rows is None:
            try:
                if not rows and self._verdict_is_plain():
                    self.rows = []
                else:
                    place = node_placement if self.node_mode else flexible_placement
                    self.rows = place(self._processes(rows), self.groups, topo, rows)
            except StrategyError as exc:
                raise _placement_error(
                    Text(
                        "Error in component placement for components {components}. {reason}",
                        components=list(self.entry.components),
                        reason=exc.text,
                    ),
                    self.entry,
                ) from None
        return self.rows, strategy

    def _processes(self, rows: bool) -> list[list[int]]:
        """Node placement's verdict depends only on the distinct nodes used."""
        if rows or not self.node_mode:
            return self.per_process
        return [[r] for r in sorted({r for part in self.parts for r in part.resources})]

    def _verdict_is_plain(self) -> bool:
        """Whether RLinf's get_placement checks pass without looking at each process: one GPU
        or robot group, whose resources are numbered in node order, and every process whose
        resources (a contiguous slice of its part) sit on one node."""
        if self.node_mode or len(self.groups) != 1:
            return False
        nodes = self.groups[0].resource_node
        for part in self.parts:
            size = len(part.resources) // len(part.processes)
            if size > 1 and any(
                nodes[part.resources[i]] != nodes[part.resources[i + size - 1]]
                for i in range(0, len(part.resources), size)
            ):
                return False  # the full check names the process
        return True


def check_task_type(task_type: str | None) -> None:
    """RLinf's validate_cfg refuses an unknown runner.task_type before any placement."""
    if task_type is not None and task_type not in SUPPORTED_TASK_TYPES:
        raise TaskTypeError(
            Text(
                "task_type must be one of {task_types} (runner.task_type is '{task_type}'); "
                "RLinf's config validation stops before placing anything.",
                task_types=list(SUPPORTED_TASK_TYPES),
                task_type=task_type,
            ),
            "runner.task_type",
            Text("Use one of {task_types}.", task_types=", ".join(SUPPORTED_TASK_TYPES)),
        )


def _parse_components(
    cluster: ClusterSpec, topo: Topology, verdicts: dict[Any, Any] | None = None
) -> tuple[dict[str, _ParsedEntry], dict[str, list[int]]]:
    """RLinf's ComponentPlacement.__init__: parse every entry; components in config order."""
    entries: dict[str, _ParsedEntry] = {}
    hardware: dict[str, list[int]] = {}
    for entry in cluster.placements:
        groups = _resolve_groups(entry, topo)
        key = (entry.path, tuple(_numbering(g) for g in groups))
        known = verdicts.get(key) if verdicts is not None else None
        if isinstance(known, RLinfConfigError):
            raise known
        if known is not None:
            parsed, ranks = known
        else:
            try:
                parsed, ranks = _parse_entry(entry, groups)
            except RLinfConfigError as exc:
                if verdicts is not None:
                    verdicts[key] = exc
                raise
            if verdicts is not None:
                verdicts[key] = (parsed, ranks)
        for name in entry.components:
            if name in entries:
                raise _placement_error(
                    Text("Component {name} has multiple placements defined.", name=name), entry
                )
            entries[name] = parsed
            hardware[name] = ranks
    return entries, hardware


def _numbering(group: ResourceGroup) -> tuple[Any, ...]:
    """What a placement over ``group`` depends on: its type and which node holds each resource."""
    return (
        group.label,
        group.hardware_type,
        tuple(group.resource_node),
        tuple(group.resource_local),
    )


def _parse_entry(entry: PlacementEntry, groups: list[Any]) -> tuple[_ParsedEntry, list[int]]:
    """One entry through RLinf's parser and its strategy's constructor checks."""
    total = sum(g.count for g in groups)
    node_mode = any(g.hardware_type is None for g in groups)
    type_name = "Node" if node_mode else ", ".join(g.type_name for g in groups)
    try:
        parts = parse_rank_map(entry.placement, total, type_name)
    except ResourcesOutsideError as exc:
        gpus = any(g.hardware_type == ACCELERATOR for g in groups)
        fix = _gpu_count_fix(total, groups) if gpus else _GRAMMAR_FIX
        raise PlacementError(exc.text, entry.path, fix) from None
    except GrammarError as exc:
        raise _placement_error(exc.text, entry) from None
    parsed = _ParsedEntry(entry, groups, parts, node_mode)
    try:
        parsed.check_constructor()
    except StrategyError as exc:
        raise _placement_error(
            Text(
                "Error in component placement for components {components}. {reason}",
                components=list(entry.components),
                reason=exc.text,
            ),
            entry,
        ) from None
    return parsed, [r for part in parts for r in part.resources]


def _place(
    entries: dict[str, _ParsedEntry],
    packed: dict[str, PackedSpec],
    topo: Topology,
    out: dict[str, ComponentExpansion],
    rows: bool = True,
) -> None:
    """get_placement for every component in config order, as RLinf's workers launch them.

    A packed strategy RLinf stores under a name that is no component of the config (its
    ``inference`` when the config names ``actor_inference``) is never placed; the named
    component keeps its own strategy, as in RLinf.
    """
    for name, parsed in entries.items():
        spec = packed.get(name)
        if spec is not None:
            try:
                placed, strategy = spec.place(topo), "PackedPlacementStrategy"
            except StrategyError as exc:
                raise PlacementError(
                    exc.text, "cluster.component_placement", _MODEL_PARALLEL_FIX
                ) from None
        else:
            placed, strategy = parsed.place(topo, rows)
        out[name] = ComponentExpansion(name, strategy, placed, parsed.entry.path)


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


def _gpu_count_fix(total: int, groups: list[ResourceGroup]) -> Text:
    """A GPU rank beyond the assumed GPUs: the GPU count is as likely the cause as the text."""
    return Text(
        "The node group(s) {groups} have {total} GPU(s) under the assumed GPUs per node. If the "
        "nodes have more, give their count (--gpus-per-node N or --gpus-per-node-map RANK:N; in "
        "the app, GPUs per node); otherwise keep this placement's GPU ranks below {total}.",
        groups=", ".join(g.label for g in groups),
        total=total,
    )


def _placement_error(message: Text, entry: PlacementEntry) -> PlacementError:
    return PlacementError(message, entry.path, _GRAMMAR_FIX)


def _model_parallel(
    placement_class: str, hardware: dict[str, list[int]], sizes: ParallelSizes, topo: Topology
) -> tuple[str, dict[str, PackedSpec]]:
    place = (
        model_parallel_placement
        if placement_class == "model_parallel"
        else model_parallel_eval_placement
    )
    try:
        return place(hardware, sizes, topo)
    except ModelParallelError as exc:
        raise PlacementError(exc.text, "cluster.component_placement", _MODEL_PARALLEL_FIX) from None


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
    verdicts: dict[Any, Any] = {}
    for count in counts:
        result = expand_placement(
            cluster, count, task_type=task_type, lookup=lookup, verdicts=verdicts
        )
        if result.ok:
            smallest = count if smallest is None else smallest
        else:
            failing.append(count)
    return smallest, failing
