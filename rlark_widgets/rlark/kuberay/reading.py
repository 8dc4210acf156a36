"""A RayJob or RayCluster read back as the Job the rules know (roles in node-rank order).

``check`` runs the rule catalogue on KubeRay YAML through this reading: each group is a role's
Workers, ``RLINF_NODE_RANK`` in a group's environment fixes its place (it is taken out of the
role's environment, since the export sets it), and findings point back at the KubeRay fields.
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from typing import Any

from ...contract import KUBERAY_OVERWRITE_CMD_ANNOTATION as OVERWRITE_CMD
from ...contract import RANK_ENV, RUN_SCRIPT_ANNOTATION
from ...findings import Finding, Severity
from ...i18n import Text
from ..device_names import is_native_resource
from ..job import Job, Mount, Role
from ..site import SiteProfile
from .manifest import (
    PREPARE_MARK,
    SOURCE_RANKS,
    START_MARK,
)

HEAD_ROLE = "header"


@dataclass
class _Group:
    path: str
    name: str
    role: Role
    rank: int | None
    rank_text: str | None


@dataclass
class Reading:
    """The Job, where each role sits in the manifest, and what reading it found wrong."""

    job: Job
    role_paths: list[str]
    ranked: bool
    findings: list[Finding] = field(default_factory=list)
    run_script_path: str = "spec.entrypoint"


def cluster_spec_path(manifest: dict[str, Any]) -> str:
    return "spec.rayClusterSpec" if manifest.get("kind") == "RayJob" else "spec"


def prepare_of(args: list[Any] | None) -> str:
    """The prepare script inside a start script the export wrote (empty for anything else)."""
    script = str(args[0]) if args else ""
    if PREPARE_MARK not in script:
        return ""
    body = script.split(PREPARE_MARK + "\n", 1)[1].split(START_MARK, 1)[0]
    return body.rstrip("\n") + "\n" if body.strip() else ""


def run_script_of(manifest: dict[str, Any]) -> str:
    """A RayJob's entrypoint without the ``bash -c`` the export wraps it in."""
    if manifest.get("kind") != "RayJob":
        return str(
            ((manifest.get("metadata") or {}).get("annotations") or {}).get(
                RUN_SCRIPT_ANNOTATION, ""
            )
        )
    entry = str((manifest.get("spec") or {}).get("entrypoint") or "")
    try:
        words = shlex.split(entry)
    except ValueError:
        return entry
    return words[2] if len(words) == 3 and words[:2] == ["bash", "-c"] else entry


def _role(
    group: dict[str, Any], head: bool, replicas: int, site: SiteProfile
) -> tuple[Role, str | None]:
    template = group.get("template") or {}
    metadata, spec = template.get("metadata") or {}, template.get("spec") or {}
    container = (spec.get("containers") or [{}])[0]  # KubeRay's Ray container is the first
    name = (metadata.get("annotations") or {}).get(site.task_label) or (
        metadata.get("labels") or {}
    ).get(site.task_label)
    name = name or (HEAD_ROLE if head else str(group.get("groupName", "")))
    env, rank = {}, None
    for entry in container.get("env") or []:
        if entry.get("name") == RANK_ENV:
            rank = str(entry.get("value", ""))
        else:
            env[entry["name"]] = str(entry.get("value", ""))
    limits = dict((container.get("resources") or {}).get("limits") or {})
    gpus = limits.pop(site.gpu_resource, 0)
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    mounts = []
    for vm in container.get("volumeMounts") or []:
        volume = volumes.get(vm["name"], {})
        volume_name, at, read_only = vm["name"], vm["mountPath"], bool(vm.get("readOnly"))
        if "hostPath" in volume:
            path = volume["hostPath"]["path"]
            mounts.append(Mount(volume_name, "hostPath", path, at, read_only))
        else:
            claim = (volume.get("persistentVolumeClaim") or {}).get("claimName", "")
            mounts.append(Mount(volume_name, "storage", claim, at, read_only))
    role = Role(
        name=name,
        replicas=replicas,
        image=container.get("image", ""),
        head=head,
        gpus=int(gpus),
        devices={
            k: int(v) for k, v in limits.items() if str(v).isdigit() and not is_native_resource(k)
        },
        node_selector=dict(spec.get("nodeSelector") or {}),
        env=env,
        prepare_script=prepare_of(container.get("args")),
        mounts=mounts,
    )
    return role, rank


def _groups(manifest: dict[str, Any], site: SiteProfile) -> list[_Group]:
    base = cluster_spec_path(manifest)
    spec = (
        manifest["spec"]["rayClusterSpec"] if manifest.get("kind") == "RayJob" else manifest["spec"]
    )
    groups = []
    role, rank = _role(spec["headGroupSpec"], True, 1, site)
    groups.append(_Group(f"{base}.headGroupSpec", "headgroup", role, _int(rank), rank))
    for index, worker in enumerate(spec.get("workerGroupSpecs") or []):
        replicas = int(worker.get("replicas", worker.get("minReplicas", 0)) or 0)
        role, rank = _role(worker, False, replicas, site)
        path, name = f"{base}.workerGroupSpecs[{index}]", str(worker.get("groupName", ""))
        groups.append(_Group(path, name, role, _int(rank), rank))
    return groups


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.lstrip("-").isdigit() else None


def rank_problem(path: str, message: Text) -> Finding:
    return Finding(
        "KRAY-RANKS",
        Severity.ERROR,
        path,
        message,
        Text(
            "Give every group RLINF_NODE_RANK (one rank per group, replicas 1, 0..N-1), or none;"
            " `rlark-migrate export` writes it so."
        ),
        SOURCE_RANKS,
    )


def _order(groups: list[_Group]) -> tuple[list[_Group], bool, list[Finding]]:
    """Groups in node-rank order; RLinf's all-or-none and 0..N-1 rules as findings."""
    ranked = [g for g in groups if g.rank_text is not None]
    if not ranked:
        return groups, False, []
    if len(ranked) != len(groups):
        unset = ", ".join(g.path for g in groups if g.rank_text is None)
        return (
            groups,
            True,
            [
                rank_problem(
                    unset,
                    Text(
                        "RLINF_NODE_RANK is set in some groups and not in {groups}: RLinf requires it"
                        " on all nodes or on none.",
                        groups=unset,
                    ),
                )
            ],
        )
    findings = []
    for group in groups:
        if group.rank is None or group.rank < 0:
            findings.append(
                rank_problem(
                    group.path,
                    Text("RLINF_NODE_RANK '{value}' is not a node rank.", value=group.rank_text),
                )
            )
        elif group.role.replicas != 1:
            findings.append(
                rank_problem(
                    f"{group.path}.replicas",
                    Text(
                        "{count} pods of one group would all get RLINF_NODE_RANK {rank}.",
                        count=group.role.replicas,
                        rank=group.rank,
                    ),
                )
            )
    ranks = sorted(g.rank for g in groups if g.rank is not None)
    if not findings and ranks != list(range(len(groups))):
        findings.append(
            rank_problem(
                "spec",
                Text(
                    "RLINF_NODE_RANK values {ranks} are not unique and continuous from 0.",
                    ranks=", ".join(map(str, ranks)),
                ),
            )
        )
    return sorted(groups, key=lambda g: (g.rank is None, g.rank or 0)), True, findings


def read_kuberay(manifest: dict[str, Any], site: SiteProfile) -> Reading:
    """The manifest as a Job (raises KeyError/TypeError/ValueError on shapes the schema refuses).

    ``site`` names the role label and the GPU resource.
    """
    ordered, ranked, findings = _order(_groups(manifest, site))
    roles: list[Role] = []
    paths: list[str] = []
    for group in ordered:
        previous = roles[-1] if roles else None
        if previous is not None and previous.name == group.role.name:
            if ranked and previous == dataclasses.replace(group.role, replicas=previous.replicas):
                previous.replicas += group.role.replicas  # one role's Workers, rank after rank
                continue
            group.role.name = group.name  # differs from its role's other groups: its own name
        roles.append(group.role)
        paths.append(group.path)
    metadata = manifest.get("metadata") or {}
    annotations = {
        k: v
        for k, v in (metadata.get("annotations") or {}).items()
        if k not in (OVERWRITE_CMD, RUN_SCRIPT_ANNOTATION)
    }
    job = Job(
        name=metadata.get("name", ""),
        roles=roles,
        run_script=run_script_of(manifest),
        namespace=metadata.get("namespace", "default"),
        annotations=annotations,
        api_version=site.api_version,
        kind=site.kind,
        gpu_resource=site.gpu_resource,
    )
    where = "spec.entrypoint" if manifest.get("kind") == "RayJob" else "metadata.annotations"
    return Reading(job, paths, ranked, findings, where)
