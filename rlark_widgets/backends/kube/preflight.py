"""Preflight against a live cluster: everything that would make a submitted Job fail, as findings.

The checks a cluster can answer and a YAML file cannot: the RLark CRD is served, we may create
Jobs in the namespace, the server accepts the Job in a dry run and the StorageClasses exist. The
node checks (selections, GPU and device capacity) are shared with KubeRay (:mod:`..k8s.nodes`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ...findings import Finding, Severity
from ...i18n import Text
from ...rlark.inventory import Inventory
from ..k8s.api import KubeApi
from ..k8s.nodes import SOURCE, finding
from ..k8s.server_checks import Resource, served
from ..k8s.server_checks import access_findings as shared_access_findings
from ..k8s.server_checks import dry_run_findings as shared_dry_run_findings
from .jobs import call_jobs


def job_resource(api: KubeApi) -> Resource:
    """The site's Job resource, as the server checks ask about it."""
    site = api.site
    return Resource(site.api_group, site.api_version_name, site.plural, site.kind, "K8S", SOURCE)


def crd_findings(api: KubeApi) -> list[Finding]:
    """The site's Job resource is served (discovery needs no special permission)."""
    if served(api, job_resource(api)):
        return []
    site = api.site
    return [
        finding(
            "K8S-CRD",
            Severity.ERROR,
            "apiVersion",
            Text(
                "This cluster does not serve RLark Jobs ({resource}, {api_version}): RLark is not"
                " installed here.",
                resource=site.job_resource,
                api_version=site.api_version,
            ),
            Text(
                "Check the kubeconfig context; or ask the admin to install RLark"
                " (`rlark-migrate crd` prints our CRD)."
            ),
        )
    ]


def access_findings(api: KubeApi, namespace: str) -> list[Finding]:
    """A SelfSubjectAccessReview: may we create Jobs in the namespace?"""
    return shared_access_findings(api, namespace, job_resource(api))


def dry_run_findings(api: KubeApi, manifest: Mapping[str, Any]) -> list[Finding]:
    """The server's own verdict on the Job (schema, admission webhooks, quotas), nothing saved."""
    namespace, name = manifest["metadata"]["namespace"], manifest["metadata"]["name"]
    return shared_dry_run_findings(
        job_resource(api),
        namespace,
        name,
        lambda: call_jobs(
            api,
            "create",
            api.custom.create_namespaced_custom_object,
            namespace,
            manifest,
            name=name,
            dry_run="All",
        ),
    )


def storage_findings(manifest: Mapping[str, Any], inventory: Inventory) -> Iterator[Finding]:
    for index, entry in enumerate(manifest["spec"].get("storage") or []):
        name = entry.get("storageClassName", "")
        if name not in inventory.storage_classes:
            names = ", ".join(inventory.storage_classes)
            yield finding(
                "K8S-STORAGECLASS",
                Severity.ERROR,
                f"spec.storage[{index}].storageClassName",
                Text(
                    "StorageClass '{name}' does not exist on this cluster (it has: {names}).",
                    name=name,
                    names=names,
                )
                if names
                else Text(
                    "StorageClass '{name}' does not exist on this cluster (it has: none).",
                    name=name,
                ),
                Text(
                    "Choose one of the cluster's StorageClasses (ask the admin to create one for a"
                    " new bucket)."
                ),
            )
