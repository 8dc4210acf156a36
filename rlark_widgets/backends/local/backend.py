"""The local backend, the embedded default: real Ray nodes on this machine rehearsing a Job.

Each Worker is a local process group (the role's prepare script, then ``ray start --block``
with its RLINF_NODE_RANK, logical GPUs, device resources and labels); the Header's Worker
starts the Ray head with its dashboard and, once the Workers are up, runs the run script. In
the default ``rehearsal`` mode that script is :mod:`rlark_widgets.backends.local.rehearsal`, never the Job's
runScript (which is written for the cluster image); ``run_mode="job"`` runs the runScript as a
bash script on this machine instead.

``submit`` returns at once: a detached supervisor starts the Workers one after another. All
state lives in the Job's directory under ``workspace`` (see :mod:`.layout`), so any later
``LocalBackend`` on the same workspace can snapshot, read logs, stop or delete the Job.

Not modelled locally: images (every Worker runs this machine's Python and Ray), node
selectors (every Worker is on this machine), CPU and memory limits, and GPUs themselves (they
are logical Ray resources: a laptop can rehearse an 8-GPU layout).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psutil

from ...findings import Finding, Severity
from ...i18n import Text
from ...input_files import read_input_text
from ...monitor.snapshot import JobSnapshot, RunInfo, WorkerSnapshot
from ...rlark.inventory import Inventory, site_node
from ...rlark.job import Job
from ...rlark.logs import RUN_LOG
from ...rlark.site import SiteProfile
from ...rlark.written import normal_text
from ...rlark.yaml_io import parse_job_yaml, render_job_yaml
from ...rlinf.expansion import Expansion
from ...rlinf.loader import RLinfConfig
from ..base import BackendError, SubmitResult
from . import tensorboard as local_tensorboard
from .layout import EARLIER_RUNS, RUN_DIRS, RUN_FILES, JobDir, tail_lines, unwritable
from .mounts import MountMap
from .preflight import check_node_ip, preflight_findings
from .procs import TOKEN_ENV, ProcessRef, RunLeaders, end_run, job_processes
from .removal import ray_temp_root, remove_within, temp_dir
from .spec import REHEARSAL_COMMAND, LocalOptions, RunMode, Spec, build_plan, build_spec
from .start_times import start_estimate
from .status import read_snapshot


class LocalBackend:
    """Real Ray nodes on this machine, one process group per Worker, state in ``workspace``.

    ``node_ip``: a loopback address other than 127.0.0.1 for every node. ``run_mode``:
    ``rehearsal`` (default) or ``job`` (the Job's runScript). ``join_timeout``: per Worker,
    until its node is ALIVE. ``member_timeout``: the rehearsal's wait for all members.
    ``grace``: SIGTERM to SIGKILL. ``linger``: how long the Ray nodes stay up for inspection
    after the run script ends. ``step_seconds``: the rehearsal's time per step.
    ``run_timeout``: seconds the run script may run before it is ended and the Job reported
    failed (None, the default: no limit, since a real runScript may train for days; the
    rehearsal bounds each of its own waits).
    """

    name = "local"

    def __init__(
        self,
        workspace: Path | str,
        node_ip: str = "127.0.0.2",
        *,
        run_mode: RunMode = "rehearsal",
        join_timeout: float = 180.0,
        member_timeout: float = 120.0,
        grace: float = 10.0,
        linger: float = 600.0,
        step_seconds: float = 1.0,
        run_timeout: float | None = None,
        site: SiteProfile,
    ) -> None:
        check_node_ip(node_ip)
        #: whose labels the rehearsal's Ray nodes and this machine's node carry
        self.site = site
        if run_timeout is not None and not run_timeout > 0:
            raise BackendError(
                Text(
                    "run_timeout must be a positive number of seconds, not {value}.",
                    value=run_timeout,
                ),
                Text(
                    "Give the seconds (more than 0) the run script may run, or leave run_timeout out for no limit."
                ),
            )
        if run_mode not in ("rehearsal", "job"):
            raise BackendError(
                Text("Unknown run mode '{mode}'.", mode=run_mode), Text("Use 'rehearsal' or 'job'.")
            )
        self.workspace = Path(workspace).expanduser().resolve()
        self.options = LocalOptions(
            node_ip,
            run_mode,
            join_timeout,
            member_timeout,
            grace,
            linger,
            step_seconds,
            run_timeout,
        )

    # --- protocol ------------------------------------------------------------------------------
    def inventory(self) -> Inventory:
        """This machine as one node; selectors are not matched locally and GPUs are logical."""
        host = socket.gethostname()
        site = self.site
        labels = {site.cluster_label: "local", "kubernetes.io/hostname": host}
        cloud = site.category_value("cloud")
        if cloud is not None:
            labels[site.category_label] = cloud
        node = site_node(host, labels, {}, site)
        return Inventory((node,), (), "local", site=site)

    def preflight(self, job: Job, config: RLinfConfig | None = None) -> list[Finding]:
        """What would stop this Job from running here (errors) and what it will not model.

        ``config`` is the config the Job was planned from: without it (and without an earlier
        run's plan for the same roles) the rehearsal cannot verify the placement, and says so.
        """
        where = JobDir.of(self.workspace, job.name)
        planned = config is not None or _earlier_plan(where, job, self.site)[0] is not None
        return preflight_findings(
            job, self.options.node_ip, self.options.run_mode == "rehearsal", planned
        )

    def submit(
        self,
        job: Job,
        expansion: Expansion | Mapping[str, Any] | None = None,
        config: RLinfConfig | Mapping[str, Any] | None = None,
    ) -> SubmitResult:
        """Start the Job's Workers in the background; never a second set for a running Job.

        ``expansion`` (the planned placement) lets the rehearsal verify every component
        process; ``config`` gives ``runner.resume_dir`` and the config the rehearsal saves.
        Without them, a Job submitted again with the same roles (a resume) reuses its previous
        run's.
        """
        errors = [f for f in self.preflight(job) if f.severity is Severity.ERROR]
        if errors:
            raise BackendError(errors[0].text, errors[0].fix_text)
        where = JobDir.of(self.workspace, job.name)
        with where.lock():
            if _live(where):
                running = self.job(job.name)
                ended = read_snapshot(where).ended  # finished, but its Workers hold their nodes
                return SubmitResult(
                    job.name,
                    False,
                    Text(
                        "Job '{name}' has finished, but its Workers still hold their nodes here;"
                        " nothing new was started (Stop it, or rlark-migrate stop {name}, then"
                        " submit again for a new run).",
                        name=job.name,
                    )
                    if ended
                    else Text(
                        "Job '{name}' is already running locally; nothing new was started (stop it"
                        " first to start a new run).",
                        name=job.name,
                    ),
                    str(where.root),
                    conflict=running is None
                    or normal_text(running.to_manifest()) != normal_text(job.to_manifest()),
                )
            restart = where.file("job.yaml").is_file()
            previous = (where.read("spec.json") or {}).get("run_id")
            if expansion is None and config is None:
                expansion, config = _earlier_plan(where, job, self.site)
            _clear_run(where, self.workspace)
            spec = build_spec(job, where, self.options, self.site)
            plan = build_plan(
                job,
                where,
                self.options,
                expansion.to_json() if isinstance(expansion, Expansion) else expansion,
                config.resolved if isinstance(config, RLinfConfig) else config,
                MountMap.for_job(job, where.root),
            )
            _write_run(where, job, spec, plan)
            _launch_supervisor(where, spec)
        started = _started_message(job, spec, plan, restart, previous, self.workspace)
        return SubmitResult(job.name, True, started, str(where.root))

    def list_jobs(self) -> list[str]:
        """The Jobs submitted in this workspace, oldest first (they outlive a kernel restart)."""
        if not self.workspace.is_dir():
            return []
        found = [d for d in self.workspace.iterdir() if (d / "spec.json").is_file()]
        return [d.name for d in sorted(found, key=lambda d: (d / "spec.json").stat().st_mtime)]

    def job(self, name: str) -> Job | None:
        """The Job as submitted (its ``job.yaml`` in the workspace), or None."""
        path = JobDir.of(self.workspace, name).file("job.yaml")
        return parse_job_yaml(read_input_text(path), self.site) if path.is_file() else None

    def snapshot(self, name: str) -> JobSnapshot:
        return read_snapshot(JobDir.of(self.workspace, name))

    def logs(
        self,
        name: str,
        worker: str,
        tail: int = 200,
        run_id: str | None = None,
        *,
        workers: list[WorkerSnapshot] | None = None,
    ) -> str:
        """A Worker's log (``role/index``), the run script's (``run``) or the supervisor's, of
        this run, or of the earlier run ``run_id`` (its id or a unique start of it); ``workers``
        is not needed: the run's spec names every log file."""
        where, spec = self._existing(name)
        if run_id is not None:
            where = self._earlier(name, where, run_id)
            spec = Spec.from_json(where.read("spec.json") or {})
        if worker == RUN_LOG:
            lines = tail_lines(where.run_log, tail)
            return "\n".join([f"[rlark-local] {spec.run.banner}", *lines])
        if worker == "supervisor":
            return "\n".join(tail_lines(where.supervisor_log, tail))
        match = next((w for w in spec.workers if worker in (w.key, f"{w.role}-{w.index}")), None)
        if match is None:
            names = ", ".join([*(w.key for w in spec.workers), "run", "supervisor"])
            raise BackendError(
                Text("Job '{name}' has no Worker '{worker}'.", name=name, worker=worker),
                Text("Use one of: {names}.", names=names),
            )
        return "\n".join(tail_lines(where.worker_log(match.key), tail))

    def earlier_runs(self, name: str) -> list[RunInfo]:
        """The Job's earlier runs whose logs are kept, oldest first."""
        where, _ = self._existing(name)
        found = []
        for kept in (where.root / EARLIER_RUNS).glob("*/spec.json"):
            data = JobDir(kept.parent).read("spec.json") or {}
            found.append(RunInfo(kept.parent.name, data.get("submitted")))
        return sorted(found, key=lambda r: (r.started or 0.0, r.id))

    def _earlier(self, name: str, where: JobDir, run_id: str) -> JobDir:
        """The records of the earlier run ``run_id`` (a unique start of its id will do)."""
        runs = self.earlier_runs(name)
        matches = [r for r in runs if r.id.startswith(run_id)] if run_id else []
        if len(matches) == 1:
            return where.earlier_run(matches[0].id)
        known = ", ".join(f"{r.id[:8]} ({_when(r.started)})" for r in runs) or Text(
            "none (the Job has not been submitted again since its first run)"
        )
        raise BackendError(
            Text(
                "Job '{name}' has no earlier run '{run}' whose logs are kept.",
                name=name,
                run=run_id,
            ),
            Text("Use one of its earlier runs: {runs}.", runs=known),
        )

    def tensorboard(self, name: str) -> str:
        """The URL of a TensorBoard over the Job's TensorBoard directory, started on loopback
        when none runs; Stop and Delete end it."""
        where, _ = self._existing(name)
        paths = (where.read("plan.json") or {}).get("paths") or {}
        if not paths.get("tensorboard"):
            raise BackendError(
                Text("Job '{name}' has no TensorBoard directory in its plan.", name=name),
                Text("Submit it again to write a new plan."),
            )
        return local_tensorboard.start(where, Path(paths["tensorboard"]["local"]))

    def stop(self, name: str) -> Text:
        """SIGTERM every process of the Job, SIGKILL after the grace period; never ``ray stop``."""
        where, spec = self._existing(name)
        local_tensorboard.end(where, self.workspace)
        ended = self._end(where, spec)
        if ended is None:
            return Text("Job '{name}' is not running: nothing to stop.", name=name)
        return Text(
            "Stopped Job '{name}': {ended}. Outputs under {root} are kept. Submitting again starts"
            " a new run, which resumes only if runner.resume_dir names a readable global_step_N"
            " checkpoint.",
            name=name,
            ended=ended,
            root=str(where.root),
        )

    def removes(self, name: str) -> Text:
        """What :meth:`delete` removes: the Job's directory, with every run's files in it."""
        return Text(
            "Job '{name}' and its directory {root}: the logs, outputs and checkpoints of every"
            " run in it (hostPath sources outside it stay).",
            name=name,
            root=str(JobDir.of(self.workspace, name).root),
        )

    def delete(self, name: str) -> Text:
        """Stop the Job, then remove its directory and Ray temp dirs (hostPath sources stay)."""
        where, spec = self._existing(name)
        local_tensorboard.end(where, self.workspace)
        ended = self._end(where, spec)
        remove_ray_temp(spec.run_id)
        remove_within(where.root, self.workspace)
        if ended is None:
            return Text(
                "Deleted Job '{name}': removed {root} with its logs and outputs.",
                name=name,
                root=str(where.root),
            )
        return Text(
            "Deleted Job '{name}': {ended}; removed {root} with its logs and outputs.",
            name=name,
            ended=ended,
            root=str(where.root),
        )

    # --- helpers -------------------------------------------------------------------------------
    def _end(self, where: JobDir, spec: Spec) -> Text | None:
        """End the run's processes (the supervisor first: it ends the rest in order and
        records their exits); None when nothing was running."""
        with where.lock():
            running = job_processes(spec.run_id, RunLeaders.read(where, spec.head.key).all)
            if not running:
                return None
            where.write("stop.json", {"time": time.time(), "pid": os.getpid()})
            supervisor = ProcessRef.from_json(where.read("supervisor.json"))
            proc = supervisor.process() if supervisor else None
            if proc is not None:
                proc.terminate()
                psutil.wait_procs([proc], timeout=2 * self.options.grace + 10)
            leaders = RunLeaders.read(where, spec.head.key)  # as the supervisor left them
            killed = end_run(spec.run_id, leaders, self.options.grace)
            left = job_processes(spec.run_id, leaders.all)
        if left:
            pids = ", ".join(str(p.pid) for p in left)
            raise BackendError(
                Text(
                    "Processes of Job '{job}' survived SIGKILL (PIDs {pids}).",
                    job=spec.job,
                    pids=pids,
                ),
                Text(
                    "They are stuck in the kernel (uninterruptible I/O); they end when it returns."
                ),
            )
        if killed:
            return Text(
                "{count} processes ended ({killed} needed SIGKILL)",
                count=len(running),
                killed=killed,
            )
        return Text("{count} processes ended", count=len(running))

    def _existing(self, name: str) -> tuple[JobDir, Spec]:
        where = JobDir.of(self.workspace, name)
        data = where.read("spec.json")
        if data is None:
            raise BackendError(
                Text(
                    "No local Job named '{name}' in {workspace}.",
                    name=name,
                    workspace=str(self.workspace),
                ),
                Text("Check the name, or the workspace the Job was submitted with."),
            )
        return where, Spec.from_json(data)


def _live(where: JobDir) -> bool:
    """Whether any process of the Job's current run is alive (by its run token)."""
    data = where.read("spec.json")
    if not data:
        return False
    spec = Spec.from_json(data)
    return bool(job_processes(spec.run_id, RunLeaders.read(where, spec.head.key).all))


def _earlier_plan(where: JobDir, job: Job, site: SiteProfile) -> tuple[Any, Any]:
    """The previous run's planned expansion and config when the Job comes back with the same
    roles and no plan of its own (a resume changes only the run script): the rehearsal then
    verifies the placement against them instead of reporting it unverified."""
    path = where.file("job.yaml")
    if not path.is_file() or parse_job_yaml(read_input_text(path), site).roles != job.roles:
        return None, None
    plan = where.read("plan.json") or {}
    return plan.get("expansion"), plan.get("config")


def _clear_run(where: JobDir, workspace: Path) -> None:
    """Start clean: the previous run's files and logs move to ``runs/<run id>/`` (readable
    with ``logs --run-id``), its Worker and Ray temp dirs go; outputs (mounts/, root/) stay,
    like storage. Nothing outside ``workspace`` (and Ray's temp root) is removed."""
    previous = where.read("spec.json")
    if previous:
        remove_ray_temp(str(previous.get("run_id", "")))
    try:
        where.keep_run()
    except OSError as exc:
        raise unwritable(where.root, exc) from None
    for name in (*RUN_FILES, *RUN_DIRS):
        remove_within(where.file(name), workspace)


def remove_ray_temp(run_id: str) -> None:
    """Remove the run's Ray temp root (derived from its id, never read from the state)."""
    root = ray_temp_root(run_id)
    if root is not None:
        remove_within(root, temp_dir())


def _write_run(where: JobDir, job: Job, spec: Spec, plan: dict[str, Any]) -> None:
    """The files the supervisor and later calls read; a full disk says so, with a fix."""
    try:
        where.file("job.yaml").write_text(render_job_yaml(job), encoding="utf-8")
        where.write("spec.json", spec.to_json())
        where.write("plan.json", plan)
        if spec.run.mode == "job":
            script = Path(spec.run.argv[-1])
            script.parent.mkdir(parents=True, exist_ok=True)
            script.write_text(job.run_script.rstrip("\n") + "\n", encoding="utf-8")
    except OSError as exc:
        raise unwritable(where.root, exc) from None


def _when(started: float | None) -> str:
    """When a run was submitted, in UTC (a stable, language-free form)."""
    if started is None:
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started))


def _launch_supervisor(where: JobDir, spec: Spec) -> None:
    """Start the supervisor; it daemonises at once, so this waits only for its fork."""
    where.logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, TOKEN_ENV: spec.run_id}
    argv = [sys.executable, "-m", "rlark_widgets.backends.local.supervisor", str(where.root)]
    with open(where.supervisor_log, "ab") as log:
        code = subprocess.call(
            argv, cwd=where.root, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
    if code != 0 or where.read("supervisor.json") is None:
        raise BackendError(
            Text(
                "The local supervisor of Job '{job}' did not start (exit code {code}).",
                job=spec.job,
                code=code,
            ),
            Text("Read {log}.", log=str(where.supervisor_log)),
        )


def _started_message(
    job: Job,
    spec: Spec,
    plan: dict[str, Any],
    restart: bool,
    previous: str | None,
    workspace: Path,
) -> Text:
    mode = (
        Text("The run script is the rehearsal ({command}), not training", command=REHEARSAL_COMMAND)
        if spec.run.mode == "rehearsal"
        else Text("The run script is the Job's runScript, run on this machine")
    )
    resume = plan["paths"]["resume_dir"]
    again: Text | str = ""
    if resume:
        again = Text(
            " It resumes from runner.resume_dir {path} if its actor/ is readable.",
            path=resume["container"],
        )
    elif restart:
        again = Text(" This is a new run: it does not resume (runner.resume_dir is not set).")
    if previous is not None:
        again = Text(
            "{again} The previous run's logs are kept: rlark-migrate logs {name} --run-id {run}.",
            again=again,
            name=job.name,
            run=previous[:8],
        )
    return Text(
        "Started Job '{name}' locally: {workers} Workers start one after another (the Ray head"
        " first; {expected}). {mode}.{again} {shared}",
        name=job.name,
        workers=len(spec.workers),
        expected=start_estimate(workspace),
        mode=mode,
        again=again,
        shared=Text(
            "The workspace {workspace} is shared by every rlark-widgets process of this user"
            " (the app, the CLI, the notebooks): a Job name is one Job there; $RLARK_WORKSPACE"
            " (or --workspace) gives a project its own.",
            workspace=str(workspace),
        ),
    )
