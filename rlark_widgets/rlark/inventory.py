"""The nodes a Job can use: labels, node category, GPUs, device resources, readiness, taints.

Loaded from a YAML file (see ``rlark_widgets/examples/inventories/``) or filled by a backend,
always through a site profile (:mod:`.site`): its cluster label, its node-category label (what
the console shows as 云算力 / 端算力 / 端真机), its GPU resource and device prefix. A category
value the profile does not name is kept as reported (:func:`inventory_findings` says so), and a
node without the label has no category: nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..examples import example_inventories
from ..findings import Finding, Severity
from ..i18n import Text, TextError
from ..input_files import InputFileError, read_input_text
from ..safe_yaml import YamlStructureError, safe_load
from .site import SiteProfile


class InventoryError(TextError, ValueError):
    """An inventory file that cannot be read; ``text`` names the entry (``nodes[3].labels: …``).

    The entry is part of the message, so any display of ``text`` shows where to look.
    """


@dataclass(frozen=True)
class NodeInfo:
    """One Kubernetes Node as the planner sees it."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    gpus: int = 0
    devices: Mapping[str, int] = field(default_factory=dict)
    ready: bool = True
    unschedulable: bool = False
    taints: tuple[str, ...] = ()
    #: the values of the site's cluster and node-category labels (None: the node has none)
    cluster: str | None = None
    category: str | None = None

    @property
    def schedulable(self) -> bool:
        blocking = [t for t in self.taints if t.endswith((":NoSchedule", ":NoExecute"))]
        return self.ready and not self.unschedulable and not blocking

    def matches(self, selector: Mapping[str, str]) -> bool:
        return all(self.labels.get(k) == v for k, v in selector.items())


@dataclass(frozen=True)
class Inventory:
    """Nodes and StorageClasses of the clusters a Job may target."""

    nodes: tuple[NodeInfo, ...]
    storage_classes: tuple[str, ...] = ()
    source: str = ""
    site: SiteProfile = field(kw_only=True)

    def matching(self, selector: Mapping[str, str]) -> list[NodeInfo]:
        """The nodes a nodeSelector matches (the console's read-only 'selected node count')."""
        if not selector:
            return list(self.nodes)
        return [n for n in self.nodes if n.matches(selector)]

    @property
    def clusters(self) -> list[str]:
        return sorted({n.cluster for n in self.nodes if n.cluster})

    def device_names(self) -> list[str]:
        return sorted({d for n in self.nodes for d in n.devices})

    def through(self, site: SiteProfile) -> Inventory:
        """The same nodes read through ``site`` (a file loaded before the profile was chosen)."""
        if site is self.site:
            return self
        nodes = tuple(
            site_node(
                n.name,
                n.labels,
                {site.gpu_resource: n.gpus, **n.devices},
                site,
                ready=n.ready,
                unschedulable=n.unschedulable,
                taints=n.taints,
            )
            for n in self.nodes
        )
        return Inventory(nodes, self.storage_classes, self.source, site=site)


def site_node(
    name: str,
    labels: Mapping[str, str],
    allocatable: Mapping[str, int],
    site: SiteProfile,
    **state: Any,
) -> NodeInfo:
    """A node read through ``site``: its cluster, category, GPUs and devices by the site's names."""
    return NodeInfo(
        name=name,
        labels=dict(labels),
        gpus=allocatable.get(site.gpu_resource, 0),
        devices={k: v for k, v in allocatable.items() if site.is_device(k)},
        cluster=labels.get(site.cluster_label),
        category=labels.get(site.category_label),
        **state,
    )


def inventory_findings(inventory: Inventory) -> list[Finding]:
    """Infos for category values the site profile does not name: shown as reported, not refused."""
    site = inventory.site
    unknown: dict[str, list[tuple[int, str]]] = {}
    for index, node in enumerate(inventory.nodes):
        if node.category is not None and site.console_category(node.category) is None:
            unknown.setdefault(node.category, []).append((index, node.name))
    return [
        Finding(
            "INV-CATEGORY",
            Severity.INFO,
            f"nodes[{nodes[0][0]}].labels.{site.category_label}",
            Text(
                "{count} node(s) ({nodes}) report {label}={value}, a category the site profile "
                "does not name; they are shown as reported, not as 云算力 / 端算力 / 端真机.",
                count=len(nodes),
                nodes=", ".join(name for _, name in nodes[:5]),
                label=site.category_label,
                value=value,
            ),
            Text(
                "If it is one of the console's categories, add it under nodeCategory.values in "
                "the site profile (ask the platform admin which one)."
            ),
            "seeds/rlinf-faq.zh.txt (云算力、端算力、端真机)",
        )
        for value, nodes in unknown.items()
    ]


def load_inventory(path: str | Path, site: SiteProfile) -> Inventory:
    """An inventory file, or a bundled inventory by the name the app offers (``gpu-cloud``):
    the CLI and the app accept the same names."""
    bundled = example_inventories()
    file = bundled[str(path)] if str(path) in bundled else Path(path).expanduser()
    if not file.exists():
        raise InventoryError(
            Text(
                "No inventory file at {file} (bundled inventories: {names}).",
                file=str(file),
                names=", ".join(bundled) or "-",
            )
        )
    try:
        text = read_input_text(file)
    except InputFileError as exc:
        raise InventoryError(exc.text, exc.fix_text) from None
    try:
        data = safe_load(text)
    except (yaml.YAMLError, YamlStructureError) as exc:
        raise InventoryError(
            Text(
                "{name} is not valid YAML: {detail}",
                name=file.name,
                detail=exc.text if isinstance(exc, YamlStructureError) else str(exc),
            )
        ) from None
    return inventory_from_dict(data, str(file), site=site)


def inventory_from_dict(data: Any, source: str = "", *, site: SiteProfile) -> Inventory:
    if not isinstance(data, Mapping) or not isinstance(data.get("nodes"), list):
        raise InventoryError(Text("nodes: An inventory is a mapping with a 'nodes' list."))
    default_cluster = data.get("cluster")
    nodes = [
        _node(raw, f"nodes[{i}]", default_cluster, site) for i, raw in enumerate(data["nodes"])
    ]
    seen: set[str] = set()  # a set, not names.count(): 100,000 nodes once took minutes
    for node in nodes:
        if node.name in seen:
            raise InventoryError(Text("nodes: Node name '{name}' appears twice.", name=node.name))
        seen.add(node.name)
    classes = data.get("storageClasses") or []
    if not isinstance(classes, list):
        raise InventoryError(Text("storageClasses: storageClasses must be a list."))
    names_of_classes = tuple(
        _storage_class(entry, f"storageClasses[{i}]") for i, entry in enumerate(classes)
    )
    return Inventory(tuple(nodes), names_of_classes, source, site=site)


def _storage_class(entry: Any, path: str) -> str:
    name = entry.get("name") if isinstance(entry, Mapping) else entry
    if not name:
        raise InventoryError(Text("{path}: a storage class needs a name.", path=path))
    return str(name)


def _count(value: Any) -> int:
    """A whole number >= 0: an integer or a Kubernetes quantity string such as "8"."""
    if isinstance(value, bool) or not isinstance(value, int | str) or int(value) < 0:
        raise ValueError(value)
    return int(value)


def _node(raw: Any, path: str, default_cluster: str | None, site: SiteProfile) -> NodeInfo:
    if not isinstance(raw, Mapping) or not raw.get("name"):
        raise InventoryError(Text("{path}: Each node needs at least a name.", path=path))
    labels = raw.get("labels") or {}
    allocatable = raw.get("allocatable") or {}
    if not isinstance(labels, Mapping) or not isinstance(allocatable, Mapping):
        raise InventoryError(Text("{path}: labels and allocatable must be mappings.", path=path))
    labels = {str(k): str(v) for k, v in labels.items()}
    cluster = raw.get("cluster", default_cluster)
    if cluster is not None:
        labels.setdefault(site.cluster_label, str(cluster))
    try:
        counts = {
            str(k): _count(v)
            for k, v in allocatable.items()
            if str(k) == site.gpu_resource or site.is_device(str(k))
        }
    except (TypeError, ValueError):
        raise InventoryError(
            Text("{path}.allocatable: allocatable counts must be whole numbers.", path=path)
        ) from None
    taints = raw.get("taints") or []
    if not isinstance(taints, list):
        raise InventoryError(
            Text(
                "{path}.taints: taints must be a list such as ['gpu=broken:NoSchedule'].",
                path=path,
            )
        )
    return site_node(
        str(raw["name"]),
        labels,
        counts,
        site,
        ready=bool(raw.get("ready", True)),
        unschedulable=bool(raw.get("unschedulable", False)),
        taints=tuple(str(t) for t in taints),
    )


def inventory_to_dict(inventory: Inventory) -> dict[str, Any]:
    """The inventory in the file format :func:`inventory_from_dict` reads (an exact round trip
    through the same site profile): labels as reported, the site's GPU and device resources,
    and readiness, cordons and taints only where they differ from a usable node."""
    nodes = []
    for node in inventory.nodes:
        allocatable = {inventory.site.gpu_resource: node.gpus, **node.devices}
        entry: dict[str, Any] = {
            "name": node.name,
            "labels": dict(node.labels),
            "allocatable": {k: v for k, v in allocatable.items() if v},
        }
        if not node.ready:
            entry["ready"] = False
        if node.unschedulable:
            entry["unschedulable"] = True
        if node.taints:
            entry["taints"] = list(node.taints)
        nodes.append(entry)
    return {"storageClasses": list(inventory.storage_classes), "nodes": nodes}
