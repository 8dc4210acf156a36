"""Node selectors: which nodes each role may land on, and whether they have the GPUs asked for."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings import Severity
from ...i18n import Text
from .context import CONTAINER, SEED_JOB, Hit, RuleContext, rule


@rule(
    "JOB-SELECTOR-EMPTY",
    Severity.ERROR,
    Text("Every role has a node selection"),
    f"{SEED_JOB} Step 2 (选择集群和节点)",
)
def _selector_empty(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        if not role.node_selector:
            yield (
                ctx.role_path(index, "template.spec.nodeSelector"),
                Text(
                    "Role '{role}' has no node selection: its Workers could land on any node, in any cluster.",
                    role=role.name,
                ),
                Text(
                    "Add at least one label that confines the role to the target cluster (ask the admin for it)."
                ),
            )


@rule(
    "JOB-SELECTOR-CLUSTER",
    Severity.WARNING,
    Text("The node selection stays inside the target cluster"),
    f"{SEED_JOB} Step 2 (选择集群并不能限定任务运行位置)",
)
def _selector_cluster(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        if not role.node_selector:
            continue
        if ctx.inventory is None:
            if ctx.site.cluster_label not in role.node_selector:
                yield (
                    ctx.role_path(index, "template.spec.nodeSelector"),
                    Text(
                        "Role '{role}' has no {label} label, and without an inventory nobody has checked "
                        "that its labels match only the target cluster.",
                        role=role.name,
                        label=ctx.site.cluster_label,
                    ),
                    Text(
                        "Add the cluster label, or check the selection against the inventory (--inventory)."
                    ),
                )
            continue
        clusters = sorted({n.cluster or "?" for n in ctx.inventory.matching(role.node_selector)})
        target = ctx.target_cluster or role.node_selector.get(ctx.site.cluster_label)
        if target:
            outside = [c for c in clusters if c != target]
            message = Text(
                "Role '{role}' also matches nodes outside cluster '{target}': {outside}.",
                role=role.name,
                target=target,
                outside=", ".join(outside),
            )
        else:
            outside = clusters if len(clusters) > 1 else []
            message = Text(
                "Role '{role}' matches nodes of several clusters ({clusters}).",
                role=role.name,
                clusters=", ".join(outside),
            )
        if outside:
            yield (
                ctx.role_path(index, "template.spec.nodeSelector"),
                message,
                Text(
                    "Add {label}={target} (or another label only the target cluster has).",
                    label=ctx.site.cluster_label,
                    target=target or "<cluster>",
                ),
            )


@rule(
    "JOB-SELECTOR-COUNT",
    Severity.WARNING,
    Text("A role's matched node count equals its Workers (the Header's is 1)"),
    f"{SEED_JOB} Step 2 (核对已选节点数)",
)
def _selector_count(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.inventory is None:
        return
    for index, role in enumerate(ctx.job.roles):
        if not role.node_selector:
            continue
        matched = ctx.inventory.matching(role.node_selector)
        if len(matched) != role.replicas:
            yield (
                ctx.role_path(index, "template.spec.nodeSelector"),
                Text(
                    "Role '{role}' matches {matched} node(s) but plans {planned} Worker(s); the console "
                    "creates one Worker per matched node, so it would create {matched}.",
                    role=role.name,
                    matched=len(matched),
                    planned=role.replicas,
                ),
                Text(
                    "Narrow or widen the labels (ask the admin for labels that match exactly these nodes)."
                ),
            )


@rule(
    "JOB-SELECTOR-MULTI",
    Severity.ERROR,
    Text("One value per label key in a node selection"),
    f"{SEED_JOB} Step 2",
)
def _selector_multi(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        for key, value in role.node_selector.items():
            if "," in value or "|" in value or " " in value.strip():
                yield (
                    ctx.role_path(index, f"template.spec.nodeSelector.{key}"),
                    Text(
                        "'{key}={value}' looks like several values for one key; a node selector holds exactly one value per key.",
                        key=key,
                        value=value,
                    ),
                    Text(
                        "Use a single value, or ask the admin for a label shared by the nodes you want."
                    ),
                )


@rule(
    "JOB-GPU-CAPACITY",
    Severity.WARNING,
    Text("GPU requests are backed by known capacity"),
    f"{SEED_JOB} (没有显示可用上限时 ... 先填 0)",
)
def _gpu_capacity(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        if role.gpus <= 0:
            continue
        if ctx.inventory is None:
            yield (
                ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                Text(
                    "Role '{role}' requests {gpus} GPU(s) per Worker, but no inventory says the nodes have them.",
                    role=role.name,
                    gpus=role.gpus,
                ),
                Text(
                    "Confirm the matched nodes' GPUs with the admin, or check against an inventory (--inventory)."
                ),
            )
            continue
        short = [n.name for n in ctx.inventory.matching(role.node_selector) if n.gpus < role.gpus]
        if short:
            yield (
                ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                Text(
                    "Role '{role}' requests {gpus} GPU(s) per Worker but node(s) {nodes} have fewer.",
                    role=role.name,
                    gpus=role.gpus,
                    nodes=", ".join(short[:5]),
                ),
                Text("Lower the request or select nodes with enough GPUs."),
            )
