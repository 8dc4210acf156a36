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
from ...monitor.links import Link, kube_links
from ...monitor.snapshot import (
    EVENTS,
    GPUS,
    JOB_SPEC,
    LOG_TAIL,
    MEMBERS,
    PODS,
    RUNNING,
    SCALARS,
    JobSnapshot,
    RunInfo,
    WorkerSnapshot,
)
from ...rlark.job import Job
from ..base import expectations
from ..checkpoints import local_directory
from ..events import event_files, scalars_into
from ..gpu_use import SUMMARY_PATH, gpu_use_into
from ..k8s.api import Action, KubeApi, KubeApiError
from ..k8s.checkpoints import ExecFailed
from ..k8s.pods import HEAD_UNKNOWN, PodReader
from ..k8s.workers import epoch, workers_from
from .events import fetch_events, tensorboard_dirs, tensorboard_root
from .jobs import call_jobs

DASHBOARD_PORT = 8265
PROXY_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/proxy/api/v0/nodes"
SUMMARY_PROXY_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/proxy" + SUMMARY_PATH
BACKEND = "kubernetes"
RUN_SCRIPT_STATES = {"Succeeded": "succeeded", "Failed": "failed"}


def read_job(
    api: KubeApi, namespace: str, name: str, deadline: float | None = None
) -> dict[str, Any] | None:
    """The Job object, or None when there is none by that name."""
    try:
        return call_jobs(
            api,
            "get",
            api.custom.get_namespaced_custom_object,
            namespace,
            name,
            name=name,
            deadline=deadline,
        )
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


def _phase(obj: Mapping[str, Any]) -> str | None:
    """The status phase, if the status is written as the CRD says (anyone may write it)."""
    status = obj.get("status")
    phase = status.get("phase") if isinstance(status, Mapping) else None
    return phase if isinstance(phase, str) else None


def run_of(obj: dict[str, Any]) -> RunInfo | None:
    """The run a Job object is: its uid and creation time (None when the server gave no uid)."""
    metadata = obj.get("metadata") or {}
    uid = metadata.get("uid")
    return RunInfo(uid, epoch(metadata.get("creationTimestamp"))) if uid else None


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
        snap.run_script_state = RUN_SCRIPT_STATES.get(snap.phase or "")
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
        snap.links = self._links(name, job, head, snap.workers)
        if snap.run_script_state == "failed" and head is not None:
            tail = self._part(snap, LOG_TAIL, deadline, lambda: self._log_tail(head, deadline))
            snap.log_tail = tail or []
        return snap

    def _job(self, obj: dict[str, Any], snap: JobSnapshot) -> Job | None:
        try:
            job = Job.from_manifest(obj)
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
        """Ray members from the head pod's dashboard, through the API server's pod proxy."""
        if self._head_missing(snap, head, ready=bool(head and head.ip)) or head is None:
            return
        self._members_through(
            snap,
            deadline,
            Action("get", "pods/proxy (Ray dashboard)", self.namespace, head.name),
            PROXY_PATH,
            namespace=self.namespace,
            name=f"{head.name}:{DASHBOARD_PORT}",
        )
        if snap.members:
            self._part(snap, GPUS, deadline, lambda: self._gpu_use(snap, head, deadline))

    def _gpu_use(self, snap: JobSnapshot, head: WorkerSnapshot, deadline: float) -> None:
        """GPU use per Worker from the head dashboard's node summary, through the pod proxy."""
        answer = self.api.raw_get(
            Action("get", "pods/proxy (Ray dashboard)", self.namespace, head.name),
            SUMMARY_PROXY_PATH,
            attempts=1,
            deadline=deadline,
            namespace=self.namespace,
            name=f"{head.name}:{DASHBOARD_PORT}",
        )
        try:
            gpu_use_into(snap, answer)
        except ValueError as exc:
            snap.lack(GPUS, Text("the Ray dashboard answered: {error}", error=str(exc)))

    def _links(
        self, name: str, job: Job | None, head: WorkerSnapshot | None, workers: list[WorkerSnapshot]
    ) -> list[Link]:
        """The kubectl commands behind each panel, the port-forwards and the proxy URL."""
        return kube_links(
            self.namespace,
            name,
            head.name if head is not None and head.phase == RUNNING else None,
            [w.name for w in workers],
            self.api.host,
            expectations(job).checkpoint_dir if job is not None else None,
            tensorboard_root(job) if job is not None else None,
            self.api.site.job_resource,
            self.api.site.job_label,
        )

    def _scalars(
        self, snap: JobSnapshot, job: Job, head: WorkerSnapshot | None, deadline: float
    ) -> None:
        """Training curves from the TensorBoard event files: the local mount when there is
        one, else the head pod's files mirrored here by exec; none before the head runs.
        Only points written since this run's Job was created: an earlier run's events left in
        the same directory are not this run's curves."""
        since = snap.run.started if snap.run is not None else None
        if self.checkpoint_root is not None:
            for directory in tensorboard_dirs(job):
                local = local_directory(job, directory, self.checkpoint_root)
                if local is not None and event_files(local):
                    scalars_into(snap, local, since)
                    return
            return
        if head is None or head.phase != RUNNING:
            return
        if time.monotonic() >= deadline:
            snap.lack(SCALARS, self._late())
            return
        try:
            mirrored = fetch_events(self.api, self.namespace, head.name, job)
        except (ExecFailed, OSError, ValueError) as exc:
            why = exc.why if isinstance(exc, ExecFailed) else str(exc)
            snap.lack(SCALARS, Text("exec in {pod} failed: {error}", pod=head.name, error=why))
            return
        if mirrored is not None:
            scalars_into(snap, mirrored, since)
