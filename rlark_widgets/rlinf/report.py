"""One call from a loaded config to everything ``inspect`` shows: model, expansion, findings."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Finding, Severity
from ..i18n import Text
from .cluster import ClusterSpec, parse_cluster
from .errors import RLinfConfigError
from .expansion import (
    PLACEMENT_CLASSES,
    SUPPORTED_TASK_TYPES,
    Expansion,
    expand_placement,
    gpu_requirements,
    placement_class_for,
)
from .loader import RLinfConfig
from .topology import GpuLayout

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

    def to_json(self) -> dict:
        data = self.expansion.to_json()
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
) -> ConfigReport:
    """Parse the cluster section, expand it on ``gpus`` and collect every finding."""
    layout = GpuLayout.parse(gpus)
    findings = list(config.findings)
    task_type = config.task_type
    findings += _task_type_findings(task_type, placement_class)
    try:
        cluster = parse_cluster(config.cluster_section)
    except RLinfConfigError as exc:
        findings.append(exc.to_finding())
        expansion = Expansion(
            layout, task_type, placement_class or placement_class_for(task_type), error=exc
        )
        return ConfigReport(config, layout, None, expansion, findings)
    findings += cluster.findings
    expansion = expand_placement(
        cluster, layout, task_type=task_type, lookup=config.get, placement_class=placement_class
    )
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
    report = ConfigReport(config, layout, cluster, expansion, findings)
    if search_gpus:
        report.min_gpus_per_node, report.failing_gpus_per_node = gpu_requirements(
            cluster, task_type=task_type, lookup=config.get
        )
    return report


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
    if task_type not in SUPPORTED_TASK_TYPES:
        return [
            Finding(
                "CFG-TASK-TYPE",
                Severity.ERROR,
                "runner.task_type",
                Text(
                    "runner.task_type '{task_type}' is not one RLinf supports.",
                    task_type=task_type,
                ),
                Text("Use one of {task_types}.", task_types=", ".join(SUPPORTED_TASK_TYPES)),
                "RLinf rlinf/config.py SUPPORTED_TASK_TYPE",
            )
        ]
    return []
