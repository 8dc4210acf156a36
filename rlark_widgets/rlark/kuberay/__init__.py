"""The RLark plan as KubeRay ``ray.io/v1`` RayJob/RayCluster: export, KubeRay's schema, check."""

from .check import at_kuberay_paths, check_kuberay, export_checked, kuberay_path
from .manifest import Export, ExportOptions, Group, export_job, ranks_matter
from .reading import Reading, read_kuberay
from .schema import API_VERSION, KINDS, PLURALS, is_kuberay, kuberay_schema_findings

__all__ = [
    "API_VERSION",
    "KINDS",
    "PLURALS",
    "Export",
    "ExportOptions",
    "Group",
    "Reading",
    "at_kuberay_paths",
    "check_kuberay",
    "export_checked",
    "export_job",
    "is_kuberay",
    "kuberay_path",
    "kuberay_schema_findings",
    "ranks_matter",
    "read_kuberay",
]
