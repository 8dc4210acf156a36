"""Which nodes the assumed GPU layout gives GPUs: the config says which nodes are robot PCs.

RLinf discovers GPUs at start; the tool has to assume them. An assumption of N GPUs on every
node is wrong for the nodes a config's node groups mark as robot PCs (``hardware:``) or as
CPU-only (``ignore_hardware: true``): RLinf would hand a process placed there every GPU it
assumed (``CUDA_VISIBLE_DEVICES``), the plan would request none for it, and the Worker would
start without them. So such nodes get 0 GPUs unless the user names their count, or a model
component runs there (a policy placed on a robot still uses the node's GPUs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .cluster import ClusterSpec
from .expansion import Expansion
from .topology import ACCELERATOR, GpuLayout

#: Components that run models: placed through a robot or node group they still see (and use)
#: every GPU of their node, so their node keeps its GPUs and its Worker must request them.
MODEL_COMPONENTS = frozenset(
    {
        "actor",
        "rollout",
        "inference",
        "actor_inference",
        "critic",
        "critic_inference",
        "reward",
    }
)


@dataclass(frozen=True)
class ConfigLayout:
    """The layout the config implies, and the node ranks it set to 0 GPUs (with their groups)."""

    layout: GpuLayout
    gpuless: dict[int, tuple[str, ...]]


def gpuless_groups(cluster: ClusterSpec) -> dict[int, tuple[str, ...]]:
    """Node ranks whose every node group is a robot or CPU-only group, with those groups' labels.

    A node also in a plain group (RLinf detects its accelerators) or an explicit
    ``hardware_type: Accelerator`` group is a GPU node.
    """
    marked: dict[int, tuple[str, ...]] = {}
    for rank in range(cluster.num_nodes):
        groups = [g for g in cluster.node_groups if rank in g.node_ranks]
        if groups and all(
            (g.hardware_type is not None and g.hardware_type != ACCELERATOR)
            or (g.hardware_type is None and g.ignore_hardware)
            for g in groups
        ):
            marked[rank] = tuple(g.label for g in groups)
    return marked


def config_layout(
    cluster: ClusterSpec, given: GpuLayout, expand: Callable[[GpuLayout], Expansion]
) -> ConfigLayout:
    """``given`` with 0 GPUs on the robot and CPU-only nodes it does not name.

    ``expand`` places the config on a layout. Nodes that run a model component keep their
    GPUs; if RLinf would reject the config once those nodes have none (its placement counts
    their GPUs), the layout stays as given and the plan's GPU check speaks instead.
    """
    candidates = {r: g for r, g in gpuless_groups(cluster).items() if r not in given.per_node}
    candidates = {r: g for r, g in candidates.items() if given.count(r) > 0}
    if not candidates:
        return ConfigLayout(given, {})
    first = expand(given)
    if first.ok:
        models = {
            row.node_rank
            for comp in first.components.values()
            if comp.name in MODEL_COMPONENTS
            for row in comp.processes
        }
        candidates = {r: g for r, g in candidates.items() if r not in models}
    if not candidates:
        return ConfigLayout(given, {})
    counts = {r: 0 if r in candidates else given.count(r) for r in range(cluster.num_nodes)}
    layout = GpuLayout(given.default, counts)
    if not expand(layout).ok:
        return ConfigLayout(given, {})
    return ConfigLayout(layout, candidates)
