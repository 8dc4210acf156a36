"""One refresh of a RayJob or RayCluster: a constant handful of requests, whatever its size.

GET the object (RayJob first, then RayCluster), LIST the RayCluster's pods by ``ray.io/cluster``,
LIST the namespace's pod events, GET the head service's dashboard through the API server's
service proxy, and list checkpoints (a local read, or one exec in the head pod). Pods are
KubeRay's: ``ray.io/node-type`` says which is the head, ``ray.io/group`` the group; the role,
worker index and RLINF_NODE_RANK come from the template the export wrote.
"""

from __future__ import annotations

import copy
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from ...contract import KUBERAY_CLUSTER_LABEL as CLUSTER_LABEL
from ...contract import KUBERAY_GROUP_LABEL as GROUP_LABEL
from ...contract import KUBERAY_NODE_TYPE_LABEL as NODE_TYPE_LABEL
from ...i18n import Text
from ...monitor.snapshot import (
    EVENTS,
    FAILED,
    JOB_SPEC,
    LOG_TAIL,
    PENDING,
    PODS,
    RUNNING,
    JobSnapshot,
    WorkerSnapshot,
)
from ...rlark.job import Job
from ...rlark.kuberay import PLURALS, read_kuberay
from ...rlark.kuberay.schema import GROUP, VERSION
from ...rlark.site import SiteProfile
from ..k8s.api import Action, KubeApiError
from ..k8s.pods import PodReader
from ..k8s.workers import workers_from

BACKEND = "kuberay"
SERVICE_PROXY = "/api/v1/namespaces/{namespace}/services/{name}/proxy/api/v0/nodes"
DASHBOARD_PORT_NAME = "dashboard"
#: RayJob jobDeploymentStatus -> the monitor's Job phase (what is not listed is Pending).
DEPLOYMENT_PHASES = {
    "Running": "Running",
    "Complete": "Succeeded",
    "Failed": "Failed",
    "Suspending": "Stopped",
    "Suspended": "Stopped",
}
#: RayJob jobStatus -> the run script's state (the entrypoint is the run script).
JOB_STATES = {
    "PENDING": "not started",
    "RUNNING": "running",
    "SUCCEEDED": "succeeded",
    "FAILED": "failed",
    "STOPPED": "stopped",
}


def head_service(cluster: str) -> str:
    """KubeRay's head service for a RayCluster (``<cluster>-head-svc``)."""
    return f"{cluster}-head-svc"


def phase_of(kind: str, obj: Mapping[str, Any]) -> str:
    status = obj.get("status") or {}
    if kind == "RayJob":
        if status.get("jobStatus") == "SUCCEEDED":
            return "Succeeded"
        return DEPLOYMENT_PHASES.get(status.get("jobDeploymentStatus") or "", "Pending")
    if (obj.get("spec") or {}).get("suspend") or status.get("state") == "suspended":
        return "Stopped"
    return "Running" if status.get("state") == "ready" else "Pending"


def as_workers(pods: list[dict[str, Any]], site: SiteProfile) -> list[dict[str, Any]]:
    """KubeRay's pods with the site's Worker labels as RLark sets them (role's name, index)."""
    counted: dict[str, int] = defaultdict(int)
    adapted = []
    for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
        pod = copy.deepcopy(pod)
        metadata = pod["metadata"]
        labels = metadata.setdefault("labels", {})
        task, index = site.task_label, site.index_label
        role = (metadata.get("annotations") or {}).get(task) or labels.get(task)
        role = role or labels.get(GROUP_LABEL, "?")
        labels[task] = role
        if index not in labels:  # grouped replicas are interchangeable: numbered by pod name
            labels[index] = str(counted[role])
            counted[role] += 1
        adapted.append(pod)
    return adapted


def tasks_of(job: Job | None, workers: list[WorkerSnapshot]) -> list[dict[str, Any]]:
    """Per role: desired replicas and how many pods are pending, running or failed."""
    desired = {r.name: r.replicas for r in job.roles} if job else {}
    rows = {name: {"name": name, "replicas": count} for name, count in desired.items()}
    for worker in workers:
        rows.setdefault(worker.role, {"name": worker.role, "replicas": 0})
    for row in rows.values():
        mine = [w for w in workers if w.role == row["name"]]
        row["pending"] = sum(w.phase == PENDING for w in mine)
        row["running"] = sum(w.phase == RUNNING for w in mine)
        row["failed"] = sum(w.phase == FAILED for w in mine)
    return list(rows.values())


class KubeRaySnapshotReader(PodReader):
    """Snapshots of RayJobs/RayClusters in one namespace (checkpoints as the Kubernetes reader)."""

    def find(self, name: str, deadline: float | None = None) -> tuple[str, dict[str, Any]] | None:
        """(kind, object) of the RayJob or else RayCluster named ``name``; None when neither."""
        for kind, plural in PLURALS.items():
            try:
                return kind, self.api.call(
                    Action("get", f"{plural}.{GROUP}", self.namespace, name),
                    self.api.custom.get_namespaced_custom_object,
                    GROUP,
                    VERSION,
                    self.namespace,
                    plural,
                    name,
                    deadline=deadline,
                )
            except KubeApiError as exc:
                if exc.status != 404:
                    raise
        return None

    def read(self, name: str) -> JobSnapshot:
        deadline = time.monotonic() + self.budget
        snap = JobSnapshot(job=name, backend=BACKEND, time=time.time())
        found = self.find(name, deadline)
        if found is None:
            snap.exists = False
            return snap
        kind, obj = found
        job = self._read_job(obj, snap)
        status = obj.get("status") or {}
        snap.phase = phase_of(kind, obj)
        cluster = status.get("rayClusterName") if kind == "RayJob" else name
        if kind == "RayJob":
            snap.run_script_state = JOB_STATES.get(status.get("jobStatus") or "", "not started")
        if not cluster:  # KubeRay has not made the RayCluster yet
            snap.tasks = []
            return snap
        pods = self._part(snap, PODS, deadline, lambda: self._cluster_pods(cluster, deadline))
        events = self._part(snap, EVENTS, deadline, lambda: self._events(deadline)) if pods else []
        # KubeRay's pods are owned by the RayCluster, not by a run we know the uid of: pods
        # being deleted are listed apart, the others are this object's.
        snap.workers, snap.others = workers_from(
            as_workers(pods or [], self.api.site), events or [], self.api.site
        )
        heads = {p["metadata"]["name"] for p in pods or [] if _is_head(p)}
        head = next((w for w in snap.workers if w.name in heads), None)
        if head is not None:
            head.head = True
        snap.tasks = tasks_of(job, snap.workers)
        self._service_members(snap, cluster, head, deadline)
        if job is not None:
            self._checkpoints(snap, job, head, pods is not None, deadline)
        if snap.run_script_state == "failed" and head is not None:
            tail = self._part(snap, LOG_TAIL, deadline, lambda: self._log_tail(head, deadline))
            snap.log_tail = tail or []
        return snap

    def _read_job(self, obj: dict[str, Any], snap: JobSnapshot) -> Job | None:
        try:
            job = read_kuberay(obj, self.api.site).job
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            snap.lack(
                JOB_SPEC, Text("it does not have the RayJob/RayCluster shape the export writes")
            )
            return None
        return self._expect(job, snap)

    def workers_of(self, name: str) -> list[WorkerSnapshot]:
        """The Workers of a RayJob/RayCluster from one pod list (without their events)."""
        found = self.find(name)
        if found is None:
            return []
        kind, obj = found
        cluster = (obj.get("status") or {}).get("rayClusterName") if kind == "RayJob" else name
        if not cluster:
            return []
        site = self.api.site
        return workers_from(as_workers(self._cluster_pods(cluster), site), [], site)[0]

    def _cluster_pods(self, cluster: str, deadline: float | None = None) -> list[dict[str, Any]]:
        answer = self.api.call(
            Action("list", "pods", self.namespace),
            self.api.core.list_namespaced_pod,
            self.namespace,
            label_selector=f"{CLUSTER_LABEL}={cluster}",
            deadline=deadline,
        )
        return answer.get("items") or []

    def _service_members(
        self, snap: JobSnapshot, cluster: str, head: WorkerSnapshot | None, deadline: float
    ) -> None:
        """Ray members from the dashboard behind KubeRay's head service."""
        if self._head_missing(snap, head):
            return
        service = head_service(cluster)
        self._members_through(
            snap,
            deadline,
            Action("get", "services/proxy (Ray dashboard)", self.namespace, service),
            SERVICE_PROXY,
            namespace=self.namespace,
            name=f"{service}:{DASHBOARD_PORT_NAME}",
        )


def _is_head(pod: Mapping[str, Any]) -> bool:
    return (pod["metadata"].get("labels") or {}).get(NODE_TYPE_LABEL) == "head"
