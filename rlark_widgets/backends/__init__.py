"""One protocol (:mod:`.base`), three implementations: ``local`` (real Ray nodes), ``kubernetes``
(RLark's Job) and ``kuberay`` (KubeRay's RayJob/RayCluster).

:func:`open_backend` is the one way the CLI and the app open any of them; it imports the chosen
package only then (Ray and the kubernetes client are slow to import).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import Text
from ..rlark.site import SiteProfile
from .base import Backend, BackendError, default_workspace

if TYPE_CHECKING:
    from ..rlark.kuberay import ExportOptions

BACKEND_NAMES = ("local", "kubernetes", "kuberay")


def open_backend(
    name: str,
    *,
    workspace: Path | None = None,
    run_timeout: float | None = None,
    context: str | None = None,
    namespace: str | None = None,
    kubeconfig: str | None = None,
    kuberay: ExportOptions | None = None,
    site: SiteProfile | None = None,
) -> Backend:
    """The backend called ``name``; raises :class:`BackendError` when it cannot be reached.

    ``workspace`` and ``run_timeout`` are the local backend's; ``context``, ``namespace`` and
    ``kubeconfig`` the Kubernetes and KubeRay backends' (each None: its default); ``kuberay``
    what the KubeRay backend exports (kind, TTLs, claims; None: a RayJob with the defaults);
    ``site`` the site profile every backend reads labels (and RLark's Job API) from (None: the
    shipped example).
    """
    if name == "kuberay":
        from .kuberay.backend import KubeRayBackend

        return KubeRayBackend.from_kubeconfig(
            context=context,
            namespace=namespace,
            config_file=kubeconfig,
            options=kuberay,
            site=site,
        )
    if name == "kubernetes":
        from .kube.backend import KubernetesBackend

        return KubernetesBackend.from_kubeconfig(
            context=context, namespace=namespace, config_file=kubeconfig, site=site
        )
    if name == "local":
        from .local.backend import LocalBackend

        return LocalBackend(workspace or default_workspace(), run_timeout=run_timeout, site=site)
    raise BackendError(
        Text("Unknown backend '{name}'.", name=name),
        Text("Use one of: {names}.", names=", ".join(BACKEND_NAMES)),
    )
