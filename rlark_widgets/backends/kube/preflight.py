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
from ..k8s.api import Action, KubeApi, KubeApiError, with_server_words
from ..k8s.nodes import SOURCE
from .jobs import call_jobs


def _finding(
    rule_id: str,
    severity: Severity,
    path: str,
    message: Text,
    fix: Text | str,
    source: str = SOURCE,
) -> Finding:
    return Finding(rule_id, severity, path, message, fix, source)


def crd_findings(api: KubeApi) -> list[Finding]:
    """The site's Job resource is served (discovery needs no special permission)."""
    site = api.site
    action = Action("discover", f"API group {site.api_version}")
    try:
        answer = api.call(
            action, api.custom.get_api_resources, site.api_group, site.api_version_name
        )
    except KubeApiError as exc:
        if exc.status != 404:
            raise
        answer = {}
    if any(r.get("name") == site.plural for r in answer.get("resources") or []):
        return []
    return [
        _finding(
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
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {
            "resourceAttributes": {
                "namespace": namespace,
                "verb": "create",
                "group": api.site.api_group,
                "resource": api.site.plural,
            }
        },
    }
    fix = Text(
        "Ask the cluster admin for 'create' on {resource} in namespace '{namespace}', or use a"
        " namespace you may write to.",
        resource=api.site.job_resource,
        namespace=namespace,
    )
    try:
        answer = api.call(
            Action("create", "selfsubjectaccessreviews.authorization.k8s.io"),
            api.authz.create_self_subject_access_review,
            review,
        )
    except KubeApiError as exc:
        if exc.server_trouble:
            raise
        return [
            _finding(
                "K8S-ACCESS",
                Severity.WARNING,
                "metadata.namespace",
                Text(
                    "Could not check whether you may create Jobs in '{namespace}': {reason}",
                    namespace=namespace,
                    reason=exc.text,
                ),
                fix,
            )
        ]
    status = answer.get("status") or {}
    if status.get("allowed"):
        return []
    why = status.get("reason") or status.get("evaluationError") or ""
    return [
        _finding(
            "K8S-ACCESS",
            Severity.ERROR,
            "metadata.namespace",
            with_server_words(
                Text(
                    "You may not create {resource} in namespace '{namespace}'.",
                    resource=api.site.job_resource,
                    namespace=namespace,
                ),
                why,
            ),
            fix,
        )
    ]


def dry_run_findings(api: KubeApi, manifest: Mapping[str, Any]) -> list[Finding]:
    """The server's own verdict on the Job (schema, admission webhooks, quotas), nothing saved."""
    namespace, name = manifest["metadata"]["namespace"], manifest["metadata"]["name"]
    try:
        call_jobs(
            api,
            "create",
            api.custom.create_namespaced_custom_object,
            namespace,
            manifest,
            name=name,
            dry_run="All",
        )
    except KubeApiError as exc:
        if exc.server_trouble:
            raise
        if exc.status == 409:
            return [
                _finding(
                    "K8S-DRY-RUN",
                    Severity.WARNING,
                    "metadata.name",
                    Text(
                        "A Job named '{name}' already exists in namespace '{namespace}': submitting"
                        " will not overwrite it.",
                        name=name,
                        namespace=namespace,
                    ),
                    Text("Open the existing Job, delete it first, or choose another name."),
                )
            ]
        causes: list[tuple[str, Text | str]] = [*exc.causes] or [("(document)", exc.text)]
        return [
            _finding(
                "K8S-DRY-RUN",
                Severity.ERROR,
                path,
                Text("The API server's dry run rejects the Job: {reason}", reason=text),
                exc.fix_text,
            )
            for path, text in causes
        ]
    return []


def storage_findings(manifest: Mapping[str, Any], inventory: Inventory) -> Iterator[Finding]:
    for index, entry in enumerate(manifest["spec"].get("storage") or []):
        name = entry.get("storageClassName", "")
        if name not in inventory.storage_classes:
            names = ", ".join(inventory.storage_classes)
            yield _finding(
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
