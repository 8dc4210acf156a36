"""Preflight for KubeRay: the operator's CRD is served, we may create it, the server accepts it.

What is KubeRay's own is the CRD, the access review on ``ray.io``, the dry run of the exported
manifest, and the PVCs, which KubeRay does not create. The node checks (selectors, GPU and
device capacity) are the Kubernetes backend's, run on the Job the manifest reads as and
reported at the manifest's own fields (``spec.rayClusterSpec.workerGroupSpecs[i]...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...findings import Finding, Severity
from ...i18n import Text
from ...rlark.inventory import Inventory
from ...rlark.kuberay import API_VERSION, PLURALS, at_kuberay_paths, read_kuberay
from ...rlark.kuberay.schema import GROUP, VERSION
from ..k8s.api import Action, KubeApi
from ..k8s.nodes import capacity_findings, selector_findings
from ..k8s.server_checks import Resource, served
from ..k8s.server_checks import access_findings as shared_access_findings
from ..k8s.server_checks import dry_run_findings as shared_dry_run_findings

SOURCE = "rlark-widgets: kuberay preflight"


def _finding(
    rule_id: str, severity: Severity, path: str, message: Text, fix: Text | str
) -> Finding:
    return Finding(rule_id, severity, path, message, fix, SOURCE)


def ray_resource(kind: str) -> Resource:
    """KubeRay's resource for ``kind`` (RayJob, RayCluster), as the server checks ask about it."""
    return Resource(GROUP, VERSION, PLURALS[kind], kind, "KRAY", SOURCE)


def crd_findings(api: KubeApi, kind: str) -> list[Finding]:
    """KubeRay's resource for ``kind`` is served (discovery needs no special permission)."""
    if served(api, ray_resource(kind)):
        return []
    return [
        _finding(
            "KRAY-CRD",
            Severity.ERROR,
            "apiVersion",
            Text(
                "This cluster does not serve {kind} ({api_version}): the KubeRay operator is not"
                " installed here.",
                kind=kind,
                api_version=API_VERSION,
            ),
            Text(
                "Check the kubeconfig context; or install the KubeRay operator (v1.7.0 or later,"
                " e.g. its Helm chart kuberay/kuberay-operator)."
            ),
        )
    ]


def access_findings(api: KubeApi, namespace: str, kind: str) -> list[Finding]:
    """A SelfSubjectAccessReview: may we create ``kind`` in the namespace?"""
    return shared_access_findings(api, namespace, ray_resource(kind))


def dry_run_findings(api: KubeApi, manifest: Mapping[str, Any]) -> list[Finding]:
    """The server's own verdict on the exported manifest, nothing saved."""
    kind = manifest["kind"]
    namespace, name = manifest["metadata"]["namespace"], manifest["metadata"]["name"]
    return shared_dry_run_findings(
        ray_resource(kind),
        namespace,
        name,
        lambda: api.call(
            Action("create", f"{PLURALS[kind]}.{GROUP}", namespace, name),
            api.custom.create_namespaced_custom_object,
            GROUP,
            VERSION,
            namespace,
            PLURALS[kind],
            manifest,
            dry_run="All",
        ),
    )


def claim_findings(api: KubeApi, manifest: Mapping[str, Any]) -> list[Finding]:
    """Every PVC the pods mount exists (KubeRay creates none; a missing one keeps pods Pending)."""
    spec = manifest["spec"].get("rayClusterSpec", manifest["spec"])
    groups = [spec["headGroupSpec"], *(spec.get("workerGroupSpecs") or [])]
    claims = sorted(
        {
            volume["persistentVolumeClaim"]["claimName"]
            for group in groups
            for volume in group["template"].get("spec", {}).get("volumes") or []
            if "persistentVolumeClaim" in volume
        }
    )
    if not claims:
        return []
    namespace = manifest["metadata"]["namespace"]
    answer = api.call(
        Action("list", "persistentvolumeclaims", namespace),
        api.core.list_namespaced_persistent_volume_claim,
        namespace,
    )
    present = {item["metadata"]["name"] for item in answer.get("items") or []}
    return [
        _finding(
            "KRAY-PVC-MISSING",
            Severity.ERROR,
            "volumes",
            Text(
                "PVC '{claim}' does not exist in namespace '{namespace}': KubeRay creates no"
                " storage, so the pods that mount it would stay Pending.",
                claim=claim,
                namespace=namespace,
            ),
            Text(
                "Create the PVC first (from your object-storage StorageClass), or name an existing"
                " one with --claim MOUNT=CLAIM."
            ),
        )
        for claim in claims
        if claim not in present
    ]


def node_findings(
    manifest: dict[str, Any], inventory: Inventory, cluster: str | None
) -> list[Finding]:
    """Each group's node selection and the GPUs and devices its pods request, on the cluster's
    nodes, at the manifest's fields: the groups as they will be created, one per rank or not."""
    reading = read_kuberay(manifest, inventory.site)
    found = [
        *selector_findings(reading.job, inventory, cluster),
        *capacity_findings(reading.job, inventory),
    ]
    return at_kuberay_paths(found, reading, manifest)
