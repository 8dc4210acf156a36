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

SOURCE = "rlark-widgets: kubernetes preflight"
SEED_JOB = "seeds/create-training-job.zh.txt Step 2"
LIMITS = "template.spec.containers[0].resources.limits"
SELECTOR = "template.spec.nodeSelector"


def finding(
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


def _sharing_groups(matched: dict[int, set[str]]) -> list[list[int]]:
    """Roles whose node selections overlap, transitively (they compete for the same GPUs)."""
    parent = {index: index for index in matched}

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    owner: dict[str, int] = {}
    for index, names in matched.items():
        for name in names:
            if name in owner:
                parent[root(index)] = root(owner[name])
            else:
                owner[name] = index
    groups: dict[int, list[int]] = defaultdict(list)
    for index in matched:
        groups[root(index)].append(index)
    return list(groups.values())


def capacity_findings(job: Job, inventory: Inventory) -> Iterator[Finding]:
    """Each role's requests against its matched nodes, then the requests of all roles whose
    selections overlap against the nodes they share (72 GPUs asked of 64 is refused even when
    each role alone fits)."""
    gpu = inventory.site.gpu_resource
    matched = {
        index: {n.name for n in inventory.matching(role.node_selector)}
        for index, role in enumerate(job.roles)
        if _requests(role, gpu)
    }
    matched = {index: names for index, names in matched.items() if names}
    nodes = {n.name: n for n in inventory.nodes}
    short_alone: set[int] = set()
    candidates = [[index] for index in matched]
    candidates += [group for group in _sharing_groups(matched) if len(group) > 1]
    for members in candidates:
        if len(members) > 1 and short_alone & set(members):
            continue  # a member is short on its own nodes already: that is the finding
        names = sorted(set().union(*(matched[i] for i in members)))
        short = _capacity_finding(job, members, [nodes[n] for n in names], gpu)
        if short is not None:
            short_alone.update(members if len(members) == 1 else ())
            yield short


def _capacity_finding(
    job: Job, members: list[int], matched: list[NodeInfo], gpu: str
) -> Finding | None:
    roles_of = [job.roles[i] for i in members]
    usable = [n for n in matched if n.schedulable]
    unusable = [_why_unusable(n) for n in matched if not n.schedulable]
    roles = ", ".join(f"'{role.name}'" for role in roles_of)
    for resource in sorted({r for role in roles_of for r in _requests(role, gpu)}):
        demand = sum(role.replicas * _requests(role, gpu).get(resource, 0) for role in roles_of)
        have = sum(_allocatable(n, resource, gpu) for n in usable)
        per_worker = max(_requests(role, gpu).get(resource, 0) for role in roles_of)
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
        return finding(
            "K8S-CAPACITY",
            Severity.ERROR,
            f"spec.tasks[{members[0]}].{LIMITS}",
            Text(
                "Role(s) {roles}{shared} request {demand} {resource} in total, but their"
                " {usable} usable node(s) of {matched} matched have {have}{detail}.{single}",
                roles=roles,
                shared=shared,
                demand=demand,
                resource=resource,
                usable=len(usable),
                matched=len(matched),
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
    return None


def selector_findings(job: Job, inventory: Inventory, cluster: str | None) -> Iterator[Finding]:
    """The console's selected node count per role, and nodes outside the intended cluster."""
    for index, role in enumerate(job.roles):
        path = f"spec.tasks[{index}].{SELECTOR}"
        selection = node_selection(inventory, role.node_selector, cluster)
        if selection.outside:
            names = ", ".join(
                f"{n.name} ({n.cluster or '?'}/{n.category or '?'})" for n in selection.outside[:6]
            )
            yield finding(
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
            yield finding(
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
        finding(
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
