"""The RLark Job (rlark.io/v1alpha1, kind Job) as plain data, and its Kubernetes manifest shape.

Field names are ours, the concepts are the seeds' (DESIGN.md §3). A Job holds one Task template
per role, in role order: that order times each role's replicas fixes ``RLINF_NODE_RANK``. The
manifest is a Kubernetes object: ``spec.tasks[].template`` is a PodTemplateSpec whose main
container RLark starts with its own Ray Head/Worker command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    ``spec.storage`` from it. It is never a bucket, an object key or a laptop path.
    """

    name: str
    kind: MountKind
    source: str
    mount_path: str
    read_only: bool = False


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
        return f"{self.name}-{mount.name}"

    # --- manifest ------------------------------------------------------------------------------
    def to_manifest(self) -> dict[str, Any]:
        """The Kubernetes object, with keys in a stable, readable order."""
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace}
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
        pod_spec["containers"] = [container]
        if role.mounts:
            pod_spec["volumes"] = [self._volume(m) for m in role.mounts]
        task: dict[str, Any] = {"name": role.name, "head": role.head, "replicas": role.replicas}
        if role.prepare_script:
            task["prepareScript"] = role.prepare_script
        task["template"] = {"spec": pod_spec}
        return task

    def _volume(self, mount: Mount) -> dict[str, Any]:
        if mount.kind == "hostPath":
            return {"name": mount.name, "hostPath": {"path": mount.source}}
        return {"name": mount.name, "persistentVolumeClaim": {"claimName": self.claim_name(mount)}}

    def _storage(self) -> list[dict[str, str]]:
        entries: dict[str, dict[str, str]] = {}
        for role in self.roles:
            for mount in role.mounts:
                if mount.kind == "storage":
                    entries.setdefault(
                        mount.name,
                        {
                            "name": mount.name,
                            "storageClassName": mount.source,
                            "claimName": self.claim_name(mount),
                        },
                    )
        return list(entries.values())

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any], site: SiteProfile | None = None) -> Job:
        """Read a manifest back (inverse of :meth:`to_manifest`); raises KeyError/TypeError on bad shapes.

        ``apiVersion`` and ``kind`` are kept as written; ``site`` names the GPU resource.
        """
        site = site or example_site()
        metadata, spec = manifest["metadata"], manifest["spec"]
        storage = {s["name"]: s["storageClassName"] for s in spec.get("storage") or []}
        gpu = site.gpu_resource
        roles = [_role_from_task(task, storage, gpu) for task in spec.get("tasks") or []]
        return cls(
            api_version=str(manifest.get("apiVersion") or site.api_version),
            kind=str(manifest.get("kind") or site.kind),
            gpu_resource=gpu,
            name=metadata["name"],
            namespace=metadata.get("namespace", "default"),
            annotations=dict(metadata.get("annotations") or {}),
            run_script=spec.get("runScript", ""),
            tensorboard_log_dir=(spec.get("tensorboard") or {}).get("logDir"),
            network_domain=spec.get("networkDomain"),
            ssh_keys=list(spec.get("sshKeys") or []),
            roles=roles,
        )


def _role_from_task(task: dict[str, Any], storage: dict[str, str], gpu_resource: str) -> Role:
    pod_spec = task["template"]["spec"]
    container = next(c for c in pod_spec["containers"] if c.get("name") == MAIN_CONTAINER)
    limits = dict((container.get("resources") or {}).get("limits") or {})
    gpus = int(limits.pop(gpu_resource, 0))
    volumes = {v["name"]: v for v in pod_spec.get("volumes") or []}
    mounts = []
    for vm in container.get("volumeMounts") or []:
        volume = volumes.get(vm["name"], {})
        kind: MountKind
        if "hostPath" in volume:
            kind, source = "hostPath", volume["hostPath"]["path"]
        else:
            kind, source = "storage", storage.get(vm["name"], "")
        mounts.append(
            Mount(vm["name"], kind, source, vm["mountPath"], bool(vm.get("readOnly", False)))
        )
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
    )
