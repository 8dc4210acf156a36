"""Storage: mount paths, host paths, storage classes and where checkpoints persist."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from ...findings import Severity
from ...i18n import Text
from ..job import normal_path
from ..outputs import output_key
from .context import (
    CD_TARGET,
    CONTAINER,
    SEED_JOB,
    SPEC,
    Hit,
    RuleContext,
    code_lines,
    covers,
    rule,
)


@rule(
    "JOB-MOUNT-PATH",
    Severity.ERROR,
    Text("Mount paths and hostPath sources are absolute"),
    f"{SEED_JOB} (添加存储挂载)",
)
def _mount_paths(ctx: RuleContext) -> Iterator[Hit]:
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
            written = [(f"{CONTAINER}.volumeMounts[{m_index}].mountPath", mount.mount_path)]
            if mount.kind == "hostPath":
                written.append((f"template.spec.volumes[{m_index}].hostPath.path", mount.source))
            for field, value in written:
                if ".." in PurePosixPath(value).parts:
                    yield (
                        ctx.role_path(index, field),
                        Text(
                            "'{path}' contains '..'; Kubernetes refuses it in a hostPath, and "
                            "it hides which directory is meant.",
                            path=value,
                        ),
                        Text(
                            "Write the path without '..': {clean}.", clean=str(normal_path(value))
                        ),
                    )


@rule(
    "JOB-MOUNT-SHADOW",
    Severity.WARNING,
    Text("Mounts do not hide the code or config directory"),
    f"{SEED_JOB} Step 4",
)
def _mount_shadow(ctx: RuleContext) -> Iterator[Hit]:
    script = code_lines(ctx.job.run_script)
    code_dirs = [d for d in CD_TARGET.findall(script) if d.strip("'\"").startswith("/")]
    code_dirs += re.findall(r"--config-path\s+(/[^\s;&|]+)", script)
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            target = normal_path(mount.mount_path)
            for directory in code_dirs:
                path = normal_path(directory.strip("'\""))
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
def _hostpath(ctx: RuleContext) -> Iterator[Hit]:
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


#: Node directories whose read-write mount hands the Worker the node itself: the root and
#: /var as such, and everything under the system trees.
SYSTEM_ROOTS = (PurePosixPath("/"), PurePosixPath("/var"))
SYSTEM_TREES = tuple(
    PurePosixPath(d)
    for d in (
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/lib",
        "/lib64",
        "/proc",
        "/root",
        "/run",
        "/sbin",
        "/sys",
        "/usr",
        "/var/lib/containerd",
        "/var/lib/docker",
        "/var/lib/kubelet",
        "/var/run",
    )
)


def is_system_dir(path: PurePosixPath) -> bool:
    return path in SYSTEM_ROOTS or any(t == path or t in path.parents for t in SYSTEM_TREES)


@rule(
    "JOB-HOSTPATH-SYSTEM",
    Severity.ERROR,
    Text("No read-write hostPath of the node's root or system directories"),
    f"{SEED_JOB} (主机目录); Kubernetes hostPath security guidance",
)
def _hostpath_system(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            if mount.kind != "hostPath" or mount.read_only or not mount.source.startswith("/"):
                continue
            source = normal_path(mount.source)
            if is_system_dir(source):
                yield (
                    ctx.role_path(index, f"template.spec.volumes[{m_index}].hostPath.path"),
                    Text(
                        "Role '{role}' mounts the node's {source} read-write: every Worker could "
                        "change the node's system files (and other Pods' data).",
                        role=role.name,
                        source=str(source),
                    ),
                    Text(
                        "Mount only the data directory you need (e.g. /data/datasets), read-only "
                        "where it is only read (readOnly: true)."
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
def _storage_source(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            if mount.kind != "storage" or not mount.source:
                continue  # no StorageClass: an existing claim, mounted as it is
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
def _checkpoints(ctx: RuleContext) -> Iterator[Hit]:
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
            r.name for r in ctx.job.roles if not any(covers(m.mount_path, path) for m in r.mounts)
        ]
        shared = all(
            any(covers(m.mount_path, path) and m.kind == "storage" for m in r.mounts)
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
