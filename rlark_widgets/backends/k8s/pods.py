"""What a refresh reads from pods, the same for an RLark Job and a KubeRay RayJob/RayCluster.

Each backend's reader finds its object and its pods its own way; the parts after that are the
same: the namespace's pod events in one list, Ray members and GPU use from a dashboard the API
server proxies to, checkpoints and training curves (a local read, or one exec in the head pod),
the head's log tail, all within one refresh's time budget, each part that fails named in
``missing``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ...i18n import Text
from ...monitor.links import Link, kube_links
from ...monitor.runs import split_checkpoints
from ...monitor.snapshot import (
    CHECKPOINTS,
    GPUS,
    MEMBERS,
    RUNNING,
    SCALARS,
    JobSnapshot,
    WorkerSnapshot,
)
from ...rlark.job import MAIN_CONTAINER, Job
from ..base import BackendError, expectations
from ..checkpoints import local_checkpoints, local_directory
from ..events import event_files, scalars_into
from ..gpu_use import gpu_use_into
from ..ray_members import members_from_dashboard
from .api import Action, KubeApi, KubeApiError
from .checkpoints import ExecFailed, exec_checkpoints
from .events import fetch_events, tensorboard_dirs, tensorboard_root
from .workers import join_members

#: A refresh's time budget, in request timeouts: retries stop, and no further part starts,
#: once it is spent (a slow answer then costs one part, not the monitor's next refreshes).
REFRESH_TIMEOUTS = 3
T = TypeVar("T")
HEAD_UNKNOWN = Text("the Ray head cannot be found while the Workers are unread")


def read_log(
    api: KubeApi, namespace: str, pod: str, tail: int, deadline: float | None = None
) -> str:
    """The last ``tail`` lines of a Worker's main container."""
    return str(
        api.call(
            Action("read the log of", "pods", namespace, pod),
            api.core.read_namespaced_pod_log,
            pod,
            namespace,
            container=MAIN_CONTAINER,
            tail_lines=tail,
            deadline=deadline,
        )
    )


def read_worker_log(
    api: KubeApi, namespace: str, name: str, workers: list[WorkerSnapshot], worker: str, tail: int
) -> str:
    """The log tail of the Worker named ``worker`` (its key ``role/index`` or its pod name)
    among ``workers``, with the Workers to choose from when there is no such one."""
    found = next((w for w in workers if worker in (w.key, w.name)), None)
    if found is None:
        known = ", ".join(w.key for w in workers)
        raise BackendError(
            Text(
                "Job '{name}' has no Worker '{worker}' in namespace '{namespace}'.",
                name=name,
                worker=worker,
                namespace=namespace,
            ),
            Text("Use one of its Workers: {workers}.", workers=known)
            if known
            else Text("Use one of its Workers: none yet."),
        )
    try:
        return read_log(api, namespace, found.name, tail)
    except KubeApiError as exc:
        if exc.status != 400:
            raise
        raise BackendError(
            Text(
                "Worker {worker} ({pod}) has no log yet: {reason}",
                worker=found.key,
                pod=found.name,
                reason=exc.text,
            ),
            Text("Wait until its container starts; `status` shows why it is waiting."),
        ) from None


class PodReader:
    """The parts of a refresh read from pods in one namespace; ``checkpoint_root`` is a local
    output mount (None: checkpoints are listed by exec in the head pod)."""

    def __init__(self, api: KubeApi, namespace: str, checkpoint_root: Path | None = None) -> None:
        self.api, self.namespace, self.checkpoint_root = api, namespace, checkpoint_root

    @property
    def budget(self) -> float:
        """Seconds a refresh may spend (a part in flight then may take one timeout more)."""
        return REFRESH_TIMEOUTS * self.api.timeout

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

    @staticmethod
    def _expect(job: Job, snap: JobSnapshot) -> Job:
        """What the monitor compares against, from the Job's annotations."""
        wanted = expectations(job)
        snap.expected_workers = wanted.num_nodes
        snap.progress.max_steps = wanted.max_steps
        snap.progress.save_interval = wanted.save_interval
        return job

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

    @staticmethod
    def _head_missing(snap: JobSnapshot, head: WorkerSnapshot | None, ready: bool = True) -> bool:
        """True, with the reason in ``missing``, when no running head can be asked for members."""
        if head is not None and head.phase == RUNNING and ready:
            return False
        why = (
            Text("no Worker runs the Ray head yet")
            if head is None
            else Text("the Ray head's Worker {worker} is not running", worker=head.key)
        )
        snap.lack(MEMBERS, why)
        return True

    def _members_through(
        self, snap: JobSnapshot, deadline: float, action: Action, path: str, **params: str
    ) -> None:
        """Ray members from the dashboard the API server proxies ``path`` to (a refresh retries
        soon, so no retries here)."""

        def read() -> None:
            answer = self.api.raw_get(action, path, attempts=1, deadline=deadline, **params)
            try:
                snap.members = join_members(members_from_dashboard(answer), snap.workers)
            except ValueError as exc:
                snap.lack(MEMBERS, Text("the Ray dashboard answered: {error}", error=str(exc)))

        self._part(snap, MEMBERS, deadline, read)

    def _gpu_use_through(
        self, snap: JobSnapshot, deadline: float, action: Action, path: str, **params: str
    ) -> None:
        """GPU use per Worker from the dashboard's node summary the API server proxies ``path``
        to; asked only once Ray members were read (the same dashboard answered)."""
        if not snap.members:
            return

        def read() -> None:
            answer = self.api.raw_get(action, path, attempts=1, deadline=deadline, **params)
            try:
                gpu_use_into(snap, answer)
            except ValueError as exc:
                snap.lack(GPUS, Text("the Ray dashboard answered: {error}", error=str(exc)))

        self._part(snap, GPUS, deadline, read)

    def _scalars(
        self, snap: JobSnapshot, job: Job, head: WorkerSnapshot | None, deadline: float
    ) -> None:
        """Training curves from the TensorBoard event files: the local mount when there is
        one, else the head pod's files mirrored here by exec; none before the head runs.
        Only points written since this run started: an earlier run's events left in the same
        directory are not this run's curves."""
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

    def _links(
        self,
        name: str,
        job: Job | None,
        head: WorkerSnapshot | None,
        workers: list[WorkerSnapshot],
        resource: str,
        pods: str,
    ) -> list[Link]:
        """The kubectl commands behind each panel, the port-forwards and the proxy URL;
        ``resource`` is the object's (``jobs.rlark.io``), ``pods`` the label selector of its
        pods."""
        return kube_links(
            self.namespace,
            name,
            head.name if head is not None and head.phase == RUNNING else None,
            [w.name for w in workers],
            self.api.host,
            expectations(job).checkpoint_dir if job is not None else None,
            tensorboard_root(job) if job is not None else None,
            resource,
            pods,
        )

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
                CHECKPOINTS, Text("the head Worker is not running") if listed else HEAD_UNKNOWN
            )
            return
        started = snap.run.started if snap.run else None
        snap.checkpoints, snap.earlier_checkpoints = split_checkpoints(
            snap.checkpoints, started, expectations(job).resume_dir
        )
        latest = snap.latest_checkpoint
        if latest is not None and not latest.resumed:  # a resumed one is no step of this run
            snap.progress.last_step, snap.progress.last_step_time = latest.step, latest.time
