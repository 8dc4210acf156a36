"""The backend port: one protocol (:mod:`.base`), a policy per kind (:mod:`.policy`), optional
abilities (:mod:`.abilities`), and the registry that opens them.

Three kinds ship: ``local`` (real Ray nodes), ``kubernetes`` (RLark's Job) and ``kuberay``
(KubeRay's RayJob/RayCluster). This module is the only one that knows their classes, and it
imports the chosen package only when it is opened (Ray and the kubernetes client are slow to
import). Another kind is added with :func:`register_backend`; the CLI and the app then offer it
and work with it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import Text
from ..rlark.site import SiteProfile
from . import policy
from .base import Backend, BackendError, default_workspace
from .policy import BackendPolicy

if TYPE_CHECKING:
    from ..rlark.kuberay import ExportOptions


@dataclass(frozen=True)
class Connect:
    """What opening a backend is given; each kind reads the options its policy names (None:
    that option's default)."""

    workspace: Path | None = None
    run_timeout: float | None = None
    context: str | None = None
    namespace: str | None = None
    kubeconfig: str | None = None
    kuberay: ExportOptions | None = None  # None: a RayJob with the defaults
    #: whose labels and Job API: the profile the edge resolved (the CLI's --site, the Session's)
    site: SiteProfile = field(kw_only=True)


#: Opens a backend of one kind; raises :class:`BackendError` when it cannot be reached.
Opener = Callable[[Connect], Backend]


def _local(given: Connect) -> Backend:
    from .local.backend import LocalBackend

    return LocalBackend(
        given.workspace or default_workspace(), run_timeout=given.run_timeout, site=given.site
    )


def _kubernetes(given: Connect) -> Backend:
    from .kube.backend import KubernetesBackend

    return KubernetesBackend.from_kubeconfig(
        context=given.context,
        namespace=given.namespace,
        config_file=given.kubeconfig,
        site=given.site,
    )


def _kuberay(given: Connect) -> Backend:
    from .kuberay.backend import KubeRayBackend

    return KubeRayBackend.from_kubeconfig(
        context=given.context,
        namespace=given.namespace,
        config_file=given.kubeconfig,
        options=given.kuberay,
        site=given.site,
    )


_REGISTERED: dict[str, tuple[BackendPolicy, Opener]] = {
    policy.LOCAL.kind: (policy.LOCAL, _local),
    policy.KUBERNETES.kind: (policy.KUBERNETES, _kubernetes),
    policy.KUBERAY.kind: (policy.KUBERAY, _kuberay),
}


def register_backend(described: BackendPolicy, opener: Opener) -> None:
    """Offer another kind of backend (``--backend``, the app) under ``described.kind``."""
    if described.kind in _REGISTERED:
        raise ValueError(f"a backend of kind {described.kind!r} is registered already")
    _REGISTERED[described.kind] = (described, opener)


def unregister_backend(kind: str) -> None:
    """Withdraw a kind added with :func:`register_backend` (the shipped ones stay)."""
    if kind in tuple(policy.BackendKind):
        raise ValueError(f"{kind!r} is a shipped backend")
    _REGISTERED.pop(kind, None)


def backend_kinds() -> tuple[str, ...]:
    """Every kind that can be opened, the shipped ones first."""
    return tuple(_REGISTERED)


def backend_policies() -> tuple[BackendPolicy, ...]:
    return tuple(described for described, _ in _REGISTERED.values())


def policy_of(kind: str) -> BackendPolicy:
    """The policy of ``kind``; raises :class:`BackendError` for a kind nobody registered."""
    found = _REGISTERED.get(kind)
    if found is None:
        raise BackendError(
            Text("Unknown backend '{name}'.", name=kind),
            Text("Use one of: {names}.", names=", ".join(_REGISTERED)),
        )
    return found[0]


def open_backend(
    kind: str,
    *,
    workspace: Path | None = None,
    run_timeout: float | None = None,
    context: str | None = None,
    namespace: str | None = None,
    kubeconfig: str | None = None,
    kuberay: ExportOptions | None = None,
    site: SiteProfile,
) -> Backend:
    """The backend of ``kind``, given the connection options (see :class:`Connect`); raises
    :class:`BackendError` when it is unknown or cannot be reached."""
    policy_of(kind)  # an unknown kind is refused with the known ones
    _, opener = _REGISTERED[kind]
    return opener(
        Connect(workspace, run_timeout, context, namespace, kubeconfig, kuberay, site=site)
    )
