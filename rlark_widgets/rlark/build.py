"""From a plan to an RLark Job: roles become Task templates, plus the run and prepare scripts."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from .. import __version__, shell
from ..contract import (
    CHECKPOINT_DIR_ANNOTATION,
    CONFIG_ANNOTATION,
    ENTRY_PLACEHOLDER,
    MAX_STEPS_ANNOTATION,
    NUM_NODES_ANNOTATION,
    OUTPUT_MOUNT,
    OVERRIDES_ANNOTATION,
    PLANNED_BY_ANNOTATION,
    RESUME_DIR_ANNOTATION,
    SAVE_INTERVAL_ANNOTATION,
)
from ..examples import origin_of
from ..rlinf.environment_values import job_value
from ..rlinf.launchers import launcher_for
from .job import Job, Mount, Role
from .outputs import DEFAULT_OUTPUT_KEY
from .outputs import output_key as output_key_for
from .planner import Plan
from .site import SiteProfile


@dataclass
class JobSettings:
    """What the user fills in the Job form beyond the plan (defaults are the planner's)."""

    name: str | None = None
    namespace: str = "default"
    image: str = ""
    #: the RLinf checkout inside the image; None: the site profile's
    rlinf_dir: str | None = None
    run_script: str | None = None
    prepare_script: str = ""
    mounts: list[Mount] = field(default_factory=list)
    output_mount: str | None = None  # a mount path: checkpoints and logs are pointed under it
    #: A StorageClass: every role mounts it as ``output`` at ``output_mount`` (the app's form).
    output_storage: str | None = None
    tensorboard_log_dir: str | None = None
    network_domain: str | None = None
    ssh_keys: list[str] = field(default_factory=list)


def job_mounts(settings: JobSettings) -> list[Mount]:
    """The mounts every role starts with: the output mount when its StorageClass is given, then
    ``settings.mounts`` (fresh copies: roles edit theirs apart)."""
    output = (
        [Mount(OUTPUT_MOUNT, "storage", settings.output_storage, settings.output_mount)]
        if settings.output_storage and settings.output_mount
        else []
    )
    return [*output, *(Mount(**vars(m)) for m in settings.mounts)]


def default_job_name(config_name: str) -> str:
    """A valid Job name from a config name: lower-case, [a-z0-9-], at most 63 characters."""
    name = re.sub(r"[^a-z0-9-]+", "-", config_name.lower()).strip("-")[:63].strip("-")
    return name or "rlinf-job"


def entry_point(plan: Plan) -> str | None:
    """The entry script RLinf's own launcher for this config runs (rlinf/launchers.py)."""
    return launcher_for(plan.report.config.name, plan.report.expansion.task_type).entry_point


def output_key(plan: Plan) -> str:
    return output_key_for(plan.report.expansion.task_type)


def repo_relative(path: str) -> str:
    """``examples/.../x.yaml`` for a path inside an RLinf checkout, else the file name.

    RLinf keeps its configs under ``examples/``, ``tests/`` and ``evaluations/``, never one
    inside another, so the last such folder of the path is the checkout's.

    Keeps the user's local directories out of the Job while staying traceable. Bundled examples
    report the RLinf path they were trimmed from.
    """
    origin = origin_of(path)
    if origin:
        return origin
    parts = PurePosixPath(path).parts
    # The last anchor: a checkout may itself sit under a folder named tests/ or examples/.
    anchors = [
        i for i, part in enumerate(parts[:-1]) if part in ("examples", "tests", "evaluations")
    ]
    if anchors:
        return str(PurePosixPath(*parts[anchors[-1] :]))
    return parts[-1] if parts else path


def step_budget(plan: Plan) -> int | None:
    """RLinf's step count: max_epochs steps for embodied runs, capped by runner.max_steps >= 0.

    Reasoning runs take len(train_dataloader) x max_epochs, which depends on the data, so only
    an explicit max_steps is known for them.
    """
    config = plan.report.config
    epochs, cap = config.get("runner.max_epochs"), config.get("runner.max_steps")
    per_epoch_known = output_key(plan) == DEFAULT_OUTPUT_KEY
    steps = epochs if isinstance(epochs, int) and per_epoch_known else None
    if isinstance(cap, int) and cap >= 0:
        steps = cap if steps is None else min(steps, cap)
    return steps


def checkpoint_dir(plan: Plan, job_name: str, output_mount: str | None) -> str | None:
    """Where RLinf writes global_step_N (rlinf-cluster-spec §5), after our output override."""
    config = plan.report.config
    reasoning = output_key(plan) == "runner.output_dir"
    root = job_value(config, "runner.output_dir" if reasoning else "runner.logger.log_path")
    if output_mount:
        root = f"{output_mount.rstrip('/')}/{job_name}"
    experiment = job_value(
        config, "runner.experiment_name" if reasoning else "runner.logger.experiment_name"
    )
    if not root or not experiment:
        return None
    return f"{root}/{experiment}/checkpoints"


def container_config_dir(plan: Plan, rlinf_dir: str) -> str:
    """The config directory inside the image: the same place relative to the RLinf checkout."""
    relative = PurePosixPath(repo_relative(plan.report.config.source)).parent
    return (
        str(PurePosixPath(rlinf_dir, relative)) if str(relative) != "." else f"{rlinf_dir}/config"
    )


def default_run_script(plan: Plan, settings: JobSettings, job_name: str, site: SiteProfile) -> str:
    """cd explicitly, re-check that all Ray nodes joined, then launch RLinf like its scripts do."""
    rlinf_dir = settings.rlinf_dir or site.rlinf_dir
    config = plan.report.config
    num_nodes = plan.report.num_nodes
    overrides = list(config.overrides)
    if settings.output_mount:
        key = output_key(plan)
        overrides = [o for o in overrides if not o.startswith(f"{key}=")]
        overrides.append(f"{key}={settings.output_mount.rstrip('/')}/{job_name}")
    launcher = launcher_for(config.name, plan.report.expansion.task_type)
    entry = launcher.entry_point
    task_type = plan.report.expansion.task_type
    unknown = (
        []
        if entry
        else [
            shell.comment(
                f"No single RLinf entry script is known for runner.task_type={task_type}: set ENTRY."
            ),
            shell.assign("ENTRY", f"{ENTRY_PLACEHOLDER}.py"),
        ]
    )
    launch = ("python", entry) if entry else ('python "$ENTRY"',)
    command = shell.raw_command(
        *launch,
        "--config-path",
        container_config_dir(plan, rlinf_dir),
        "--config-name",
        config.name,
        *overrides,
    )
    members_check = [
        "import sys, time, ray",
        'ray.init(address="auto")',
        f"expected, deadline = {int(num_nodes)}, time.time() + 600",
        'while len([n for n in ray.nodes() if n["Alive"]]) < expected:',
        "    if time.time() > deadline:",
        '        sys.exit(f"fewer than {expected} Ray nodes joined; not starting training")',
        "    time.sleep(5)",
    ]
    return shell.script(
        [
            shell.cd(rlinf_dir),
            shell.export(
                {
                    "REPO_PATH": rlinf_dir,
                    launcher.path_variable: rlinf_dir + "/" + launcher.directory,
                }
            ),
            shell.comment(
                "Re-check that every Ray node joined: the platform's check may only warn."
            ),
            *shell.heredoc("python -", "PY", members_check),
            *unknown,
            command,
        ]
    )


def _job_part(script: str) -> str:
    """The Job-wide prepare lines as they open every role's prepare script."""
    return script.rstrip("\n") + "\n" if script.strip() else ""


def prepare_script(settings: JobSettings, interpreter: str | None) -> str:
    """The Job-wide prepare lines, then the role's check that RLinf's interpreter exists."""
    check = (
        shell.require_executable(
            interpreter,
            f"RLinf needs {interpreter} (env_configs.python_interpreter_path) on this node",
        )
        + "\n"
        if interpreter
        else ""
    )
    return _job_part(settings.prepare_script) + check


def reseed_prepare(script: str, before: str, after: str) -> str:
    """A role's prepare script once the Job-wide lines change from ``before`` to ``after``.

    The role's own lines (the interpreter check planning adds, or the user's) stay; a script
    that no longer opens with ``before`` was rewritten for the role and stays as it is.
    """
    old = _job_part(before)
    return _job_part(after) + script[len(old) :] if script.startswith(old) else script


def build_job(plan: Plan, settings: JobSettings | None = None, *, site: SiteProfile) -> Job:
    """The Job a user would submit for this plan (roles in node-rank order), in the site's API."""
    settings = settings or JobSettings()
    config = plan.report.config
    name = settings.name or default_job_name(config.name)
    roles = [
        Role(
            name=role.name,
            replicas=role.replicas,
            image=settings.image,
            head=role.head,
            gpus=role.gpus,
            devices=dict(role.devices),
            node_selector=dict(role.node_selector),
            env=dict(role.env),
            prepare_script=prepare_script(settings, role.interpreter),
            mounts=job_mounts(settings),
        )
        for role in plan.roles
    ]
    annotations = {
        CONFIG_ANNOTATION: repo_relative(config.source),
        NUM_NODES_ANNOTATION: str(plan.report.num_nodes),
        PLANNED_BY_ANNOTATION: f"rlark-widgets {__version__}",
    }
    if config.overrides:
        annotations[OVERRIDES_ANNOTATION] = " ".join(config.overrides)
    expectations = {
        CHECKPOINT_DIR_ANNOTATION: checkpoint_dir(plan, name, settings.output_mount),
        SAVE_INTERVAL_ANNOTATION: job_value(config, "runner.save_interval"),
        MAX_STEPS_ANNOTATION: step_budget(plan),
        RESUME_DIR_ANNOTATION: resume
        if (resume := job_value(config, "runner.resume_dir")) != "auto"
        else None,
    }
    for key, value in expectations.items():
        if value is not None:
            annotations[key] = str(value)
    return Job(
        name=name,
        namespace=settings.namespace,
        roles=roles,
        run_script=settings.run_script
        if settings.run_script is not None
        else default_run_script(plan, settings, name, site),
        annotations=annotations,
        api_version=site.api_version,
        kind=site.kind,
        gpu_resource=site.gpu_resource,
        tensorboard_log_dir=settings.tensorboard_log_dir,
        network_domain=settings.network_domain,
        ssh_keys=list(settings.ssh_keys),
    )


def _override_key(override: str) -> str:
    return override.partition("=")[0].lstrip("+~")


def recorded_overrides(job: Job | None) -> list[str]:
    """The Hydra overrides a Job was planned with: its overrides annotation, then those its run
    script passes after ``--config-name`` (the output directory), the later winning per key.

    ``check JOB --config CFG`` composes CFG with them, as the Job will run it.
    """
    if job is None:
        return []
    found = (job.annotations.get(OVERRIDES_ANNOTATION) or "").split()
    for line in job.run_script.splitlines():
        if "--config-name" not in line:
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if "--config-name" in words:
            tail = words[words.index("--config-name") + 2 :]
            found += [w for w in tail if "=" in w and not w.startswith("-")]
    return merge_overrides(found)


def merge_overrides(*groups: Sequence[str]) -> list[str]:
    """Overrides in order, one per key (the last wins), as Hydra refuses a key given twice."""
    merged: dict[str, str] = {}
    for group in groups:
        for override in group:
            key = _override_key(override)
            merged.pop(key, None)
            merged[key] = override
    return list(merged.values())
