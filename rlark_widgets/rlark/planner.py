"""Plan RLark roles from an expanded RLinf config: one Header at node rank 0, then Workers.

The plan follows RLinf, not the names of its components: every Ray node (``RLINF_NODE_RANK``
0..N-1) becomes one Worker; node 0 is the Header's single Worker (Ray head, driver, run
script); the other nodes form Worker roles of consecutive ranks with the same needs (GPUs,
robots, env_configs, interpreter, node groups), so role order x replicas reproduces
``node_groups[].node_ranks``. GPU requests are checked by re-expanding the placement with
exactly the requested counts, because RLinf numbers GPUs across nodes by what it discovers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..findings import Finding, Severity
from ..rlinf import ConfigReport, GpuLayout, expand_placement
from ..rlinf.ranks import format_ranks
from .inventory import CATEGORY_LABEL, CLUSTER_LABEL, Inventory, NodeInfo
from .node_needs import NodeNeeds, device_resource_for, node_needs

HOSTNAME_LABEL = "kubernetes.io/hostname"
#: The console's task-type templates (创建任务 Step 1): the roles each one pre-fills.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "rl": ("Actor", "Rollout", "Environment"),
    "data-collection": ("Environment",),
    "evaluation": ("Rollout", "Environment"),
    "custom": (),
}
TEMPLATE_TITLES = {
    "rl": "RL task (强化学习任务)",
    "data-collection": "data collection (数据采集任务)",
    "evaluation": "evaluation (评测任务)",
    "custom": "custom (自定义任务)",
}
SEED_PLAN = "seeds/create-training-job.zh.txt Step 1-2; seeds/rlark-and-rlinf.zh.txt"


@dataclass
class RolePlan:
    """One planned role: the Workers for a run of consecutive node ranks with equal needs."""

    name: str
    head: bool
    node_ranks: tuple[int, ...]
    gpus: int
    devices: dict[str, int] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    interpreter: str | None = None
    category: str = "cloud"
    labels: tuple[str, ...] = ()
    components: tuple[str, ...] = ()
    idle_gpus: dict[int, list[int]] = field(default_factory=dict)  # node rank -> idle local GPUs
    node_selector: dict[str, str] = field(default_factory=dict)
    matched_nodes: list[str] | None = None  # None: no inventory to match against
    why: list[str] = field(default_factory=list)

    @property
    def replicas(self) -> int:
        return len(self.node_ranks)


@dataclass
class Plan:
    """Roles for a config, with explanations and the planner's findings."""

    report: ConfigReport
    roles: list[RolePlan]
    template: str
    gpu_layout: GpuLayout | None = None
    target_cluster: str | None = None
    explanations: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.roles)

    @property
    def total_workers(self) -> int:
        return sum(r.replicas for r in self.roles)

    def rank_map(self) -> list[tuple[int, str, int]]:
        """(RLINF_NODE_RANK, role, worker index) for every planned Worker."""
        return [
            (rank, role.name, index)
            for role in self.roles
            for index, rank in enumerate(role.node_ranks)
        ]


def default_template(report: ConfigReport) -> str:
    task_type = report.expansion.task_type or ""
    if "collect" in report.config.name:
        return "data-collection"
    if task_type.endswith("_eval"):
        return "evaluation"
    if task_type in ("embodied", "reasoning", "coding_online_rl"):
        return "rl"
    return "custom"


def plan_roles(
    report: ConfigReport,
    inventory: Inventory | None = None,
    *,
    template: str | None = None,
    target_cluster: str | None = None,
) -> Plan:
    """Propose the roles for ``report``; a config RLinf rejects gets no roles and an error."""
    chosen = template or default_template(report)
    if chosen not in TEMPLATES:
        raise ValueError(f"template must be one of {', '.join(TEMPLATES)}")
    plan = Plan(report, [], chosen)
    if not report.ok or report.cluster is None:
        reason = report.expansion.error
        plan.findings.append(
            Finding(
                "PLN-REJECTED",
                Severity.ERROR,
                reason.path if reason else "cluster",
                f"RLinf rejects this config, so there is nothing to plan: {reason.message if reason else 'no cluster section'}",
                reason.fix
                if reason and reason.fix
                else "Fix the config first; the plan follows it.",
                "RLinf placement and cluster validation",
            )
        )
        return plan
    needs = node_needs(report.cluster, report.expansion)
    plan.gpu_layout = _gpu_requests(plan, needs)
    plan.roles = _group_roles(needs, plan.gpu_layout)
    _name_roles(plan.roles, report.cluster.num_nodes)
    _attach_devices(plan, needs, inventory)
    if inventory is not None:
        plan.target_cluster = _choose_cluster(plan, inventory, target_cluster)
        _suggest_selectors(plan, inventory)
    _explain(plan, needs)
    return plan


# --- GPU requests ------------------------------------------------------------------------------
def _layout_signature(report_expansion) -> dict:
    return {
        rank: (
            tuple(s.components),
            s.processes,
            tuple(s.accelerators_used),
            tuple(s.other_hardware_used),
        )
        for rank, s in report_expansion.per_node.items()
    }


def _gpu_requests(plan: Plan, needs: list[NodeNeeds]) -> GpuLayout:
    """Request the GPUs each node uses (largest index + 1), if RLinf then places the same way."""
    report = plan.report
    wanted = _layout_signature(report.expansion)
    attempts = [
        ("the GPUs each node's processes use", {n.node_rank: n.gpus for n in needs}),
        (
            "the assumed count on every node that uses GPUs",
            {n.node_rank: (n.gpus_assumed if n.gpus else 0) for n in needs},
        ),
        ("the assumed count on every node", {n.node_rank: n.gpus_assumed for n in needs}),
    ]
    for index, (what, counts) in enumerate(attempts):
        layout = GpuLayout(0, counts)
        check = expand_placement(
            report.cluster,
            layout,
            task_type=report.expansion.task_type,
            lookup=report.config.get,
            placement_class=report.expansion.placement_class,
        )
        if check.ok and _layout_signature(check) == wanted:
            if index:
                plan.explanations.append(
                    f"GPU requests use {what}: with fewer GPUs on some node RLinf would number the "
                    "cluster's GPUs differently and place processes elsewhere."
                )
            return layout
    plan.findings.append(
        Finding(
            "PLN-GPU-LAYOUT",
            Severity.WARNING,
            "cluster.component_placement",
            "No GPU request reproduces the assumed placement exactly; requesting the assumed counts.",
            "Give the real GPUs per node (--gpus-per-node-map) and re-plan.",
            "rlinf-cluster-spec §3.1",
        )
    )
    return GpuLayout(0, {n.node_rank: n.gpus_assumed for n in needs})


# --- roles -------------------------------------------------------------------------------------
def _group_roles(needs: list[NodeNeeds], layout: GpuLayout) -> list[RolePlan]:
    roles: list[RolePlan] = []
    for need in needs:
        head = need.node_rank == 0
        last = roles[-1] if roles else None
        if (
            last is not None
            and not last.head
            and _key(need, layout) == _key(needs[last.node_ranks[0]], layout)
        ):
            last.node_ranks += (need.node_rank,)
            last.components = tuple(sorted(set(last.components) | set(need.components)))
        else:
            roles.append(
                RolePlan(
                    name="",
                    head=head,
                    node_ranks=(need.node_rank,),
                    gpus=layout.count(need.node_rank),
                    env=dict(need.env),
                    interpreter=need.interpreter,
                    category=need.category,
                    labels=need.labels,
                    components=need.components,
                )
            )
        role = roles[-1]
        idle = [g for g in range(role.gpus) if g not in need.gpus_used]
        if idle:
            role.idle_gpus[need.node_rank] = idle
    return roles


def _key(need: NodeNeeds, layout: GpuLayout) -> tuple:
    return (layout.count(need.node_rank), *need.role_key()[1:])


def _name_roles(roles: list[RolePlan], num_nodes: int) -> None:
    taken: set[str] = set()
    for role in roles:
        if role.head:
            base = "worker" if num_nodes == 1 else "header"
        elif len(role.labels) == 1:
            base = re.sub(r"[^a-z0-9-]+", "-", role.labels[0].lower()).strip("-") or "workers"
        else:
            base = "workers"
        name, suffix = base, 2
        while name in taken:
            name, suffix = f"{base}-{suffix}", suffix + 1
        taken.add(name)
        role.name = name


def _attach_devices(plan: Plan, needs: list[NodeNeeds], inventory: Inventory | None) -> None:
    available = inventory.device_names() if inventory else []
    for role in plan.roles:
        robots = needs[role.node_ranks[0]].robots
        for hardware_type, count in robots:
            resource = device_resource_for(hardware_type, available)
            if resource:
                role.devices[resource] = count
                continue
            group = next(
                g for g in plan.report.cluster.node_groups if g.hardware_type == hardware_type
            )
            severity = Severity.ERROR if inventory is not None else Severity.WARNING
            known = ", ".join(available) or "none"
            plan.findings.append(
                Finding(
                    "PLN-DEVICE-NAME",
                    severity,
                    f"{group.path}.hardware",
                    f"Role '{role.name}' (node ranks {format_ranks(role.node_ranks)}) carries a "
                    f"{hardware_type}, but {'the inventory reports no rlinf.io/* resource for it' if inventory else 'no inventory gives its device resource name'} "
                    f"(reported: {known}).",
                    "Ask the platform admin for the exact rlinf.io/* device resource name of this "
                    "robot and add it to the role's devices; never guess the name.",
                    "seeds/create-training-job.zh.txt (填写 GPU 和设备资源)",
                )
            )


# --- node selection ----------------------------------------------------------------------------
def _fits(node: NodeInfo, role: RolePlan) -> bool:
    return node.gpus >= role.gpus and all(
        node.devices.get(d, 0) >= c for d, c in role.devices.items()
    )


def _choose_cluster(plan: Plan, inventory: Inventory, wanted: str | None) -> str | None:
    clusters = inventory.clusters
    if wanted:
        if wanted not in clusters:
            plan.findings.append(
                Finding(
                    "PLN-CLUSTER",
                    Severity.ERROR,
                    "inventory",
                    f"Cluster '{wanted}' is not in the inventory ({', '.join(clusters) or 'no clusters labelled'}).",
                    f"Choose one of {', '.join(clusters)}.",
                    SEED_PLAN,
                )
            )
        return wanted
    if not clusters:
        return None

    def fitting(cluster: str) -> int:
        members = inventory.matching({CLUSTER_LABEL: cluster})
        return sum(any(_fits(n, r) for n in members if n.schedulable) for r in plan.roles)

    best = max(clusters, key=lambda c: (fitting(c), -clusters.index(c)))
    if len(clusters) > 1:
        plan.explanations.append(
            f"Target cluster '{best}' (of {', '.join(clusters)}) has nodes that fit the most roles; "
            "choose another target cluster if that is not the one."
        )
    return best


def _suggest_selectors(plan: Plan, inventory: Inventory) -> None:
    taken: set[str] = set()
    for role in plan.roles:
        base = {CATEGORY_LABEL: role.category}
        if plan.target_cluster:
            base = {CLUSTER_LABEL: plan.target_cluster, **base}
        selector = _narrowest_selector(role, inventory, base, taken)
        role.node_selector = selector
        matched = inventory.matching(selector)
        role.matched_nodes = [n.name for n in matched]
        taken.update(n.name for n in matched if _fits(n, role))


def _narrowest_selector(
    role: RolePlan, inventory: Inventory, base: dict[str, str], taken: set[str]
) -> dict[str, str]:
    """Labels that match the role's Workers as exactly as the inventory allows.

    Single-Worker roles are pinned by hostname to a fitting, schedulable node not used by an
    earlier role; larger roles add the label value shared by enough fitting nodes that
    matches the fewest nodes.
    """
    candidates = [n for n in inventory.matching(base) if _fits(n, role) and n.schedulable]
    if not candidates:
        return base
    if role.replicas == 1:
        fresh = [n for n in candidates if n.name not in taken] or candidates
        host = fresh[0].labels.get(HOSTNAME_LABEL)
        return {**base, HOSTNAME_LABEL: host} if host else base
    selector = dict(base)
    for _ in range(2):
        if len(inventory.matching(selector)) == role.replicas:
            break
        options = []
        for node in candidates:
            for key, value in node.labels.items():
                if key in selector or key == HOSTNAME_LABEL:
                    continue
                trial = {**selector, key: value}
                matched = inventory.matching(trial)
                fitting = sum(1 for n in matched if _fits(n, role) and n.schedulable)
                if fitting >= role.replicas:
                    options.append((len(matched), key, value))
        if not options:
            break
        count, key, value = min(options)
        if count >= len(inventory.matching(selector)):
            break
        selector[key] = value
    return selector


# --- explanations ------------------------------------------------------------------------------
def _explain(plan: Plan, needs: Sequence[NodeNeeds]) -> None:
    cluster = plan.report.cluster
    n = cluster.num_nodes
    plan.explanations.insert(
        0,
        f"cluster.num_nodes is {n}: RLinf waits for exactly {n} Ray node(s), and on RLark every "
        f"Worker (one Pod) is one Ray node, so the roles' Workers add up to {n}. Fewer and RLinf "
        "waits forever; more and RLinf keeps the lowest ranks while the rest hold resources idle.",
    )
    plan.explanations.insert(
        1,
        "The Header role has exactly one Worker, at RLINF_NODE_RANK 0: it starts the Ray head and "
        "runs the run script, and RLinf's driver (and its managers) run on node rank 0.",
    )
    template_roles = TEMPLATES[plan.template]
    if template_roles:
        plan.explanations.append(
            f"The {TEMPLATE_TITLES[plan.template]} template pre-fills roles {', '.join(template_roles)}. "
            "Role names place no RLinf component (component_placement does), so the plan reshapes "
            f"them into {len(plan.roles)} role(s) that follow the config's Ray nodes."
        )
    for role in plan.roles:
        ranks = format_ranks(role.node_ranks)
        what = ", ".join(role.components) or (
            "no component process (a robot controller runs here)"
            if any(needs[r].controller_only for r in role.node_ranks)
            else "no component process"
        )
        role.why.append(f"Holds RLINF_NODE_RANK {ranks} ({role.replicas} Worker(s)); runs {what}.")
        if role.gpus:
            role.why.append(
                f"{role.gpus} GPU(s) per Worker: the largest local GPU index placed on its node(s) is {role.gpus - 1}."
            )
        if role.labels:
            role.why.append(f"Node group(s) {', '.join(role.labels)}.")
        if role.env:
            role.why.append(f"Environment from env_configs: {', '.join(role.env)}.")
        if role.interpreter:
            role.why.append(
                f"RLinf runs this group's workers with {role.interpreter}; the image must have it."
            )
        if role.idle_gpus:
            role.why.append(
                "Idle GPUs (requested, used by no process): "
                + "; ".join(f"node {r}: {format_ranks(g)}" for r, g in role.idle_gpus.items())
                + "."
            )
    controller_only = [r for r in needs if r.controller_only]
    if controller_only:
        plan.explanations.append(
            f"Node rank(s) {format_ranks([r.node_rank for r in controller_only])} run no component but host "
            "a robot controller (controller_node_rank); they still count and get their Worker."
        )
    if plan.report.expansion.placement_mode:
        plan.explanations.append(
            f"Execution mode {plan.report.expansion.placement_mode} is reported for information; it decides no role count."
        )
