"""One refresh of a Job on Kubernetes: a constant handful of requests, whatever its size.

Per refresh: GET the Job, LIST its pods by label selector, LIST the namespace's pod events,
GET the head's Ray dashboard through the API server's pod proxy, and list the checkpoint
directory (a local read, or one exec in the head pod); the Header's log tail only when the run
script failed. Never one call per pod: a 1,000-Worker Job costs the same four or five requests
as a 3-Worker one.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..monitor.snapshot import RUNNING, JobSnapshot, WorkerSnapshot
from ..rlark.job import MAIN_CONTAINER, Job
from .base import expectations
from .kube_api import Action, KubeApi, KubeApiError
from .kube_checkpoints import ExecFailed, exec_checkpoints, local_checkpoints, local_directory
from .kube_workers import JOB_LABEL, join_members, members_from_dashboard, workers_from

DASHBOARD_PORT = 8265
PROXY_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/proxy/api/v0/nodes"
BACKEND = "kubernetes"
RUN_SCRIPT_STATES = {"Succeeded": "succeeded", "Failed": "failed"}


def read_job(api: KubeApi, namespace: str, name: str) -> dict[str, Any] | None:
    """The Job object, or None when there is none by that name."""
    try:
        return api.jobs("get", api.custom.get_namespaced_custom_object, namespace, name, name=name)
    except KubeApiError as exc:
        if exc.status == 404:
            return None
        raise


def read_log(api: KubeApi, namespace: str, pod: str, tail: int) -> str:
    """The last ``tail`` lines of a Worker's main container."""
    return api.call(
        Action("read the log of", "pods", namespace, pod),
        api.core.read_namespaced_pod_log,
        pod,
        namespace,
        container=MAIN_CONTAINER,
        tail_lines=tail,
    )


def _tasks(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Status tasks; no status at all means RLark has generated nothing yet (an empty list)."""
    status = obj.get("status")
    if not status:
        return []
    tasks = status.get("tasks")
    return list(tasks) if isinstance(tasks, list) else None


def _head(job: Job | None, workers: list[WorkerSnapshot]) -> WorkerSnapshot | None:
    role = job.header.name if job is not None and job.header is not None else None
    return next(
        (w for w in workers if (w.role == role and w.index == 0) or (role is None and w.rank == 0)),
        None,
    )


class SnapshotReader:
    """Reads snapshots of Jobs in one namespace; ``checkpoint_root`` is a local output mount."""

    def __init__(self, api: KubeApi, namespace: str, checkpoint_root: Path | None = None) -> None:
        self.api, self.namespace, self.checkpoint_root = api, namespace, checkpoint_root

    def read(self, name: str) -> JobSnapshot:
        snap = JobSnapshot(job=name, backend=BACKEND, time=time.time())
        obj = read_job(self.api, self.namespace, name)
        if obj is None:
            snap.exists = False
            return snap
        job = self._job(obj, snap)
        snap.phase = (obj.get("status") or {}).get("phase")
        snap.tasks = _tasks(obj)
        snap.run_script_state = RUN_SCRIPT_STATES.get(snap.phase or "")
        snap.workers = self.workers(name)
        head = _head(job, snap.workers)
        if head is not None and head.phase == RUNNING and head.ip:
            self._members(snap, head)
        else:
            snap.missing.append("ray members")
        if job is not None:
            self._checkpoints(snap, job, head)
        if snap.run_script_state == "failed" and head is not None:
            self._log_tail(snap, head)
        return snap

    def _job(self, obj: dict[str, Any], snap: JobSnapshot) -> Job | None:
        try:
            job = Job.from_manifest(obj)
        except (KeyError, TypeError, ValueError, StopIteration):
            snap.missing.append("job spec (it does not have the RLark Job shape)")
            return None
        wanted = expectations(job)
        snap.expected_workers = wanted.num_nodes
        snap.progress.max_steps = wanted.max_steps
        snap.progress.save_interval = wanted.save_interval
        return job

    def workers(self, name: str, with_events: bool = True) -> list[WorkerSnapshot]:
        """The Job's Workers: one pod list by label, plus one event list of the namespace."""
        pods = self.api.call(
            Action("list", "pods", self.namespace),
            self.api.core.list_namespaced_pod,
            self.namespace,
            label_selector=f"{JOB_LABEL}={name}",
        )
        events = {}
        if with_events:
            events = self.api.call(
                Action("list", "events", self.namespace),
                self.api.core.list_namespaced_event,
                self.namespace,
                field_selector="involvedObject.kind=Pod",
            )
        return workers_from(pods.get("items") or [], events.get("items") or [])

    def _members(self, snap: JobSnapshot, head: WorkerSnapshot) -> None:
        """Ray members from the head's dashboard; a refresh retries soon, so no retries here."""
        try:
            answer = self.api.raw_get(
                Action("get", "pods/proxy (Ray dashboard)", self.namespace, head.name),
                PROXY_PATH,
                attempts=1,
                namespace=self.namespace,
                name=f"{head.name}:{DASHBOARD_PORT}",
            )
            snap.members = join_members(members_from_dashboard(answer), snap.workers)
        except (KubeApiError, ValueError):
            snap.missing.append("ray members")

    def _log_tail(self, snap: JobSnapshot, head: WorkerSnapshot) -> None:
        """The Header's last lines, read only when the run script failed (one more request)."""
        try:
            snap.log_tail = read_log(self.api, self.namespace, head.name, 20).splitlines()
        except KubeApiError:
            snap.missing.append("log tail")

    def _checkpoints(self, snap: JobSnapshot, job: Job, head: WorkerSnapshot | None) -> None:
        directory = expectations(job).checkpoint_dir
        if not directory:
            snap.missing.append("checkpoints (the Job has no rlark.io/checkpoint-dir annotation)")
            return
        if self.checkpoint_root is not None:
            local = local_directory(job, directory, self.checkpoint_root)
            if local is None:
                snap.missing.append(f"checkpoints ({directory} is under no mount of the Job)")
                return
            snap.checkpoints = local_checkpoints(local, directory)
        elif head is not None and head.phase == RUNNING:
            try:
                snap.checkpoints = exec_checkpoints(self.api, self.namespace, head.name, directory)
            except ExecFailed as exc:
                snap.missing.append(f"checkpoints (exec in {head.name} failed: {exc})")
                return
        else:
            snap.missing.append("checkpoints (the head Worker is not running)")
            return
        latest = snap.latest_checkpoint
        if latest is not None:
            snap.progress.last_step, snap.progress.last_step_time = latest.step, latest.time
