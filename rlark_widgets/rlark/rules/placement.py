"""PLN rules: the Job's Workers against the Ray nodes RLinf's config places components on."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...findings import Severity
from ...i18n import Text
from ...rlinf.ranks import format_ranks
from ..node_needs import device_resource_for
from .context import CONTAINER, SEED_FAQ, SEED_JOB, SEED_RLARK, SPEC, Hit, RuleContext, rule


def _robot_devices(robot_type: str, devices: dict[str, int]) -> list[str]:
    """The role's device resources that serve ``robot_type`` (``rlinf.io/device-franka``)."""
    return [d for d in devices if device_resource_for(robot_type, [d])]


@rule(
    "PLN-WORKER-COUNT",
    Severity.ERROR,
    Text("Workers of all roles add up to cluster.num_nodes"),
    f"{SEED_JOB} Step 1; {SPEC} §3.3",
)
def _worker_count(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.report is None or ctx.report.cluster is None:
        return
    wanted, total = ctx.report.cluster.num_nodes, ctx.job.total_workers
    if total > wanted:
        yield (
            "spec.tasks",
            Text(
                "The roles create {total} Workers but cluster.num_nodes is {wanted}: RLinf may "
                "use only the {wanted} lowest ranks, and the other {extra} Worker(s) may still hold "
                "resources, idle.",
                total=total,
                wanted=wanted,
                extra=total - wanted,
            ),
            Text(
                "Remove Workers (or narrow node selections) until they add up to num_nodes; do not change the verified config."
            ),
        )
    elif total < wanted:
        yield (
            "spec.tasks",
            Text(
                "The roles create {total} Workers but cluster.num_nodes is {wanted}: RLinf waits "
                "forever for the missing Ray nodes.",
                total=total,
                wanted=wanted,
            ),
            Text(
                "Add {missing} Worker(s) so the roles add up to {wanted}.",
                missing=wanted - total,
                wanted=wanted,
            ),
        )


@rule(
    "PLN-HEADER",
    Severity.ERROR,
    Text("Exactly one Header role, with exactly one Worker"),
    f"{SEED_JOB} Step 2-3 (Header 角色必须只有 1 个 Worker)",
)
def _header(ctx: RuleContext) -> Iterator[Hit]:
    heads = [i for i, r in enumerate(ctx.job.roles) if r.head]
    if not heads:
        yield (
            "spec.tasks",
            Text("No role is the Header: nothing starts the Ray head or runs the run script."),
            Text("Mark the role whose single Worker can run the RLinf entry point as head: true."),
        )
    elif len(heads) > 1:
        yield (
            ctx.role_path(heads[1], "head"),
            Text("{count} roles are Headers: each would start its own Ray head.", count=len(heads)),
            Text("Keep head: true on one role only."),
        )
    for index in heads:
        if ctx.job.roles[index].replicas != 1:
            yield (
                ctx.role_path(index, "replicas"),
                Text(
                    "The Header role has {count} Workers: each would start a Ray head and run the run script.",
                    count=ctx.job.roles[index].replicas,
                ),
                Text(
                    "Set the Header role's Workers to 1 and move the other {extra} Worker(s) to a"
                    " role of their own (it keeps the same RLINF_NODE_RANK order).",
                    extra=ctx.job.roles[index].replicas - 1,
                ),
            )


@rule(
    "PLN-HEADER-RANK0",
    Severity.WARNING,
    Text("The Header's Worker gets RLINF_NODE_RANK 0"),
    f"{SPEC} §3.2-3.3 (the driver's node must have a rank < num_nodes; managers run on rank 0)",
)
def _header_first(ctx: RuleContext) -> Iterator[Hit]:
    heads = [i for i, r in enumerate(ctx.job.roles) if r.head]
    if heads and heads[0] != 0:
        yield (
            ctx.role_path(heads[0]),
            Text(
                "The Header role is not first, so its Worker does not get RLINF_NODE_RANK 0, "
                "where RLinf runs its driver and managers."
            ),
            Text("Move the Header role to the top of the role list."),
        )


@rule(
    "PLN-GPU-COVER",
    Severity.ERROR,
    Text("Each Worker's GPU request covers the GPUs placed on its node"),
    f"{SPEC} §3.1 and §9 (GPUs needed = largest local index + 1)",
)
def _gpu_cover(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.needs is None:
        return
    for rank, index, role in ctx.roles_by_rank():
        if rank < len(ctx.needs) and role.gpus < ctx.needs[rank].gpus:
            need = ctx.needs[rank]
            yield (
                ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                Text(
                    "RLINF_NODE_RANK {rank} (role '{role}') needs {needed} GPU(s) (processes use local "
                    "GPUs {used}) but the role requests {requested}.",
                    rank=rank,
                    role=role.name,
                    needed=need.gpus,
                    used=format_ranks(list(need.gpus_used)),
                    requested=role.gpus,
                ),
                Text(
                    "Request at least {needed} GPUs per Worker in role '{role}'.",
                    needed=need.gpus,
                    role=role.name,
                ),
            )
        elif rank < len(ctx.needs) and role.gpus < ctx.needs[rank].gpus_visible:
            need = ctx.needs[rank]
            yield (
                ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                Text(
                    "RLINF_NODE_RANK {rank} (role '{role}', running {components}) is planned with "
                    "{visible} GPU(s): RLinf sets CUDA_VISIBLE_DEVICES of its processes to every "
                    "GPU the plan assumed on that node, but the role requests {requested}, so "
                    "the Worker would start without them.",
                    rank=rank,
                    role=role.name,
                    components=", ".join(need.components),
                    visible=need.gpus_visible,
                    requested=role.gpus,
                ),
                Text(
                    "If the node has {requested} GPU(s), plan with the GPUs each Worker requests "
                    "(--gpus-per-node-map {layout}, or the per-node GPUs field in the app); if "
                    "it has GPUs, request {visible} per Worker in role '{role}'.",
                    requested=role.gpus,
                    layout=_requested_layout(ctx),
                    visible=need.gpus_visible,
                    role=role.name,
                ),
            )


def _requested_layout(ctx: RuleContext) -> str:
    """The per-node GPU map (``0:8,1:0``) that fixes the assumption: a node whose processes see
    GPUs its Worker does not request gets the request, the others keep the assumed count. In
    the short form ``GpuLayout.parse`` reads: ranks with the largest count are left out (they
    get it), except one, which sets the largest."""
    needs = ctx.needs or []
    counts = {
        rank: role.gpus if role.gpus < needs[rank].gpus_visible else needs[rank].gpus_assumed
        for rank, _, role in ctx.roles_by_rank()
        if rank < len(needs)
    }
    largest = max(counts.values(), default=0)
    listed = {r: c for r, c in counts.items() if c != largest}
    first = next((r for r, c in counts.items() if c == largest), 0)
    listed = {first: largest, **listed}
    return ",".join(f"{r}:{c}" for r, c in sorted(listed.items()))


#: Idle GPUs are listed up to this many (format_ranks shows the first three and the last), so
#: that a request such as 10**40 GPUs does not build a list of them.
LISTED_GPUS = 1024


def _idle_gpus(requested: int, used: Iterable[int]) -> list[int]:
    used = set(used)
    idle = [g for g in range(min(requested, LISTED_GPUS)) if g not in used]
    if requested > LISTED_GPUS and requested - 1 not in used:
        idle.append(requested - 1)  # the last one, which format_ranks shows
    return idle


@rule(
    "PLN-IDLE-GPU",
    Severity.INFO,
    Text("GPUs requested but used by no process are flagged"),
    f"{SPEC} §9",
)
def _idle_gpu(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.needs is None:
        return
    for rank, index, role in ctx.roles_by_rank():
        if rank < len(ctx.needs):
            idle = _idle_gpus(role.gpus, ctx.needs[rank].gpus_used)
            if idle:
                yield (
                    ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                    Text(
                        "RLINF_NODE_RANK {rank} requests GPU(s) {idle} that no RLinf process uses.",
                        rank=rank,
                        idle=format_ranks(idle),
                    ),
                    Text(
                        "Lower the request if nothing else needs them (numbering starts at 0, so lower GPUs may still be needed)."
                    ),
                )


@rule(
    "PLN-DEVICE-COVER",
    Severity.ERROR,
    Text("Robot node groups get rlinf.io device resources on exactly those Workers"),
    f"{SEED_JOB} (填写 GPU 和设备资源); {SPEC} §1.6",
)
def _device_cover(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.needs is None:
        return
    for rank, index, role in ctx.roles_by_rank():
        if rank >= len(ctx.needs):
            continue
        robots = ctx.needs[rank].robots
        devices = {k for k in role.devices if ctx.site.is_device(k)}
        uncovered = [(t, n) for t, n in robots if not _robot_devices(t, role.devices)]
        if uncovered:
            kinds = ", ".join(f"{n} x {t}" for t, n in uncovered)
            yield (
                ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                Text(
                    "RLINF_NODE_RANK {rank} (role '{role}') carries {kinds} but requests no rlinf.io/device-* resource for it.",
                    rank=rank,
                    role=role.name,
                    kinds=kinds,
                ),
                Text(
                    "Add the cluster's device resource for the robot (ask the admin for its exact name)."
                ),
            )
        if devices and not robots:
            yield (
                ctx.role_path(index, f"{CONTAINER}.resources.limits"),
                Text(
                    "RLINF_NODE_RANK {rank} (role '{role}') requests {devices} but no robot is configured on that rank.",
                    rank=rank,
                    role=role.name,
                    devices=", ".join(sorted(devices)),
                ),
                Text(
                    "Request device resources only on the Workers whose node group declares the robot."
                ),
            )


@rule(
    "PLN-ENV-COVER",
    Severity.WARNING,
    Text("Workers carry their node group's env_configs variables"),
    f"{SPEC} §1.4",
)
def _env_cover(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.needs is None:
        return
    for rank, index, role in ctx.roles_by_rank():
        if rank < len(ctx.needs):
            missing = [k for k, v in ctx.needs[rank].env if role.env.get(k) != v]
            if missing:
                yield (
                    ctx.role_path(index, f"{CONTAINER}.env"),
                    Text(
                        "RLINF_NODE_RANK {rank} has env_configs variables {variables} that role '{role}' does not set.",
                        rank=rank,
                        variables=", ".join(missing),
                        role=role.name,
                    ),
                    Text(
                        "RLinf applies them only to workers placed through that node group; set them on the role if the node needs them before Ray starts."
                    ),
                )


@rule(
    "PLN-CONTROLLER",
    Severity.INFO,
    Text("Nodes needed only by a robot controller still count"),
    f"{SPEC} §1.6 (controller_node_rank)",
)
def _controller(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.needs is None:
        return
    for need in ctx.needs:
        if need.controller_only:
            yield (
                "spec.tasks",
                Text(
                    "RLINF_NODE_RANK {rank} runs no RLinf component but hosts a robot controller "
                    "(controller_node_rank); its Worker is still required.",
                    rank=need.node_rank,
                ),
                Text("Keep its Worker in the plan."),
            )


@rule(
    "PLN-SHARED-NODES",
    Severity.WARNING,
    Text("Roles that select the same nodes still each create Workers"),
    f"{SEED_FAQ} (多个角色选择同一批节点); {SEED_JOB}",
)
def _shared_nodes(ctx: RuleContext) -> Iterator[Hit]:
    seen: dict[tuple[Any, ...], int] = {}
    for index, role in enumerate(ctx.job.roles):
        key = tuple(sorted(role.node_selector.items()))
        if key and key in seen:
            other = ctx.job.roles[seen[key]]
            yield (
                ctx.role_path(index, "template.spec.nodeSelector"),
                Text(
                    "Roles '{other}' and '{role}' select the same nodes; each still creates its own Workers "
                    "({other_workers} + {role_workers}), with their own resources and node ranks.",
                    other=other.name,
                    role=role.name,
                    other_workers=other.replicas,
                    role_workers=role.replicas,
                ),
                Text(
                    "That is right only if the config needs that many Ray nodes (3 roles x 4 nodes = 12 Workers)."
                ),
            )
        seen.setdefault(key, index)


@rule(
    "PLN-ROLE-NAME",
    Severity.INFO,
    Text("A role named like an RLinf component places nothing"),
    f"{SEED_RLARK} (角色名称不是 RLinf 组件放置规则)",
)
def _role_name_component(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.report is None or not ctx.report.ok:
        return
    components = {c.lower() for c in ctx.report.expansion.components}
    if "env" in components:
        components.add("environment")  # the console's template name for the env role
    for index, role in enumerate(ctx.job.roles):
        if role.name.lower() in components:
            yield (
                ctx.role_path(index, "name"),
                Text(
                    "Role '{role}' shares a name with an RLinf component, but a role name starts no component: "
                    "component_placement decides where components run.",
                    role=role.name,
                ),
                Text("Keep the name if it helps you; it changes nothing."),
            )
