"""The RLark Job (rlark.io/v1alpha1, kind Job) as plain data, and its Kubernetes manifest shape.

Field names are ours, the concepts are the seeds' (this tool's model of the console's Job: RLark's schema is not published). A Job holds one Task template
per role, in role order: that order times each role's replicas fixes ``RLINF_NODE_RANK``. The
manifest is a Kubernetes object: ``spec.tasks[].template`` is a PodTemplateSpec whose main
container RLark starts with its own Ray Head/Worker command.
"""

from __future__ import annotations

import copy
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal

from .site import SiteProfile, example_site

MAIN_CONTAINER = "main"


def _example_api_version() -> str:
    return example_site().api_version


def _example_kind() -> str:
    return example_site().kind


def _example_gpu() -> str:
    return example_site().gpu_resource


MountKind = Literal["hostPath", "storage"]


@dataclass
class Mount:
    """A volume in every Worker of a role: a node directory (hostPath) or object storage.

    For object storage ``source`` is a StorageClass name: RLark creates one PVC per entry of
    ``spec.storage`` from it. It is never a bucket, an object key or a laptop path. ``claim``
    is the claim name as written (``""``: RLark's ``<job>-<name>``); a claim with no StorageClass
    (``source == ""``) is an existing PVC, mounted as it is (resuming from it).
    """

    name: str
    kind: MountKind
    source: str
    mount_path: str
    read_only: bool = False
    claim: str = ""


@dataclass
class Role:
    """One role: a Task template from which RLark creates ``replicas`` Workers (Pods, Ray nodes)."""

    name: str
    replicas: int
    image: str = ""
    head: bool = False
    gpus: int = 0
    devices: dict[str, int] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    prepare_script: str = ""
    mounts: list[Mount] = field(default_factory=list)
    # What the Job keeps as written without reading it: the pod template's metadata, other
    # containers (sidecars, at their place among the containers) and volumes no mount of the
    # main container uses. RLark receives them exactly as they were.
    template_metadata: dict[str, Any] = field(default_factory=dict)
    sidecars: list[dict[str, Any]] = field(default_factory=list)
    main_index: int = 0
    other_volumes: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Job:
    """An RLark Job: roles plus the run script the Header's single Worker runs after Ray is up."""

    name: str
    roles: list[Role]
    run_script: str = ""
    namespace: str = "default"
    annotations: dict[str, str] = field(default_factory=dict)
    tensorboard_log_dir: str | None = None
    network_domain: str | None = None
    ssh_keys: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    #: ``spec.storage`` entries no mount uses (a sidecar's, or kept for later), as written.
    other_storage: list[dict[str, Any]] = field(default_factory=list)
    #: the site's Job API and GPU resource (a Job read from YAML keeps what it says)
    api_version: str = field(default_factory=_example_api_version)
    kind: str = field(default_factory=_example_kind)
    gpu_resource: str = field(default_factory=_example_gpu)

    @property
    def total_workers(self) -> int:
        return sum(r.replicas for r in self.roles)

    @property
    def header(self) -> Role | None:
        heads = [r for r in self.roles if r.head]
        return heads[0] if len(heads) == 1 else None

    def node_rank_ranges(self) -> list[tuple[Role, range]]:
        """Role order x replicas gives each Worker its RLINF_NODE_RANK (0..N-1)."""
        ranges, start = [], 0
        for role in self.roles:
            ranges.append((role, range(start, start + role.replicas)))
            start += role.replicas
        return ranges

    def claim_name(self, mount: Mount) -> str:
        return mount.claim or f"{self.name}-{mount.name}"

    # --- manifest ------------------------------------------------------------------------------
    def to_manifest(self) -> dict[str, Any]:
        """The Kubernetes object, with keys in a stable, readable order."""
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
        if self.labels:
            metadata["labels"] = dict(self.labels)
        if self.annotations:
            metadata["annotations"] = dict(self.annotations)
        spec: dict[str, Any] = {"runScript": self.run_script}
        if self.tensorboard_log_dir:
            spec["tensorboard"] = {"logDir": self.tensorboard_log_dir}
        if self.network_domain:
            spec["networkDomain"] = self.network_domain
        if self.ssh_keys:
            spec["sshKeys"] = list(self.ssh_keys)
        spec["tasks"] = [self._task(role) for role in self.roles]
        storage = self._storage()
        if storage:
            spec["storage"] = storage
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": metadata,
            "spec": spec,
        }

    def _task(self, role: Role) -> dict[str, Any]:
        limits: dict[str, Any] = {}
        if role.gpus:
            limits[self.gpu_resource] = role.gpus
        limits.update(role.devices)
        container: dict[str, Any] = {"name": MAIN_CONTAINER, "image": role.image}
        if role.env:
            container["env"] = [{"name": k, "value": v} for k, v in role.env.items()]
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
        pod_spec: dict[str, Any] = {}
        if role.node_selector:
            pod_spec["nodeSelector"] = dict(role.node_selector)
        containers = [copy.deepcopy(c) for c in role.sidecars]
        containers.insert(min(role.main_index, len(containers)), container)
        pod_spec["containers"] = containers
        volumes = [self._volume(m) for m in _first_per_name(role.mounts)]
        volumes += [copy.deepcopy(v) for v in role.other_volumes]
        if volumes:
            pod_spec["volumes"] = volumes
        task: dict[str, Any] = {"name": role.name, "head": role.head, "replicas": role.replicas}
        if role.prepare_script:
            task["prepareScript"] = role.prepare_script
        template: dict[str, Any] = {}
        if role.template_metadata:
            template["metadata"] = copy.deepcopy(role.template_metadata)
        template["spec"] = pod_spec
        task["template"] = template
        return task

    def _volume(self, mount: Mount) -> dict[str, Any]:
        if mount.kind == "hostPath":
            return {"name": mount.name, "hostPath": {"path": mount.source}}
        return {"name": mount.name, "persistentVolumeClaim": {"claimName": self.claim_name(mount)}}

    def _storage(self) -> list[dict[str, Any]]:
        entries: dict[str, dict[str, Any]] = {}
        for role in self.roles:
            for mount in role.mounts:
                if mount.kind == "storage" and mount.source:
                    entries.setdefault(
                        mount.name,
                        {
                            "name": mount.name,
                            "storageClassName": mount.source,
                            "claimName": self.claim_name(mount),
                        },
                    )
        return [*entries.values(), *(copy.deepcopy(e) for e in self.other_storage)]

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any], site: SiteProfile) -> Job:
        """Read a manifest back (inverse of :meth:`to_manifest`); raises KeyError/TypeError on bad shapes.

        ``apiVersion`` and ``kind`` are kept as written; ``site`` names the GPU resource. Every
        field the schema allows is kept (see ``tests/test_job_roundtrip.py``); what a Job cannot
        keep is named by :func:`rlark_widgets.rlark.written.written_findings`.
        """
        metadata, spec = manifest["metadata"], manifest["spec"]
        storage = {s["name"]: s for s in spec.get("storage") or []}
        gpu = site.gpu_resource
        roles = [
            _role_from_task(task, storage, metadata["name"], gpu)
            for task in spec.get("tasks") or []
        ]
        used = {m.name for r in roles for m in r.mounts if m.kind == "storage" and m.source}
        return cls(
            api_version=str(manifest.get("apiVersion") or site.api_version),
            kind=str(manifest.get("kind") or site.kind),
            gpu_resource=gpu,
            name=metadata["name"],
            namespace=metadata.get("namespace", "default"),
            annotations=dict(metadata.get("annotations") or {}),
            labels=dict(metadata.get("labels") or {}),
            run_script=spec.get("runScript", ""),
            tensorboard_log_dir=(spec.get("tensorboard") or {}).get("logDir"),
            network_domain=spec.get("networkDomain"),
            ssh_keys=list(spec.get("sshKeys") or []),
            roles=roles,
            other_storage=[
                copy.deepcopy(e) for e in spec.get("storage") or [] if e["name"] not in used
            ],
        )


def normal_path(path: str | PurePosixPath) -> PurePosixPath:
    """A container or node path as the kernel resolves it: ``//a//b/../c`` -> ``/a/c``, so
    ``/workspace/x/../RLinf`` and ``//workspace//RLinf`` are the directory they name."""
    text = re.sub(r"/+", "/", str(path))
    return PurePosixPath(posixpath.normpath(text) if text else text)


def _first_per_name(mounts: list[Mount]) -> list[Mount]:
    """One volume per name: two mounts of one volume (at two paths) share it."""
    seen: dict[str, Mount] = {}
    for mount in mounts:
        seen.setdefault(mount.name, mount)
    return list(seen.values())


def main_container_index(containers: list[dict[str, Any]]) -> int:
    """Where the main container is; ValueError when none is named ``main``."""
    for index, container in enumerate(containers):
        if container.get("name") == MAIN_CONTAINER:
            return index
    raise ValueError(f"no container is named {MAIN_CONTAINER!r}")


def _mount(
    vm: dict[str, Any], volume: dict[str, Any], storage: dict[str, Any], job_name: str
) -> Mount:
    read_only = bool(vm.get("readOnly", False))
    if "hostPath" in volume:
        return Mount(vm["name"], "hostPath", volume["hostPath"]["path"], vm["mountPath"], read_only)
    claim = (volume.get("persistentVolumeClaim") or {}).get("claimName", "")
    entry = storage.get(vm["name"]) or {}
    source = entry.get("storageClassName", "")
    if source and claim == f"{job_name}-{vm['name']}":
        claim = ""  # the name RLark generates: it follows the Job's name
    return Mount(vm["name"], "storage", source, vm["mountPath"], read_only, claim)


def _role_from_task(
    task: dict[str, Any], storage: dict[str, Any], job_name: str, gpu_resource: str
) -> Role:
    pod_spec = task["template"]["spec"]
    containers = pod_spec["containers"]
    main_index = main_container_index(containers)
    container = containers[main_index]
    limits = dict((container.get("resources") or {}).get("limits") or {})
    gpus = int(limits.pop(gpu_resource, 0))
    volumes = {v["name"]: v for v in pod_spec.get("volumes") or []}
    mounts = [
        _mount(vm, volumes.get(vm["name"], {}), storage, job_name)
        for vm in container.get("volumeMounts") or []
    ]
    mounted = {m.name for m in mounts}
    return Role(
        name=task["name"],
        replicas=int(task["replicas"]),
        image=container.get("image", ""),
        head=bool(task.get("head", False)),
        gpus=gpus,
        devices={k: int(v) for k, v in limits.items()},
        node_selector=dict(pod_spec.get("nodeSelector") or {}),
        env={e["name"]: str(e.get("value", "")) for e in container.get("env") or []},
        prepare_script=task.get("prepareScript", ""),
        mounts=mounts,
        template_metadata=copy.deepcopy(task["template"].get("metadata") or {}),
        sidecars=[copy.deepcopy(c) for i, c in enumerate(containers) if i != main_index],
        main_index=main_index,
        other_volumes=[
            copy.deepcopy(v) for v in pod_spec.get("volumes") or [] if v["name"] not in mounted
        ],
    )
