"""What the user wrote, checked as written: fields a Job cannot keep, volume wiring Kubernetes
refuses, and the normal form in which "what check passed" and "what submit stored" compare.

A Job read from YAML keeps every field the schema allows (``Job.from_manifest``). The few
things it cannot keep, or that would be rewritten on the way to the cluster, are named here as
error findings instead of being dropped silently (JOB-NOT-KEPT); a volumeMount that names no
volume, two volumes with one name or two mounts at one path are refused by Kubernetes itself
(JOB-VOLUME).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..findings import Finding, Severity
from ..i18n import Text
from .job import MAIN_CONTAINER, normal_path

NOT_KEPT_RULE = "JOB-NOT-KEPT"
VOLUME_RULE = "JOB-VOLUME"
SOURCE = "rlark-widgets: what the user wrote is what is submitted"
VOLUME_SOURCE = "Kubernetes PodSpec validation (volumes, volumeMounts)"
TOP_LEVEL = ("apiVersion", "kind", "metadata", "spec")
METADATA = ("name", "namespace", "labels", "annotations")
#: Metadata the API server writes: a copy of a stored Job carries it, a new Job may not.
SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
)

_Problem = tuple[str, Text, Text]


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


_IDENTIFIER = re.compile(r"^[A-Za-z_][\w-]*$")


def _field(parent: str, key: object) -> str:
    """``metadata.uid``; a key that is no identifier in brackets (``[""]``, ``["a b"]``)."""
    name = str(key)
    if not _IDENTIFIER.match(name):
        return f'{parent}["{name}"]'
    return f"{parent}.{name}" if parent else name


def _not_kept(document: Mapping[str, Any]) -> Iterator[_Problem]:
    for key in document:
        if key in TOP_LEVEL:
            continue
        if key == "status":
            yield (
                "status",
                Text("status is written by RLark; a Job submitted with one would lose it."),
                Text("Remove status (a copy of a stored Job carries it; a new Job does not)."),
            )
        else:
            yield (
                _field("", key),
                Text(
                    "{field} is not a field of an RLark Job; it would not reach the cluster.",
                    field=_field("", key),
                ),
                Text("Remove it, or move what it says into metadata.annotations."),
            )
    for key in _mapping(document.get("metadata")):
        if key in METADATA:
            continue
        path = _field("metadata", key)
        if key in SERVER_METADATA:
            yield (
                path,
                Text(
                    "{field} is written by the API server; a new Job cannot carry it.", field=path
                ),
                Text("Remove it (it comes from a copy of a stored Job)."),
            )
        else:
            yield (
                path,
                Text(
                    "{field} is not kept: an RLark Job's metadata holds name, namespace, labels and annotations.",
                    field=path,
                ),
                Text("Remove it, or write it as a label or an annotation."),
            )
    for index, task in enumerate(_list(_mapping(document.get("spec")).get("tasks"))):
        spec = _mapping(_mapping(_mapping(task).get("template")).get("spec"))
        containers = _list(spec.get("containers"))
        main = [c for c in containers if _mapping(c).get("name") == MAIN_CONTAINER]
        base = f"spec.tasks[{index}].template.spec.containers"
        if containers and not main:
            yield (
                base,
                Text("No container is named main; RLark starts the Worker in the main container."),
                Text("Name the container that runs the Worker main."),
            )
        if len(main) > 1:
            yield (
                base,
                Text("{count} containers are named main; a Worker has one.", count=len(main)),
                Text("Give each container its own name."),
            )
        position = next((i for i, c in enumerate(containers) if c in main), 0)
        seen: set[str] = set()
        for e_index, entry in enumerate(_list(_mapping(main[0] if main else {}).get("env"))):
            name = _mapping(entry).get("name")
            if isinstance(name, str) and name in seen:
                yield (
                    f"{base}[{position}].env[{e_index}]",
                    Text(
                        "Environment variable {name} is set twice; one of the values would be lost.",
                        name=name,
                    ),
                    Text("Keep one entry for {name}.", name=name),
                )
            if isinstance(name, str):
                seen.add(name)


def _storage_twice(document: Mapping[str, Any]) -> Iterator[_Problem]:
    first: dict[str, int] = {}
    for index, entry in enumerate(_list(_mapping(document.get("spec")).get("storage"))):
        name = _mapping(entry).get("name")
        if not isinstance(name, str):
            continue
        if name in first:
            yield (
                f"spec.storage[{index}].name",
                Text(
                    "Storage {name} is listed twice (first at spec.storage[{first}]); RLark creates one claim per name, so one entry would be lost.",
                    name=name,
                    first=first[name],
                ),
                Text("Keep one entry per storage name."),
            )
        first.setdefault(name, index)


def _volume_problems(document: Mapping[str, Any]) -> Iterator[_Problem]:
    spec_root = _mapping(document.get("spec"))
    storage = {_mapping(e).get("name"): _mapping(e) for e in _list(spec_root.get("storage"))}
    claims: dict[str, tuple[str, str]] = {}
    for index, task in enumerate(_list(spec_root.get("tasks"))):
        spec = _mapping(_mapping(_mapping(task).get("template")).get("spec"))
        base = f"spec.tasks[{index}].template.spec"
        volumes: dict[str, Mapping[str, Any]] = {}
        for v_index, volume in enumerate(_list(spec.get("volumes"))):
            name = _mapping(volume).get("name")
            if not isinstance(name, str):
                continue
            if name in volumes:
                yield (
                    f"{base}.volumes[{v_index}].name",
                    Text("Two volumes are named {name}; Kubernetes refuses the Pod.", name=name),
                    Text("Give each volume its own name."),
                )
                continue
            volumes[name] = _mapping(volume)
            sources = [k for k in ("hostPath", "persistentVolumeClaim") if k in volume]
            if len(sources) != 1:
                yield (
                    f"{base}.volumes[{v_index}]",
                    Text(
                        "Volume {name} needs exactly one source (hostPath or persistentVolumeClaim).",
                        name=name,
                    ),
                    Text(
                        "Give it a hostPath or a persistentVolumeClaim, not both and not neither."
                    ),
                )
            claim = _mapping(volume.get("persistentVolumeClaim")).get("claimName")
            entry = storage.get(name)
            if isinstance(claim, str) and entry and entry.get("claimName") not in (None, claim):
                yield (
                    f"{base}.volumes[{v_index}].persistentVolumeClaim.claimName",
                    Text(
                        "Volume {name} mounts claim {claim}, but spec.storage creates {created} for it.",
                        name=name,
                        claim=claim,
                        created=str(entry.get("claimName")),
                    ),
                    Text("Use one claim name in the volume and in spec.storage."),
                )
            if isinstance(claim, str) and entry:
                earlier = claims.setdefault(name, (claim, f"{base}.volumes[{v_index}]"))
                if earlier[0] != claim:
                    yield (
                        f"{base}.volumes[{v_index}].persistentVolumeClaim.claimName",
                        Text(
                            "Storage {name} is claim {claim} here and {other} at {where}.",
                            name=name,
                            claim=claim,
                            other=earlier[0],
                            where=earlier[1],
                        ),
                        Text("Use one claim name in the volume and in spec.storage."),
                    )
        for c_index, container in enumerate(_list(spec.get("containers"))):
            paths: dict[str, int] = {}
            for m_index, mount in enumerate(_list(_mapping(container).get("volumeMounts"))):
                mount = _mapping(mount)
                where = f"{base}.containers[{c_index}].volumeMounts[{m_index}]"
                name, path = mount.get("name"), mount.get("mountPath")
                if isinstance(name, str) and name not in volumes:
                    yield (
                        f"{where}.name",
                        Text(
                            "volumeMount {name} names no volume of this role; Kubernetes refuses the Pod.",
                            name=name,
                        ),
                        Text(
                            "Add a volume named {name} (hostPath or persistentVolumeClaim), or fix the name.",
                            name=name,
                        ),
                    )
                if isinstance(path, str):
                    key = str(normal_path(path))
                    if key in paths:
                        yield (
                            f"{where}.mountPath",
                            Text(
                                "Mount path {path} is used twice in one container (volumeMounts[{first}]); Kubernetes refuses the Pod.",
                                path=path,
                                first=paths[key],
                            ),
                            Text("Mount each volume at its own path."),
                        )
                    paths.setdefault(key, m_index)


def differences(ours: Any, theirs: Any, path: str = "") -> Iterator[str]:
    """Paths where two documents differ (lists element by element)."""
    if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
        for key in sorted(set(ours) | set(theirs), key=str):
            child = f"{path}.{key}" if path else str(key)
            yield from differences(ours.get(key), theirs.get(key), child)
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            yield from differences(a, b, f"{path}[{index}]")
    elif ours != theirs:
        yield path or "(document)"


#: At most this many dropped fields are named (the first ones say what is wrong).
MAX_DROPPED = 20


def dropped_findings(document: Any, submitted: Mapping[str, Any]) -> list[Finding]:
    """JOB-NOT-KEPT for every field the Job would not submit as written: the document and the
    Job's own manifest compared in normal form (status and metadata the Job never keeps are
    named by :func:`written_findings` already)."""
    if not isinstance(document, Mapping):
        return []
    written = {k: v for k, v in document.items() if k in TOP_LEVEL}
    metadata = written.get("metadata")
    if isinstance(metadata, Mapping):
        written["metadata"] = {k: v for k, v in metadata.items() if k in METADATA}
    paths = list(differences(normalised(written), normalised(submitted)))
    return [
        Finding(
            NOT_KEPT_RULE,
            Severity.ERROR,
            path,
            Text(
                "{field} would not be submitted as written (the Job cannot keep it).",
                field=path,
            ),
            Text("Remove it, or write it as the CRD describes (`rlark-migrate crd`)."),
            SOURCE,
        )
        for path in paths[:MAX_DROPPED]
    ]


def written_findings(document: Any) -> list[Finding]:
    """JOB-NOT-KEPT and JOB-VOLUME errors for what the user wrote (any shape, never raises)."""
    if not isinstance(document, Mapping):
        return []
    findings = [
        Finding(NOT_KEPT_RULE, Severity.ERROR, path, text, fix, SOURCE)
        for path, text, fix in (*_not_kept(document), *_storage_twice(document))
    ]
    findings += [
        Finding(VOLUME_RULE, Severity.ERROR, path, text, fix, VOLUME_SOURCE)
        for path, text, fix in _volume_problems(document)
    ]
    return findings


# --- the normal form in which a written Job and a stored one compare -----------------------
def _default(key: str, value: Any) -> bool:
    """Values Kubernetes treats as absent: empty, ``readOnly: false``, the default namespace
    (a resource limit of 0 is dropped by :func:`normalised`)."""
    if value is None or value == "" or value == [] or value == {}:
        return True
    return (key == "readOnly" and value is False) or (key == "namespace" and value == "default")


#: Lists Kubernetes reads by name, whose order carries no meaning.
_BY_NAME = ("volumes", "containers", "storage")


def normalised(node: Any, key: str = "") -> Any:
    """``node`` without defaulted values, with lists read by name sorted by name."""
    if isinstance(node, Mapping):
        out = {
            str(k): normalised(v, str(k))
            for k, v in node.items()
            if not _default(str(k), v) and not (key == "limits" and v == 0)  # 0 of it: none
        }
        return {k: v for k, v in out.items() if not _default(k, v)}
    if isinstance(node, float) and node.is_integer():
        return int(node)  # 1.0 is the integer 1 to the schema and to the API server
    if isinstance(node, list):
        items = [normalised(item) for item in node]
        if key in _BY_NAME:
            items.sort(key=lambda item: json.dumps(item, sort_keys=True, default=str))
        return items
    return node


def normal_text(document: Any) -> str:
    """The normal form as text: two Jobs are the same Job when these bytes are equal."""
    return json.dumps(normalised(document), sort_keys=True, ensure_ascii=False, default=str)
