"""The rule catalogue: every check the assistant runs on a Job, as data (DESIGN.md §4).

Each rule has an ID, a severity (errors block submission, warnings need a conscious yes, infos
teach), a title and the seed passage or RLinf behaviour it rests on. A rule's check yields
``(path, message, fix)`` triples for the Job fields it concerns; :func:`evaluate` turns them into
:class:`Finding` objects. Titles, messages and fixes are :class:`Text`, rendered in the reader's
language only when shown (Chinese in ``i18n/zh/rules.yaml``). CFG and PLC findings come from the importer (``rlinf/``); the
secret scanner contributes the SEC rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath

from ..findings import Finding, Severity
from ..i18n import Text
from ..rlinf import ConfigReport
from ..rlinf.ranks import format_ranks
from .facts import RecordFacts
from .inventory import CLUSTER_LABEL, Inventory
from .job import DEVICE_PREFIX, Job, Role
from .node_needs import NodeNeeds, device_resource_for, node_needs
from .outputs import output_key

Hit = tuple[str, Text, Text]  # (path, message, fix)
SEED_JOB = "seeds/create-training-job.zh.txt"
SEED_FAQ = "seeds/rlinf-faq.zh.txt"
SEED_RLARK = "seeds/rlark-and-rlinf.zh.txt"
SPEC = "rlinf-cluster-spec.md"
JOB_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
#: Set by RLark itself on every Worker; a user value would be overwritten or break the layout.
RESERVED_ENV = {"RLINF_NODE_RANK", "RAY_ADDRESS", "RAY_HEAD_IP", "RAY_NODE_IP_ADDRESS"}
RESERVED_ENV_PREFIXES = ("RLARK_",)
#: Variables RLinf's RobotAutoConfig turns into robots on any node that has them (spec §1.6).
ROBOT_ENV = {"ROBOT_IP", "LEFT_ROBOT_IP", "RIGHT_ROBOT_IP", "ROBOT_URL", "CAN_INTERFACE"}
RAY_CHECK = re.compile(r"ray\.nodes\(|\bray status\b|ray\.cluster_resources\(")
CD_TARGET = re.compile(r"(?:^|[;&|(\s])cd\s+([^\s;&|)]+)")


def _code_lines(script: str) -> str:
    """The script without comment lines, so '# TODO: ray status' does not count as a check."""
    return "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))


def _covers(mount_path: str, path: PurePosixPath) -> bool:
    mount = PurePosixPath(mount_path)
    return mount == path or mount in path.parents


def _robot_devices(robot_type: str, devices: dict[str, int]) -> list[str]:
    """The role's device resources that serve ``robot_type`` (``rlinf.io/device-franka``)."""
    return [d for d in devices if device_resource_for(robot_type, [d])]


@dataclass
class RuleContext:
    """Everything a rule may look at; optional parts make rules that need them stay silent."""

    job: Job
    report: ConfigReport | None = None
    inventory: Inventory | None = None
    target_cluster: str | None = None
    facts: RecordFacts | None = None

    @cached_property
    def manifest(self) -> dict:
        return self.job.to_manifest()

    @cached_property
    def needs(self) -> list[NodeNeeds] | None:
        if self.report is None or not self.report.ok or self.report.cluster is None:
            return None
        return node_needs(self.report.cluster, self.report.expansion)

    def role_path(self, index: int, field_path: str = "") -> str:
        return f"spec.tasks[{index}]" + (f".{field_path}" if field_path else "")

    def roles_by_rank(self) -> Iterator[tuple[int, int, Role]]:
        """(RLINF_NODE_RANK, role index, role) in role order x worker index.

        Stops one rank past the config's nodes: the rules compare Workers with those nodes, and
        a typo such as 10**12 replicas must not loop over every Worker.
        """
        last = len(self.needs) if self.needs is not None else None
        rank = 0
        for index, role in enumerate(self.job.roles):
            for _ in range(role.replicas):
                if last is not None and rank > last:
                    return
                yield rank, index, role
                rank += 1


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    title: Text
    source: str
    check: Callable[[RuleContext], Iterable[Hit]] = field(repr=False, compare=False)


RULES: list[Rule] = []
CONTAINER = "template.spec.containers[0]"


def rule(rule_id: str, severity: Severity, title: Text, source: str):
    def register(check: Callable[[RuleContext], Iterable[Hit]]):
        RULES.append(Rule(rule_id, severity, title, source, check))
        return check

    return register


def evaluate(ctx: RuleContext, rules: Iterable[Rule] | None = None) -> list[Finding]:
    findings = []
    for r in rules if rules is not None else RULES:
        for path, message, fix in r.check(ctx):
            findings.append(Finding(r.id, r.severity, path, message, fix, r.source))
    return findings


# --- PLN: the plan against RLinf's Ray nodes ----------------------------------------------------
@rule(
    "PLN-WORKER-COUNT",
    Severity.ERROR,
    Text("Workers of all roles add up to cluster.num_nodes"),
    f"{SEED_JOB} Step 1; {SPEC} §3.3",
)
def _worker_count(ctx: RuleContext):
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
def _header(ctx: RuleContext):
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
                    "Narrow its node selection to exactly 1 node, and move other Workers to another role."
                ),
            )


@rule(
    "PLN-HEADER-RANK0",
    Severity.WARNING,
    Text("The Header's Worker gets RLINF_NODE_RANK 0"),
    f"{SPEC} §3.2-3.3 (the driver's node must have a rank < num_nodes; managers run on rank 0)",
)
def _header_first(ctx: RuleContext):
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
def _gpu_cover(ctx: RuleContext):
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
def _idle_gpu(ctx: RuleContext):
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
def _device_cover(ctx: RuleContext):
    if ctx.needs is None:
        return
    for rank, index, role in ctx.roles_by_rank():
        if rank >= len(ctx.needs):
            continue
        robots = ctx.needs[rank].robots
        devices = {k for k in role.devices if k.startswith(DEVICE_PREFIX)}
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
def _env_cover(ctx: RuleContext):
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
def _controller(ctx: RuleContext):
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
def _shared_nodes(ctx: RuleContext):
    seen: dict[tuple, int] = {}
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
def _role_name_component(ctx: RuleContext):
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


# --- JOB: the form's fields ---------------------------------------------------------------------
@rule(
    "JOB-NAME",
    Severity.ERROR,
    Text("Job name: 1-63 lower-case letters, digits or '-', no '-' at either end"),
    f"{SEED_JOB} Step 1",
)
def _job_name(ctx: RuleContext):
    if not JOB_NAME.fullmatch(ctx.job.name or ""):
        fixed = (
            re.sub(r"[^a-z0-9-]+", "-", (ctx.job.name or "").lower()).strip("-")[:63] or "rlinf-job"
        )
        yield (
            "metadata.name",
            Text("'{name}' is not a valid Job name.", name=ctx.job.name),
            Text("Use e.g. '{fixed}'.", fixed=fixed),
        )


@rule(
    "JOB-ROLE-NAME",
    Severity.ERROR,
    Text("Role names are non-empty and unique ignoring case"),
    f"{SEED_JOB} Step 1",
)
def _role_names(ctx: RuleContext):
    seen: set[str] = set()
    for index, role in enumerate(ctx.job.roles):
        if not role.name.strip():
            yield (
                ctx.role_path(index, "name"),
                Text("A role has no name."),
                Text("Name every role."),
            )
        elif role.name.lower() in seen:
            yield (
                ctx.role_path(index, "name"),
                Text(
                    "Role name '{role}' repeats another role's name (ignoring case).",
                    role=role.name,
                ),
                Text("Give each role its own name."),
            )
        seen.add(role.name.lower())


@rule(
    "JOB-SELECTOR-EMPTY",
    Severity.ERROR,
    Text("Every role has a node selection"),
    f"{SEED_JOB} Step 2 (选择集群和节点)",
)
def _selector_empty(ctx: RuleContext):
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
def _selector_cluster(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        if not role.node_selector:
            continue
        if ctx.inventory is None:
            if CLUSTER_LABEL not in role.node_selector:
                yield (
                    ctx.role_path(index, "template.spec.nodeSelector"),
                    Text(
                        "Role '{role}' has no {label} label, and without an inventory nobody has checked "
                        "that its labels match only the target cluster.",
                        role=role.name,
                        label=CLUSTER_LABEL,
                    ),
                    Text(
                        "Add the cluster label, or check the selection against the inventory (--inventory)."
                    ),
                )
            continue
        clusters = sorted({n.cluster or "?" for n in ctx.inventory.matching(role.node_selector)})
        target = ctx.target_cluster or role.node_selector.get(CLUSTER_LABEL)
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
                    label=CLUSTER_LABEL,
                    target=target or "<cluster>",
                ),
            )


@rule(
    "JOB-SELECTOR-COUNT",
    Severity.WARNING,
    Text("A role's matched node count equals its Workers (the Header's is 1)"),
    f"{SEED_JOB} Step 2 (核对已选节点数)",
)
def _selector_count(ctx: RuleContext):
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
def _selector_multi(ctx: RuleContext):
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
def _gpu_capacity(ctx: RuleContext):
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


@rule(
    "JOB-IMAGE",
    Severity.ERROR,
    Text("Every role has an image, never :latest"),
    f"{SEED_JOB} (选择镜像版本和执行入口)",
)
def _image(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        path = ctx.role_path(index, f"{CONTAINER}.image")
        image = role.image.strip()
        if not image:
            yield (
                path,
                Text("Role '{role}' has no image.", role=role.name),
                Text(
                    "Give the image your team verified, e.g. registry.example.com/rlinf:v0.3.0-cuda12.4."
                ),
            )
        elif "@" not in image and (
            image.endswith(":latest") or ":" not in image.rsplit("/", 1)[-1]
        ):
            yield (
                path,
                Text(
                    "'{image}' is (or defaults to) the latest tag, which can point at different content tomorrow.",
                    image=image,
                ),
                Text(
                    "Use an explicit version tag, or a digest (@sha256:...) to reproduce exactly."
                ),
            )


@rule(
    "JOB-IMAGE-DIGEST",
    Severity.INFO,
    Text("A digest pins the exact image content"),
    f"{SEED_FAQ} (镜像 tag 和 digest)",
)
def _image_digest(ctx: RuleContext):
    images = {r.image for r in ctx.job.roles if r.image and "@sha256:" not in r.image}
    for image in sorted(images):
        index = next(i for i, r in enumerate(ctx.job.roles) if r.image == image)
        yield (
            ctx.role_path(index, f"{CONTAINER}.image"),
            Text("'{image}' is a tag: it may point at other content later.", image=image),
            Text(
                "To reproduce or compare runs, record the digest the tag points at today (the run record asks for it)."
            ),
        )


@rule(
    "JOB-IMAGE-MIXED",
    Severity.WARNING,
    Text("Roles use one image (Ray and Python must match)"),
    f"{SEED_JOB} Step 2",
)
def _image_mixed(ctx: RuleContext):
    images = sorted({r.image for r in ctx.job.roles if r.image})
    if len(images) > 1:
        yield (
            "spec.tasks",
            Text(
                "Roles use {count} different images ({images}).",
                count=len(images),
                images=", ".join(images),
            ),
            Text(
                "Use one image, or confirm Ray, Python, RLinf and driver versions match across them."
            ),
        )


@rule(
    "JOB-ENTRYPOINT",
    Severity.INFO,
    Text("RLark replaces the image's command: activation goes in the prepare script"),
    f"{SEED_JOB} (RLark 会替换镜像 ENTRYPOINT)",
)
def _entrypoint(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        if not role.prepare_script.strip():
            yield (
                ctx.role_path(index, "prepareScript"),
                Text(
                    "Role '{role}' has no prepare script. RLark starts Ray with its own command, so nothing from the "
                    "image's ENTRYPOINT runs; the image needs bash, ray and python on PATH.",
                    role=role.name,
                ),
                Text(
                    "Put environment activation (e.g. source /opt/venv/bin/activate) in the prepare script."
                ),
            )


@rule("JOB-RUN-SCRIPT", Severity.ERROR, Text("The run script is not empty"), f"{SEED_JOB} Step 3")
def _run_script(ctx: RuleContext):
    if not ctx.job.run_script.strip():
        yield (
            "spec.runScript",
            Text("The run script is empty: the Header would start Ray and run nothing."),
            Text("Change to the code directory and start the RLinf entry point with your config."),
        )


@rule(
    "JOB-RUN-SCRIPT-CD",
    Severity.WARNING,
    Text("The run script changes directory explicitly"),
    f"{SEED_JOB} Step 3",
)
def _run_script_cd(ctx: RuleContext):
    script = ctx.job.run_script
    if script.strip() and not CD_TARGET.search(_code_lines(script)):
        yield (
            "spec.runScript",
            Text("The run script never runs `cd`, so it depends on the image's working directory."),
            Text("Start with e.g. `cd /workspace/RLinf`."),
        )


@rule(
    "JOB-RUN-SCRIPT-RAY",
    Severity.WARNING,
    Text("The run script re-checks that all Ray nodes joined"),
    f"{SEED_JOB} Step 3 (集群检查出现警告后，运行脚本仍可能执行)",
)
def _run_script_ray(ctx: RuleContext):
    script = ctx.job.run_script
    if script.strip() and not RAY_CHECK.search(_code_lines(script)):
        yield (
            "spec.runScript",
            Text(
                "The run script does not check that every Ray node joined; the platform's check may "
                "only warn, and training would start short of nodes."
            ),
            Text(
                "Wait for len(ray.nodes()) alive == num_nodes (with a timeout) and exit non-zero otherwise."
            ),
        )


@rule(
    "JOB-RUN-SCRIPT-ENTRY",
    Severity.ERROR,
    Text("The run script names the RLinf entry script"),
    f"{SEED_JOB} Step 3 (明确写入工作目录切换和启动命令)",
)
def _run_script_entry(ctx: RuleContext):
    if "REPLACE_WITH_RLINF_ENTRY_SCRIPT" in _code_lines(ctx.job.run_script):
        yield (
            "spec.runScript",
            Text(
                "The run script still has the ENTRY placeholder: no single RLinf entry script is known for this "
                "task type, so the command would fail."
            ),
            Text(
                "Set ENTRY to your launcher's Python entry script (the one your RLinf run command calls)."
            ),
        )


@rule(
    "JOB-MOUNT-PATH",
    Severity.ERROR,
    Text("Mount paths and hostPath sources are absolute"),
    f"{SEED_JOB} (添加存储挂载)",
)
def _mount_paths(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            if not mount.mount_path.startswith("/"):
                yield (
                    ctx.role_path(index, f"{CONTAINER}.volumeMounts[{m_index}].mountPath"),
                    Text("Mount path '{path}' is not absolute.", path=mount.mount_path),
                    Text("Use an absolute container path such as /mnt/output."),
                )
            if mount.kind == "hostPath" and not mount.source.startswith("/"):
                yield (
                    ctx.role_path(index, f"template.spec.volumes[{m_index}].hostPath.path"),
                    Text("hostPath source '{source}' is not absolute.", source=mount.source),
                    Text("Use the absolute directory on the node."),
                )


@rule(
    "JOB-MOUNT-SHADOW",
    Severity.WARNING,
    Text("Mounts do not hide the code or config directory"),
    f"{SEED_JOB} Step 4",
)
def _mount_shadow(ctx: RuleContext):
    script = _code_lines(ctx.job.run_script)
    code_dirs = [d for d in CD_TARGET.findall(script) if d.strip("'\"").startswith("/")]
    code_dirs += re.findall(r"--config-path\s+(/[^\s;&|]+)", script)
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            target = PurePosixPath(mount.mount_path)
            for directory in code_dirs:
                path = PurePosixPath(directory.strip("'\""))
                if path == target or target in path.parents:
                    yield (
                        ctx.role_path(index, f"{CONTAINER}.volumeMounts[{m_index}].mountPath"),
                        Text(
                            "Mount at {mount} hides {hidden} from the image (the run script uses it).",
                            mount=mount.mount_path,
                            hidden=str(path),
                        ),
                        Text("Mount somewhere else, e.g. /mnt/<name>, and point the config there."),
                    )
                    break


@rule(
    "JOB-HOSTPATH",
    Severity.WARNING,
    Text("hostPath sources exist on every node a role may land on"),
    f"{SEED_JOB} (主机目录)",
)
def _hostpath(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            if mount.kind == "hostPath":
                yield (
                    ctx.role_path(index, f"template.spec.volumes[{m_index}].hostPath.path"),
                    Text(
                        "{source} must exist, with the same content and permissions, on every node role "
                        "'{role}' may land on; it is not copied between nodes.",
                        source=mount.source,
                        role=role.name,
                    ),
                    Text(
                        "Prepare the directory on every matched node, or use object storage for shared data."
                    ),
                )


def _unknown_storage_class(source: str, known: tuple[str, ...]) -> Text:
    """Two whole sentences: 'none' is a word to translate, not a value."""
    if not known:
        return Text("StorageClass '{source}' is not in the inventory (none).", source=source)
    return Text(
        "StorageClass '{source}' is not in the inventory ({known}).",
        source=source,
        known=", ".join(known),
    )


@rule(
    "JOB-STORAGE-SOURCE",
    Severity.ERROR,
    Text("Object storage is a StorageClass, never a bucket, key or local path"),
    f"{SEED_JOB} (对象存储通过 StorageClass 连接存储桶)",
)
def _storage_source(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            if mount.kind != "storage":
                continue
            path = ctx.role_path(index, f"{CONTAINER}.volumeMounts[{m_index}]")
            if re.search(r"://|[/\\~]|^[A-Za-z]:", mount.source):
                yield (
                    path,
                    Text(
                        "'{source}' looks like a bucket, object key or local path, not a StorageClass.",
                        source=mount.source,
                    ),
                    Text(
                        "Choose a StorageClass of the target cluster (ask the admin to create one for a new bucket)."
                    ),
                )
            elif ctx.inventory is not None and mount.source not in ctx.inventory.storage_classes:
                yield (
                    path,
                    _unknown_storage_class(mount.source, ctx.inventory.storage_classes),
                    Text("Choose one of the cluster's StorageClasses."),
                )


@rule(
    "JOB-CHECKPOINT-PERSIST",
    Severity.WARNING,
    Text("Checkpoints and logs are written under a persistent mount"),
    f"{SEED_JOB} (训练程序必须使用容器内挂载路径); {SPEC} §5",
)
def _checkpoints(ctx: RuleContext):
    if ctx.report is None:
        return
    keys = (output_key(ctx.report.expansion.task_type),)
    overridden = dict(
        re.findall(r"(runner\.(?:logger\.log_path|output_dir))=(\S+)", ctx.job.run_script)
    )
    for key in keys:
        value = overridden.get(key) or ctx.report.config.get(key)
        if not isinstance(value, str) or not value:
            continue
        path = PurePosixPath(value.strip("'\""))
        lacking = [
            r.name for r in ctx.job.roles if not any(_covers(m.mount_path, path) for m in r.mounts)
        ]
        shared = all(
            any(_covers(m.mount_path, path) and m.kind == "storage" for m in r.mounts)
            for r in ctx.job.roles
        )
        if lacking:
            yield (
                "spec.runScript",
                Text(
                    "{key} is '{value}', outside the mounts of role(s) {roles}: checkpoints and logs "
                    "written there are lost when the Pod is recreated.",
                    key=key,
                    value=value,
                    roles=", ".join(lacking),
                ),
                Text(
                    "Mount persistent storage in every role (e.g. at /mnt/output) and pass {key}=/mnt/output/<job> in the run script.",
                    key=key,
                ),
            )
        elif ctx.job.total_workers > 1 and not shared:
            yield (
                "spec.runScript",
                Text(
                    "{key} is on a node-local mount, but several Workers write checkpoint shards.",
                    key=key,
                ),
                Text("Use shared (object) storage that every Worker and the Header can read."),
            )


@rule(
    "JOB-ENV-RESERVED",
    Severity.ERROR,
    Text("Platform-reserved environment names are refused"),
    f"{SEED_JOB} (平台保留名称); DESIGN.md §3",
)
def _env_reserved(ctx: RuleContext):
    for index, role in enumerate(ctx.job.roles):
        for name in role.env:
            if name in RESERVED_ENV or name.startswith(RESERVED_ENV_PREFIXES):
                yield (
                    ctx.role_path(index, f"{CONTAINER}.env"),
                    Text(
                        "{name} is set by RLark on every Worker (RLINF_NODE_RANK = Workers of the roles before + worker index); a role must not set it.",
                        name=name,
                    ),
                    Text("Remove {name} from role '{role}'.", name=name, role=role.name),
                )


@rule(
    "JOB-ENV-ROBOT",
    Severity.WARNING,
    Text("ROBOT_IP-style variables create robots on any node"),
    f"{SPEC} §1.6 (RobotAutoConfig)",
)
def _env_robot(ctx: RuleContext):
    robot_roles = set()
    if ctx.needs is not None:
        by_role: dict[int, list[bool]] = {}
        for rank, index, _ in ctx.roles_by_rank():
            by_role.setdefault(index, []).append(
                rank < len(ctx.needs) and bool(ctx.needs[rank].robots)
            )
        robot_roles = {index for index, flags in by_role.items() if all(flags)}
    for index, role in enumerate(ctx.job.roles):
        for name in role.env:
            if name in ROBOT_ENV and index not in robot_roles:
                yield (
                    ctx.role_path(index, f"{CONTAINER}.env"),
                    Text(
                        "{name} on role '{role}' makes RLinf's RobotAutoConfig fill or even create robots on every one of its Workers.",
                        name=name,
                        role=role.name,
                    ),
                    Text(
                        "Put robot addresses in the config's hardware section, or set the variable only where that robot is cabled."
                    ),
                )


@rule(
    "JOB-NO-CPU-MEMORY",
    Severity.INFO,
    Text("RLark has no CPU, memory or /dev/shm fields"),
    f"{SEED_JOB} (创建页面不能填写 CPU、内存或 /dev/shm)",
)
def _no_cpu_memory(ctx: RuleContext):
    if ctx.job.roles:
        yield (
            "spec.tasks",
            Text(
                "The Job cannot request CPU, memory or /dev/shm; RLinf simulators and Ray object stores "
                "often need plenty of both."
            ),
            Text("Confirm with the platform admin how these are provided before relying on them."),
        )


@rule(
    "JOB-TENSORBOARD",
    Severity.WARNING,
    Text("The TensorBoard directory is under a mount"),
    f"{SEED_JOB} Step 3; {SEED_FAQ}",
)
def _tensorboard(ctx: RuleContext):
    logdir = ctx.job.tensorboard_log_dir
    if not logdir:
        return
    path = PurePosixPath(logdir)
    if not any(_covers(m.mount_path, path) for r in ctx.job.roles if r.head for m in r.mounts):
        yield (
            "spec.tensorboard.logDir",
            Text(
                "{logdir} is not under a mount of the Header role; a helper container RLark may add (not a Worker) "
                "reads it from the Header's Pod.",
                logdir=logdir,
            ),
            Text("Use a directory under the Header's output mount."),
        )


# --- RES: resuming ------------------------------------------------------------------------------
@rule(
    "RES-NO-AUTO-RESUME",
    Severity.INFO,
    Text("Stopping and starting again does not resume"),
    f"{SEED_FAQ} (停止后再次启动任务)",
)
def _no_auto_resume(ctx: RuleContext):
    resumes = "runner.resume_dir=" in _code_lines(ctx.job.run_script)
    if ctx.report is not None and not resumes and not ctx.report.config.get("runner.resume_dir"):
        yield (
            "spec.runScript",
            Text(
                "A restart recreates every Pod and Ray process and trains from scratch: nothing resumes "
                "unless the RLinf command reads a persisted checkpoint."
            ),
            Text(
                "To resume, pass runner.resume_dir=<mount>/.../checkpoints/global_step_N in the run script."
            ),
        )


@rule(
    "RES-RESUME-DIR",
    Severity.ERROR,
    Text("runner.resume_dir names a persisted global_step_N"),
    f"{SPEC} §5 (resume_dir); {SEED_FAQ}",
)
def _resume_dir(ctx: RuleContext):
    if ctx.report is None:
        return
    overridden = dict(re.findall(r"(runner\.resume_dir)=(\S+)", ctx.job.run_script))
    value = overridden.get("runner.resume_dir") or ctx.report.config.get("runner.resume_dir")
    if not value:
        return
    task_type = ctx.report.expansion.task_type
    if value == "auto":
        if task_type != "reasoning":
            yield (
                "spec.runScript",
                Text("resume_dir 'auto' is accepted only by RLinf's reasoning runner."),
                Text("Name the checkpoint directory: .../checkpoints/global_step_N."),
            )
        return
    path = PurePosixPath(str(value).strip("'\""))
    if not re.fullmatch(r"global_step_\d+", path.name):
        yield (
            "spec.runScript",
            Text(
                "runner.resume_dir '{value}' does not end in global_step_<N>; RLinf parses the step from it.",
                value=value,
            ),
            Text("Point it at .../checkpoints/global_step_N (the directory holding actor/)."),
        )
    if not any(_covers(m.mount_path, path) for r in ctx.job.roles for m in r.mounts):
        yield (
            "spec.runScript",
            Text(
                "runner.resume_dir '{value}' is not under a mount, so no Worker can read the checkpoint.",
                value=value,
            ),
            Text("Mount the storage that holds the checkpoint and use its container path."),
        )


# --- REC: what the run record must hold ---------------------------------------------------------
@rule(
    "REC-RLINF-COMMIT",
    Severity.WARNING,
    Text("The run record names the exact RLinf commit"),
    f"{SEED_RLARK} (为本次运行记录)",
)
def _rec_commit(ctx: RuleContext):
    if ctx.facts is not None and not ctx.facts.rlinf_commit:
        yield (
            "record.versions.rlinf_commit",
            Text("The RLinf commit of this run is not recorded."),
            Text(
                "Give it (--rlinf-commit, e.g. `git -C RLinf rev-parse HEAD`) so the run can be reproduced."
            ),
        )


@rule(
    "REC-IMAGE-DIGEST",
    Severity.WARNING,
    Text("The run record holds the image digest"),
    f"{SEED_JOB} (选择镜像版本和执行入口)",
)
def _rec_digest(ctx: RuleContext):
    if ctx.facts is None or ctx.facts.image_digest:
        return
    tags = sorted({r.image for r in ctx.job.roles if r.image and "@sha256:" not in r.image})
    if tags:
        yield (
            "record.versions.image_digest",
            Text(
                "The digest behind {tags} is not recorded; the tag may move.", tags=", ".join(tags)
            ),
            Text(
                "Ask the image publisher or registry for the digest and give it (--image-digest sha256:...)."
            ),
        )


@rule(
    "REC-RUNTIME-VERSIONS",
    Severity.INFO,
    Text("The run record holds Ray, Python and CUDA versions of the image"),
    f"{SEED_RLARK} (为本次运行记录)",
)
def _rec_runtime(ctx: RuleContext):
    if ctx.facts is None:
        return
    missing = [
        n
        for n, v in (
            ("Ray", ctx.facts.ray_version),
            ("Python", ctx.facts.python_version),
            ("CUDA", ctx.facts.cuda_version),
        )
        if not v
    ]
    if missing:
        yield (
            "record.versions",
            Text(
                "{missing} version(s) of the image are not recorded (listed as missing).",
                missing=", ".join(missing),
            ),
            Text(
                "Read them from the image (ray --version, python --version, nvcc --version) and add them."
            ),
        )
