"""One call from a loaded config to everything ``inspect`` shows: model, expansion, findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..findings import Finding, Severity
from ..i18n import Text
from .cluster import ClusterSpec, parse_cluster
from .environment_values import cluster_as_written, findings_as_written
from .errors import RLinfConfigError
from .expansion import (
    PLACEMENT_CLASSES,
    Expansion,
    check_task_type,
    expand_placement,
    gpu_requirements,
    placement_class_for,
)
from .gpu_nodes import ConfigLayout, config_layout
from .launchers import launcher_for
from .loader import RLinfConfig
from .ranks import format_ranks
from .topology import GpuLayout

# The execution mode as shown: RLinf's name in English, the seeds' term with it in Chinese.
MODE_NAMES = {
    "HYBRID": Text("HYBRID"),
    "COLLOCATED": Text("COLLOCATED"),
    "DISAGGREGATED": Text("DISAGGREGATED"),
    "AUTO": Text("AUTO"),
}


def mode_name(mode: str | None) -> Text | str:
    """The execution mode for a message; '-' when RLinf reports none."""
    return MODE_NAMES.get(mode, mode) if mode else "-"


# RLinf's placement strategies as a table shows them: its class names less the suffix, named
# in Chinese beside them (a bare "Flexible" was the one English word of a zh table).
STRATEGY_NAMES = {
    "FlexiblePlacementStrategy": Text("Flexible"),
    "NodePlacementStrategy": Text("Node"),
    "PackedPlacementStrategy": Text("Packed"),
}


def strategy_name(strategy: str) -> Text | str:
    """A component's placement strategy for a table."""
    return STRATEGY_NAMES.get(strategy, strategy.removesuffix("PlacementStrategy"))


MODE_LESSONS = {
    "HYBRID": Text(
        "Hybrid placement: components may share or split GPUs freely; RLinf never asks Ray "
        "for GPU resources, so sharing costs nothing in scheduling."
    ),
    "COLLOCATED": Text(
        "Collocated: actor and rollout use the same GPUs and take turns (offload/reload)."
    ),
    "DISAGGREGATED": Text(
        "Disaggregated: actor, rollout and inference each own their GPUs (a pipeline)."
    ),
    "AUTO": Text(
        "AUTO (dynamic scheduler): disaggregated placement that must end on the last GPU of "
        "the cluster, so it depends on the exact total GPU count."
    ),
}


@dataclass
class ConfigReport:
    """The config as RLinf will run it on an assumed GPU layout."""

    config: RLinfConfig
    layout: GpuLayout
    cluster: ClusterSpec | None
    expansion: Expansion
    findings: list[Finding] = field(default_factory=list)
    min_gpus_per_node: int | None = None
    failing_gpus_per_node: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.expansion.ok

    @property
    def num_nodes(self) -> int:
        """Ray nodes the cluster section asks for (0 when RLinf could not read it)."""
        return self.cluster.num_nodes if self.cluster is not None else 0

    def to_json(self, components: bool = True) -> dict[str, Any]:
        """The JSON fields; without ``components`` (and ``per_node``), for a streaming writer."""
        data = self.expansion.to_json(components)
        data.update(
            config=self.config.source,
            overrides=list(self.config.overrides),
            min_gpus_per_node=self.min_gpus_per_node,
            failing_gpus_per_node=self.failing_gpus_per_node,
            findings=[f.to_dict() for f in self.findings],
        )
        return data


def inspect_config(
    config: RLinfConfig,
    gpus: GpuLayout | int | str = 8,
    *,
    placement_class: str | None = None,
    search_gpus: bool = True,
    follow_config: bool = True,
) -> ConfigReport:
    """Parse the cluster section, expand it on ``gpus`` and collect every finding.

    ``gpus`` is what the user assumes; with ``follow_config`` the robot and CPU-only nodes it
    does not name get 0 GPUs (:func:`config_layout`). ``follow_config=False`` expands on
    ``gpus`` exactly, as the differential tests compare with RLinf on one layout.
    """
    layout = GpuLayout.parse(gpus)
    findings = list(config.findings)
    task_type = config.task_type
    findings += _task_type_findings(task_type, placement_class)
    findings += _launcher_findings(config)
    try:
        check_task_type(task_type)  # RLinf's validate_cfg runs before the cluster is read
        cluster, node_values = cluster_as_written(config, parse_cluster(config.cluster_section))
    except RLinfConfigError as exc:
        findings.append(exc.to_finding())
        expansion = Expansion(
            layout, task_type, placement_class or placement_class_for(task_type), error=exc
        )
        return ConfigReport(config, layout, None, expansion, findings_as_written(config, findings))
    findings += [*cluster.findings, *node_values]

    def expand(on: GpuLayout) -> Expansion:
        return expand_placement(
            cluster, on, task_type=task_type, lookup=config.get, placement_class=placement_class
        )

    followed = config_layout(cluster, layout, expand) if follow_config else ConfigLayout(layout, {})
    layout = followed.layout
    findings += _gpuless_findings(followed)
    expansion = expand(layout)
    if expansion.error is not None:
        findings.append(expansion.error.to_finding())
    elif expansion.placement_mode in MODE_LESSONS:
        findings.append(
            Finding(
                "PLC-MODE",
                Severity.INFO,
                "cluster.component_placement",
                MODE_LESSONS[expansion.placement_mode],
                Text("Nothing to fix: the mode decides no role count on RLark."),
                "RLinf docs: execution modes; rlinf/utils/placement.py",
            )
        )
    report = ConfigReport(config, layout, cluster, expansion, findings_as_written(config, findings))
    if search_gpus:
        report.min_gpus_per_node, report.failing_gpus_per_node = gpu_requirements(
            cluster, task_type=task_type, lookup=config.get
        )
    return report


def _gpuless_findings(followed: ConfigLayout) -> list[Finding]:
    """Say which nodes were given 0 GPUs because the config marks them as robot or CPU-only."""
    if not followed.gpuless:
        return []
    ranks = sorted(followed.gpuless)
    groups = sorted({label for labels in followed.gpuless.values() for label in labels})
    # unlisted ranks get the largest count, so naming the zeroed ranks is the whole map
    keep = ",".join(f"{r}:{followed.layout.default}" for r in ranks)
    return [
        Finding(
            "PLC-GPULESS-NODES",
            Severity.INFO,
            "cluster.node_groups",
            Text(
                "Node rank(s) {ranks} belong only to robot or CPU-only node group(s) {groups}, "
                "so they are assumed to have 0 GPUs (the GPU count applies to the other nodes); "
                "the GPU layout is {layout}.",
                ranks=format_ranks(ranks),
                groups=", ".join(groups),
                layout=followed.layout.describe(),
            ),
            Text(
                "Nothing to fix if these are robot PCs without GPUs. If they do have GPUs, give "
                "each node's count with a per-node GPU map, e.g. --gpus-per-node-map {keep}.",
                keep=keep,
            ),
            "RLinf rlinf/scheduler/cluster/node.py (robot and ignore_hardware node groups)",
        )
    ]


def _task_type_findings(task_type: str | None, placement_class: str | None) -> list[Finding]:
    if placement_class is not None and placement_class not in PLACEMENT_CLASSES:
        raise ValueError(f"placement_class must be one of {PLACEMENT_CLASSES}")
    if task_type is None:
        return [
            Finding(
                "CFG-TASK-TYPE",
                Severity.INFO,
                "runner.task_type",
                Text(
                    "runner.task_type is not set; the placement was expanded as an embodied "
                    "(hybrid) config."
                ),
                Text("Set runner.task_type to the entry point's task type."),
                "RLinf rlinf/config.py SUPPORTED_TASK_TYPE",
            )
        ]
    return []


def _launcher_findings(config: RLinfConfig) -> list[Finding]:
    """Say when the entry script is not the one RLinf's docs launch this config with."""
    launcher = launcher_for(config.name, config.task_type)
    if launcher.inferred:
        return [
            Finding(
                "CFG-LAUNCHER",
                Severity.INFO,
                "runner.task_type",
                Text(
                    "No RLinf doc or example launches {name}, so its entry script was inferred "
                    "from runner.task_type and its name: {entry}.",
                    name=config.name,
                    entry=launcher.entry_point or Text("none known (the run script asks for one)"),
                ),
                Text("Check the entry script in the run script before you submit."),
                "RLinf launch scripts (examples/**/*.sh) and docs",
            )
        ]
    if launcher.alternatives:
        return [
            Finding(
                "CFG-LAUNCHER",
                Severity.INFO,
                "runner.task_type",
                Text(
                    "RLinf's docs launch {name} with {script} ({source}), which runs {entry}; "
                    "they also run it with {others}.",
                    name=config.name,
                    script=launcher.launch_script,
                    source=launcher.source,
                    entry=launcher.entry_point,
                    others=", ".join(launcher.alternatives),
                ),
                Text("The run script uses the first; change it there to run the other."),
                "RLinf launch scripts (examples/**/*.sh) and docs",
            )
        ]
    return []
