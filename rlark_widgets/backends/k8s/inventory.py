"""Live inventory: Kubernetes Nodes and StorageClasses as the planner's ``Inventory``.

Also answers the console's read-only "selected node count" for a nodeSelector, and whether the
selection spills over the intended cluster or node category (the seeds warn that choosing a
cluster in the console does not confine where Workers run; only labels do).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubernetes.utils import parse_quantity

from ...i18n import Text, render
from ...rlark.inventory import Inventory, NodeInfo, site_node
from ...rlark.site import SiteProfile


def _count(quantity: Any) -> int:
    """Whole units of an allocatable quantity ("8", 8, "1k"); anything unreadable counts as 0."""
    try:
        return int(parse_quantity(quantity))
    except (ValueError, TypeError, ArithmeticError):
        return 0


def node_info(node: Mapping[str, Any], site: SiteProfile) -> NodeInfo:
    """One Node object (as JSON) in the planner's terms, read through the site's labels."""
    metadata, spec, status = node.get("metadata", {}), node.get("spec", {}), node.get("status", {})
    allocatable = status.get("allocatable") or {}
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in status.get("conditions") or []
    )
    taints = tuple(
        f"{t['key']}={t['value']}:{t.get('effect', '')}"
        if t.get("value")
        else f"{t['key']}:{t.get('effect', '')}"
        for t in spec.get("taints") or []
        if t.get("key")
    )
    return site_node(
        metadata.get("name", ""),
        dict(metadata.get("labels") or {}),
        {
            k: _count(v)
            for k, v in allocatable.items()
            if k == site.gpu_resource or site.is_device(k)
        },
        site,
        ready=ready,
        unschedulable=bool(spec.get("unschedulable", False)),
        taints=taints,
    )


def inventory_from(
    nodes: list[Mapping[str, Any]],
    storage_classes: list[Mapping[str, Any]],
    source: str,
    site: SiteProfile,
) -> Inventory:
    return Inventory(
        nodes=tuple(sorted((node_info(n, site) for n in nodes), key=lambda n: n.name)),
        storage_classes=tuple(sorted(sc["metadata"]["name"] for sc in storage_classes)),
        source=source,
        site=site,
    )


@dataclass(frozen=True)
class NodeSelection:
    """What a nodeSelector picks: all matched nodes, the usable ones, and those outside intent."""

    selector: Mapping[str, str]
    matched: tuple[NodeInfo, ...]
    outside: tuple[NodeInfo, ...]  # matched, but in another cluster or node category
    intent_text: Text | str  # the cluster/category the selection was meant for, in words

    @property
    def intent(self) -> str:
        return render(self.intent_text)

    @property
    def count(self) -> int:
        """The console's read-only 'selected node count'."""
        return len(self.matched)

    @property
    def schedulable(self) -> tuple[NodeInfo, ...]:
        return tuple(n for n in self.matched if n.schedulable)


#: An intent for a cluster or node category without a name: all nodes in the same one.
ONE = ""


def _spread(nodes: list[NodeInfo], label: str) -> set[str]:
    return {n.labels.get(label, "?") for n in nodes}


def node_selection(
    inventory: Inventory, selector: Mapping[str, str], cluster: str | None = None
) -> NodeSelection:
    """Match ``selector``; the intended cluster is ``cluster``, else the selector's own label.

    Without either, a selection spanning several clusters (or several node categories when
    the selector names none) has no single intent, so every node of it counts as outside.
    """
    matched = inventory.matching(selector)
    cluster_label, category_label = inventory.site.cluster_label, inventory.site.category_label
    target_cluster = cluster or selector.get(cluster_label)
    category = selector.get(category_label)
    outside: list[NodeInfo] = []
    meant_cluster = meant_category = None  # a name, ONE (whichever it is) or None (no intent)
    if target_cluster:
        meant_cluster = target_cluster
        outside += [n for n in matched if n.cluster != target_cluster]
    elif len(_spread(matched, cluster_label)) > 1:
        meant_cluster = ONE
        outside += matched
    if category:
        meant_category = category
    elif len(_spread(matched, category_label)) > 1:
        meant_category = ONE
        outside += matched
    return NodeSelection(
        selector=dict(selector),
        matched=tuple(matched),
        outside=tuple({n.name: n for n in outside}.values()),
        intent_text=_intent(meant_cluster, meant_category),
    )


def _intent(cluster: str | None, category: str | None) -> Text | str:
    """The intended cluster and node category in words, each a name or ONE (empty: neither)."""
    if cluster is None and category is None:
        return ""
    if category is None:
        return Text("cluster '{cluster}'", cluster=cluster) if cluster else Text("one cluster")
    if cluster is None:
        if category:
            return Text("category '{category}'", category=category)
        return Text("one node category")
    if cluster and category:
        return Text(
            "cluster '{cluster}' and category '{category}'", cluster=cluster, category=category
        )
    if cluster:
        return Text("cluster '{cluster}' and one node category", cluster=cluster)
    if category:
        return Text("one cluster and category '{category}'", category=category)
    return Text("one cluster and one node category")
