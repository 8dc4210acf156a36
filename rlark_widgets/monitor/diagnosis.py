"""Why is a Job not training yet? Walk the seeds' chain and stop at the first broken link.

Job created -> Tasks generated -> node selection matches -> resources, image and storage ready
-> Workers running -> Ray head up -> Ray members == num_nodes with ranks 0..N-1 -> final RLinf
config saved -> steps advancing -> checkpoints persisted and readable. "Running" is never called
"training" until the last links hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .snapshot import FAILED, RUNNING, SUCCEEDED, JobSnapshot

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
SOURCE = "seeds/rlinf-faq.zh.txt (Job 长时间 Pending 或没有 Worker 时，先检查什么); DESIGN.md §6"
IMAGE_REASONS = {"ImagePullBackOff", "ErrImagePull", "InvalidImageName"}
CRASH_REASONS = {
    "CrashLoopBackOff",
    "OOMKilled",
    "Error",
    "RunContainerError",
    "CreateContainerError",
}


@dataclass(frozen=True)
class Diagnosis:
    """The first broken link (or ``healthy``), in plain words with its fix."""

    link: str
    ok: bool
    title: str
    detail: str = ""
    fix: str = ""
    training: bool = False

    def sentence(self) -> str:
        return f"{self.title} {self.detail}".strip()


def _broken(link: str, title: str, detail: str, fix: str) -> Diagnosis:
    return Diagnosis(link, False, title, detail, fix)


def diagnose(snap: JobSnapshot, stale_after: float = 900.0) -> Diagnosis:
    """The first broken link of ``snap``; ``stale_after`` seconds without a new step is a stall."""
    n = snap.expected_workers
    if not snap.exists:
        return _broken(
            "job-created",
            "The Job does not exist.",
            f"No Job named '{snap.job}' was found.",
            "Submit it (or check the name and namespace).",
        )
    stopped = snap.phase == "Stopped" or snap.run_script_state == "stopped"
    finished = snap.phase == "Succeeded" or snap.run_script_state == "succeeded"
    if stopped or (finished and not any(w.phase == FAILED for w in snap.workers)):
        latest = snap.latest_checkpoint
        saved = f", latest checkpoint global_step_{latest.step}" if latest else ", no checkpoint"
        what = "rehearsal" if snap.rehearsal else "Job"
        if stopped:
            return Diagnosis(
                "ended",
                True,
                f"The {what} was stopped{saved}.",
                fix="A new submit starts from scratch unless runner.resume_dir names a checkpoint.",
            )
        return Diagnosis("ended", True, f"The {what} finished{saved}.", training=False)
    if snap.tasks is not None and not snap.tasks and not snap.workers:
        return _broken(
            "tasks-generated",
            "RLark has not generated the Job's Tasks yet.",
            "",
            "Wait a little; if it persists, ask the platform admin whether the RLark controller is running.",
        )
    scheduling = [(w, e) for w in snap.workers for e in w.events if e.reason == "FailedScheduling"]
    selector = [
        (w, e)
        for w, e in scheduling
        if re.search(r"node selector|node affinity|didn't match", e.message)
        and "Insufficient" not in e.message  # some nodes match but lack resources: a later link
    ]
    if selector and not [w for w in snap.workers if w.phase == RUNNING]:
        worker, event = selector[0]
        return _broken(
            "node-selection",
            f"No node matches the node selection of role '{worker.role}'.",
            event.message,
            "Fix the role's nodeSelector labels (ask the admin for labels that match the target nodes).",
        )
    for worker, event in scheduling:
        if "Insufficient" in event.message:
            resource = re.findall(r"Insufficient ([\w./-]+)", event.message)
            return _broken(
                "resources-image-storage",
                f"Worker {worker.key} is Pending: not enough {', '.join(resource) or 'resources'} on the matched nodes.",
                event.message,
                "Lower the role's GPU/device request, free capacity, or select nodes that have it; do not restart repeatedly.",
            )
    for worker in snap.workers:
        if worker.reason in IMAGE_REASONS:
            return _broken(
                "resources-image-storage",
                f"Worker {worker.key} cannot pull its image ({worker.reason}).",
                worker.message or "",
                "Check the image reference and that the cluster may pull from that registry.",
            )
        mount = next(
            (e for e in worker.events if e.reason in ("FailedMount", "FailedAttachVolume")), None
        )
        if mount is not None and worker.phase != RUNNING:
            return _broken(
                "resources-image-storage",
                f"Worker {worker.key} is waiting for storage ({mount.reason}).",
                mount.message,
                "Check the StorageClass / PVC and hostPath sources of the role.",
            )
    if len(snap.workers) < n and not scheduling:
        return _broken(
            "workers-running",
            f"Only {len(snap.workers)} of {n} Workers exist.",
            "",
            "Check that each role's node selection matches as many nodes as its replicas.",
        )
    for worker in snap.workers:
        if worker.phase == FAILED or worker.reason in CRASH_REASONS:
            code = f" (exit code {worker.exit_code})" if worker.exit_code is not None else ""
            return _broken(
                "workers-running",
                f"Worker {worker.key} (RLINF_NODE_RANK {worker.rank}) failed: "
                f"{worker.reason or 'it exited'}{code}.",
                worker.message or "",
                "Read its log (rlark-migrate logs); OOMKilled needs memory the Job cannot request, so ask the admin.",
            )
    waiting = [w for w in snap.workers if w.phase not in (RUNNING, SUCCEEDED)]
    if waiting:
        return _broken(
            "workers-running",
            f"{len(waiting)} of {n} Workers are not running yet ({', '.join(w.key for w in waiting[:5])}).",
            "",
            "Wait for scheduling and start-up; look at their events if it takes long.",
        )
    if "ray members" in snap.missing:
        return _broken(
            "ray-head",
            "The Ray head cannot be reached.",
            "The dashboard did not answer.",
            "Check the Header's log: Ray may have failed to start.",
        )
    if not any(m.is_head and m.alive for m in snap.members):
        return _broken("ray-head", "The Ray head is not up.", "", "Read the Header Worker's log.")
    alive = [m for m in snap.members if m.alive]
    if len(alive) != n:
        dead = [m for m in snap.members if not m.alive]
        detail = (
            f"Dead: {', '.join(f'rank {m.node_rank}' if m.node_rank is not None else m.ip for m in dead)}."
            if dead
            else ""
        )
        verb = (
            "waits forever for the rest"
            if len(alive) < n
            else "keeps the lowest ranks; the others hold resources idle"
        )
        return _broken(
            "ray-members",
            f"Ray has {len(alive)} of {n} members alive: RLinf {verb}."
            if len(alive) < n
            else f"Ray has {len(alive)} members alive, {n} expected: RLinf {verb}.",
            detail,
            "Find the Worker whose Ray node did not join (its log and the Ray member list).",
        )
    ranks = sorted(m.node_rank for m in alive if m.node_rank is not None)
    if ranks and ranks != list(range(n)):
        return _broken(
            "ray-members",
            f"RLINF_NODE_RANK values are {ranks}, not 0..{n - 1}.",
            "",
            "Each Worker must get a unique, continuous RLINF_NODE_RANK before Ray starts.",
        )
    if snap.run_script_state == "failed":
        code = (
            f" with exit code {snap.run_script_exit_code}"
            if snap.run_script_exit_code is not None
            else ""
        )
        tail = snap.log_tail[-1] if snap.log_tail else ""
        return _broken(
            "config-saved",
            f"The run script failed{code}.",
            tail,
            "Read the Header's log tail and fix the command.",
        )
    if snap.progress.config_saved is False:
        return _broken(
            "config-saved",
            "Running, but RLinf has not saved its final config yet, so it is not training.",
            "",
            "Wait for start-up; if it lasts, read the Header's log (RLinf may be waiting for nodes).",
        )
    unread = next((m for m in snap.missing if m.startswith("checkpoints")), None)
    if snap.progress.last_step is None and unread:
        return _broken(
            "steps-advancing",
            "Running, but its progress cannot be read.",
            unread,
            "Mount the output volume here (checkpoint_root) or allow exec in the head pod.",
        )
    if snap.progress.last_step is None:
        return _broken(
            "steps-advancing",
            "Running, but not training: no step has completed yet.",
            "",
            "Wait for the first step; if nothing comes, read the Header's log.",
        )
    if (
        snap.progress.last_step_time is not None
        and snap.time - snap.progress.last_step_time > stale_after
    ):
        minutes = int((snap.time - snap.progress.last_step_time) // 60)
        return _broken(
            "steps-advancing",
            f"Steps stopped advancing at step {snap.progress.last_step} ({minutes} min ago).",
            "",
            "Read the logs of the Workers; a hung collective or a dead Worker stalls everyone.",
        )
    interval = snap.progress.save_interval
    if interval and interval > 0 and snap.progress.last_step >= interval:
        latest = snap.latest_checkpoint
        if latest is None:
            return _broken(
                "checkpoints",
                f"Step {snap.progress.last_step} passed save_interval {interval}, but no checkpoint is persisted.",
                "",
                "Check that the checkpoint path is under a persistent mount every Worker can write.",
            )
        if not latest.readable:
            return _broken(
                "checkpoints",
                f"Checkpoint global_step_{latest.step} has no readable actor/ directory.",
                latest.path,
                "Check the storage mount and permissions; a resume needs actor/.",
            )
    what = "Rehearsal running" if snap.rehearsal else "Training"
    latest = snap.latest_checkpoint
    saved = f", latest checkpoint global_step_{latest.step}" if latest else ""
    return Diagnosis(
        "healthy",
        True,
        f"{what}: step {snap.progress.last_step}{saved}.",
        training=not snap.rehearsal,
    )
