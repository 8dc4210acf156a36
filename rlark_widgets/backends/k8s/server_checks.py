"""Preflight questions only the API server can answer, the same for both cluster backends.

Is a resource served (discovery), may we create it in the namespace (a SelfSubjectAccessReview),
and does the server accept the manifest (a dry run: schema, admission webhooks, quotas, nothing
saved)? Each backend asks them about its own resource (an RLark Job; a RayJob or RayCluster)
and gives the findings its own rule IDs and source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...findings import Finding, Severity
from ...i18n import Text
from .api import Action, KubeApi, KubeApiError, with_server_words


@dataclass(frozen=True)
class Resource:
    """What is asked about: ``plural`` in API ``group``/``version``, named to the user as
    ``shown`` (``jobs.rlark.io``), of kind ``kind``; findings get ``prefix``-CRD/-ACCESS/-DRY-RUN
    rule IDs and ``source``."""

    group: str
    version: str
    plural: str
    kind: str
    prefix: str
    source: str

    @property
    def shown(self) -> str:
        return f"{self.plural}.{self.group}"

    def finding(
        self, check: str, severity: Severity, path: str, message: Text, fix: Text | str
    ) -> Finding:
        return Finding(f"{self.prefix}-{check}", severity, path, message, fix, self.source)


def served(api: KubeApi, resource: Resource) -> bool:
    """Whether the server serves ``resource`` (discovery needs no special permission)."""
    try:
        answer = api.call(
            Action("discover", f"API group {resource.group}/{resource.version}"),
            api.custom.get_api_resources,
            resource.group,
            resource.version,
        )
    except KubeApiError as exc:
        if exc.status != 404:
            raise
        return False
    return any(r.get("name") == resource.plural for r in answer.get("resources") or [])


def access_findings(api: KubeApi, namespace: str, resource: Resource) -> list[Finding]:
    """A SelfSubjectAccessReview: may we create ``resource`` in the namespace? An error when
    not, a warning when the review cannot answer (server trouble raises)."""
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview",
        "spec": {
            "resourceAttributes": {
                "namespace": namespace,
                "verb": "create",
                "group": resource.group,
                "resource": resource.plural,
            }
        },
    }
    fix = Text(
        "Ask the cluster admin for 'create' on {resource} in namespace '{namespace}', or use a"
        " namespace you may write to.",
        resource=resource.shown,
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
        unknown = Text(
            "Could not check whether you may create {resource} in '{namespace}': {reason}",
            resource=resource.shown,
            namespace=namespace,
            reason=exc.text,
        )
        return [resource.finding("ACCESS", Severity.WARNING, "metadata.namespace", unknown, fix)]
    status = answer.get("status") or {}
    if status.get("allowed"):
        return []
    refused = Text(
        "You may not create {resource} in namespace '{namespace}'.",
        resource=resource.shown,
        namespace=namespace,
    )
    why = status.get("reason") or status.get("evaluationError") or ""
    message = with_server_words(refused, why)
    return [resource.finding("ACCESS", Severity.ERROR, "metadata.namespace", message, fix)]


def dry_run_findings(
    resource: Resource, namespace: str, name: str, create: Callable[[], object]
) -> list[Finding]:
    """The server's verdict on ``create()`` (the creation, made with ``dry_run="All"``): one
    error per field it refuses, a warning when the name is taken (server trouble raises)."""
    try:
        create()
    except KubeApiError as exc:
        if exc.server_trouble:
            raise
        if exc.status == 409:
            taken = Text(
                "A {kind} named '{name}' already exists in namespace '{namespace}':"
                " submitting will not overwrite it.",
                kind=resource.kind,
                name=name,
                namespace=namespace,
            )
            fix = Text("Open the existing one, delete it first, or choose another name.")
            return [resource.finding("DRY-RUN", Severity.WARNING, "metadata.name", taken, fix)]
        causes: list[tuple[str, Text | str]] = [*exc.causes] or [("(document)", exc.text)]
        return [
            resource.finding(
                "DRY-RUN",
                Severity.ERROR,
                path,
                Text(
                    "The API server's dry run rejects the {kind}: {reason}",
                    kind=resource.kind,
                    reason=text,
                ),
                exc.fix_text,
            )
            for path, text in causes
        ]
    return []
