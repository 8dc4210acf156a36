"""One refresh of a Job on Kubernetes: a constant handful of requests, whatever its size.

Per refresh: GET the Job, LIST its pods by label selector, LIST the namespace's pod events,
GET the head's Ray dashboard through the API server's pod proxy, and list the checkpoint
directory (a local read, or one exec in the head pod); the Header's log tail only when the run
script failed. Never one call per pod: a 1,000-Worker Job costs the same four or five requests
as a 3-Worker one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...i18n import Text
from ...monitor.runs import split_checkpoints
from ...monitor.snapshot import (
    CHECKPOINTS,
    EVENTS,
    JOB_SPEC,
    LOG_TAIL,
    MEMBERS,
    PODS,
    RUNNING,
    JobSnapshot,
    RunInfo,
    WorkerSnapshot,
)
from ...rlark.job import MAIN_CONTAINER, Job
from ..base import expectations
from ..checkpoints import local_checkpoints, local_directory
from ..ray_members import members_from_dashboard
from .api import Action, KubeApi, KubeApiError
from .checkpoints import ExecFailed, exec_checkpoints
from .workers import epoch, join_members, workers_from

DASHBOARD_PORT = 8265
PROXY_PATH = "/api/v1/namespaces/{namespace}/pods/{name}/proxy/api/v0/nodes"
BACKEND = "kubernetes"
RUN_SCRIPT_STATES = {"Succeeded": "succeeded", "Failed": "failed"}
#: A refresh's time budget, in request timeouts: retries stop, and no further part starts,
#: once it is spent (a slow answer then costs one part, not the monitor's next refreshes).
REFRESH_TIMEOUTS = 3
T = TypeVar("T")
_HEAD_UNKNOWN = Text("the Ray head cannot be found while the Workers are unread")


def read_job(
    api: KubeApi, namespace: str, name: str, deadline: float | None = None
) -> dict[str, Any] | None:
    """The Job object, or None when there is none by that name."""
    try:
        return api.jobs(
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


def read_log(
    api: KubeApi, namespace: str, pod: str, tail: int, deadline: float | None = None
) -> str:
    """The last ``tail`` lines of a Worker's main container."""
    return api.call(
        Action("read the log of", "pods", namespace, pod),
        api.core.read_namespaced_pod_log,
        pod,
        namespace,
        container=MAIN_CONTAINER,
        tail_lines=tail,
        deadline=deadline,
    )


def _tasks(obj: dict[str, Any]) -> list[dict[str, Any]] | None:
    """Status tasks; no status at all means RLark has generated nothing yet (an empty list)."""
    status = obj.get("status")
    if not status:
        return []
    tasks = status.get("tasks")
    return list(tasks) if isinstance(tasks, list) else None


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


class SnapshotReader:
    """Reads snapshots of Jobs in one namespace; ``checkpoint_root`` is a local output mount."""

    def __init__(self, api: KubeApi, namespace: str, checkpoint_root: Path | None = None) -> None:
        self.api, self.namespace, self.checkpoint_root = api, namespace, checkpoint_root

    @property
    def budget(self) -> float:
        """Seconds a refresh may spend (a part in flight then may take one timeout more)."""
        return REFRESH_TIMEOUTS * self.api.timeout

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
        snap.phase = (obj.get("status") or {}).get("phase")
        snap.tasks = _tasks(obj)
        snap.run_script_state = RUN_SCRIPT_STATES.get(snap.phase or "")
        pods = self._part(snap, PODS, deadline, lambda: self._pods(name, deadline))
        events = self._part(snap, EVENTS, deadline, lambda: self._events(deadline)) if pods else []
        snap.workers, snap.others = workers_from(pods or [], events or [], self.api.site, snap.run)
        head = _head(job, snap.workers)
        if head is not None:
            head.head = True
        if pods is None:  # the head pod is unknown: nothing can be asked through it
            snap.lack(MEMBERS, _HEAD_UNKNOWN)
        else:
            self._members(snap, head, deadline)
        if job is not None:
            self._checkpoints(snap, job, head, pods is not None, deadline)
        if snap.run_script_state == "failed" and head is not None:
            tail = self._part(snap, LOG_TAIL, deadline, lambda: self._log_tail(head, deadline))
            snap.log_tail = tail or []
        return snap

    def _part(
        self, snap: JobSnapshot, part: str, deadline: float, read: Callable[[], T]
    ) -> T | None:
        """``read()``; None, with ``part`` named in ``missing``, when it fails or the refresh's
        time is spent."""
        if time.monotonic() >= deadline:
            snap.lack(part, self._late())
            return None
        try:
            return read()
        except KubeApiError as exc:
            snap.lack(part, exc.text)
            return None

    def _late(self) -> Text:
        return Text(
            "not read: this refresh already took {seconds} s (the API server is slow)",
            seconds=f"{self.budget:g}",
        )

    def _job(self, obj: dict[str, Any], snap: JobSnapshot) -> Job | None:
        try:
            job = Job.from_manifest(obj)
        except (KeyError, TypeError, ValueError, StopIteration):
            snap.lack(JOB_SPEC, Text("it does not have the RLark Job shape"))
            return None
        wanted = expectations(job)
        snap.expected_workers = wanted.num_nodes
        snap.progress.max_steps = wanted.max_steps
        snap.progress.save_interval = wanted.save_interval
        return job

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

    def _events(self, deadline: float) -> list[dict[str, Any]]:
        """The namespace's pod events (one list, whatever the number of Workers)."""
        answer = self.api.call(
            Action("list", "events", self.namespace),
            self.api.core.list_namespaced_event,
            self.namespace,
            field_selector="involvedObject.kind=Pod",
            deadline=deadline,
        )
        return answer.get("items") or []

    def _members(self, snap: JobSnapshot, head: WorkerSnapshot | None, deadline: float) -> None:
        """Ray members from the head's dashboard; a refresh retries soon, so no retries here."""
        if head is None or head.phase != RUNNING or not head.ip:
            why = (
                Text("no Worker runs the Ray head yet")
                if head is None
                else Text("the Ray head's Worker {worker} is not running", worker=head.key)
            )
            snap.lack(MEMBERS, why)
            return

        def read() -> None:
            answer = self.api.raw_get(
                Action("get", "pods/proxy (Ray dashboard)", self.namespace, head.name),
                PROXY_PATH,
                attempts=1,
                deadline=deadline,
                namespace=self.namespace,
                name=f"{head.name}:{DASHBOARD_PORT}",
            )
            try:
                snap.members = join_members(members_from_dashboard(answer), snap.workers)
            except ValueError as exc:
                snap.lack(MEMBERS, Text("the Ray dashboard answered: {error}", error=str(exc)))

        self._part(snap, MEMBERS, deadline, read)

    def _log_tail(self, head: WorkerSnapshot, deadline: float) -> list[str]:
        """The Header's last lines, read only when the run script failed (one more request)."""
        return read_log(self.api, self.namespace, head.name, 20, deadline).splitlines()

    def _checkpoints(
        self,
        snap: JobSnapshot,
        job: Job,
        head: WorkerSnapshot | None,
        listed: bool,
        deadline: float,
    ) -> None:
        """From the local mount when there is one, else by exec in the head pod (``listed``:
        whether the Workers, and so the head, could be read)."""
        directory = expectations(job).checkpoint_dir
        if not directory:
            snap.lack(CHECKPOINTS, Text("the Job has no rlark.io/checkpoint-dir annotation"))
            return
        if self.checkpoint_root is not None:
            local = local_directory(job, directory, self.checkpoint_root)
            if local is None:
                why = Text("{directory} is under no mount of the Job", directory=directory)
                snap.lack(CHECKPOINTS, why)
                return
            try:
                snap.checkpoints = local_checkpoints(local, directory)
            except OSError as exc:
                error = exc.strerror or str(exc)
                why = Text("cannot list {path}: {error}", path=str(local), error=error)
                snap.lack(CHECKPOINTS, why)
                return
        elif head is not None and head.phase == RUNNING:
            if time.monotonic() >= deadline:
                snap.lack(CHECKPOINTS, self._late())
                return
            try:
                snap.checkpoints = exec_checkpoints(self.api, self.namespace, head.name, directory)
            except ExecFailed as exc:
                why = Text("exec in {pod} failed: {error}", pod=head.name, error=exc.why)
                snap.lack(CHECKPOINTS, why)
                return
        else:
            snap.lack(
                CHECKPOINTS, Text("the head Worker is not running") if listed else _HEAD_UNKNOWN
            )
            return
        started = snap.run.started if snap.run else None
        resumed = expectations(job).resume_dir
        snap.checkpoints, snap.earlier_checkpoints = split_checkpoints(
            snap.checkpoints, started, resumed
        )
        latest = snap.latest_checkpoint
        if latest is not None and not latest.resumed:  # a resumed one is no step of this run
            snap.progress.last_step, snap.progress.last_step_time = latest.step, latest.time
