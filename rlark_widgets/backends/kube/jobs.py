"""RLark's Job resource (``jobs.rlark.io``) through the shared API door."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...contract import API_GROUP, API_VERSION_NAME, JOB_RESOURCE
from ..k8s.api import Action, KubeApi

JOBS = JOB_RESOURCE
GROUP, VERSION = API_GROUP, API_VERSION_NAME


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
    action = Action(verb, JOBS, namespace, name)
    return api.call(action, method, GROUP, VERSION, namespace, "jobs", *args, **kwargs)
