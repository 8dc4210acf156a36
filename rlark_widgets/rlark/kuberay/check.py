"""``check`` on KubeRay YAML: KubeRay's schema, then the rules that apply to a RayJob/RayCluster.

The rule catalogue runs on the Job the manifest reads as (secrets, images, mounts, selectors,
GPU and device coverage of the placement); rules about RLark-only fields are left out, and every
finding points at the KubeRay field it concerns.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from ...findings import Finding, Severity
from ...i18n import Text
from ...rlinf import ConfigReport
from ..check import check_job
from ..inventory import Inventory
from ..planned import PlannedJob
from ..secrets import secret_findings
from ..site import SiteProfile
from .manifest import Export, ExportOptions, export_job
from .reading import Reading, cluster_spec_path, rank_problem, read_kuberay
from .schema import SOURCE, kuberay_schema_findings

#: Rules about RLark's own fields: KubeRay has the field (CPU, memory), names PVCs rather than
#: StorageClasses, or starts Ray with its own command (the export keeps the prepare script).
NOT_KUBERAY = {"JOB-SCHEMA", "JOB-NO-CPU-MEMORY", "JOB-STORAGE-SOURCE", "JOB-ENTRYPOINT"}
NO_RUN_SCRIPT = "JOB-RUN-SCRIPT"  # a RayCluster runs none
_TASK = re.compile(r"^spec\.tasks\[(\d+)\]")


def kuberay_path(path: str, reading: Reading, manifest: dict[str, Any]) -> str:
    """An RLark Job path (``spec.tasks[i]...``) as the path of the KubeRay field it became."""
    match = _TASK.match(path)
    if match and int(match.group(1)) < len(reading.role_paths):
        rest = path[match.end() :].replace(".prepareScript", ".template.spec.containers[0].args[0]")
        return reading.role_paths[int(match.group(1))] + rest
    if path == "spec.tasks":
        return cluster_spec_path(manifest)
    if path.startswith("spec.runScript"):
        return reading.run_script_path
    return path


def at_kuberay_paths(
    findings: Iterable[Finding], reading: Reading, manifest: dict[str, Any]
) -> list[Finding]:
    """Findings on the Job a manifest reads as, pointing at the manifest's own fields."""
    return [dataclasses.replace(f, path=kuberay_path(f.path, reading, manifest)) for f in findings]


def check_kuberay(
    manifest: dict[str, Any],
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    site: SiteProfile,
) -> list[Finding]:
    """Every finding for a RayJob/RayCluster manifest (the schema's alone when it cannot be read).

    ``site`` names the labels and reserved names.
    """
    findings = kuberay_schema_findings(manifest)
    if findings:
        return [*findings, *secret_findings(manifest)]
    try:
        reading = read_kuberay(manifest, site)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        unreadable = Finding(
            "KRAY-SCHEMA",
            Severity.ERROR,
            cluster_spec_path(manifest),
            Text(
                "The manifest does not have the shape the rules read ({detail}).", detail=repr(exc)
            ),
            Text("Compare it with what `rlark-migrate export` writes."),
            SOURCE,
        )
        return [unreadable, *secret_findings(manifest)]
    cluster = manifest.get("kind") == "RayCluster"
    node_groups = bool(report.cluster.node_groups) if report and report.cluster else False
    if node_groups and not reading.ranked:
        findings.append(
            rank_problem(
                cluster_spec_path(manifest),
                Text(
                    "The config has cluster.node_groups, so RLinf requires RLINF_NODE_RANK on"
                    " every node; no group sets it."
                ),
            )
        )
    findings += reading.findings
    read_as = PlannedJob(
        report.config if report is not None else None,
        report,
        None,
        reading.job,
        [],
        None,
        inventory,
        target_cluster,
        site,
    )
    applying = [
        finding
        for finding in check_job(read_as)
        if finding.rule_id not in NOT_KUBERAY
        and not (cluster and finding.rule_id.startswith(NO_RUN_SCRIPT))
        and not finding.rule_id.startswith("SEC-")  # scanned on the manifest itself below
    ]
    findings += at_kuberay_paths(applying, reading, manifest)
    return [*findings, *secret_findings(manifest)]


def export_checked(planned: PlannedJob, options: ExportOptions | None = None) -> Export:
    """Export the planned Job with every finding that applies: the mapping's, then the checks on
    its result.

    The planned report (the RLinf config) decides whether ranks matter, as it does for RLinf.
    """
    options = options or ExportOptions()
    report = planned.report
    if report is not None and report.cluster is not None:
        options = dataclasses.replace(options, node_groups=bool(report.cluster.node_groups))
    exported = export_job(planned.built, options, site=planned.site)
    if exported.manifest is None:
        return exported
    mapping = [f for f in exported.findings if f.rule_id != "KRAY-SCHEMA"]
    checks = check_kuberay(
        exported.manifest,
        report,
        planned.inventory,
        target_cluster=planned.target_cluster,
        site=planned.site,
    )
    return Export(exported.manifest, [*mapping, *checks], exported.groups)
