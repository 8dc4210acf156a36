"""One-click resume: a new run of a Job from one of its persisted, readable checkpoints.

The seeds' rule (rlinf-faq: 停止后再次启动任务): a new run resumes only when the RLinf command
reads a verified, persisted checkpoint. So :func:`resume` finds the checkpoint among every run's
``global_step_N`` (as the backend lists them: locally on disk, on a cluster through the head
Worker), refuses unless it lies under a mount of the Job (the RES-RESUME-DIR rule) and the
backend could read its ``actor/``, then submits the Job with ``runner.resume_dir=<path>`` on
the RLinf launch line: the one change, named in :attr:`Resumption.change`. The new Job passes
:func:`~.pipeline.submit_checked` like any submission.

A run still in progress is refused (resuming would drop its steps after the checkpoint) unless
the caller asks to stop it; an ended run whose Workers linger (the rehearsal's Ray nodes, a
finished RLark Job holding its Pods) is stopped first, and the result says so. Where a stopped
run keeps the Job's name (the backend's policy; KubeRay's suspended RayJob or RayCluster) the
old one is deleted instead; its PVCs stay.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace

from . import shell
from .backends import policy_of
from .backends.base import RESUME_OVERRIDE, Backend, expectations
from .i18n import Listing, Text, TextError
from .monitor.snapshot import CHECKPOINTS, Checkpoint, JobSnapshot
from .pipeline import Submission, given_job, submission_findings, submit_checked
from .rlark.job import Job
from .rlark.rules.context import code_lines
from .rlark.rules.resume import resume_dir_problems

LATEST = "latest"
WHICH = re.compile(r"^global_step_(\d+)$")
#: The RLinf command line: the one that names its Hydra config.
LAUNCH = re.compile(r"--config-(?:name|path)\b")
#: Seconds to wait for the old run's Workers to be gone after stopping them.
STOP_TIMEOUT = 120.0


class ResumeRefused(TextError):
    """Nothing was stopped or submitted: the message says why, the fix what to do."""


@dataclass
class Resumption:
    """What :func:`resume` did: the checkpoint, the run-script change, what it stopped, the
    submission (``submission.result`` None when a finding blocked it)."""

    job: str
    checkpoint: Checkpoint
    resume_dir: str  # the container path passed as runner.resume_dir
    change: Text
    stopped: Text | None
    submission: Submission
    deleted: Text | None = None  # what was deleted first: a stopped run kept the name


def checkpoints_of_every_run(snap: JobSnapshot) -> list[Checkpoint]:
    """This run's and earlier runs' checkpoints, one per step, lowest step first."""
    by_step = {c.step: c for c in [*snap.earlier_checkpoints, *snap.checkpoints]}
    return [by_step[step] for step in sorted(by_step)]


def resume_choices(snap: JobSnapshot | None) -> list[str]:
    """What the app's picker offers: ``latest`` and each ``global_step_N`` (none: nothing to
    resume from)."""
    steps = [f"global_step_{c.step}" for c in checkpoints_of_every_run(snap)] if snap else []
    return [LATEST, *reversed(steps)] if steps else []


def in_progress(snap: JobSnapshot) -> bool:
    """The run has not ended: resuming now would drop its steps after the checkpoint."""
    return snap.exists and not snap.ended


def pick(found: list[Checkpoint], which: str, job: str) -> Checkpoint:
    """The checkpoint ``which`` names (``latest``: the highest step of any run)."""
    named = WHICH.match(which)
    if which != LATEST and named is None:
        raise ResumeRefused(
            Text("'{which}' names no checkpoint.", which=which),
            Text("Use latest or global_step_N (one of the Job's checkpoints)."),
        )
    if not found:
        raise ResumeRefused(
            Text("Job '{job}' has no checkpoint to resume from.", job=job),
            Text(
                "Let a run reach runner.save_interval steps (it writes global_step_N), then resume."
            ),
        )
    if named is None:  # latest
        return found[-1]
    chosen = next((c for c in found if c.step == int(named[1])), None)
    if chosen is None:
        raise ResumeRefused(
            Text("Job '{job}' has no checkpoint {which}.", job=job, which=which),
            Text("Choose one of: {names}.", names=_names(found)),
        )
    return chosen


def _names(found: list[Checkpoint]) -> str:
    return ", ".join(f"global_step_{c.step}" for c in found)


def resume_dir_of(job: Job, checkpoint: Checkpoint) -> str:
    """The checkpoint's container path: the Job's checkpoint directory, then global_step_N."""
    directory = expectations(job).checkpoint_dir
    if not directory:
        raise ResumeRefused(
            Text(
                "Job '{job}' has no rlark.io/checkpoint-dir annotation, so its checkpoints'"
                " container path is unknown.",
                job=job.name,
            ),
            Text("Plan the Job again from its config (the planner writes the annotation)."),
        )
    return f"{directory.rstrip('/')}/global_step_{checkpoint.step}"


def verified(job: Job, snap: JobSnapshot, checkpoint: Checkpoint, path: str) -> None:
    """Refuse unless ``path`` is persisted (under a mount of the Job) and was read."""
    problems = list(resume_dir_problems(job, path))
    if problems:
        raise ResumeRefused(*problems[0])
    if not checkpoint.readable:
        readable = [c for c in checkpoints_of_every_run(snap) if c.readable]
        raise ResumeRefused(
            Text(
                "global_step_{step} ({path}) has no readable actor/: RLinf could not load it.",
                step=checkpoint.step,
                path=path,
            ),
            Text("Check the storage's permissions, or resume from {other}.", other=_names(readable))
            if readable
            else Text("Check the storage's permissions; no checkpoint of this Job is readable."),
        )


def left_to_train(job: Job, checkpoint: Checkpoint) -> None:
    """Refuse a checkpoint at or past ``runner.max_steps``: a run resumed from it would end at
    once, having trained nothing, and look like a success."""
    budget = expectations(job).max_steps
    if budget is None or budget <= 0 or checkpoint.step < budget:
        return
    raise ResumeRefused(
        Text(
            "global_step_{step} is the end of the run: runner.max_steps is {max_steps}, so a run"
            " resumed from it has nothing left to train.",
            step=checkpoint.step,
            max_steps=budget,
        ),
        Text(
            "To train further, plan the Job again with a larger runner.max_steps (e.g. --override"
            " runner.max_steps={more}) and resume it from global_step_{step}; to train again from"
            " the start, submit it without resuming.",
            more=budget * 2,
            step=checkpoint.step,
        ),
    )


def with_resume_dir(script: str, path: str) -> tuple[str, Text]:
    """The run script with ``runner.resume_dir=path`` and the one change, in words.

    An override already there is replaced (each, as Hydra keeps the last, with its ``+``);
    otherwise ``++runner.resume_dir=`` is appended to the RLinf launch line (the last line naming
    ``--config-name``/``--config-path``, after its ``\\`` continuations): Hydra's plain form fails
    on a config without the key and ``+`` on one that has it, ``++`` works on both.
    """
    value = shell.quote(path)
    found = RESUME_OVERRIDE.findall(script)
    if found:
        new = RESUME_OVERRIDE.sub(lambda _: f"runner.resume_dir={value}", script)
        return new, Text(
            "Run script: runner.resume_dir={old} becomes runner.resume_dir={new}.",
            old=found[-1],
            new=value,
        )
    lines = script.split("\n")
    code = code_lines(script).split("\n")
    launch = [i for i, line in enumerate(lines) if LAUNCH.search(line) and line in code]
    if not launch:
        raise ResumeRefused(
            Text(
                "The run script has no RLinf launch line (python ... --config-name ...) to pass"
                " runner.resume_dir to."
            ),
            Text(
                "Add runner.resume_dir={path} to the RLinf command in the run script and submit"
                " the Job.",
                path=value,
            ),
        )
    end = launch[-1]
    while lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
        end += 1
    lines[end] = f"{lines[end].rstrip()} ++runner.resume_dir={value}"
    return "\n".join(lines), Text(
        "Run script: ++runner.resume_dir={path} appended to the RLinf launch line (++ sets it"
        " whether or not the config has the key).",
        path=value,
    )


def _end_old_run(backend: Backend, name: str, timeout: float, delete: bool) -> Text:
    """Stop the old run's Workers and wait until they are gone (or the Job object is).

    ``delete`` (KubeRay): a RayJob or RayCluster keeps its name after it ends or is suspended,
    so the new run can take it only once the old object is gone; KubeRay then removes its pods,
    and the PVCs holding the checkpoint are the user's and stay.
    """
    said = backend.delete(name) if delete else backend.stop(name)
    deadline = time.monotonic() + timeout
    while True:
        snap = backend.snapshot(name)
        if not snap.exists or (snap.settled and not delete):
            return said
        if time.monotonic() > deadline:
            still = (
                Text(
                    "The old run of Job '{job}' was deleted but is still there after {seconds} s.",
                    job=name,
                    seconds=f"{timeout:g}",
                )
                if delete
                else Text(
                    "The old run of Job '{job}' was stopped but its Workers still run after {seconds} s.",
                    job=name,
                    seconds=f"{timeout:g}",
                )
            )
            raise ResumeRefused(
                still, Text("Wait until they are gone (status shows them), then resume again.")
            )
        time.sleep(1.0)


def resume(
    backend: Backend,
    name: str,
    which: str = LATEST,
    *,
    stop_running: bool = False,
    stop_timeout: float = STOP_TIMEOUT,
) -> Resumption:
    """Resume Job ``name`` from checkpoint ``which`` as a new run (see the module docstring).

    Raises :class:`ResumeRefused` before anything changes when the checkpoint cannot be
    resumed from, and :class:`~.backends.base.BackendError` when the backend fails.
    """
    job = backend.job(name)
    if job is None:
        raise ResumeRefused(
            Text(
                "No Job named {job} on {backend}, so there is nothing to resume.",
                job=name,
                backend=backend.name,
            ),
            Text(
                "Check the name (and --namespace / --workspace). On Kubernetes Stop deletes the"
                " Job: resume before stopping (resubmit --stop-running stops it for you)."
            ),
        )
    snap = backend.snapshot(name)
    lacking = snap.lacks(CHECKPOINTS)
    if lacking is not None:
        raise ResumeRefused(
            Text(
                "The checkpoints of Job '{job}' cannot be read: {why}.", job=name, why=lacking.why
            ),
            Text(
                "On a cluster they are listed through the head Worker: resume while it still"
                " runs (before Stop)."
            ),
        )
    found = checkpoints_of_every_run(snap)
    checkpoint = pick(found, which, name)
    path = resume_dir_of(job, checkpoint)
    verified(job, snap, checkpoint, path)
    left_to_train(job, checkpoint)
    if in_progress(snap) and not stop_running:
        raise ResumeRefused(
            Text(
                "Job '{job}' is still running (phase {phase}): resuming now would drop its steps"
                " after global_step_{step}.",
                job=name,
                phase=snap.phase or "?",
                step=checkpoint.step,
            ),
            Text(
                "Stop it first, or let resume stop it: rlark-migrate resubmit {job} --resume"
                " {which} --stop-running.",
                job=name,
                which=which,
            ),
        )
    script, change = with_resume_dir(job.run_script, path)
    rules = policy_of(backend.name)
    inventory = backend.inventory() if rules.live_inventory else None
    planned = given_job(replace(job, run_script=script), inventory=inventory, site=backend.site)
    # Everything that would block the new run (its own checks and the backend's preflight: a
    # taken name is only a warning there) stops it before the old run is touched.
    findings = submission_findings(backend, planned)
    held = rules.blocking(findings)
    if held:
        return Resumption(name, checkpoint, path, change, None, Submission(findings, held, None))
    stopped, deleted = None, None
    if rules.stopped_run_keeps_name and snap.exists:
        deleted = backend.removes(name)
        stopped = _end_old_run(backend, name, stop_timeout, delete=True)
    elif snap.exists and not snap.settled:
        stopped = _end_old_run(backend, name, stop_timeout, delete=False)
    submission = submit_checked(backend, planned)
    return Resumption(name, checkpoint, path, change, stopped, submission, deleted)


def resumed_text(done: Resumption) -> Text:
    """What a resume did, in one message (the CLI prints it; the app shows it as status)."""
    parts: list[Text] = [
        Text(
            "Resuming Job '{job}' from global_step_{step} ({path}).",
            job=done.job,
            step=done.checkpoint.step,
            path=done.resume_dir,
        ),
        done.change,
    ]
    # The backend's own words on stopping (they advise a plain restart) are in --json.
    if done.deleted is not None:
        parts.append(
            Text(
                "Deleted first, as a suspended one keeps the name: {what}",
                what=done.deleted,
            )
        )
    elif done.stopped is not None:
        parts.append(Text("The old run's Workers were stopped first."))
    return Listing(parts, " ")
