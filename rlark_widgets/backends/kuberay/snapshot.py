"""One refresh of a RayJob or RayCluster: a constant handful of requests, whatever its size.

GET the object (RayJob first, then RayCluster), for a RayJob GET its RayCluster (the run), LIST
the RayCluster's pods by ``ray.io/cluster``, LIST the namespace's pod events, GET the head
service's dashboard (Ray members, then GPU use) through the API server's service proxy, and
read checkpoints and training curves (a local read, or an exec in the head pod). Pods are
KubeRay's: ``ray.io/node-type`` says which is the head, ``ray.io/group`` the group; the role,
worker index and RLINF_NODE_RANK come from the template the export wrote.

A run is the RayCluster: its ``metadata.uid`` and ``creationTimestamp`` (a RayCluster made
again, or a RayJob started again after a suspend, is a new one). Pods are matched to it through
their ownerReferences; pods of another uid and Terminating pods are listed apart, never
counted, and checkpoints count only when written after it started (:mod:`..k8s.workers`).
"""

from __future__ import annotations

import copy
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from ...contract import DISTRIBUTION, MANAGED_BY_LABEL
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
    JobPhase,
    JobSnapshot,
    PodMaker,
    RunInfo,
    WorkerSnapshot,
)
from ...rlark.job import Job
from ...rlark.kuberay import PLURALS, read_kuberay
from ...rlark.kuberay.schema import GROUP, VERSION
from ...rlark.site import SiteProfile
from ..gpu_use import SUMMARY_PATH
from ..k8s.api import Action, KubeApiError
from ..k8s.pods import PodReader
from ..k8s.workers import run_of, workers_from

BACKEND = "kuberay"
SERVICE_PROXY = "/api/v1/namespaces/{namespace}/services/{name}/proxy/api/v0/nodes"
SERVICE_SUMMARY = "/api/v1/namespaces/{namespace}/services/{name}/proxy" + SUMMARY_PATH
DASHBOARD_PORT_NAME = "dashboard"
#: RayJob jobDeploymentStatus -> the monitor's Job phase (what is not listed is Pending).
DEPLOYMENT_PHASES = {
    "Running": JobPhase.RUNNING,
    "Complete": JobPhase.SUCCEEDED,
    "Failed": JobPhase.FAILED,
    "Suspending": JobPhase.STOPPED,
    "Suspended": JobPhase.STOPPED,
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


def phase_of(kind: str, obj: Mapping[str, Any]) -> JobPhase:
    status = obj.get("status") or {}
    if kind == "RayJob":
        if status.get("jobStatus") == "SUCCEEDED":
            return JobPhase.SUCCEEDED
        return DEPLOYMENT_PHASES.get(status.get("jobDeploymentStatus") or "", JobPhase.PENDING)
    if (obj.get("spec") or {}).get("suspend") or status.get("state") == "suspended":
        return JobPhase.STOPPED
    return JobPhase.RUNNING if status.get("state") == "ready" else JobPhase.PENDING


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
        snap = JobSnapshot(job=name, backend=BACKEND, time=time.time(), pods_by=PodMaker.KUBERAY)
        found = self.find(name, deadline)
        if found is None:
            snap.exists = False
            return snap
        kind, obj = found
        job = self._read_job(obj, snap)
        snap.phase = phase_of(kind, obj)
        cluster = cluster_of(kind, obj)
        if kind == "RayJob":
            status = obj.get("status") or {}
            snap.run_script_state = JOB_STATES.get(status.get("jobStatus") or "", "not started")
        if not cluster:  # KubeRay has not made the RayCluster yet
            snap.run = run_of(obj, (obj.get("status") or {}).get("startTime"))
            snap.tasks = []
            return snap
        snap.run = self._part(snap, PODS, deadline, lambda: self._run(kind, obj, cluster, deadline))
        pods = self._part(snap, PODS, deadline, lambda: self._cluster_pods(cluster, deadline))
        events = self._part(snap, EVENTS, deadline, lambda: self._events(deadline)) if pods else []
        site = self.api.site
        snap.workers, snap.others = workers_from(
            as_workers(pods or [], site), events or [], site, snap.run
        )
        heads = {p["metadata"]["name"] for p in pods or [] if _is_head(p)}
        head = next((w for w in snap.workers if w.name in heads), None)
        if head is not None:
            head.head = True
        snap.tasks = tasks_of(job, snap.workers)
        self._service_members(snap, cluster, head, deadline)
        if job is not None:
            self._checkpoints(snap, job, head, pods is not None, deadline)
            self._scalars(snap, job, head, deadline)
        resource = f"{PLURALS[kind]}.{GROUP}"
        pods_of = f"{CLUSTER_LABEL}={cluster}"
        snap.links = self._links(name, job, head, snap.workers, resource, pods_of)
        if snap.run_script_state == "failed" and head is not None:
            tail = self._part(snap, LOG_TAIL, deadline, lambda: self._log_tail(head, deadline))
            snap.log_tail = tail or []
        return snap

    def _run(
        self, kind: str, obj: dict[str, Any], cluster: str, deadline: float | None = None
    ) -> RunInfo | None:
        """The run the pods belong to: the RayCluster's uid and creation time (its pods are
        owned by it). A RayJob's RayCluster is read by its name in the status (one request):
        each start of a RayJob makes a new one; while it has none, the RayJob's own uid and
        ``status.startTime`` (no pod is then this run's)."""
        if kind == "RayCluster":
            return run_of(obj)
        try:
            made = self.api.call(
                Action("get", f"{PLURALS['RayCluster']}.{GROUP}", self.namespace, cluster),
                self.api.custom.get_namespaced_custom_object,
                GROUP,
                VERSION,
                self.namespace,
                PLURALS["RayCluster"],
                cluster,
                deadline=deadline,
            )
        except KubeApiError as exc:
            if exc.status != 404:
                raise
            return run_of(obj, (obj.get("status") or {}).get("startTime"))
        return run_of(made)

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
        """This run's Workers of a RayJob/RayCluster (without their events): pods of an earlier
        RayCluster or being deleted are left out, so their logs are never taken for this run's."""
        found = self.find(name)
        if found is None:
            return []
        kind, obj = found
        cluster = cluster_of(kind, obj)
        if not cluster:
            return []
        site = self.api.site
        run = self._run(kind, obj, cluster)
        return workers_from(as_workers(self._cluster_pods(cluster), site), [], site, run)[0]

    def ours(self) -> list[dict[str, Any]]:
        """The RayJobs and RayClusters this tool created in the namespace (by its label),
        oldest first; a RayCluster KubeRay made for a RayJob is that RayJob's run, not listed."""
        found = []
        for kind, plural in PLURALS.items():
            answer = self.api.call(
                Action("list", f"{plural}.{GROUP}", self.namespace),
                self.api.custom.list_namespaced_custom_object,
                GROUP,
                VERSION,
                self.namespace,
                plural,
                label_selector=f"{MANAGED_BY_LABEL}={DISTRIBUTION}",
            )
            found += [
                o
                for o in answer.get("items") or []
                if not (kind == "RayCluster" and _made_for_a_rayjob(o))
            ]
        return sorted(found, key=lambda o: (o.get("metadata") or {}).get("creationTimestamp") or "")

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
        """Ray members, then GPU use per Worker, from the dashboard behind KubeRay's head
        service."""
        if self._head_missing(snap, head):
            return
        service = head_service(cluster)
        action = Action("get", "services/proxy (Ray dashboard)", self.namespace, service)
        where = {"namespace": self.namespace, "name": f"{service}:{DASHBOARD_PORT_NAME}"}
        self._members_through(snap, deadline, action, SERVICE_PROXY, **where)
        self._gpu_use_through(snap, deadline, action, SERVICE_SUMMARY, **where)


def cluster_of(kind: str, obj: Mapping[str, Any]) -> str | None:
    """The RayCluster whose pods are the object's Workers (a RayJob's, once KubeRay made it)."""
    return (
        (obj.get("status") or {}).get("rayClusterName")
        if kind == "RayJob"
        else obj["metadata"]["name"]
    )


def _made_for_a_rayjob(obj: Mapping[str, Any]) -> bool:
    owners = (obj.get("metadata") or {}).get("ownerReferences") or []
    return any(o.get("kind") == "RayJob" for o in owners)


def _is_head(pod: Mapping[str, Any]) -> bool:
    return (pod["metadata"].get("labels") or {}).get(NODE_TYPE_LABEL) == "head"
