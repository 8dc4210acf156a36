"""Node checks both cluster backends run: selections, GPU and device capacity, the namespace.

Each role's nodeSelector should pick as many usable nodes as the role has Workers, inside the
intended cluster and node category, and the nodes it picks must hold the GPUs and devices its
Workers request. Paths name the RLark Job's fields; the KubeRay backend points them at its own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ...findings import Finding, Severity
from ...i18n import Listing, Text
from ...rlark.inventory import Inventory, NodeInfo
from ...rlark.job import Job, Role
from .inventory import node_selection

SOURCE = "DESIGN.md §5 (kubernetes preflight)"
SEED_JOB = "seeds/create-training-job.zh.txt Step 2"
LIMITS = "template.spec.containers[0].resources.limits"
SELECTOR = "template.spec.nodeSelector"


def _finding(
    rule_id: str,
    severity: Severity,
    path: str,
    message: Text,
    fix: Text | str,
    source: str = SOURCE,
) -> Finding:
    return Finding(rule_id, severity, path, message, fix, source)


def _requests(role: Role, gpu_resource: str) -> dict[str, int]:
    wanted = {gpu_resource: role.gpus, **role.devices}
    return {k: v for k, v in wanted.items() if v > 0}


def _allocatable(node: NodeInfo, resource: str, gpu_resource: str) -> int:
    return node.gpus if resource == gpu_resource else node.devices.get(resource, 0)


def _why_unusable(node: NodeInfo) -> Text:
    if not node.ready:
        return Text("{node} is NotReady", node=node.name)
    if node.unschedulable:
        return Text("{node} is cordoned", node=node.name)
    return Text("{node} is tainted {taints}", node=node.name, taints=", ".join(node.taints))


def capacity_findings(job: Job, inventory: Inventory) -> Iterator[Finding]:
    """Roles that select the same nodes share them: sum their Workers' requests per resource."""
    groups: dict[tuple[str, ...], list[tuple[int, Role]]] = defaultdict(list)
    gpu = inventory.site.gpu_resource
    for index, role in enumerate(job.roles):
        matched = inventory.matching(role.node_selector)
        if matched and _requests(role, gpu):
            groups[tuple(n.name for n in matched)].append((index, role))
    nodes = {n.name: n for n in inventory.nodes}
    for names, members in groups.items():
        usable = [nodes[n] for n in names if nodes[n].schedulable]
        unusable = [_why_unusable(nodes[n]) for n in names if not nodes[n].schedulable]
        roles = ", ".join(f"'{role.name}'" for _, role in members)
        for resource in sorted({r for _, role in members for r in _requests(role, gpu)}):
            demand = sum(
                role.replicas * _requests(role, gpu).get(resource, 0) for _, role in members
            )
            have = sum(_allocatable(n, resource, gpu) for n in usable)
            per_worker = max(_requests(role, gpu).get(resource, 0) for _, role in members)
            largest = max((_allocatable(n, resource, gpu) for n in usable), default=0)
            if demand <= have and per_worker <= largest:
                continue
            shared = Text(" (they select the same nodes)") if len(members) > 1 else ""
            detail = Text(" ({reasons})", reasons=Listing(unusable)) if unusable else ""
            single = (
                Text(" No usable node has {count} for one Worker.", count=per_worker)
                if per_worker > largest
                else ""
            )
            yield _finding(
                "K8S-CAPACITY",
                Severity.ERROR,
                f"spec.tasks[{members[0][0]}].{LIMITS}",
                Text(
                    "Role(s) {roles}{shared} request {demand} {resource} in total, but their"
                    " {usable} usable node(s) of {matched} matched have {have}{detail}.{single}",
                    roles=roles,
                    shared=shared,
                    demand=demand,
                    resource=resource,
                    usable=len(usable),
                    matched=len(names),
                    have=have,
                    detail=detail,
                    single=single,
                ),
                Text(
                    "Lower the per-Worker request, select nodes with enough capacity, or ask the"
                    " admin to free or repair nodes."
                ),
                f"{SOURCE}; {SEED_JOB}",
            )


def selector_findings(job: Job, inventory: Inventory, cluster: str | None) -> Iterator[Finding]:
    """The console's selected node count per role, and nodes outside the intended cluster."""
    for index, role in enumerate(job.roles):
        path = f"spec.tasks[{index}].{SELECTOR}"
        selection = node_selection(inventory, role.node_selector, cluster)
        if selection.outside:
            names = ", ".join(
                f"{n.name} ({n.cluster or '?'}/{n.category or '?'})" for n in selection.outside[:6]
            )
            yield _finding(
                "K8S-SELECTOR-OUTSIDE",
                Severity.WARNING,
                path,
                Text(
                    "Role '{role}' is meant for {intent} but its node selection also matches:"
                    " {nodes}.",
                    role=role.name,
                    intent=selection.intent_text,
                    nodes=names,
                ),
                Text(
                    "Add {cluster_label}=<target> and {category_label}=<category> (or a"
                    " label only the intended nodes have).",
                    cluster_label=inventory.site.cluster_label,
                    category_label=inventory.site.category_label,
                ),
                f"{SOURCE}; {SEED_JOB} (选择集群并不能限定任务运行位置)",
            )
        usable = len(selection.schedulable)
        if selection.count != role.replicas or usable < role.replicas:
            down = [_why_unusable(n) for n in selection.matched if not n.schedulable]
            detail = (
                Text(
                    "; {count} of them cannot take Workers now ({reasons})",
                    count=len(down),
                    reasons=Listing(down),
                )
                if down
                else ""
            )
            yield _finding(
                "K8S-SELECTOR-COUNT",
                Severity.WARNING,
                path,
                Text(
                    "Role '{role}' matches {count} node(s) on the cluster but plans {workers}"
                    " Worker(s){detail}.",
                    role=role.name,
                    count=selection.count,
                    workers=role.replicas,
                    detail=detail,
                ),
                Text(
                    "Narrow or widen the labels until the matched, usable nodes equal the role's"
                    " Workers."
                ),
                f"{SOURCE}; {SEED_JOB} (核对已选节点数)",
            )


def namespace_findings(job: Job, namespace: str) -> list[Finding]:
    if job.namespace == namespace:
        return []
    return [
        _finding(
            "K8S-NAMESPACE",
            Severity.INFO,
            "metadata.namespace",
            Text(
                "The Job names namespace '{job_namespace}', but this connection works in"
                " '{namespace}': it will be created in '{namespace}'.",
                job_namespace=job.namespace,
                namespace=namespace,
            ),
            Text(
                "Choose the namespace with --namespace (or the kubeconfig context) if you meant"
                " another one."
            ),
        )
    ]
