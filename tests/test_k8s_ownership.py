"""``delete`` removes only what was created for the Job; everyone else's objects stay (#23, class 4).

Against the emulated API server with the official client: a Job is submitted with its own storage
(a StorageClass: RLark creates the PVC, owned by the Job) and an existing claim; then objects of
someone else are drawn (PVCs, Services, ConfigMaps; named like the Job's claims or not; with the
Job's labels, our managed-by label, an ownerReference to another uid, or nothing). After
``delete`` every foreign object is still there and the Job's own PVC is gone. A Job, RayJob or
RayCluster this tool did not create is neither stopped nor deleted.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubernetes.client.exceptions import ApiException
from test_kubernetes_backend import NAMESPACE, OUTPUT, demo_job

from rlark_widgets.backends.base import BackendError
from rlark_widgets.contract import DISTRIBUTION, MANAGED_BY_LABEL
from rlark_widgets.rlark.job import Job, Mount
from rlark_widgets.rlark.kuberay import ExportOptions

if TYPE_CHECKING:
    from kube_emulator import Cluster

NAMES = itertools.count()
EXISTING = "shared-dataset"


def _job(name: str) -> Job:
    job = demo_job(name)
    existing = Mount("data", "storage", "", "/mnt/data", read_only=True, claim=EXISTING)
    job.roles[0].mounts = [OUTPUT, existing]
    return job


KINDS = ("persistentvolumeclaims", "services", "configmaps")
MARKS = ("none", "job-label", "managed-by", "other-owner", "same-name-owner")


def _create(kube: Cluster, kind: str, name: str, labels: dict[str, str], owners: list[Any]) -> bool:
    metadata: dict[str, Any] = {"name": name, "labels": labels}
    if owners:
        metadata["ownerReferences"] = owners
    body: dict[str, Any] = {"metadata": metadata}
    create = {
        "persistentvolumeclaims": kube.core.create_namespaced_persistent_volume_claim,
        "services": kube.core.create_namespaced_service,
        "configmaps": kube.core.create_namespaced_config_map,
    }[kind]
    if kind == "persistentvolumeclaims":
        body["spec"] = {"storageClassName": "oss-rlinf"}
    elif kind == "services":
        body["spec"] = {"ports": [{"port": 80}]}
    try:
        create(NAMESPACE, body, _preload_content=False)
    except ApiException as exc:
        assert exc.status == 409  # one of ours already holds the name: not foreign
        return False
    return True


FOREIGN = st.lists(
    st.tuples(
        st.sampled_from(KINDS),
        st.sampled_from(("{job}-output", "{job}", "{job}-data", EXISTING, "{job}-output-x")),
        st.sampled_from(MARKS),
    ),
    max_size=5,
)


# Each example submits and deletes a Job over HTTP: a fifth of the profile's examples (dev 10,
# ci 20, fuzz 2,000).
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    max_examples=max(1, settings().max_examples // 5),
)
@given(
    foreign=FOREIGN,
    existing_first=st.booleans(),
    name_taken_first=st.booleans(),
    owned=st.booleans(),
)
def test_delete_removes_the_jobs_own_pvcs_and_nothing_of_anyone_else(
    kube: Cluster,
    foreign: list[tuple[str, str, str]],
    existing_first: bool,
    name_taken_first: bool,
    owned: bool,
) -> None:
    name = f"own-{next(NAMES)}"  # a fresh Job per example in the one emulated cluster
    theirs = []
    if existing_first:
        _create(kube, "persistentvolumeclaims", EXISTING, {}, [])
    if name_taken_first:  # someone's PVC holds the name RLark would give the Job's storage
        assert _create(kube, "persistentvolumeclaims", f"{name}-output", {}, [])
        theirs.append(("persistentvolumeclaims", f"{name}-output"))
    backend = kube.backend()
    result = backend.submit(_job(name))
    assert result.created
    assert f"existing claim(s) {EXISTING}" in result.message and "stay" in result.message
    job_uid = kube.job(name)["metadata"]["uid"]
    assert kube.job(name)["metadata"]["labels"][MANAGED_BY_LABEL] == DISTRIBUTION
    own = kube.claims(name, owned=owned)  # none when the name was taken
    for kind, pattern, mark in foreign:
        labels = {
            "none": {},
            "job-label": {kube.site.job_label: name},
            "managed-by": {MANAGED_BY_LABEL: DISTRIBUTION},
            "other-owner": {},
            "same-name-owner": {},
        }[mark]
        owners = []
        if mark in ("other-owner", "same-name-owner"):
            other = "00000000-0000-0000-0000-000000000000"
            owners = [
                {"apiVersion": "rlark.io/v1alpha1", "kind": "Job", "name": name, "uid": other}
            ]
        object_name = pattern.format(job=name)
        if _create(kube, kind, object_name, labels, owners):
            theirs.append((kind, object_name))
    message = str(backend.delete(name))
    if own:
        assert message.startswith(f"Deleted Job '{name}' and its storage ({own[0]})")
        assert not kube.exists("persistentvolumeclaims", own[0])
    else:
        assert message.startswith(f"Deleted Job '{name}' in namespace")
        assert f"{name}-output" in message and "stay" in message
    assert not kube.exists("jobs", name)
    for kind, object_name in theirs:
        assert kube.exists(kind, object_name), (kind, object_name)
    assert f"{EXISTING}" in message and "were not created for this Job and stay" in message
    assert job_uid


def test_a_job_someone_else_created_is_neither_stopped_nor_deleted(kube: Cluster) -> None:
    manifest = demo_job("theirs").to_manifest()
    manifest["metadata"]["namespace"] = NAMESPACE
    site = kube.site
    kube.custom.create_namespaced_custom_object(
        site.api_group, site.api_version_name, NAMESPACE, site.plural, manifest
    )
    backend = kube.backend()
    for verb in (backend.stop, backend.delete):
        with pytest.raises(BackendError) as caught:
            verb("theirs")
        assert "was not created by rlark-widgets" in caught.value.message
        assert f"kubectl -n {NAMESPACE} delete" in caught.value.fix
    assert kube.exists("jobs", "theirs")


def test_a_job_read_back_keeps_only_the_labels_the_user_wrote(kube: Cluster) -> None:
    backend = kube.backend()
    job = _job("labelled")
    job.labels = {"team": "embodied"}
    assert backend.submit(job).created
    read = backend.job("labelled")
    assert read is not None and read.labels == {"team": "embodied"}


def test_a_raycluster_someone_else_created_is_neither_stopped_nor_deleted(kuberay: Any) -> None:
    backend = kuberay.backend(options=ExportOptions(kind="RayCluster"))
    solo = demo_job("solo")
    for role in solo.roles:
        role.mounts = [Mount("output", "storage", "", "/mnt/output", claim=EXISTING)]
    result = backend.submit(solo)
    assert result.created and f"existing claim(s) {EXISTING}" in result.message
    foreign = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "theirs"}}
    foreign["spec"] = kuberay.object("RayCluster", "solo")["spec"]
    kuberay.custom.create_namespaced_custom_object(
        "ray.io", "v1", NAMESPACE, "rayclusters", foreign
    )
    for verb in (backend.stop, backend.delete):
        with pytest.raises(BackendError, match="was not created by rlark-widgets"):
            verb("theirs")
    assert kuberay.object("RayCluster", "theirs")["spec"].get("suspend") in (None, False)
    assert "Deleted RayCluster 'solo'" in str(backend.delete("solo"))
