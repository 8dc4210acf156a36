"""The same plan as KubeRay ``ray.io/v1`` RayJob or RayCluster: the Header becomes the head group.

KubeRay owns each pod's start command. With the annotation ``ray.io/overwrite-container-cmd``
it runs our container command instead and hands us its generated ``ray start`` in
``$KUBERAY_GEN_RAY_START_CMD``: so each pod runs the role's prepare script, then that command,
exactly as RLark runs the prepare script before Ray starts. ``RLINF_NODE_RANK`` is in the
container's environment, so it is set before ``ray start`` (RLinf reads it there).

Pods of one worker group share one template, so they cannot differ in ``RLINF_NODE_RANK``.
Where ranks matter (``cluster.node_groups``, or Workers that differ) every rank gets a worker
group of its own (replicas 1); where they do not, the ranks stay unset everywhere and each role
is one group of interchangeable replicas (RLinf then ranks nodes itself, the driver's head first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ... import shell
from ...contract import DISTRIBUTION, MANAGED_BY_LABEL, RANK_ENV, RANK_LABEL, RUN_SCRIPT_ANNOTATION
from ...contract import KUBERAY_OVERWRITE_CMD_ANNOTATION as OVERWRITE_CMD
from ...findings import Finding, Severity
from ...i18n import Text
from ..device_names import DEVICE_NAME_RULE, DEVICE_NAME_SOURCE, device_name_hits
from ..job import MAIN_CONTAINER, Job, Mount, Role
from ..site import SiteProfile
from .schema import API_VERSION, KINDS, SOURCE, kuberay_schema_findings

SHELL = ["/bin/bash", "-lc", "--"]
PREPARE_MARK = "# --- prepare script (RLark runs it before Ray starts) ---"
START_MARK = "# --- KubeRay's generated ray start ---"
START_LINES = ("ulimit -n 65536", 'eval "$KUBERAY_GEN_RAY_START_CMD"')
#: The operator sends the entrypoint to the head's dashboard as it is, so the script reaches the
#: head's shell unchanged (K8sJobMode pastes it into a submitter pod's command line: one more
#: layer of shell quoting, and one more pod).
SUBMISSION_MODE = "HTTPMode"
SOURCE_RANKS = f"rlinf-cluster-spec §3.2 ({RANK_ENV}); kuberay-crds/README.md"


@dataclass
class ExportOptions:
    """What KubeRay asks for beyond the Job; ``node_groups`` None: the RLinf config is unknown."""

    kind: str = "RayJob"
    node_groups: bool | None = None
    shutdown_after_job_finishes: bool = True
    ttl_seconds_after_finished: int | None = 600
    active_deadline_seconds: int | None = None
    claims: dict[str, str] = field(default_factory=dict)  # storage mount name -> existing PVC
    ray_version: str | None = None


@dataclass(frozen=True)
class Group:
    """One KubeRay group: ``ranks`` None when RLINF_NODE_RANK stays unset on its pods."""

    name: str
    role: str
    head: bool
    replicas: int
    ranks: tuple[int, ...] | None
    gpus: int
    devices: tuple[tuple[str, int], ...]


@dataclass
class Export:
    """The manifest (None when the Job cannot be exported) and what the mapping had to say."""

    manifest: dict[str, Any] | None
    findings: list[Finding]
    groups: list[Group] = field(default_factory=list)


def _finding(
    rule_id: str, severity: Severity, path: str, message: Text, fix: Text | str
) -> Finding:
    return Finding(rule_id, severity, path, message, fix, SOURCE)


def group_base(name: str) -> str:
    """A role name as a worker group name and label value: [a-z0-9-], at most 40 characters."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:40].strip("-") or "role"


def ranks_matter(job: Job, node_groups: bool | None) -> tuple[bool, Text]:
    """Whether every pod needs its own RLINF_NODE_RANK, and why (shown as a finding)."""
    workers = [r for r in job.roles if not r.head]
    if node_groups is None:
        return True, Text(
            "Without the RLinf config it is unknown whether cluster.node_groups exist, so every"
            " node rank gets a worker group of its own (replicas 1) with RLINF_NODE_RANK in its"
            " environment: this is right either way."
        )
    if node_groups:
        return True, Text(
            "The config has cluster.node_groups, so RLinf requires RLINF_NODE_RANK on every node;"
            " the pods of one worker group share one template, so each node rank gets a worker"
            " group of its own (replicas 1) with its rank in the environment."
        )
    if not job.roles or not job.roles[0].head:
        return True, Text(
            "The Header is not the first role, so RLinf's own order (the driver's node first)"
            " would not match the plan: each node rank gets a worker group of its own with"
            " RLINF_NODE_RANK set."
        )
    if len(workers) > 1:
        return True, Text(
            "The Workers differ between roles; without RLINF_NODE_RANK RLinf orders nodes by"
            " accelerator type and IP, not by role, so each node rank gets a worker group of its"
            " own with RLINF_NODE_RANK set."
        )
    return False, Text(
        "No cluster.node_groups and one kind of Worker: RLINF_NODE_RANK stays unset on every pod"
        " (RLinf then puts the driver's head node at rank 0 and orders the rest by accelerator"
        " type and IP), and each role is one worker group of interchangeable replicas."
    )


def start_script(prepare: str) -> str:
    """The container's script: the role's prepare script, then KubeRay's own ``ray start``."""
    body = shell.user_script(prepare)
    lines = [PREPARE_MARK, *body] if body else []
    return shell.script(["set -e", *lines, START_MARK, *START_LINES], strict=False)


def entrypoint(run_script: str) -> str:
    """The RayJob's entrypoint: the run script (cd, Ray members check, RLinf) under bash."""
    return shell.command("bash", "-c", run_script)


def _limits(role: Role, gpu_resource: str) -> dict[str, int]:
    limits = {gpu_resource: role.gpus} if role.gpus else {}
    limits.update(role.devices)
    return limits


def _start_params(role: Role) -> dict[str, str]:
    """KubeRay pastes each ``--key=value`` into the shell command it ``eval``s, so every value
    is one quoted shell word (the resources' JSON names the Job's device resources)."""
    params = {"num-gpus": str(role.gpus)}
    if role.devices:
        params["resources"] = json.dumps(dict(sorted(role.devices.items())))
    if role.head:
        params["dashboard-host"] = "0.0.0.0"
    return {key: shell.quote(value) for key, value in params.items()}


class _Builder:
    def __init__(self, job: Job, options: ExportOptions, per_rank: bool, site: SiteProfile) -> None:
        self.job, self.options, self.per_rank, self.site = job, options, per_rank, site
        self.findings: list[Finding] = []
        self.groups: list[Group] = []
        self._names: set[str] = set()

    def _volume(self, mount: Mount) -> dict[str, Any]:
        if mount.kind == "hostPath":
            return {"name": mount.name, "hostPath": {"path": mount.source}}
        claim = self.options.claims.get(mount.name) or self.job.claim_name(mount)
        return {"name": mount.name, "persistentVolumeClaim": {"claimName": claim}}

    def template(self, role: Role, index: int | None, rank: int | None) -> dict[str, Any]:
        env = [{"name": k, "value": v} for k, v in role.env.items()]
        if rank is not None:
            env.append({"name": RANK_ENV, "value": str(rank)})
        container: dict[str, Any] = {
            "name": MAIN_CONTAINER,
            "image": role.image,
            "command": list(SHELL),
            "args": [start_script(role.prepare_script)],
        }
        if env:
            container["env"] = env
        limits = _limits(role, self.job.gpu_resource)
        if limits:
            container["resources"] = {"limits": limits}
        if role.mounts:
            container["volumeMounts"] = [
                {
                    "name": m.name,
                    "mountPath": m.mount_path,
                    **({"readOnly": True} if m.read_only else {}),
                }
                for m in role.mounts
            ]
        # the site's Worker labels, so the monitor finds each role and Worker as on RLark; the
        # role's full name (which a label value may not hold) in an annotation of the same key
        labels = {self.site.task_label: group_base(role.name)}
        if index is not None:
            labels[self.site.index_label] = str(index)
        if rank is not None:
            labels[RANK_LABEL] = str(rank)
        spec: dict[str, Any] = {}
        if role.node_selector:
            spec["nodeSelector"] = dict(role.node_selector)
        spec["containers"] = [container]
        if role.mounts:
            spec["volumes"] = [self._volume(m) for m in role.mounts]
        metadata = {"labels": labels, "annotations": {self.site.task_label: role.name}}
        return {"metadata": metadata, "spec": spec}

    def _name(self, base: str) -> str:
        name, number = base, 2
        while name in self._names:
            name, number = f"{base}-{number}", number + 1
        self._names.add(name)
        return name

    def _group(self, role: Role, name: str, replicas: int, ranks: tuple[int, ...] | None) -> None:
        devices = tuple(sorted(role.devices.items()))
        self.groups.append(Group(name, role.name, role.head, replicas, ranks, role.gpus, devices))

    def head(self, role: Role, rank: int) -> dict[str, Any]:
        ranked = rank if self.per_rank else None
        self._group(role, "headgroup", 1, (rank,) if self.per_rank else None)
        return {"rayStartParams": _start_params(role), "template": self.template(role, 0, ranked)}

    def workers(self, role: Role, ranks: range) -> list[dict[str, Any]]:
        def spec(name: str, replicas: int, template: dict[str, Any]) -> dict[str, Any]:
            return {
                "groupName": name,
                "replicas": replicas,
                "minReplicas": replicas,
                "maxReplicas": replicas,
                "rayStartParams": _start_params(role),
                "template": template,
            }

        base = group_base(role.name)
        if not self.per_rank:
            name = self._name(base)
            self._group(role, name, role.replicas, None)
            return [spec(name, role.replicas, self.template(role, None, None))]
        groups = []
        for index, rank in enumerate(ranks):
            name = self._name(f"{base}-rank-{rank}")
            self._group(role, name, 1, (rank,))
            groups.append(spec(name, 1, self.template(role, index, rank)))
        return groups


def _head_problem(job: Job) -> Finding | None:
    heads = [r for r in job.roles if r.head]
    if len(heads) == 1 and heads[0].replicas == 1:
        return None
    return _finding(
        "KRAY-HEAD",
        Severity.ERROR,
        "spec.tasks",
        Text(
            "KubeRay needs exactly one head: the Job has {count} Header role(s), and the Header"
            " must have exactly 1 Worker.",
            count=len(heads),
        ),
        Text("Mark one role as the Header with 1 Worker (node rank 0), then export again."),
    )


def _unsupported(job: Job, options: ExportOptions) -> list[Finding]:
    """RLark fields KubeRay has no field for: named, never dropped silently."""
    found = []
    if job.tensorboard_log_dir:
        found.append(
            _finding(
                "KRAY-NO-FIELD",
                Severity.WARNING,
                "spec.tensorboard",
                Text(
                    "RLark's TensorBoard sidecar ({directory}) has no KubeRay field: the manifest"
                    " does not carry it.",
                    directory=job.tensorboard_log_dir,
                ),
                Text(
                    "Run TensorBoard yourself on the logs under {directory} (e.g. a sidecar"
                    " container added to the head template, or `kubectl port-forward`).",
                    directory=job.tensorboard_log_dir,
                ),
            )
        )
    if job.network_domain:
        found.append(
            _finding(
                "KRAY-NO-FIELD",
                Severity.WARNING,
                "spec.networkDomain",
                Text(
                    "RLark's network domain '{domain}' has no KubeRay field: the manifest does not"
                    " carry it.",
                    domain=job.network_domain,
                ),
                Text("Ask the cluster admin how pods reach that network on this cluster."),
            )
        )
    if job.ssh_keys:
        found.append(
            _finding(
                "KRAY-NO-FIELD",
                Severity.WARNING,
                "spec.sshKeys",
                Text(
                    "RLark's SSH keys ({keys}) have no KubeRay field: the pods get no"
                    " authorized_keys.",
                    keys=", ".join(job.ssh_keys),
                ),
                Text("Use `kubectl exec` into the pods instead of SSH."),
            )
        )
    if options.kind == "RayCluster" and job.run_script.strip():
        found.append(
            _finding(
                "KRAY-RUN-SCRIPT",
                Severity.INFO,
                "spec.runScript",
                Text(
                    "A RayCluster runs no script: the run script is kept in the annotation {key};"
                    " once every pod is up, run it on the head pod (or export a RayJob, which"
                    " runs it as its entrypoint).",
                    key=RUN_SCRIPT_ANNOTATION,
                ),
                Text("Export --kind RayJob to have KubeRay run it once the cluster is ready."),
            )
        )
    return found


def _claims(job: Job, options: ExportOptions) -> list[Finding]:
    """Object storage: KubeRay creates no PVC, so each claim must exist before the apply."""
    found, seen = [], set()
    for role in job.roles:
        for mount in role.mounts:
            if mount.kind != "storage" or mount.name in seen:
                continue
            seen.add(mount.name)
            claim = options.claims.get(mount.name) or job.claim_name(mount)
            found.append(
                _finding(
                    "KRAY-PVC",
                    Severity.WARNING,
                    f"volumes.{mount.name}",
                    Text(
                        "KubeRay creates no storage: the PVC '{claim}' (StorageClass"
                        " '{storage_class}', mounted at {path}) must exist in namespace"
                        " '{namespace}' before this is applied.",
                        claim=claim,
                        storage_class=mount.source,
                        path=mount.mount_path,
                        namespace=job.namespace,
                    ),
                    Text(
                        "Create a ReadWriteMany PVC '{claim}' from StorageClass '{storage_class}',"
                        " or name an existing one with --claim {mount}=CLAIM.",
                        claim=claim,
                        storage_class=mount.source,
                        mount=mount.name,
                    ),
                )
            )
    return found


def cluster_spec(
    job: Job, options: ExportOptions, site: SiteProfile
) -> tuple[dict[str, Any], list[Group], bool, Text]:
    """``rayClusterSpec`` (a RayCluster's spec), its groups, and the rank choice with its reason."""
    per_rank, why = ranks_matter(job, options.node_groups)
    builder = _Builder(job, options, per_rank, site)
    spec: dict[str, Any] = {}
    if options.ray_version:
        spec["rayVersion"] = options.ray_version
    workers: list[dict[str, Any]] = []
    for role, ranks in job.node_rank_ranges():
        if role.head:
            spec["headGroupSpec"] = builder.head(role, ranks.start)
        else:
            workers += builder.workers(role, ranks)
    spec["workerGroupSpecs"] = workers
    groups = sorted(builder.groups, key=lambda g: not g.head)
    return spec, groups, per_rank, why


def export_job(job: Job, options: ExportOptions | None = None, *, site: SiteProfile) -> Export:
    """The Job as a ``ray.io/v1`` manifest, validated against KubeRay's CRD, with findings.

    ``site`` names the Worker labels the pods carry.
    """
    options = options or ExportOptions()
    if options.kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}")
    problem = _head_problem(job)
    if problem is not None:
        return Export(None, [problem])
    devices = [
        Finding(DEVICE_NAME_RULE, Severity.ERROR, path, message, fix, DEVICE_NAME_SOURCE)
        for path, message, fix in device_name_hits(job, site)
    ]
    if devices:  # limits and rayStartParams would carry a name `check` refuses: none is written
        return Export(None, devices)
    spec, groups, per_rank, why = cluster_spec(job, options, site)
    annotations = {**job.annotations, OVERWRITE_CMD: "true"}
    if options.kind == "RayCluster":
        if job.run_script.strip():
            annotations[RUN_SCRIPT_ANNOTATION] = job.run_script
        body = spec
    else:
        body = {"entrypoint": entrypoint(job.run_script), "submissionMode": SUBMISSION_MODE}
        body["shutdownAfterJobFinishes"] = options.shutdown_after_job_finishes
        if options.shutdown_after_job_finishes and options.ttl_seconds_after_finished is not None:
            body["ttlSecondsAfterFinished"] = options.ttl_seconds_after_finished
        if options.active_deadline_seconds is not None:
            body["activeDeadlineSeconds"] = options.active_deadline_seconds
        body["rayClusterSpec"] = spec
    manifest = {
        "apiVersion": API_VERSION,
        "kind": options.kind,
        "metadata": {
            "name": job.name,
            "namespace": job.namespace,
            "labels": {MANAGED_BY_LABEL: DISTRIBUTION},  # how ``list`` finds the objects we made
            "annotations": annotations,
        },
        "spec": body,
    }
    layout = _finding(
        "KRAY-RANKS",
        Severity.INFO,
        "spec.tasks",
        why,
        Text("Per-rank groups: RLINF_NODE_RANK is in each group's environment.")
        if per_rank
        else Text("Nothing to do; add cluster.node_groups and RLINF_NODE_RANK is set everywhere."),
    )
    findings = [layout, *_unsupported(job, options), *_claims(job, options)]
    findings += kuberay_schema_findings(manifest)
    return Export(manifest, findings, groups)
