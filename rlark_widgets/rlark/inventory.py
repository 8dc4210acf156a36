"""The nodes a Job can use: labels, node category, GPUs, rlinf.io devices, readiness, taints.

Loaded from a YAML file (see ``rlark_widgets/examples/inventories/``) or filled by a backend.
The node category label ``rlark.io/node-category`` is what the console shows as 云算力 (cloud),
端算力 (edge) and 端真机 (robot).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..contract import CATEGORY_LABEL, CLUSTER_LABEL, DEVICE_PREFIX
from ..i18n import Text, TextError
from ..safe_yaml import INPUT_LIMIT_FIX, YamlAliasError, input_limit_bytes, safe_load

CATEGORIES = {"cloud": "云算力", "edge": "端算力", "robot": "端真机"}
GPU_RESOURCE = "nvidia.com/gpu"


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

    @property
    def cluster(self) -> str | None:
        return self.labels.get(CLUSTER_LABEL)

    @property
    def category(self) -> str | None:
        return self.labels.get(CATEGORY_LABEL)

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


def load_inventory(path: str | Path) -> Inventory:
    file = Path(path)
    if not file.is_file():
        raise InventoryError(Text("No inventory file at {file}.", file=str(file)))
    limit = input_limit_bytes()
    if file.stat().st_size > limit:
        raise InventoryError(
            Text("{name} is larger than {size} MB.", name=file.name, size=f"{limit / 1e6:.1f}"),
            INPUT_LIMIT_FIX,
        )
    try:
        data = safe_load(file.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError, YamlAliasError) as exc:
        raise InventoryError(
            Text(
                "{name} is not valid YAML: {detail}",
                name=file.name,
                detail=exc.text if isinstance(exc, YamlAliasError) else str(exc),
            )
        ) from None
    return inventory_from_dict(data, str(file))


def inventory_from_dict(data: Any, source: str = "") -> Inventory:
    if not isinstance(data, Mapping) or not isinstance(data.get("nodes"), list):
        raise InventoryError(Text("nodes: An inventory is a mapping with a 'nodes' list."))
    default_cluster = data.get("cluster")
    nodes = [_node(raw, f"nodes[{i}]", default_cluster) for i, raw in enumerate(data["nodes"])]
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
    return Inventory(tuple(nodes), names_of_classes, source)


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


def _node(raw: Any, path: str, default_cluster: str | None) -> NodeInfo:
    if not isinstance(raw, Mapping) or not raw.get("name"):
        raise InventoryError(Text("{path}: Each node needs at least a name.", path=path))
    labels = raw.get("labels") or {}
    allocatable = raw.get("allocatable") or {}
    if not isinstance(labels, Mapping) or not isinstance(allocatable, Mapping):
        raise InventoryError(Text("{path}: labels and allocatable must be mappings.", path=path))
    labels = {str(k): str(v) for k, v in labels.items()}
    cluster = raw.get("cluster", default_cluster)
    if cluster is not None:
        labels.setdefault(CLUSTER_LABEL, str(cluster))
    if labels.get(CATEGORY_LABEL, "cloud") not in CATEGORIES:
        raise InventoryError(
            Text(
                "{path}.labels: {label} must be one of {choices}, got '{value}'.",
                path=path,
                label=CATEGORY_LABEL,
                choices=", ".join(CATEGORIES),
                value=labels[CATEGORY_LABEL],
            )
        )
    try:
        gpus = _count(allocatable.get(GPU_RESOURCE, 0))
        devices = {
            str(k): _count(v) for k, v in allocatable.items() if str(k).startswith(DEVICE_PREFIX)
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
    return NodeInfo(
        name=str(raw["name"]),
        labels=labels,
        gpus=gpus,
        devices=devices,
        ready=bool(raw.get("ready", True)),
        unschedulable=bool(raw.get("unschedulable", False)),
        taints=tuple(str(t) for t in taints),
    )
