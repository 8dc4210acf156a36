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
from typing import TYPE_CHECKING, Any

from ..findings import Finding, Severity
from ..i18n import Text
from ..rlinf import ConfigReport, Expansion, GpuLayout, RLinfConfigError, expand_placement
from ..rlinf.ranks import format_ranks
from ..rlinf.report import mode_name
from .inventory import Inventory, NodeInfo
from .node_needs import NodeNeeds, device_resource_for, node_needs

if TYPE_CHECKING:
    from .job import Role

HOSTNAME_LABEL = "kubernetes.io/hostname"
#: The console's task-type templates (创建任务 Step 1): the roles each one pre-fills.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "rl": ("Actor", "Rollout", "Environment"),
    "data-collection": ("Environment",),
    "evaluation": ("Rollout", "Environment"),
    "custom": (),
}
TEMPLATE_TITLES = {
    "rl": Text("RL task (强化学习任务)"),
    "data-collection": Text("data collection (数据采集任务)"),
    "evaluation": Text("evaluation (评测任务)"),
    "custom": Text("custom (自定义任务)"),
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
    why: list[Text] = field(default_factory=list)

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
    explanations: list[Text] = field(default_factory=list)
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
    if report.expansion.error is not None:
        plan.findings.append(_rejection(report.expansion.error))
        return plan
    assert report.cluster is not None  # a report without a cluster section carries its error
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


def _rejection(reason: RLinfConfigError) -> Finding:
    """PLN-REJECTED quoting RLinf's own error (and its fix), so the user sees why in one place."""
    return Finding(
        "PLN-REJECTED",
        Severity.ERROR,
        reason.path,
        Text(
            "RLinf rejects this config, so there is nothing to plan: {reason}", reason=reason.text
        ),
        reason.fix_text if reason.fix else Text("Fix the config first; the plan follows it."),
        "RLinf placement and cluster validation",
    )


# --- GPU requests ------------------------------------------------------------------------------
def _layout_signature(report_expansion: Expansion) -> dict[int, tuple[object, ...]]:
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
    # (why, counts): the first attempt needs no explanation, the fallbacks say what they request
    attempts: list[tuple[Text | None, dict[int, int]]] = [
        (None, {n.node_rank: n.gpus for n in needs}),
        (
            Text(
                "GPU requests use the assumed count on every node that uses GPUs: with fewer "
                "GPUs on some node RLinf would number the cluster's GPUs differently and place "
                "processes elsewhere."
            ),
            {n.node_rank: (n.gpus_assumed if n.gpus else 0) for n in needs},
        ),
        (
            Text(
                "GPU requests use the assumed count on every node: with fewer GPUs on some node "
                "RLinf would number the cluster's GPUs differently and place processes elsewhere."
            ),
            {n.node_rank: n.gpus_assumed for n in needs},
        ),
    ]
    assert report.cluster is not None  # planned only when RLinf accepts the cluster section
    for why, counts in attempts:
        layout = GpuLayout(0, counts)
        check = expand_placement(
            report.cluster,
            layout,
            task_type=report.expansion.task_type,
            lookup=report.config.get,
            placement_class=report.expansion.placement_class,
        )
        if check.ok and _layout_signature(check) == wanted:
            if why is not None:
                plan.explanations.append(why)
            return layout
    plan.findings.append(
        Finding(
            "PLN-GPU-LAYOUT",
            Severity.WARNING,
            "cluster.component_placement",
            Text(
                "No GPU request reproduces the assumed placement exactly; requesting the assumed "
                "counts."
            ),
            Text("Give the real GPUs per node (--gpus-per-node-map) and re-plan."),
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


def _key(need: NodeNeeds, layout: GpuLayout) -> tuple[Any, ...]:
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
            groups = plan.report.cluster.node_groups if plan.report.cluster else ()
            group = next(g for g in groups if g.hardware_type == hardware_type)
            plan.findings.append(
                Finding(
                    "PLN-DEVICE-NAME",
                    Severity.ERROR if inventory is not None else Severity.WARNING,
                    f"{group.path}.hardware",
                    _unnamed_device(role, hardware_type, inventory, available),
                    Text(
                        "Ask the platform admin for the exact rlinf.io/* device resource name of "
                        "this robot and add it to the role's devices; never guess the name."
                    ),
                    "seeds/create-training-job.zh.txt (填写 GPU 和设备资源)",
                )
            )


def _unnamed_device(
    role: RolePlan, hardware: str, inventory: Inventory | None, available: list[str]
) -> Text:
    """Why a robot got no device request: no inventory, or an inventory without its resource."""
    values = {"role": role.name, "ranks": format_ranks(role.node_ranks), "hardware": hardware}
    if inventory is None:
        return Text(
            "Role '{role}' (node ranks {ranks}) carries a {hardware}, but no inventory gives its "
            "device resource name (reported: none).",
            **values,
        )
    if not available:
        return Text(
            "Role '{role}' (node ranks {ranks}) carries a {hardware}, but the inventory reports "
            "no rlinf.io/* resource for it (reported: none).",
            **values,
        )
    return Text(
        "Role '{role}' (node ranks {ranks}) carries a {hardware}, but the inventory reports no "
        "rlinf.io/* resource for it (reported: {known}).",
        known=", ".join(available),
        **values,
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
            plan.findings.append(_unknown_cluster(wanted, clusters, inventory))
        return wanted
    if not clusters:
        return None

    def fitting(cluster: str) -> int:
        members = inventory.matching({inventory.site.cluster_label: cluster})
        return sum(any(_fits(n, r) for n in members if n.schedulable) for r in plan.roles)

    best = max(clusters, key=lambda c: (fitting(c), -clusters.index(c)))
    if len(clusters) > 1:
        plan.explanations.append(
            Text(
                "Target cluster '{best}' (of {clusters}) has nodes that fit the most roles; "
                "choose another target cluster if that is not the one.",
                best=best,
                clusters=", ".join(clusters),
            )
        )
    return best


def _unknown_cluster(wanted: str, clusters: list[str], inventory: Inventory) -> Finding:
    if clusters:
        text = Text(
            "Cluster '{wanted}' is not in the inventory ({clusters}).",
            wanted=wanted,
            clusters=", ".join(clusters),
        )
        fix = Text("Choose one of {clusters}.", clusters=", ".join(clusters))
    else:
        text = Text(
            "Cluster '{wanted}' is not in the inventory (no clusters labelled).", wanted=wanted
        )
        fix = Text(
            "Label the inventory's nodes with {label} (the site profile's cluster label), or plan "
            "without a target cluster.",
            label=inventory.site.cluster_label,
        )
    return Finding("PLN-CLUSTER", Severity.ERROR, "inventory", text, fix, SEED_PLAN)


def _suggest_selectors(plan: Plan, inventory: Inventory) -> None:
    """Selectors in the site's labels: its cluster label, its value for the role's category."""
    site, taken = inventory.site, set[str]()
    for role in plan.roles:
        base: dict[str, str] = {}
        if plan.target_cluster:
            base[site.cluster_label] = plan.target_cluster
        value = site.category_value(role.category)
        if value is not None:
            base[site.category_label] = value
        else:
            plan.explanations.append(
                Text(
                    "The site profile names no {label} value for the console category "
                    "{category}, so role '{role}' is not narrowed by category; ask the admin "
                    "which label marks these nodes.",
                    label=site.category_label,
                    category=role.category,
                    role=role.name,
                )
            )
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
    n = plan.report.num_nodes
    plan.explanations[:0] = [
        Text(
            "cluster.num_nodes is {n}: RLinf waits for exactly {n} Ray node(s), and on RLark "
            "every Worker (one Pod) is one Ray node, so the roles' Workers add up to {n}. Fewer "
            "and RLinf waits forever; more and RLinf may use only the lowest ranks while the rest "
            "may still hold resources, idle.",
            n=n,
        ),
        Text(
            "The Header role has exactly one Worker, at RLINF_NODE_RANK 0: it starts the Ray head "
            "and runs the run script, and RLinf's driver (and its managers) run on node rank 0."
        ),
    ]
    template_roles = TEMPLATES[plan.template]
    if template_roles:
        plan.explanations.append(
            Text(
                "The {template} template pre-fills roles {roles}. Role names place no RLinf "
                "component (component_placement does), so the plan reshapes them into {count} "
                "role(s) that follow the config's Ray nodes.",
                template=TEMPLATE_TITLES[plan.template],
                roles=", ".join(template_roles),
                count=len(plan.roles),
            )
        )
    for role in plan.roles:
        role.why.extend(_role_reasons(role, needs))
    controller_only = [r for r in needs if r.controller_only]
    if controller_only:
        plan.explanations.append(
            Text(
                "Node rank(s) {ranks} run no component but host a robot controller "
                "(controller_node_rank); they still count and get their Worker.",
                ranks=format_ranks([r.node_rank for r in controller_only]),
            )
        )
    if plan.report.expansion.placement_mode:
        plan.explanations.append(
            Text(
                "Execution mode {mode} is reported for information; it decides no role count.",
                mode=mode_name(plan.report.expansion.placement_mode),
            )
        )


def job_role_reasons(plan: Plan, roles: Sequence[Role]) -> list[tuple[str, list[Text]]]:
    """Why each of the Job's roles (as edited) looks as it does, under its current name.

    A role that still holds the node ranks and GPUs the planner gave it keeps the planner's
    reasons; a role the user reshaped (other ranks, GPUs, an added role) says what it now holds.
    """
    planned = {(r.node_ranks, r.gpus): r for r in plan.roles}
    per_node = plan.report.expansion.per_node
    out, start = [], 0
    for role in roles:
        ranks = tuple(range(start, start + role.replicas))
        start += role.replicas
        match = planned.get((ranks, role.gpus))
        if match is not None:
            out.append((role.name, list(match.why)))
            continue
        components = sorted({c for r in ranks if r in per_node for c in per_node[r].components})
        out.append(
            (
                role.name,
                [
                    Text(
                        "Edited after planning: holds RLINF_NODE_RANK {ranks} ({workers} "
                        "Worker(s)), {gpus} GPU(s) per Worker; runs {components}.",
                        ranks=format_ranks(ranks) if ranks else "-",
                        workers=len(ranks),
                        gpus=role.gpus,
                        components=", ".join(components) or "-",
                    )
                ],
            )
        )
    return out


def _role_reasons(role: RolePlan, needs: Sequence[NodeNeeds]) -> list[Text]:
    """Why the role looks as it does: its ranks, GPUs, node groups, env and idle GPUs."""
    reasons = [_role_ranks(role, needs)]
    if role.gpus:
        reasons.append(
            Text(
                "{gpus} GPU(s) per Worker: the largest local GPU index placed on its node(s) is "
                "{index}.",
                gpus=role.gpus,
                index=role.gpus - 1,
            )
        )
    if role.labels:
        reasons.append(Text("Node group(s) {labels}.", labels=", ".join(role.labels)))
    if role.env:
        reasons.append(Text("Environment from env_configs: {names}.", names=", ".join(role.env)))
    if role.interpreter:
        reasons.append(
            Text(
                "RLinf runs this group's workers with {interpreter}; the image must have it.",
                interpreter=role.interpreter,
            )
        )
    if role.idle_gpus:
        reasons.append(
            Text(
                "Idle GPUs (requested, used by no process): {idle}.",
                idle=_idle_gpus(list(role.idle_gpus.items())),
            )
        )
    return reasons


def _role_ranks(role: RolePlan, needs: Sequence[NodeNeeds]) -> Text:
    values = {"ranks": format_ranks(role.node_ranks), "workers": role.replicas}
    if role.components:
        return Text(
            "Holds RLINF_NODE_RANK {ranks} ({workers} Worker(s)); runs {components}.",
            components=", ".join(role.components),
            **values,
        )
    if any(needs[r].controller_only for r in role.node_ranks):
        return Text(
            "Holds RLINF_NODE_RANK {ranks} ({workers} Worker(s)); runs no component process "
            "(a robot controller runs here).",
            **values,
        )
    return Text(
        "Holds RLINF_NODE_RANK {ranks} ({workers} Worker(s)); runs no component process.",
        **values,
    )


def _idle_gpus(idle: list[tuple[int, list[int]]]) -> Text:
    """``node 1: 4-7; node 2: 6-7`` as one message: each entry nests the rest of the list."""
    (rank, gpus), rest = idle[0], idle[1:]
    if not rest:
        return Text("node {rank}: {gpus}", rank=rank, gpus=format_ranks(gpus))
    return Text(
        "node {rank}: {gpus}; {more}", rank=rank, gpus=format_ranks(gpus), more=_idle_gpus(rest)
    )
