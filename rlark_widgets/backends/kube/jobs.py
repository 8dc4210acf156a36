"""RLark's Job resource (the site profile's group, version and plural) through the shared API door."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..k8s.api import Action, KubeApi


def call_jobs(
    api: KubeApi,
    verb: str,
    method: Callable[..., Any],
    namespace: str,
    *args: Any,
    name: str | None = None,
    **kwargs: Any,
) -> Any:
    """Call a CustomObjectsApi method on RLark Jobs (group, version, namespace, plural first)."""
    site = api.site
    action = Action(verb, site.job_resource, namespace, name)
    return api.call(
        action,
        method,
        site.api_group,
        site.api_version_name,
        namespace,
        site.plural,
        *args,
        **kwargs,
    )
