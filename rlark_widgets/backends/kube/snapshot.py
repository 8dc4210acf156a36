"""One refresh of a Job on Kubernetes: a constant handful of requests, whatever its size.

Per refresh: GET the Job, LIST its pods by label selector, LIST the namespace's pod events,
GET the head's Ray dashboard through the API server's pod proxy, and list the checkpoint
directory (a local read, or one exec in the head pod); the Header's log tail only when the run
script failed. Never one call per pod: a 1,000-Worker Job costs the same four or five requests
as a 3-Worker one. The parts after the Job and its pods are shared with KubeRay
(:class:`..k8s.pods.PodReader`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ...i18n import Text
from ...monitor.snapshot import (
    EVENTS,
    JOB_SPEC,
    LOG_TAIL,
    MEMBERS,
    PODS,
    JobPhase,
    JobSnapshot,
    WorkerSnapshot,
)
from ...rlark.job import Job
from ..gpu_use import SUMMARY_PATH
from ..k8s.api import Action, KubeApi, KubeApiError
from ..k8s.pods import HEAD_UNKNOWN, PodReader
from ..k8s.workers import run_of, workers_from
from .jobs import call_jobs

DASHBOARD_PORT = 8265
PROXY_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/proxy/api/v0/nodes"
SUMMARY_PROXY_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/proxy" + SUMMARY_PATH
BACKEND = "kubernetes"
RUN_SCRIPT_STATES = {JobPhase.SUCCEEDED: "succeeded", JobPhase.FAILED: "failed"}


def read_job(
    api: KubeApi, namespace: str, name: str, deadline: float | None = None
) -> dict[str, Any] | None:
    """The Job object, or None when there is none by that name."""
    try:
        found: dict[str, Any] = call_jobs(
            api,
            "get",
            api.custom.get_namespaced_custom_object,
            namespace,
            name,
            name=name,
            deadline=deadline,
        )
        return found
    except KubeApiError as exc:
        if exc.status == 404:
            return None
        raise


def _tasks(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Status tasks; no status at all means RLark has generated nothing yet (an empty list)."""
    status = obj.get("status")
    if not status:
        return []
    tasks = status.get("tasks") if isinstance(status, Mapping) else None
    return [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else None


def _phase(obj: Mapping[str, Any]) -> JobPhase | None:
    """The status phase, if the status is written as the CRD says (anyone may write it)."""
    status = obj.get("status")
    return JobPhase.read(status.get("phase")) if isinstance(status, Mapping) else None


def _head(job: Job | None, workers: list[WorkerSnapshot]) -> WorkerSnapshot | None:
    role = job.header.name if job is not None and job.header is not None else None
    return next(
        (w for w in workers if (w.role == role and w.index == 0) or (role is None and w.rank == 0)),
        None,
    )


class SnapshotReader(PodReader):
    """Reads snapshots of RLark Jobs in one namespace."""

    def read(self, name: str) -> JobSnapshot:
        """One refresh. Only the Job object must answer (without it nothing is known, so a
        failure raises BackendError); any other part that fails, or finds no time left, is
        named in ``missing`` and the snapshot keeps what the other parts said."""
        deadline = time.monotonic() + self.budget
        snap = JobSnapshot(job=name, backend=BACKEND, time=time.time())
        obj = read_job(self.api, self.namespace, name, deadline)
        if obj is None:
            snap.exists = False
            return snap
        job = self._job(obj, snap)
        snap.run = run_of(obj)
        snap.phase = _phase(obj)
        snap.tasks = _tasks(obj)
        snap.run_script_state = RUN_SCRIPT_STATES.get(snap.phase) if snap.phase else None
        pods = self._part(snap, PODS, deadline, lambda: self._pods(name, deadline))
        events = self._part(snap, EVENTS, deadline, lambda: self._events(deadline)) if pods else []
        snap.workers, snap.others = workers_from(pods or [], events or [], self.api.site, snap.run)
        head = _head(job, snap.workers)
        if head is not None:
            head.head = True
        if pods is None:  # the head pod is unknown: nothing can be asked through it
            snap.lack(MEMBERS, HEAD_UNKNOWN)
        else:
            self._members(snap, head, deadline)
        if job is not None:
            self._checkpoints(snap, job, head, pods is not None, deadline)
            self._scalars(snap, job, head, deadline)
        site = self.api.site
        pods_of = f"{site.job_label}={name}"
        snap.links = self._links(name, job, head, snap.workers, site.job_resource, pods_of)
        if snap.run_script_state == "failed" and head is not None:
            tail = self._part(snap, LOG_TAIL, deadline, lambda: self._log_tail(head, deadline))
            snap.log_tail = tail or []
        return snap

    def _job(self, obj: dict[str, Any], snap: JobSnapshot) -> Job | None:
        try:
            job = Job.from_manifest(obj, self.api.site)
        except (KeyError, TypeError, ValueError, StopIteration):
            snap.lack(JOB_SPEC, Text("it does not have the RLark Job shape"))
            return None
        return self._expect(job, snap)

    def workers(self, name: str) -> list[WorkerSnapshot]:
        """This run's Workers (without their events): pods of an earlier run or being deleted
        are left out, so their logs are never taken for this run's."""
        obj = read_job(self.api, self.namespace, name)
        run = run_of(obj) if obj is not None else None
        return workers_from(self._pods(name), [], self.api.site, run)[0]

    def _pods(self, name: str, deadline: float | None = None) -> list[dict[str, Any]]:
        answer = self.api.call(
            Action("list", "pods", self.namespace),
            self.api.core.list_namespaced_pod,
            self.namespace,
            label_selector=f"{self.api.site.job_label}={name}",
            deadline=deadline,
        )
        return answer.get("items") or []

    def _members(self, snap: JobSnapshot, head: WorkerSnapshot | None, deadline: float) -> None:
        """Ray members, then GPU use per Worker, from the head pod's dashboard, through the API
        server's pod proxy."""
        if self._head_missing(snap, head, ready=bool(head and head.ip)) or head is None:
            return
        action = Action("get", "pods/proxy (Ray dashboard)", self.namespace, head.name)
        where = {"namespace": self.namespace, "name": f"{head.name}:{DASHBOARD_PORT}"}
        self._members_through(snap, deadline, action, PROXY_PATH, **where)
        self._gpu_use_through(snap, deadline, action, SUMMARY_PROXY_PATH, **where)
