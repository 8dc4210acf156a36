"""Device resource names as Kubernetes reads them: the one validator ``check`` and ``export`` share.

A role's device resources (``rlinf.io/device-franka``) become ``resources.limits`` keys of the
RLark Job and of KubeRay's pods, and KubeRay's ``rayStartParams.resources``. Kubernetes accepts
only extended resource names there (apimachinery ``IsExtendedResourceName``: a lower-case DNS
domain, ``/``, a qualified name of at most 63 characters; not in ``kubernetes.io``; still a
qualified name with ``requests.`` before it), and the site profile says which of them are its
devices (``devicePrefix``). ``export`` wrote names ``check`` refused; both now ask this module,
the rule ``JOB-DEVICE-NAME`` in ``check`` and :func:`device_name_hits` in the KubeRay export.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ..i18n import Text
from .job import Job
from .site import SiteProfile

DEVICE_NAME_RULE = "JOB-DEVICE-NAME"
DEVICE_NAME_SOURCE = (
    "Kubernetes apimachinery (IsExtendedResourceName, IsQualifiedName); the site profile's "
    "devicePrefix"
)
LIMITS = "template.spec.containers[0].resources.limits"
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DOMAIN = re.compile(rf"{_LABEL}(\.{_LABEL})*")
_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_REQUESTS = "requests."  # Kubernetes prefixes a quota's name with it: the name must survive that
_NATIVE_DOMAIN = "kubernetes.io/"
_NAME_MAX, _DOMAIN_MAX = 63, 253


def limits_name_pattern(gpu_resource: str, device_prefix: str) -> str:
    """The Job CRD's pattern for ``resources.limits`` keys: the GPU resource or a device under
    the prefix (the characters of a qualified name; the lengths are :func:`device_name_problem`'s)."""
    device = f"|{re.escape(device_prefix)}[-A-Za-z0-9_.]*[A-Za-z0-9]" if device_prefix else ""
    return f"^({re.escape(gpu_resource)}{device})$"


def is_native_resource(name: str) -> bool:
    """CPU, memory and the other ``kubernetes.io`` resources: KubeRay has fields for them, and
    they are never a device (apimachinery ``IsNativeResource``)."""
    return "/" not in name or _NATIVE_DOMAIN in name


def _grammar_problem(name: str) -> Text | None:
    """Why Kubernetes refuses ``name`` as an extended resource name (None: it accepts it)."""
    domain, slash, rest = name.partition("/")
    if not slash or not domain:
        return Text("it needs a domain before a '/', as in nvidia.com/gpu")
    if _NATIVE_DOMAIN in name:
        return Text("the kubernetes.io domain is reserved for Kubernetes' own resources")
    if name.startswith(_REQUESTS):
        return Text("it must not start with 'requests.' (Kubernetes' quota prefix)")
    if not _DOMAIN.fullmatch(domain) or len(_REQUESTS + domain) > _DOMAIN_MAX:
        return Text(
            "the part before the '/' must be a lower-case DNS domain of at most 244 characters"
        )
    if not _NAME.fullmatch(rest) or len(rest) > _NAME_MAX:
        return Text(
            "the part after the '/' must be 1-63 letters, digits, '-', '_' or '.', beginning and"
            " ending with a letter or a digit"
        )
    return None


def device_name_problem(name: str, site: SiteProfile) -> Text | None:
    """Why ``name`` cannot be one of this site's device resources (None: it can)."""
    shown = json.dumps(name, ensure_ascii=False)  # a newline or a NUL shows as \n, \u0000
    reason = _grammar_problem(name)
    if reason is not None:
        return Text(
            "{name} is not a Kubernetes extended resource name: {reason}.",
            name=shown,
            reason=reason,
        )
    if not site.is_device(name):
        return Text(
            "{name} is not a device resource of this site: the site profile's devices start with"
            " '{prefix}'.",
            name=shown,
            prefix=site.device_prefix,
        )
    return None


def device_name_hits(job: Job, site: SiteProfile) -> Iterator[tuple[str, Text, Text]]:
    """(field path, problem, fix) for every device name of every role that Kubernetes or the
    site refuses, at the ``resources.limits`` of the role's main container."""
    for index, role in enumerate(job.roles):
        for name in role.devices:
            problem = device_name_problem(name, site)
            if problem is not None:
                yield (
                    f"spec.tasks[{index}].{LIMITS}",
                    problem,
                    Text(
                        "Use the exact name a node reports under Allocatable (`kubectl describe"
                        " node`), e.g. {example}; the platform admin knows it.",
                        example=f"{site.device_prefix}device-franka"
                        if site.device_prefix
                        else "vendor.example.com/device",
                    ),
                )
