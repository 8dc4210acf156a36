"""What this tool created on a cluster, and the one predicate ``stop`` and ``delete`` use.

``delete`` removed the PVC named by a Job's claim even when that claim existed before the Job
and belonged to someone else, and it deleted any Job or RayJob of the given name, whoever made
it. Now every object this tool creates carries Kubernetes' recommended managed-by label
(:func:`mark`; ``list`` already found the KubeRay objects by it), and ``stop``/``delete`` act
on an object only when :func:`made_by_us` holds. A PVC is deleted only when it was made for the
Job (:func:`made_for`): Kubernetes records the Job's uid among its owners, or it has the
StorageClass of the Job's ``spec.storage`` entry and was created no earlier than the Job (RLark
creates it from that entry when the Job is created). An existing claim mounted by name, or a
PVC of the same name someone made before the Job, stays. ``submit``
says which existing claims a Job mounts and that they stay (:func:`existing_claims_note`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...contract import DISTRIBUTION, MANAGED_BY_LABEL
from ...i18n import Text
from ...rlark.job import Job
from ..base import BackendError


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}


def mark(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with the managed-by label this tool puts on every object it creates; a
    managed-by label the user wrote is kept (that object is then theirs to stop and delete)."""
    metadata = manifest.setdefault("metadata", {})
    metadata["labels"] = {MANAGED_BY_LABEL: DISTRIBUTION, **(metadata.get("labels") or {})}
    return manifest


def without_mark(labels: Mapping[str, str]) -> dict[str, str]:
    """The labels the user wrote: an object read back loses the mark :func:`mark` added."""
    return {k: v for k, v in labels.items() if (k, v) != (MANAGED_BY_LABEL, DISTRIBUTION)}


def made_by_us(obj: Mapping[str, Any]) -> bool:
    """Whether this tool created ``obj`` (it carries the managed-by label with our name)."""
    labels = _metadata(obj).get("labels")
    return isinstance(labels, Mapping) and labels.get(MANAGED_BY_LABEL) == DISTRIBUTION


def owned_by(obj: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    """Whether Kubernetes records ``owner`` (by its uid) as an owner of ``obj``."""
    uid = _metadata(owner).get("uid")
    references = _metadata(obj).get("ownerReferences")
    if not uid or not isinstance(references, list):
        return False
    return any(isinstance(r, Mapping) and r.get("uid") == uid for r in references)


def _created(obj: Mapping[str, Any]) -> datetime | None:
    stamp = _metadata(obj).get("creationTimestamp")
    try:
        return datetime.fromisoformat(str(stamp)) if stamp else None
    except ValueError:
        return None


def made_for(pvc: Mapping[str, Any], job: Mapping[str, Any], storage_class: str) -> bool:
    """Whether ``pvc`` was made for ``job`` from a ``spec.storage`` entry of ``storage_class``:
    owned by the Job, or of that class and created no earlier than the Job (the API server's
    timestamps; a claim that existed before the Job is someone else's)."""
    if owned_by(pvc, job):
        return True
    spec = pvc.get("spec")
    if not storage_class or not isinstance(spec, Mapping):
        return False
    if spec.get("storageClassName") != storage_class:
        return False
    made, started = _created(pvc), _created(job)
    return made is not None and started is not None and made >= started


def not_made_by_us(kind: str, name: str, namespace: str, command: str) -> BackendError:
    """The refusal to stop or delete an object this tool did not create."""
    return BackendError(
        Text(
            "{kind} '{name}' in namespace '{namespace}' was not created by rlark-widgets (it has"
            " no {label}={value} label), so it is neither stopped nor deleted.",
            kind=kind,
            name=name,
            namespace=namespace,
            label=MANAGED_BY_LABEL,
            value=DISTRIBUTION,
        ),
        Text("If it is yours and should go, delete it yourself: `{command}`.", command=command),
    )


def existing_claims(job: Job) -> list[str]:
    """The PVCs ``job`` mounts by name without a StorageClass: they exist already, not its own."""
    found = {
        mount.claim
        for role in job.roles
        for mount in role.mounts
        if mount.kind == "storage" and not mount.source and mount.claim
    }
    return sorted(found)


def existing_claims_note(job: Job) -> Text | None:
    """What ``submit`` says about the existing claims the Job mounts; None when it mounts none."""
    claims = existing_claims(job)
    if not claims:
        return None
    return Text(
        "It mounts the existing claim(s) {claims}: they are not the Job's and stay when it is"
        " deleted.",
        claims=", ".join(claims),
    )
