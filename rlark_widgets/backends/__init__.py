"""One protocol (:mod:`.base`), two implementations: ``local`` (real Ray nodes) and ``kubernetes``.

:func:`open_backend` is the one way the CLI and the app open either; it imports the chosen
package only then (Ray and the kubernetes client are slow to import).
"""

from __future__ import annotations

from pathlib import Path

from ..i18n import Text
from ..rlark.site import SiteProfile
from .base import Backend, BackendError, default_workspace

BACKEND_NAMES = ("local", "kubernetes")


def open_backend(
    name: str,
    *,
    workspace: Path | None = None,
    run_timeout: float | None = None,
    context: str | None = None,
    namespace: str | None = None,
    kubeconfig: str | None = None,
    site: SiteProfile | None = None,
) -> Backend:
    """The backend called ``name``; raises :class:`BackendError` when it cannot be reached.

    ``workspace`` and ``run_timeout`` are the local backend's; ``context``, ``namespace`` and
    ``kubeconfig`` the Kubernetes backend's (each None: its default); ``site`` the site profile
    both read labels and the Job API from (None: the shipped example).
    """
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
