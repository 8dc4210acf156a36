"""What each Ray node (RLINF_NODE_RANK) of an expanded config needs from its RLark Worker."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..rlinf import ClusterSpec, Expansion
from ..rlinf.gpu_nodes import MODEL_COMPONENTS
from ..rlinf.hardware import RobotConfig


@dataclass(frozen=True)
class NodeNeeds:
    """The requirements of one node rank; equal needs can share one role."""

    node_rank: int
    gpus: int  # largest local GPU index placed on the node + 1
    gpus_assumed: int  # what the expansion assumed the node has
    gpus_used: tuple[int, ...]  # local GPUs some process is placed on
    gpus_visible: int  # largest local GPU any process sees (CUDA_VISIBLE_DEVICES) + 1
    robots: tuple[tuple[str, int], ...]  # (hardware type, count) of robots cabled to the node
    env: tuple[tuple[str, str], ...]  # env_configs variables for the node
    interpreter: str | None
    labels: tuple[str, ...]  # node groups containing the node
    components: tuple[str, ...]
    processes: int
    controller_only: bool  # no component process, but a robot controller runs here
    robot_group: bool  # the node belongs to a node group that declares robot hardware

    @property
    def category(self) -> str:
        """The console's node category: robot PCs (端真机) for robot groups, else cloud (云算力)."""
        return "robot" if self.robots or self.robot_group or self.controller_only else "cloud"

    def role_key(self) -> tuple[Any, ...]:
        """Nodes with equal keys can be Workers of one role (same template)."""
        return (self.gpus, self.robots, self.env, self.interpreter, self.labels, self.category)


def _gpus_seen_by_models(expansion: Expansion) -> dict[int, int]:
    seen: dict[int, int] = {}
    for component in expansion.components.values():
        if component.name not in MODEL_COMPONENTS:
            continue
        for row in component.processes:
            if row.hardware_type != "Accelerator" and row.visible_accelerators:
                seen[row.node_rank] = max(seen.get(row.node_rank, 0), len(row.visible_accelerators))
    return seen


def _gpus_visible(expansion: Expansion) -> dict[int, int]:
    """Per node, the largest local GPU index any process sees + 1: RLinf sets every process's
    CUDA_VISIBLE_DEVICES from its placement, robot and node placements included."""
    visible: dict[int, int] = {}
    for component in expansion.components.values():
        for row in component.processes:
            if row.visible_accelerators:
                top = max(row.visible_accelerators) + 1
                visible[row.node_rank] = max(visible.get(row.node_rank, 0), top)
    return visible


def node_needs(cluster: ClusterSpec, expansion: Expansion) -> list[NodeNeeds]:
    """Needs of every node rank 0..num_nodes-1, including nodes with no component process."""
    per_node = expansion.per_node
    visible = _gpus_visible(expansion)
    model_gpus = _gpus_seen_by_models(expansion)
    controllers = set(cluster.controller_node_ranks)
    needs = []
    for rank in range(cluster.num_nodes):
        summary = per_node.get(rank)
        env: dict[str, str] = {}
        interpreter = None
        for group in cluster.node_groups:
            entry = group.env_for_node(rank) if rank in group.node_ranks else None
            if entry is not None:
                env.update(entry.env_vars)
                interpreter = entry.python_interpreter_path or interpreter
        needs.append(
            NodeNeeds(
                node_rank=rank,
                gpus=max(
                    summary.min_accelerators_needed if summary else 0, model_gpus.get(rank, 0)
                ),
                gpus_assumed=expansion.layout.count(rank),
                gpus_used=tuple(summary.accelerators_used) if summary else (),
                gpus_visible=visible.get(rank, 0),
                robots=_robots_on(cluster.robots, rank),
                env=tuple(sorted(env.items())),
                interpreter=interpreter,
                labels=tuple(cluster.labels_of_node(rank)),
                components=tuple(summary.components) if summary else (),
                processes=summary.processes if summary else 0,
                controller_only=summary is None and rank in controllers,
                robot_group=any(
                    g.hardware_type and rank in g.node_ranks for g in cluster.node_groups
                ),
            )
        )
    return needs


def _robots_on(robots: tuple[RobotConfig, ...], rank: int) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for robot in robots:
        if robot.node_rank == rank:
            counts[robot.hardware_type] = counts.get(robot.hardware_type, 0) + 1
    return tuple(sorted(counts.items()))


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def device_resource_for(hardware_type: str, available: list[str]) -> str | None:
    """The cluster's ``rlinf.io/device-*`` resource for a robot type, if the cluster reports one.

    Names come from the cluster (inventory), never guessed: ``rlinf.io/device-franka`` serves
    ``Franka`` because its suffix after ``device-`` normalises to the type's name.
    """
    wanted = _normalise(hardware_type)
    for name in available:
        suffix = name.split("/", 1)[-1]
        if suffix.startswith("device-") and _normalise(suffix.removeprefix("device-")) == wanted:
            return name
    return None
