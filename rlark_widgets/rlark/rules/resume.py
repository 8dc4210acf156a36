"""RES rules: stopping and starting again, which resumes only from a checkpoint the user names."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from ...contract import SAVE_INTERVAL_ANNOTATION
from ...findings import Severity
from ...i18n import Text
from ..job import Job
from .context import SEED_FAQ, SPEC, Hit, RuleContext, code_lines, covers, rule


@rule(
    "RES-NO-AUTO-RESUME",
    Severity.INFO,
    Text("Stopping and starting again does not resume"),
    f"{SEED_FAQ} (停止后再次启动任务)",
)
def _no_auto_resume(ctx: RuleContext) -> Iterator[Hit]:
    resumes = "runner.resume_dir=" in code_lines(ctx.job.run_script)
    if ctx.report is not None and not resumes and not ctx.report.config.get("runner.resume_dir"):
        yield (
            "spec.runScript",
            Text(
                "A restart recreates every Pod and Ray process and trains from scratch: nothing resumes "
                "unless the RLinf command reads a persisted checkpoint."
            ),
            Text(
                "To resume, pass runner.resume_dir=<mount>/.../checkpoints/global_step_N in the run script."
            ),
        )


def _save_interval(ctx: RuleContext) -> object:
    """runner.save_interval as the run will see it: the run script's override, else the
    config's, else the annotation the planner wrote (a Job read from YAML)."""
    overridden = re.findall(r"runner\.save_interval=(\S+)", code_lines(ctx.job.run_script))
    if overridden:
        return overridden[-1].strip("'\"")
    if ctx.report is not None:
        return ctx.report.config.get("runner.save_interval")
    return ctx.job.annotations.get(SAVE_INTERVAL_ANNOTATION)


@rule(
    "RES-NO-CHECKPOINTS",
    Severity.WARNING,
    Text("A training run saves checkpoints (runner.save_interval above 0)"),
    "RLinf rlinf/runners (checkpoints every runner.save_interval steps; -1 never)",
)
def _no_checkpoints(ctx: RuleContext) -> Iterator[Hit]:
    value = _save_interval(ctx)
    task_type = ctx.report.expansion.task_type if ctx.report is not None else None
    evaluating = (task_type or "").endswith("_eval") or (
        ctx.report is not None and ctx.report.config.get("runner.only_eval") is True
    )
    try:
        interval = int(str(value))
    except ValueError:
        return
    if interval <= 0 and not evaluating:
        yield (
            "spec.runScript",
            Text(
                "runner.save_interval is {value}: RLinf never saves a checkpoint, so a stopped or"
                " failed run cannot be resumed, and the monitor will show no checkpoint.",
                value=interval,
            ),
            Text(
                "To be able to resume, save every N steps (runner.save_interval=N, e.g. 100);"
                " keep {value} only for a run that needs no checkpoint.",
                value=interval,
            ),
        )


@rule(
    "RES-RESUME-DIR",
    Severity.ERROR,
    Text("runner.resume_dir names a persisted global_step_N"),
    f"{SPEC} §5 (resume_dir); {SEED_FAQ}",
)
def _resume_dir(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.report is None:
        return
    overridden = dict(re.findall(r"(runner\.resume_dir)=(\S+)", ctx.job.run_script))
    value = overridden.get("runner.resume_dir") or ctx.report.config.get("runner.resume_dir")
    if not value:
        return
    task_type = ctx.report.expansion.task_type
    if value == "auto":
        if task_type != "reasoning":
            yield (
                "spec.runScript",
                Text("resume_dir 'auto' is accepted only by RLinf's reasoning runner."),
                Text("Name the checkpoint directory: .../checkpoints/global_step_N."),
            )
        return
    for message, fix in resume_dir_problems(ctx.job, str(value)):
        yield "spec.runScript", message, fix


def resume_dir_problems(job: Job, value: str) -> Iterator[tuple[Text, Text]]:
    """Why ``value`` is no checkpoint a run of ``job`` can resume from: it must end in
    global_step_N (RLinf parses the step from it) and lie under a mount (else no Worker can
    read it, and it did not outlive the Pod that wrote it). One-click resume refuses on these."""
    path = PurePosixPath(value.strip("'\""))
    if not re.fullmatch(r"global_step_\d+", path.name):
        yield (
            Text(
                "runner.resume_dir '{value}' does not end in global_step_<N>; RLinf parses the step from it.",
                value=value,
            ),
            Text("Point it at .../checkpoints/global_step_N (the directory holding actor/)."),
        )
    if not any(covers(m.mount_path, path) for r in job.roles for m in r.mounts):
        yield (
            Text(
                "runner.resume_dir '{value}' is not under a mount, so no Worker can read the checkpoint.",
                value=value,
            ),
            Text("Mount the storage that holds the checkpoint and use its container path."),
        )
