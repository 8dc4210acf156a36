"""Why is a Job not training yet? Walk the seeds' chain and stop at the first broken link.

Job created -> Tasks generated -> node selection matches -> resources, image and storage ready
-> Workers running -> Ray head up -> Ray members == num_nodes with ranks 0..N-1 -> final RLinf
config saved -> steps advancing -> checkpoints persisted and readable. "Running" is never called
"training" until the last links hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..i18n import Text, render
from .scalars import SLOW, STALLED
from .snapshot import (
    CHECKPOINTS,
    FAILED,
    MEMBERS,
    PODS,
    RUNNING,
    SUCCEEDED,
    Checkpoint,
    JobPhase,
    JobSnapshot,
    PodMaker,
    WorkerSnapshot,
)

LINKS = (
    "job-created",
    "tasks-generated",
    "node-selection",
    "resources-image-storage",
    "workers-running",
    "ray-head",
    "ray-members",
    "config-saved",
    "steps-advancing",
    "checkpoints",
)
SOURCE = "seeds/rlinf-faq.zh.txt (Job 长时间 Pending 或没有 Worker 时，先检查什么); rlark-widgets: the diagnosis chain"
IMAGE_REASONS = {"ImagePullBackOff", "ErrImagePull", "InvalidImageName"}
#: A local Worker whose ``ray start`` timed out registering with the head (a busy machine).
START_TIMED_OUT = "StartTimedOut"
CRASH_REASONS = {
    "CrashLoopBackOff",
    "OOMKilled",
    "Error",
    "RunContainerError",
    "CreateContainerError",
}

#: How long a Ray head may take to answer after submit before "cannot be reached" is a fault:
#: the local backend's per-Worker start deadline (LocalBackend join_timeout), which also covers
#: a Pod's image pull and ``ray start`` on a cluster under load.
HEAD_START_SECONDS = 180.0


@dataclass(frozen=True)
class Diagnosis:
    """The first broken link (or ``healthy``), in plain words with its fix.

    The words are :class:`Text`, rendered in the reader's language; ``title``, ``detail`` and
    ``fix`` give the English, and :meth:`to_dict` the plain strings JSON and records need.
    """

    link: str
    ok: bool
    title_text: Text
    detail_text: Text | str = ""
    fix_text: Text | str = ""
    training: bool = False

    @property
    def title(self) -> str:
        return render(self.title_text)

    @property
    def detail(self) -> str:
        return render(self.detail_text)

    @property
    def fix(self) -> str:
        return render(self.fix_text)

    def sentence(self, lang: str = "en") -> str:
        """Title and detail (often a raw Kubernetes message or log line) in ``lang``."""
        return f"{render(self.title_text, lang)} {render(self.detail_text, lang)}".strip()

    def to_dict(self, lang: str = "en") -> dict[str, object]:
        """The fields as plain values, words in ``lang`` (keys as before: title, detail, fix)."""
        return {
            "link": self.link,
            "ok": self.ok,
            "title": render(self.title_text, lang),
            "detail": render(self.detail_text, lang),
            "fix": render(self.fix_text, lang),
            "training": self.training,
        }


def _broken(link: str, title: Text, detail: Text | str, fix: Text) -> Diagnosis:
    return Diagnosis(link, False, title, detail, fix)


def _persisted(snap: JobSnapshot) -> Checkpoint | None:
    """The latest checkpoint this run wrote (the one it resumed from is not its own)."""
    return max((c for c in snap.checkpoints if not c.resumed), key=lambda c: c.step, default=None)


def _checkpoint_clause(snap: JobSnapshot) -> Text:
    latest = _persisted(snap)
    if latest is not None:
        return Text("latest checkpoint global_step_{step}", step=latest.step)
    resumed = next((c for c in snap.checkpoints if c.resumed), None)
    if resumed is not None:
        return Text("no new checkpoint (resumed from global_step_{step})", step=resumed.step)
    return Text("no checkpoint")


def _verdict_detail(snap: JobSnapshot) -> Text | str:
    """The rehearsal's own words: its placement check, that it did not check it, or why it
    failed."""
    verdict = snap.verdict
    if verdict is None:
        return ""
    if verdict.passed and verdict.placement is not None:
        return verdict.placement_text or verdict.placement
    return verdict.said


def _ended(snap: JobSnapshot, stopped: bool) -> Diagnosis:
    """A stopped or finished Job (or rehearsal): its result, and that a restart starts over.

    A stop is OK only when this run persisted a checkpoint; a finished Job whose Workers still
    run says that a Stop releases them (they hold their nodes until then).
    """
    checkpoint = _checkpoint_clause(snap)
    if stopped:
        title = (
            Text("The rehearsal was stopped, {checkpoint}.", checkpoint=checkpoint)
            if snap.rehearsal
            else Text("The Job was stopped, {checkpoint}.", checkpoint=checkpoint)
        )
        fix = Text("A new submit starts from scratch unless runner.resume_dir names a checkpoint.")
        ok = _persisted(snap) is not None
        return Diagnosis("ended", ok, title, _verdict_detail(snap), fix)
    holding = sum(w.phase == RUNNING for w in snap.workers)
    if holding:
        title = (
            Text(
                "The rehearsal finished, {checkpoint}; Stop releases its {count} Workers.",
                checkpoint=checkpoint,
                count=holding,
            )
            if snap.rehearsal
            else Text(
                "The Job finished, {checkpoint}; Stop releases its {count} Workers.",
                checkpoint=checkpoint,
                count=holding,
            )
        )
        fix = Text("Stop the Job: its Workers hold their nodes until then (outputs stay).")
        return Diagnosis("ended", True, title, _verdict_detail(snap), fix)
    title = (
        Text("The rehearsal finished, {checkpoint}.", checkpoint=checkpoint)
        if snap.rehearsal
        else Text("The Job finished, {checkpoint}.", checkpoint=checkpoint)
    )
    return Diagnosis("ended", True, title, _verdict_detail(snap), training=False)


def _worker_fix(worker: WorkerSnapshot) -> Text:
    """The fix of a failed Worker follows its reason: memory only for OOMKilled."""
    if worker.reason == START_TIMED_OUT:
        return Text(
            "Its Ray node could not register with the head in time because this machine was "
            "busy; more memory would not help. Submit again when the machine is less loaded, or "
            "with fewer Workers."
        )
    if worker.head:
        return Text(
            "Every Ray member depends on the head, so the Job cannot go on: read its log "
            "(rlark-migrate logs), fix the cause and submit again."
        )
    if worker.reason == "OOMKilled":
        return Text(
            "Read its log (rlark-migrate logs); OOMKilled needs memory the Job cannot request, "
            "so ask the admin."
        )
    return Text("Read its log (rlark-migrate logs), fix the cause and submit again.")


def _worker_failed(worker: WorkerSnapshot) -> Text:
    reason = worker.reason or Text("it exited")
    if worker.head:
        return _head_failed(worker, reason)
    if worker.exit_code is None:
        return Text(
            "Worker {worker} (RLINF_NODE_RANK {rank}) failed: {reason}.",
            worker=worker.key,
            rank=worker.rank,
            reason=reason,
        )
    return Text(
        "Worker {worker} (RLINF_NODE_RANK {rank}) failed: {reason} (exit code {code}).",
        worker=worker.key,
        rank=worker.rank,
        reason=reason,
        code=worker.exit_code,
    )


def _head_failed(worker: WorkerSnapshot, reason: Text | str) -> Text:
    """The Worker that ran the Ray head: every member depends on it, so it is named as such."""
    if worker.exit_code is None:
        return Text(
            "The Ray head's Worker {worker} (RLINF_NODE_RANK {rank}) failed: {reason}.",
            worker=worker.key,
            rank=worker.rank,
            reason=reason,
        )
    return Text(
        "The Ray head's Worker {worker} (RLINF_NODE_RANK {rank}) failed: {reason} "
        "(exit code {code}).",
        worker=worker.key,
        rank=worker.rank,
        reason=reason,
        code=worker.exit_code,
    )


def _members_title(alive: int, expected: int) -> Text:
    if alive < expected:
        return Text(
            "Ray has {alive} of {expected} members alive: RLinf waits forever for the rest.",
            alive=alive,
            expected=expected,
        )
    return Text(
        "Ray has {alive} members alive, {expected} expected: RLinf may use only the lowest "
        "ranks; the others may still hold resources, idle.",
        alive=alive,
        expected=expected,
    )


def _healthy(snap: JobSnapshot) -> Diagnosis:
    step, latest = snap.progress.last_step, snap.latest_checkpoint
    if latest is None:
        title = (
            Text("Rehearsal running: step {step}.", step=step)
            if snap.rehearsal
            else Text("Training: step {step}.", step=step)
        )
    else:
        checkpoint = _checkpoint_clause(snap)
        title = (
            Text("Rehearsal running: step {step}, {checkpoint}.", step=step, checkpoint=checkpoint)
            if snap.rehearsal
            else Text("Training: step {step}, {checkpoint}.", step=step, checkpoint=checkpoint)
        )
    pace = snap.pace
    slow = pace is not None and pace.state == SLOW
    detail = pace.text if pace is not None and slow else _verdict_detail(snap)
    return Diagnosis("healthy", True, title, detail, training=not snap.rehearsal)


def diagnose(snap: JobSnapshot, stale_after: float = 900.0) -> Diagnosis:
    """The first broken link of ``snap``; ``stale_after`` seconds without a new step is a stall."""
    n = snap.expected_workers
    if not snap.exists:
        return _broken(
            "job-created",
            Text("The Job does not exist."),
            Text("No Job named '{job}' was found.", job=snap.job),
            Text("Submit it (or check the name and namespace)."),
        )
    stopped = snap.phase == JobPhase.STOPPED or snap.run_script_state == "stopped"
    finished = snap.phase == JobPhase.SUCCEEDED or snap.run_script_state == "succeeded"
    if stopped or (finished and not any(w.phase == FAILED for w in snap.workers)):
        return _ended(snap, stopped)
    unread = snap.lacks(PODS)
    if unread:  # no Worker is known: every later link would be a guess
        return _broken(
            "workers-running",
            Text("The Workers could not be read in this refresh."),
            unread.text,
            Text(
                "The next refresh tries again; if this lasts, check the cluster's health or "
                "tell the cluster admin."
            ),
        )
    if (
        snap.tasks is not None
        and not snap.tasks
        and not snap.workers
        and snap.pods_by is PodMaker.KUBERAY
    ):
        return _broken(
            "tasks-generated",
            Text("KubeRay has not created the RayCluster's pods yet."),
            "",
            Text(
                "Wait a little; if it persists, check that the KubeRay operator is running"
                " (`kubectl get pods -A -l app.kubernetes.io/name=kuberay-operator`)."
            ),
        )
    if snap.tasks is not None and not snap.tasks and not snap.workers:
        return _broken(
            "tasks-generated",
            Text("RLark has not generated the Job's Tasks yet."),
            "",
            Text(
                "Wait a little; if it persists, ask the platform admin whether the RLark "
                "controller is running."
            ),
        )
    scheduling = [(w, e) for w in snap.workers for e in w.events if e.reason == "FailedScheduling"]
    selector = [
        (w, e)
        for w, e in scheduling
        if re.search(r"node selector|node affinity|didn't match", render(e.message))
        and "Insufficient" not in render(e.message)  # nodes match but lack resources: later
    ]
    if selector and not [w for w in snap.workers if w.phase == RUNNING]:
        worker, event = selector[0]
        return _broken(
            "node-selection",
            Text("No node matches the node selection of role '{role}'.", role=worker.role),
            event.message,
            Text(
                "Fix the role's nodeSelector labels (ask the admin for labels that match the "
                "target nodes)."
            ),
        )
    for worker, event in scheduling:
        if "Insufficient" in render(event.message):
            resources = ", ".join(re.findall(r"Insufficient ([\w./-]+)", render(event.message)))
            return _broken(
                "resources-image-storage",
                Text(
                    "Worker {worker} is Pending: not enough {resources} on the matched nodes.",
                    worker=worker.key,
                    resources=resources,
                )
                if resources
                else Text(
                    "Worker {worker} is Pending: not enough resources on the matched nodes.",
                    worker=worker.key,
                ),
                event.message,
                Text(
                    "Lower the role's GPU/device request, free capacity, or select nodes that "
                    "have it; do not restart repeatedly."
                ),
            )
    for worker in snap.workers:
        if worker.reason in IMAGE_REASONS:
            return _broken(
                "resources-image-storage",
                Text(
                    "Worker {worker} cannot pull its image ({reason}).",
                    worker=worker.key,
                    reason=worker.reason,
                ),
                worker.message or "",
                Text("Check the image reference and that the cluster may pull from that registry."),
            )
        mount = next(
            (e for e in worker.events if e.reason in ("FailedMount", "FailedAttachVolume")), None
        )
        if mount is not None and worker.phase != RUNNING:
            return _broken(
                "resources-image-storage",
                Text(
                    "Worker {worker} is waiting for storage ({reason}).",
                    worker=worker.key,
                    reason=mount.reason,
                ),
                mount.message,
                Text("Check the StorageClass / PVC and hostPath sources of the role."),
            )
    if len(snap.workers) < n and not scheduling:
        return _broken(
            "workers-running",
            Text("Only {count} of {expected} Workers exist.", count=len(snap.workers), expected=n),
            "",
            Text("Check that each role's node selection matches as many nodes as its replicas."),
        )
    for worker in snap.workers:
        if worker.phase == FAILED or worker.reason in CRASH_REASONS:
            return _broken(
                "workers-running", _worker_failed(worker), worker.message or "", _worker_fix(worker)
            )
    waiting = [w for w in snap.workers if w.phase not in (RUNNING, SUCCEEDED)]
    if waiting:
        return _broken(
            "workers-running",
            Text(
                "{count} of {expected} Workers are not running yet ({workers}).",
                count=len(waiting),
                expected=n,
                workers=", ".join(w.key for w in waiting[:5]),
            ),
            "",
            Text("Wait for scheduling and start-up; look at their events if it takes long."),
        )
    unread = snap.lacks(MEMBERS)
    started = snap.run.started if snap.run is not None else None
    starting = snap.progress.last_step is None and not snap.checkpoints  # nothing ran yet
    if unread and starting and started is not None and snap.time - started < HEAD_START_SECONDS:
        # a normal start: the dashboard answers only once the head is up
        return Diagnosis(
            "ray-head",
            True,
            Text(
                "The Ray head is starting ({seconds} s since submit; a start may take up to"
                " {deadline} s).",
                seconds=f"{max(0.0, snap.time - started):.0f}",
                deadline=f"{HEAD_START_SECONDS:.0f}",
            ),
            "",
            Text("Wait: the Ray members show once the head's dashboard answers."),
        )
    if unread:
        return _broken(
            "ray-head",
            Text("The Ray head cannot be reached."),
            unread.text,
            Text("Check the Header's log: Ray may have failed to start."),
        )
    if not any(m.is_head and m.alive for m in snap.members):
        return _broken(
            "ray-head", Text("The Ray head is not up."), "", Text("Read the Header Worker's log.")
        )
    alive = [m for m in snap.members if m.alive]
    if len(alive) != n:
        dead = [m for m in snap.members if not m.alive]
        names = [f"rank {m.node_rank}" if m.node_rank is not None else m.ip for m in dead]
        return _broken(
            "ray-members",
            _members_title(len(alive), n),
            Text("Dead: {members}.", members=", ".join(names)) if dead else "",
            Text("Find the Worker whose Ray node did not join (its log and the Ray member list)."),
        )
    ranks = sorted(m.node_rank for m in alive if m.node_rank is not None)
    if ranks and ranks != list(range(n)):
        return _broken(
            "ray-members",
            Text("RLINF_NODE_RANK values are {ranks}, not 0..{last}.", ranks=ranks, last=n - 1),
            "",
            Text("Each Worker must get a unique, continuous RLINF_NODE_RANK before Ray starts."),
        )
    if snap.run_script_state == "failed":
        code = snap.run_script_exit_code
        return _broken(
            "config-saved",
            Text("The run script failed.")
            if code is None
            else Text("The run script failed with exit code {code}.", code=code),
            _verdict_detail(snap) or (snap.log_tail[-1] if snap.log_tail else ""),
            Text("Read the Header's log tail and fix the command."),
        )
    if snap.progress.config_saved is False:
        return _broken(
            "config-saved",
            Text("Running, but RLinf has not saved its final config yet, so it is not training."),
            "",
            Text(
                "Wait for start-up; if it lasts, read the Header's log (RLinf may be waiting "
                "for nodes)."
            ),
        )
    unread = snap.lacks(CHECKPOINTS)
    if snap.progress.last_step is None and unread:
        return _broken(
            "steps-advancing",
            Text("Running, but its progress cannot be read."),
            unread.text,
            Text("Mount the output volume here (checkpoint_root) or allow exec in the head pod."),
        )
    if snap.progress.last_step is None:
        return _broken(
            "steps-advancing",
            Text("Running, but not training: no step has completed yet."),
            "",
            Text("Wait for the first step; if nothing comes, read the Header's log."),
        )
    pace = snap.pace
    if pace is not None and pace.state == STALLED:
        return _broken(
            "steps-advancing",
            Text(
                "Steps stalled at step {step}: no new step for {since} s, more than {factor} times"
                " the median step time.",
                step=pace.last_step,
                since=f"{pace.since:.0f}",
                factor=f"{pace.since / pace.median:.0f}",
            ),
            pace.text,
            Text(
                "Read the logs of the Workers; a hung collective or a dead Worker stalls everyone."
            ),
        )
    if (
        pace is None
        and snap.progress.last_step_time is not None
        and snap.time - snap.progress.last_step_time > stale_after
    ):
        return _broken(
            "steps-advancing",
            Text(
                "Steps stopped advancing at step {step} ({minutes} min ago).",
                step=snap.progress.last_step,
                minutes=int((snap.time - snap.progress.last_step_time) // 60),
            ),
            "",
            Text(
                "Read the logs of the Workers; a hung collective or a dead Worker stalls everyone."
            ),
        )
    interval = snap.progress.save_interval
    if interval and interval > 0 and snap.progress.last_step >= interval:
        latest = snap.latest_checkpoint
        if latest is None:
            return _broken(
                "checkpoints",
                Text(
                    "Step {step} passed save_interval {interval}, but no checkpoint is persisted.",
                    step=snap.progress.last_step,
                    interval=interval,
                ),
                "",
                Text(
                    "Check that the checkpoint path is under a persistent mount every Worker "
                    "can write."
                ),
            )
        if not latest.readable:
            return _broken(
                "checkpoints",
                Text(
                    "Checkpoint global_step_{step} has no readable actor/ directory.",
                    step=latest.step,
                ),
                latest.path,
                Text("Check the storage mount and permissions; a resume needs actor/."),
            )
    return _healthy(snap)
