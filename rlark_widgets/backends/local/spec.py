"""From a Job to what runs locally: the supervisor's spec and the rehearsal's plan (plain JSON).

The spec says which Workers to start (role, index, RLINF_NODE_RANK, logical GPUs, device
resources, labels, env, prepare script) and what the run script is. Every Worker and the run
script find this Python (and its ``ray``) first on PATH: locally there is no image. The plan says what the
rehearsal must find: the members, the planned placement when the Expansion is given, the step
budget and where checkpoints and metrics go on this machine.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from ...contract import RANK_ENV, RANK_LABEL, ROLE_LABEL
from ...i18n import Text
from ...rlark.job import Job
from ...rlark.site import SiteProfile
from ..base import BackendError, expectations
from .layout import JobDir, slug
from .mounts import MountMap
from .procs import TOKEN_ENV
from .ray_nodes import BASE_ENV, HEAD_ENV
from .removal import ray_temp_root

RunMode = Literal["rehearsal", "job"]
#: The rehearsal runs at most this many steps, whatever the config's budget: it proves the
#: layout and the outputs, it does not train.
MAX_REHEARSAL_STEPS = 6
DEFAULT_REHEARSAL_STEPS = 3
REASONING_TASKS = ("reasoning", "coding_online_rl")
REHEARSAL_COMMAND = "python -m rlark_widgets.backends.local.rehearsal"
#: The rehearsal's metrics as JSON lines, next to RLinf's tensorboard/ directory.
METRICS_FILE = "rehearsal_metrics.jsonl"


@dataclass(frozen=True)
class LocalOptions:
    """How a local run behaves (defaults: ``LocalBackend``); all times in seconds."""

    node_ip: str
    run_mode: RunMode
    join_timeout: float  # per Worker, until its Ray node is ALIVE
    member_timeout: float  # the rehearsal's wait for all members
    grace: float  # SIGTERM -> SIGKILL
    linger: float  # Ray nodes stay up this long after the run script ends
    step_seconds: float  # the rehearsal's time per step
    run_timeout: float | None = None  # the run script is ended after this long (None: never)


@dataclass
class WorkerSpec:
    """One Worker: a process group running the prepare script, then ``ray start --block``."""

    key: str
    role: str
    index: int
    rank: int
    head: bool
    gpus: int
    resources: dict[str, int]
    labels: dict[str, str]
    env: dict[str, str]
    prepare_script: str
    log: str
    dir: str
    temp_dir: str


@dataclass
class RunSpec:
    """The run script: started on the Header's Worker once the Workers are up."""

    mode: RunMode
    argv: list[str]
    env: dict[str, str]
    cwd: str
    log: str
    banner: str


@dataclass
class Spec:
    """Everything the supervisor needs (``spec.json``)."""

    job: str
    run_id: str  # also the token every process of this run carries in its environment
    options: LocalOptions
    workers: list[WorkerSpec]
    run: RunSpec
    temp_root: str
    submitted: float | None = None  # when this run was submitted (its start, for the monitor)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Spec:
        try:
            return cls(
                **{
                    **data,
                    "options": LocalOptions(**data["options"]),
                    "workers": [WorkerSpec(**w) for w in data["workers"]],
                    "run": RunSpec(**data["run"]),
                }
            )
        except (KeyError, TypeError):
            raise BackendError(
                Text(
                    "The local Job '{name}' was written by another version of rlark-widgets.",
                    name=data.get("job"),
                ),
                Text("Delete its directory in the workspace (after ending its processes, if any)."),
            ) from None

    @property
    def head(self) -> WorkerSpec:
        return next(w for w in self.workers if w.head)


def build_spec(job: Job, where: JobDir, options: LocalOptions, site: SiteProfile) -> Spec:
    """The Workers of ``job`` in start order (the head first) and its run script.

    ``job`` has passed the local preflight: exactly one Header role with one Worker.
    """
    run_id = uuid.uuid4().hex
    temp_root = ray_temp_root(run_id)
    assert temp_root is not None  # a uuid4 hex is a run id
    workers = []
    for role, ranks in job.node_rank_ranges():
        for index, rank in enumerate(ranks):
            key = f"{role.name}/{index}"
            env = {
                **BASE_ENV,
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                **role.env,
                RANK_ENV: str(rank),
                TOKEN_ENV: run_id,
            }
            if role.head:
                env.update(HEAD_ENV)
            labels = {
                site.job_label: job.name,
                ROLE_LABEL: slug(role.name),
                site.index_label: str(index),
                RANK_LABEL: str(rank),
            }
            workers.append(
                WorkerSpec(
                    key=key,
                    role=role.name,
                    index=index,
                    rank=rank,
                    head=role.head,
                    gpus=role.gpus,
                    resources=dict(role.devices),
                    labels=labels,
                    env=env,
                    prepare_script=role.prepare_script,
                    log=str(where.worker_log(key)),
                    dir=str(where.worker_dir(key)),
                    temp_dir=str(temp_root / str(rank)),
                )
            )
    workers.sort(key=lambda w: (not w.head, w.rank))
    head = workers[0]
    return Spec(
        job=job.name,
        run_id=run_id,
        options=options,
        workers=workers,
        run=_run_spec(job, where, options, head),
        temp_root=str(temp_root),
        submitted=time.time(),
    )


def _run_spec(job: Job, where: JobDir, options: LocalOptions, head: WorkerSpec) -> RunSpec:
    env = {**head.env}
    for key in HEAD_ENV:
        env.pop(key, None)
    if options.run_mode == "rehearsal":
        argv = [
            sys.executable,
            "-m",
            "rlark_widgets.backends.local.rehearsal",
            str(where.file("plan.json")),
        ]
        banner = (
            f"run mode: rehearsal ({REHEARSAL_COMMAND}). A rehearsal, not training: the "
            "Job's runScript is for the cluster image and is not run locally."
        )
    else:
        script = Path(head.dir) / "run.sh"
        argv = ["bash", str(script)]
        banner = f"run mode: job (the Job's runScript, {script})"
    return RunSpec(options.run_mode, argv, env, head.dir, str(where.run_log), banner)


def build_plan(
    job: Job,
    where: JobDir,
    options: LocalOptions,
    expansion: Mapping[str, Any] | None,
    config: Mapping[str, Any] | None,
    mounts: MountMap,
) -> dict[str, Any]:
    """What the rehearsal checks and writes (``plan.json``); paths as container and local."""
    expected = expectations(job)
    task_type = (expansion or {}).get("task_type") or _lookup(config, "runner.task_type")
    checkpoints = expected.checkpoint_dir or f"../results/{job.name}/checkpoints"
    ckpt = PurePosixPath(checkpoints)
    log_path = ckpt.parent if task_type in REASONING_TASKS else ckpt.parent.parent
    # The run script's override wins over the config, as on the cluster (one-click resume sets it).
    resume = expected.resume_dir or _lookup(config, "runner.resume_dir")
    budget = expected.max_steps
    steps = DEFAULT_REHEARSAL_STEPS if budget is None or budget <= 0 else budget
    return {
        "job": job.name,
        "num_nodes": expected.num_nodes,
        "node_ip": options.node_ip,
        "workers": [
            {"key": f"{role.name}/{i}", "role": role.name, "index": i, "rank": rank}
            for role, ranks in job.node_rank_ranges()
            for i, rank in enumerate(ranks)
        ],
        "expansion": dict(expansion) if expansion else None,
        "steps": min(steps, MAX_REHEARSAL_STEPS),
        "planned_steps": budget,
        "save_interval": expected.save_interval,
        "step_seconds": options.step_seconds,
        "member_timeout": options.member_timeout,
        "paths": {
            "checkpoints": _both(checkpoints, mounts),
            "config": _both(str(log_path / "tensorboard" / "config.yaml"), mounts),
            "tensorboard": _both(str(log_path / "tensorboard"), mounts),
            "metrics": _both(str(log_path / METRICS_FILE), mounts),
            "resume_dir": _both(str(resume), mounts) if resume else None,
        },
        "config": dict(config) if config else None,
        "report": str(where.file("rehearsal.json")),
    }


def _both(container: str, mounts: MountMap) -> dict[str, str | None]:
    """A path as the container and this machine name it, and the read-only mount it is on."""
    return {
        "container": container,
        "local": str(mounts.local(container)),
        "read_only_mount": mounts.read_only_mount(container),
    }


def _lookup(config: Mapping[str, Any] | None, path: str) -> Any:
    node: Any = config
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node
