"""The console sheet: a Job as the RLark console's create-Job pages, field by field.

The console is where an RLark Job is really created (seeds/create-training-job.zh.txt). The
sheet lists every field of its Step 1-4 in the console's order and with its labels, each value
copyable on its own, with the findings that concern that field beside it; Step 4 is the seed's
YAML-preview checklist, each item checked or flagged by the findings. A researcher fills the
console from it. Labels are the console's own (Chinese); the English sheet adds an English name
before each so a reader can find the field on the Chinese page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Finding, Severity
from ..i18n import Text
from ..secret_text import redact
from .inventory import Inventory
from .job import Job, Mount, Role
from .planned import PlannedJob
from .planner import TEMPLATE_TITLES
from .site import SiteProfile

#: (console label, English name) of every field, in the console's order (the seed's Step 1-4).
Label = tuple[str, str]
STEP_TITLES: tuple[Label, ...] = (
    ("Step 1 选择任务类型和角色", "Step 1 Task type and roles"),
    ("Step 2 Worker 配置", "Step 2 Worker settings"),
    ("Step 3 公共配置", "Step 3 Common settings"),
    ("Step 4 YAML 预览并提交", "Step 4 YAML preview and submit"),
)
JOB_NAME: Label = ("任务名称", "Job name")
TASK_TYPE: Label = ("任务类型", "Task type")
ROLES: Label = ("角色", "Roles")
CLUSTER: Label = ("集群", "Cluster")
NODE_SELECTION: Label = ("节点选择", "Node selection (key=value)")
SELECTED_NODES: Label = ("已选节点数", "Selected node count")
GPUS: Label = ("每个 Worker 的 GPU 数", "GPUs per Worker")
DEVICES: Label = ("设备资源", "Device resources")
IMAGE: Label = ("镜像", "Image")
PREPARE: Label = ("准备脚本（Ray 启动前）", "Prepare script (before Ray starts)")
ENV: Label = ("环境变量", "Environment variables")
HOST_DIR: Label = ("存储挂载 · 主机目录", "Storage mount · host directory")
OBJECT_STORAGE: Label = ("存储挂载 · 对象存储", "Storage mount · object storage")
HEADER: Label = ("选择 Head 节点", "Header role")
NETWORK: Label = ("跨集群网络域", "Network domain")
SSH: Label = ("SSH 公钥注入", "SSH public keys")
RUN_SCRIPT: Label = (
    "运行脚本（Ray 集群检查后，由 Head Task 执行）",
    "Run script (after the Ray check)",
)
TENSORBOARD: Label = ("TensorBoard 日志目录", "TensorBoard log directory")
#: Step 4: what the seed says to check in the YAML preview, and the rules that check each item.
CHECKLIST: tuple[tuple[Label, tuple[str, ...]], ...] = (
    (("metadata.name", "metadata.name"), ("JOB-NAME",)),
    (
        (
            "spec.tasks 中的角色名称、head、只含单值条件的 nodeSelector 和副本数，并与管理员提供的全局匹配记录对照",
            "spec.tasks: role names, head, single-value nodeSelector and replicas, against the "
            "admin's global match",
        ),
        ("JOB-ROLE-NAME", "JOB-SELECTOR-", "K8S-SELECTOR-"),
    ),
    (
        (
            "所有 Task 模板的副本数之和等于 RLinf cluster.num_nodes；共享同一批 GPU 的组件没有被拆成重复申请资源的角色",
            "the replicas of all Task templates add up to cluster.num_nodes; components sharing "
            "GPUs are not split into roles that request them twice",
        ),
        ("PLN-WORKER-COUNT", "PLN-SHARED-NODES", "PLN-GPU-", "PLN-IDLE-GPU"),
    ),
    (
        (
            "主容器镜像与提交前确认的地址和版本一致，各角色运行时相互兼容；需要精确复现时，还应保存该版本实际对应的 digest",
            "the main container's image is the confirmed address and version, runtimes are "
            "compatible across roles; the digest is recorded for reproducing",
        ),
        ("JOB-IMAGE", "REC-IMAGE-DIGEST"),
    ),
    (
        (
            "环境变量、设备请求和挂载，并确认挂载没有意外遮蔽镜像中的代码或配置目录",
            "environment variables, device requests and mounts; no mount hides the image's code "
            "or config directory",
        ),
        ("JOB-ENV-", "PLN-DEVICE-", "PLN-ENV-COVER", "JOB-MOUNT-SHADOW"),
    ),
    (
        (
            "主机目录的 hostPath.path，或对象存储的 StorageClass/PVC 映射，以及每个容器的 mountPath",
            "hostPath.path of host directories, or the StorageClass/PVC of object storage, and "
            "every container's mountPath",
        ),
        ("JOB-HOSTPATH", "JOB-STORAGE-", "JOB-MOUNT-PATH", "JOB-CHECKPOINT-", "K8S-STORAGECLASS"),
    ),
    (
        (
            "Header 角色对应模板的副本数恰好为 1，以及它的准备脚本、运行脚本和 TensorBoard 目录",
            "the Header role's template has exactly 1 replica; its prepare script, run script and "
            "TensorBoard directory",
        ),
        ("PLN-HEADER", "JOB-RUN-SCRIPT", "JOB-TENSORBOARD", "JOB-ENTRYPOINT"),
    ),
    (("可选的网络域和 SSH 公钥", "the optional network domain and SSH public keys"), ("SEC-SSH-",)),
    (
        (
            "保护敏感信息：环境变量、准备脚本、运行脚本和 YAML 中不得包含密码、私钥、访问令牌或对象存储密钥",
            "no password, private key, access token or storage key in env, scripts or YAML",
        ),
        ("SEC-SECRET", "SEC-REDACTED"),
    ),
)
CONTAINER = "template.spec.containers[0]"


@dataclass
class SheetField:
    """One console field: its label, its values (each copied on its own) and its findings."""

    label: Label
    values: list[str]
    paths: tuple[str, ...] = ()  # Job paths whose findings belong here (longest prefix wins)
    note: Text | None = None
    findings: list[Finding] = field(default_factory=list)
    rules: tuple[str, ...] = ()  # rule ids (prefixes) placed here when inside ``role_path``
    role_path: str | None = None
    #: what to do when there is no value (None: leave the console field empty)
    empty: Text | None = None

    def __post_init__(self) -> None:
        # Redacted here, not at the exit: the HTML's copy button carries each value base64-
        # encoded, where a password under its env name is no longer recognisable.
        self.values = [redact(value) for value in self.values]


@dataclass
class SheetSection:
    """A step of the console, or one role's part of Step 2."""

    title: Label
    fields: list[SheetField]
    role: str | None = None


@dataclass
class CheckItem:
    label: Label
    rules: tuple[str, ...]
    findings: list[Finding] = field(default_factory=list)

    @property
    def checked(self) -> bool:
        """No error or warning of the item's rules (infos teach, they do not flag)."""
        return not any(f.severity is not Severity.INFO for f in self.findings)


@dataclass
class ConsoleSheet:
    job: str
    site: SiteProfile
    sections: list[SheetSection]
    checklist: list[CheckItem]
    other: list[Finding]  # findings on the RLinf config or nowhere on the pages

    def fields(self) -> list[SheetField]:
        return [f for s in self.sections for f in s.fields]


def _role_fields(
    job: Job,
    index: int,
    role: Role,
    inventory: Inventory | None,
    cluster: str | None,
) -> list[SheetField]:
    base = f"spec.tasks[{index}]"
    container = f"{base}.{CONTAINER}"
    matched = inventory.matching(role.node_selector) if inventory and role.node_selector else None
    selected = Text(
        "Must equal this role's Workers: {workers}{header}.",
        workers=role.replicas,
        header=Text(" (the Header's is 1)") if role.head else "",
    )
    if matched is not None:
        selected = Text(
            "Must equal this role's Workers: {workers}; the inventory matches {count}: {nodes}.",
            workers=role.replicas,
            count=len(matched),
            nodes=", ".join(n.name for n in matched[:8]) or "-",
        )
    hosts = [m for m in role.mounts if m.kind == "hostPath"]
    stores = [m for m in role.mounts if m.kind == "storage"]
    return [
        SheetField(
            CLUSTER,
            [cluster] if cluster else [],
            note=Text(
                "Filters the form's nodes, devices and StorageClasses; not written to the Job."
            ),
            empty=Text("(choose the target cluster; no inventory named one)"),
        ),
        SheetField(
            NODE_SELECTION,
            [f"{k}={v}" for k, v in role.node_selector.items()],
            (f"{base}.template.spec.nodeSelector",),
            Text("One value per key; the admin confirms the whole selection by a global match."),
            empty=Text("(ask the platform admin: see the request to the admin)"),
        ),
        SheetField(SELECTED_NODES, [str(role.replicas)], (f"{base}.replicas",), selected),
        SheetField(
            GPUS,
            [str(role.gpus)],
            (f"{container}.resources",),
            Text(
                "Total for the role: {workers} x {gpus} = {total} GPU(s).",
                workers=role.replicas,
                gpus=role.gpus,
                total=role.replicas * role.gpus,
            ),
        ),
        SheetField(
            DEVICES,
            [f"{k}={v}" for k, v in role.devices.items()],
            rules=("PLN-DEVICE-", "K8S-CAPACITY"),
            role_path=base,
        ),
        SheetField(
            IMAGE,
            [role.image] if role.image else [],
            (f"{container}.image",),
            None
            if role.image
            else Text("Required: the image your team verified (never a placeholder)."),
            empty=Text("(required: to fill in)"),
        ),
        SheetField(
            PREPARE,
            [role.prepare_script] if role.prepare_script else [],
            (f"{base}.prepareScript",),
        ),
        SheetField(ENV, [f"{k}={v}" for k, v in role.env.items()], (f"{container}.env",)),
        SheetField(
            HOST_DIR,
            [_mount_value(m) for m in hosts],
            (f"{container}.volumeMounts", f"{base}.template.spec.volumes"),
            Text("源路径 -> 挂载到 Worker (source path -> container path)") if hosts else None,
        ),
        SheetField(
            OBJECT_STORAGE,
            [_mount_value(m) for m in stores],
            ("spec.storage",) if index == _first_storage_role(job) else (),
            Text("StorageClass -> 挂载到 Worker (container path)") if stores else None,
        ),
    ]


def _first_storage_role(job: Job) -> int:
    return next(
        (i for i, r in enumerate(job.roles) if any(m.kind == "storage" for m in r.mounts)), 0
    )


def _mount_value(mount: Mount) -> str:
    ro = " (ro)" if mount.read_only else ""
    return f"{mount.source} -> {mount.mount_path}{ro}"


def build_sheet(planned: PlannedJob, cluster: str | None = None) -> ConsoleSheet:
    """The console's pages for the planned Job, each finding placed beside the field it concerns;
    ``cluster``: the target cluster when it is not the plan's."""
    job, plan, inventory, site = planned.built, planned.plan, planned.inventory, planned.site
    findings = planned.findings
    cluster = cluster or planned.target_cluster
    template = TEMPLATE_TITLES[plan.template if plan is not None else "custom"]
    header = next((r.name for r in job.roles if r.head), None)
    step1 = SheetSection(
        STEP_TITLES[0],
        [
            SheetField(JOB_NAME, [job.name], ("metadata.name",)),
            SheetField(
                TASK_TYPE,
                [template.render("zh")],
                note=Text(
                    "Only pre-fills roles and is not written to the Job; then rename, add or "
                    "delete roles until they are exactly the roles below."
                ),
            ),
            SheetField(
                ROLES,
                [r.name for r in job.roles],
                ("spec.tasks",),
                Text(
                    "In this order (it fixes RLINF_NODE_RANK); the Header is '{header}'.",
                    header=header or "-",
                ),
            ),
        ],
    )
    roles = [
        SheetSection(STEP_TITLES[1], _role_fields(job, i, r, inventory, cluster), role=r.name)
        for i, r in enumerate(job.roles)
    ]
    step3 = SheetSection(
        STEP_TITLES[2],
        [
            SheetField(
                HEADER,
                [header] if header else [],
                tuple(f"spec.tasks[{i}].head" for i in range(len(job.roles))),
                Text("Its selected node count must be 1."),
            ),
            SheetField(
                NETWORK, [job.network_domain] if job.network_domain else [], ("spec.networkDomain",)
            ),
            SheetField(SSH, list(job.ssh_keys), ("spec.sshKeys",)),
            SheetField(RUN_SCRIPT, [job.run_script] if job.run_script else [], ("spec.runScript",)),
            SheetField(
                TENSORBOARD,
                [job.tensorboard_log_dir] if job.tensorboard_log_dir else [],
                ("spec.tensorboard",),
            ),
        ],
    )
    sections = [step1, *roles, step3]
    checklist = [CheckItem(label, rules) for label, rules in CHECKLIST]
    other = []
    all_fields = [f for s in sections for f in s.fields]
    for finding in findings:
        for item in checklist:
            if finding.rule_id.startswith(item.rules):
                item.findings.append(finding)
        place = _place(finding, all_fields)
        if place is not None:
            place.findings.append(finding)
        elif not any(finding in item.findings for item in checklist):
            other.append(finding)
    return ConsoleSheet(job.name, site, sections, checklist, other)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((prefix + ".", prefix + "["))


def _place(finding: Finding, fields: list[SheetField]) -> SheetField | None:
    """The field a finding belongs beside: a field bound to its rule within its role, else the
    field whose path is the longest prefix of the finding's path."""
    for candidate in fields:
        if (
            candidate.rules
            and finding.rule_id.startswith(candidate.rules)
            and candidate.role_path
            and _under(finding.path, candidate.role_path)
        ):
            return candidate
    best, length = None, -1
    for candidate in fields:
        for path in candidate.paths:
            if _under(finding.path, path) and len(path) > length:
                best, length = candidate, len(path)
    return best
