"""Connecting: the user's kubeconfig (chosen context and namespace) or the in-cluster account.

A missing or broken configuration is the first thing a researcher meets, so each case gets its
own sentence and fix instead of the client's ConfigException text.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from kubernetes import client, config

from ...i18n import Text
from ...input_files import not_a_file
from ...rlark.site import SiteProfile
from ..base import BackendError
from .api import KubeApi, RetryPolicy

IN_CLUSTER_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def _kubeconfig_files(config_file: str | os.PathLike[str] | None) -> list[Path]:
    if config_file is not None:
        return [Path(config_file).expanduser()]
    listed = os.environ.get("KUBECONFIG") or "~/.kube/config"
    return [Path(p).expanduser() for p in listed.split(os.pathsep) if p]


def connect(
    config_file: str | os.PathLike[str] | None = None, context: str | None = None
) -> tuple[client.ApiClient, str | None]:
    """An ApiClient and the context's namespace (None when the context names none).

    Order: an explicit ``config_file``, else ``$KUBECONFIG`` or ``~/.kube/config``, else the
    in-cluster service account. The client does no retries of its own (the backend's policy
    does), so one failure is not retried twice over.
    """
    files = _kubeconfig_files(config_file)
    for file in files:
        kind = not_a_file(file)
        if kind is not None:  # the client would call it missing, or wait on a FIFO
            raise BackendError(
                Text("The kubeconfig {path} is {kind}, not a file.", path=str(file), kind=kind),
                Text(
                    "Point --kubeconfig (or $KUBECONFIG) at a kubeconfig file; "
                    "kubectl config view --raw > FILE writes one."
                ),
            )
    configuration = client.Configuration()
    if any(f.is_file() for f in files):
        path = os.pathsep.join(str(f) for f in files)
        try:
            contexts, current = config.list_kube_config_contexts(path)
            chosen = (
                next((c for c in contexts if c["name"] == context), None) if context else current
            )
            if chosen is None:
                raise BackendError(  # the client refuses a file whose context list is empty
                    Text(
                        "Context '{context}' is not in {path} (it has: {names}).",
                        context=context,
                        path=path,
                        names=", ".join(c["name"] for c in contexts),
                    ),
                    Text("Pick one of the listed contexts (kubectl config get-contexts)."),
                )
            config.load_kube_config(path, context, client_configuration=configuration)
        except (config.ConfigException, yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
            raise BackendError(
                Text(
                    "The kubeconfig {path} cannot be used: {reason}",
                    path=path,
                    reason=" ".join(str(exc).split()),
                ),
                Text(
                    "Fix the file or get a fresh one from the cluster admin"
                    " (kubectl config view checks it)."
                ),
            ) from None
        namespace = (chosen.get("context") or {}).get("namespace")
    elif os.environ.get("KUBERNETES_SERVICE_HOST"):
        try:
            config.load_incluster_config(client_configuration=configuration)
        except config.ConfigException as exc:
            raise BackendError(
                Text(
                    "Running inside a cluster, but its service account cannot be used: {reason}",
                    reason=str(exc),
                ),
                Text("Ask the admin to mount a service account token into this pod."),
            ) from None
        namespace = (
            IN_CLUSTER_NAMESPACE.read_text().strip() if IN_CLUSTER_NAMESPACE.is_file() else None
        )
    else:
        shown = ", ".join(str(f) for f in files)
        raise BackendError(
            Text(
                "No Kubernetes configuration found: no kubeconfig at {paths}, and this is not a pod"
                " in a cluster.",
                paths=shown,
            ),
            Text(
                "Get a kubeconfig for the RLark cluster from its admin and save it as"
                " ~/.kube/config (or point KUBECONFIG or --kubeconfig at it)."
            ),
        )
    configuration.retries = False
    return client.ApiClient(configuration), namespace


def open_api(
    api_client: client.ApiClient | None,
    namespace: str | None,
    config_file: str | os.PathLike[str] | None,
    context: str | None,
    timeout: float,
    retry: RetryPolicy | None,
    site: SiteProfile,
) -> tuple[KubeApi, str]:
    """The API wrapper and namespace a cluster backend works in: ``api_client`` wins, else the
    kubeconfig (``config_file``, ``context``) or in-cluster; the namespace given, else the
    context's, else ``default``."""
    context_namespace = None
    if api_client is None:
        api_client, context_namespace = connect(config_file, context)
    return KubeApi(
        api_client, timeout, retry, site=site
    ), namespace or context_namespace or "default"
