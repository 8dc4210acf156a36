"""The request to the platform admin: what the seeds tell a user to state, and what stays open.

seeds/create-training-job.zh.txt: "请向平台管理员说明每组 Worker 的数量、每个 Worker 的 GPU 和设备
需求，以及是否依赖节点本地数据、机器人或相机。由管理员提供已经核对过的节点选择条件。" The
message states exactly that (plus storage and the CPU/memory question the console cannot hold),
then the node-selection questions that remain open: with an inventory, the planned selectors
and what they match, to be confirmed by a global match; without one, the labels to ask for.
When the site profile is the example, it also asks for the site's own values.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..findings import Finding
from ..i18n import Listing, Text
from ..rlinf.ranks import format_ranks
from .inventory import Inventory
from .job import Job
from .planned import PlannedJob
from .planner import Plan
from .site import SiteProfile


@dataclass
class AdminRequest:
    """The message as headed sections of :class:`Text` lines (rendered in either language)."""

    subject: Text
    sections: list[tuple[Text, list[Text]]]

    def render(self, lang: str = "en") -> str:
        out = [self.subject.render(lang), ""]
        for heading, lines in self.sections:
            out.append(heading.render(lang))
            out += [f"- {line.render(lang)}" for line in lines]
            out.append("")
        return "\n".join(out).rstrip() + "\n"


def _robots(plan: Plan | None) -> dict[int, list[tuple[str, int, int]]]:
    """Per node rank: (hardware type, robots, cameras) from the config's hardware section."""
    per_rank: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    cluster = plan.report.cluster if plan is not None else None
    if cluster is None:
        return per_rank
    for group in cluster.node_groups:
        for robot in group.robots:
            cameras = sum(
                len(value)
                for name, value in robot.fields.items()
                if name.endswith("camera_serials") and isinstance(value, list)
            )
            per_rank[robot.node_rank].append((robot.hardware_type, 1, cameras))
    return per_rank


def build_admin_request(planned: PlannedJob, cluster: str | None = None) -> AdminRequest:
    """The message for the planned Job (and the plan it came from, when known); ``cluster``: the
    target cluster when it is not the plan's."""
    job, plan, inventory, site = planned.built, planned.plan, planned.inventory, planned.site
    findings = planned.findings
    cluster = cluster or planned.target_cluster
    num_nodes = plan.report.num_nodes if plan is not None else None
    subject = Text("RLark node selection request for Job {job}", job=job.name)
    intro = [
        Text(
            "We are moving an RLinf workload that already runs onto RLark and need the node "
            "selection you have checked, for {workers} Worker(s) in {roles} role(s){nodes}{where}.",
            workers=job.total_workers,
            roles=len(job.roles),
            nodes=Text(" (cluster.num_nodes = {n})", n=num_nodes) if num_nodes is not None else "",
            where=Text(", target cluster '{cluster}'", cluster=cluster) if cluster else "",
        )
    ]
    return AdminRequest(
        subject,
        [
            (Text("About the job"), intro),
            (Text("Worker groups"), _groups(job)),
            (Text("Node-local data (host directories)"), _host_data(job)),
            (Text("Robots and cameras per node"), _devices(job, plan)),
            (Text("Storage"), _storage(job, site)),
            (Text("Open node-selection questions"), _questions(job, findings, inventory, site)),
            *_site_values(site),
        ],
    )


def _groups(job: Job) -> list[Text]:
    lines = []
    for role, ranks in job.node_rank_ranges():
        devices = ", ".join(f"{k} x {v}" for k, v in role.devices.items())
        lines.append(
            Text(
                "Role '{role}'{header}: {workers} Worker(s) (RLINF_NODE_RANK {ranks}), {gpus} "
                "GPU(s) per Worker, device resources: {devices}.",
                role=role.name,
                header=Text(" (Header: exactly 1 Worker)") if role.head else "",
                workers=role.replicas,
                ranks=format_ranks(list(ranks)) if ranks else "-",
                gpus=role.gpus,
                devices=devices or Text("none"),
            )
        )
    return lines


def _host_data(job: Job) -> list[Text]:
    lines = [
        Text(
            "Role '{role}' mounts node directory {source} at {path}: it must exist, with the "
            "right content, on every node the role may land on.",
            role=role.name,
            source=mount.source,
            path=mount.mount_path,
        )
        for role in job.roles
        for mount in role.mounts
        if mount.kind == "hostPath"
    ]
    return lines or [Text("No node-local data: no host directory is mounted.")]


def _devices(job: Job, plan: Plan | None) -> list[Text]:
    if plan is None:
        return [Text("Not known without the RLinf config (give --config to list them).")]
    robots = _robots(plan)
    roles = {rank: role.name for role, ranks in job.node_rank_ranges() for rank in ranks}
    lines = [
        Text(
            "RLINF_NODE_RANK {rank} (role '{role}'): {robots}.",
            rank=rank,
            role=roles.get(rank, "-"),
            robots=Listing(
                [
                    Text(
                        "{count} x {hardware} with {cameras} camera(s)",
                        count=count,
                        hardware=hardware,
                        cameras=cameras,
                    )
                    for hardware, count, cameras in entries
                ],
                ", ",
            ),
        )
        for rank, entries in sorted(robots.items())
    ]
    return lines or [Text("No robots or cameras: the config's node groups declare no hardware.")]


def _storage(job: Job, site: SiteProfile) -> list[Text]:
    lines = [
        Text(
            "Object storage through StorageClass '{storage_class}' mounted at {path} (role "
            "'{role}'): please confirm it can be used in this cluster.",
            storage_class=mount.source,
            path=mount.mount_path,
            role=role.name,
        )
        for role in job.roles
        for mount in role.mounts
        if mount.kind == "storage"
    ]
    if not lines:
        lines.append(
            Text(
                "Checkpoints and logs need persistent storage: which StorageClass can we use in "
                "this cluster{known}?",
                known=Text(
                    " (the site profile lists {names})", names=", ".join(site.storage_classes)
                )
                if site.storage_classes
                else "",
            )
        )
    lines.append(
        Text(
            "The console has no CPU, memory or /dev/shm fields; RLinf simulators and Ray need "
            "plenty: how are they provided?"
        )
    )
    return lines


def _questions(
    job: Job, findings: Sequence[Finding], inventory: Inventory | None, site: SiteProfile
) -> list[Text]:
    lines = []
    for role in job.roles:
        needs = Text(
            "at least {gpus} GPU(s){devices}",
            gpus=role.gpus,
            devices=Text(" and {devices}", devices=", ".join(role.devices)) if role.devices else "",
        )
        if inventory is not None and role.node_selector:
            matched = inventory.matching(role.node_selector)
            lines.append(
                Text(
                    "Role '{role}' needs exactly {workers} node(s) with {needs}. Planned node "
                    "selection: {selector}{example} (matches {count} node(s) in our inventory: "
                    "{nodes}). Please confirm it with a global match of the complete selection.",
                    example=Text(" (label names from the EXAMPLE site profile)")
                    if site.is_example
                    else "",
                    role=role.name,
                    workers=role.replicas,
                    needs=needs,
                    selector=", ".join(f"{k}={v}" for k, v in role.node_selector.items()),
                    count=len(matched),
                    nodes=", ".join(n.name for n in matched[:8]) or "-",
                )
            )
        else:
            lines.append(
                Text(
                    "Role '{role}' needs exactly {workers} node(s) with {needs}: which labels "
                    "select exactly those nodes, only in the target cluster?",
                    role=role.name,
                    workers=role.replicas,
                    needs=needs,
                )
            )
    for finding in findings:
        if finding.rule_id == "PLN-DEVICE-NAME":
            lines.append(
                Text(
                    "{message} What is the exact device resource name ({prefix}...)?",
                    message=finding.text,
                    prefix=site.device_prefix,
                )
            )
    return lines


def _site_values(site: SiteProfile) -> list[tuple[Text, list[Text]]]:
    if not site.example_fields:
        return []
    return [
        (
            Text("Values of this RLark environment"),
            [
                Text(
                    "Our tool used example values for: {fields}. Please tell us this "
                    "environment's: the node label naming the cluster, the node-category label "
                    "and its values for 云算力 / 端算力 / 端真机, the device resource prefix, the "
                    "StorageClasses, the reserved environment variable names and the RLinf "
                    "checkout in the image.",
                    fields=", ".join(sorted(site.example_fields)),
                )
            ],
        )
    ]
