"""What the Kubernetes and KubeRay backends share: one namespace of one API server.

Both open the API the same way (a client, or the user's kubeconfig, or the in-cluster account),
read the cluster's nodes and StorageClasses as the inventory, serialise their own submissions
and release the connections on ``close``; each adds its resource (an RLark Job; a RayJob or
RayCluster) and its snapshot reader.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Self

from kubernetes import client

from ...rlark.inventory import Inventory
from ...rlark.site import SiteProfile
from .api import Action, RetryPolicy
from .config import open_api
from .inventory import inventory_from


class ClusterBackend:
    """One namespace of one API server; ``name`` is the backend's (it labels the inventory)."""

    name: str

    def __init__(
        self,
        api_client: client.ApiClient | None = None,
        *,
        namespace: str | None = None,
        config_file: str | os.PathLike[str] | None = None,
        context: str | None = None,
        cluster: str | None = None,
        timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        site: SiteProfile,
        checkpoint_root: str | os.PathLike[str] | None = None,
    ) -> None:
        """``api_client`` wins; otherwise the kubeconfig (``config_file``, ``context``) or
        in-cluster. ``cluster`` is the intended cluster (the site's cluster label) for node
        selections; ``site`` names the node and Worker labels (the caller's profile);
        ``checkpoint_root`` is where the Jobs' output volume is mounted on this machine (no
        exec needed then)."""
        self.api, self.namespace = open_api(
            api_client, namespace, config_file, context, timeout, retry, site
        )
        self.cluster = cluster
        self.site = self.api.site
        self.checkpoint_root = Path(checkpoint_root) if checkpoint_root is not None else None
        self._submit_lock = threading.Lock()  # a double click in one session waits its turn

    @classmethod
    def from_kubeconfig(
        cls,
        context: str | None = None,
        namespace: str | None = None,
        config_file: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> Self:
        """The user's kubeconfig (or in-cluster account); BackendError with a fix when none."""
        return cls(None, namespace=namespace, config_file=config_file, context=context, **options)

    def close(self) -> None:
        """Release the HTTP connections (a backend is cheap to make again)."""
        self.api.close()

    def inventory(self) -> Inventory:
        """The cluster's nodes and StorageClasses."""
        nodes = self.api.call(Action("list", "nodes"), self.api.core.list_node)
        classes = self.api.call(
            Action("list", "storageclasses.storage.k8s.io"), self.api.storage.list_storage_class
        )
        return inventory_from(
            nodes["items"], classes["items"], f"{self.name} {self.api.host}", self.site
        )
