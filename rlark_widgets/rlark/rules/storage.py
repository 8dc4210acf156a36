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
from .node_paths import node_path_danger, protected_mount


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
    Severity.ERROR,
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


@rule(
    "JOB-HOSTPATH-SYSTEM",
    Severity.ERROR,
    Text(
        "No hostPath that gives away the node (runtime sockets, kubelet and etcd state, /proc, "
        "/sys, /), and none of its system directories read-write"
    ),
    f"{SEED_JOB} (主机目录); Kubernetes hostPath security guidance",
)
def _hostpath_system(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            if mount.kind != "hostPath":
                continue
            danger = node_path_danger(mount.source, mount.read_only, ctx.site.allowed_host_paths)
            if danger is None:
                continue
            source = str(normal_path(mount.source))
            field = f"template.spec.volumes[{m_index}].hostPath.path"
            if danger.written_only:
                message = Text(
                    "Role '{role}' mounts the node's {source} read-write: every Worker could "
                    "change {why}.",
                    role=role.name,
                    source=source,
                    why=danger.why,
                )
                fix = Text(
                    "Mount only the data directory you need (e.g. /data/datasets), read-only "
                    "where it is only read (readOnly: true)."
                )
            else:
                message = Text(
                    "Role '{role}' mounts the node's {source}, which reaches {listed} ({why}): "
                    "read-only or not, a Worker gets the node.",
                    role=role.name,
                    source=source,
                    listed=str(danger.path),
                    why=danger.why,
                )
                fix = Text(
                    "Mount only the data directory you need (e.g. /data/datasets). If the site "
                    "really means to hand out {listed}, the platform admin lists it under "
                    "allowedHostPaths in the site profile.",
                    listed=str(danger.path),
                )
            yield ctx.role_path(index, field), message, fix


@rule(
    "JOB-MOUNT-SYSTEM",
    Severity.ERROR,
    Text("No mount over the image's /usr, /etc, /proc, /bin or /lib"),
    "rlark-widgets: a volume replaces the image's directory at its mount path",
)
def _mount_system(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        for m_index, mount in enumerate(role.mounts):
            protected = protected_mount(mount.mount_path)
            if protected is None:
                continue
            yield (
                ctx.role_path(index, f"{CONTAINER}.volumeMounts[{m_index}].mountPath"),
                Text(
                    "Mount at {mount} replaces the image's {protected}: the Worker would not "
                    "start as the image does.",
                    mount=mount.mount_path,
                    protected=str(protected),
                ),
                Text("Mount somewhere else, e.g. /mnt/<name>, and point the config there."),
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


def _output_paths(ctx: RuleContext) -> Iterator[tuple[str, str]]:
    """(config key, value) of where the run writes checkpoints and logs: the run script's
    override, else the config's value (none without a config)."""
    if ctx.report is None:
        return
    overridden = dict(
        re.findall(r"(runner\.(?:logger\.log_path|output_dir))=(\S+)", ctx.job.run_script)
    )
    key = output_key(ctx.report.expansion.task_type)
    value = overridden.get(key) or ctx.report.config.get(key)
    if isinstance(value, str) and value:
        yield key, value


@rule(
    "JOB-CHECKPOINT-PERSIST",
    Severity.WARNING,
    Text("Checkpoints and logs are written under a persistent mount"),
    f"{SEED_JOB} (训练程序必须使用容器内挂载路径); {SPEC} §5",
)
def _checkpoints(ctx: RuleContext) -> Iterator[Hit]:
    for key, value in _output_paths(ctx):
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
                    "Mount persistent storage in every role (e.g. --storage CLASS:/mnt/output) "
                    "and write {key} under it with --output-dir /mnt/output (in the app: the "
                    "Output mount field), not by editing the run script.",
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
    "JOB-CHECKPOINT-READONLY",
    Severity.ERROR,
    Text("Checkpoints and logs are not written to a read-only mount"),
    "Kubernetes: a readOnly volumeMount refuses every write (EROFS)",
)
def _checkpoints_read_only(ctx: RuleContext) -> Iterator[Hit]:
    for key, value in _output_paths(ctx):
        path = normal_path(value.strip("'\""))
        for index, role in enumerate(ctx.job.roles):
            holding = [
                (m_index, m) for m_index, m in enumerate(role.mounts) if covers(m.mount_path, path)
            ]
            if not holding:
                continue
            m_index, mount = max(
                holding, key=lambda item: len(normal_path(item[1].mount_path).parts)
            )
            if mount.read_only:
                yield (
                    ctx.role_path(index, f"{CONTAINER}.volumeMounts[{m_index}].readOnly"),
                    Text(
                        "{key} is '{value}', on the read-only mount {mount} of role '{role}': "
                        "the first checkpoint or log write fails.",
                        key=key,
                        value=value,
                        mount=mount.mount_path,
                        role=role.name,
                    ),
                    Text(
                        "Write {key} to a writable mount (e.g. /mnt/output/<job>), or mount {mount} "
                        "read-write.",
                        key=key,
                        mount=mount.mount_path,
                    ),
                )
