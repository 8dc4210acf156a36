"""The local backend: real Ray nodes on this machine rehearsing a planned layout.

The slow tests start real Ray clusters (about 30-60 s each here). One 2-Worker rehearsal is
shared by the end-to-end, kill and stop tests, which run in that order; every Job is stopped
by its fixture and checked to leave no process behind.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.preflight import memory_finding, required_mib
from rlark_widgets.backends.local.procs import exit_reason, has_token
from rlark_widgets.backends.local.ray_nodes import ray_start_argv
from rlark_widgets.backends.local.rehearsal import Rehearsal, RehearsalFailure
from rlark_widgets.backends.local.spec import build_plan, build_spec
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.snapshot import FAILED, RUNNING, STOPPED, JobSnapshot
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import ConfigReport, inspect_config, load_text

TWO_NODES = """\
cluster:
  num_nodes: 2
  component_placement:
    actor: 0-3
runner:
  task_type: embodied
  max_epochs: 4
  save_interval: 2
  logger: {log_path: /mnt/output/logs, experiment_name: demo}
"""
ONE_NODE = TWO_NODES.replace("num_nodes: 2", "num_nodes: 1").replace("0-3", "0-1")
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")
START_TIMEOUT = 300.0


def planned(name: str, config: str = TWO_NODES, **settings) -> tuple[Job, ConfigReport]:
    """A Job as the planner builds it, on 2 GPUs per node, with its report."""
    report = inspect_config(load_text(config, f"{name}.yaml"), 2, search_gpus=False)
    settings.setdefault("mounts", [OUTPUT])
    settings.setdefault("output_mount", "/mnt/output")
    job = build_job(
        plan_roles(report),
        JobSettings(name=name, image="rlinf:v1", **settings),
        site=example_site(),
    )
    return job, report


def wait_for(
    backend: LocalBackend, name: str, done: Callable[[JobSnapshot], bool], timeout: float
) -> JobSnapshot:
    deadline = time.monotonic() + timeout
    while True:
        snap = backend.snapshot(name)
        if done(snap) or time.monotonic() > deadline:
            return snap
        time.sleep(0.5)


def finished(snap: JobSnapshot) -> bool:
    return snap.run_script_state not in ("not started", "running")


def leaders(workspace: Path, name: str) -> list[tuple[int, float]]:
    """(PID, start time) of the supervisor, the Workers and the run script of a Job."""
    where = JobDir.of(workspace, name)
    state = where.read("state.json") or {}
    records = [where.read("supervisor.json"), *state["workers"].values(), state.get("run")]
    return [(r["pid"], r["create_time"]) for r in records if r]


def survivors(workspace: Path, name: str) -> list[psutil.Process]:
    """Live processes of the Job: by recorded PID, by their process groups and sessions,
    and by the run's token."""
    refs = leaders(workspace, name)
    token = JobDir.of(workspace, name).read("spec.json")["run_id"]
    pids = {pid for pid, _ in refs}
    found = []
    for proc in psutil.process_iter(["status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE or proc.pid == os.getpid():
            continue
        try:
            groups = {os.getpgid(proc.pid), os.getsid(proc.pid)}
        except OSError:
            continue
        if proc.pid in pids or groups & pids or has_token(proc.pid, token):
            found.append(proc)
    return found


def stop_and_check(backend: LocalBackend, workspace: Path, name: str) -> None:
    """Stop the Job, check nothing of it survives, then delete it (Ray's temp dirs too)."""
    backend.stop(name)
    assert survivors(workspace, name) == []
    temp_root = Path(JobDir.of(workspace, name).read("spec.json")["temp_root"])
    assert str(backend.delete(name)).startswith(f"Deleted Job '{name}': removed {workspace / name}")
    assert not (workspace / name).exists() and not temp_root.exists()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("local-jobs")


@pytest.fixture(scope="module")
def rehearsal(workspace: Path) -> Iterator[tuple[LocalBackend, Job, ConfigReport, JobSnapshot]]:
    """One 2-Worker rehearsal, run to its end (its Ray nodes stay up until stopped)."""
    backend = LocalBackend(workspace, step_seconds=0.5, site=example_site())
    job, report = planned("rehearse")
    result = backend.submit(job, expansion=report.expansion, config=report.config)
    assert result.created and "rehearsal" in result.message
    try:
        yield backend, job, report, wait_for(backend, job.name, finished, START_TIMEOUT)
    finally:
        stop_and_check(backend, workspace, job.name)


# --- the shared 2-Worker rehearsal -----------------------------------------------------------
@pytest.mark.slow
def test_rehearsal_runs_the_planned_layout_end_to_end(rehearsal, workspace: Path) -> None:
    backend, job, report, snap = rehearsal
    assert snap.run_script_state == "succeeded", "\n".join(snap.log_tail)
    assert (snap.phase, snap.rehearsal, snap.expected_workers) == ("Succeeded", True, 2)
    assert [(w.key, w.rank, w.phase) for w in snap.workers] == [
        ("header/0", 0, RUNNING),
        ("workers/0", 1, RUNNING),
    ]
    assert [(m.node_rank, m.state, m.is_head, m.labels["rlark.io/role"]) for m in snap.members] == [
        (0, "ALIVE", True, "header"),
        (1, "ALIVE", False, "workers"),
    ]
    assert [m.resources["GPU"] for m in snap.members] == [2.0, 2.0]
    # each actor process reported the node rank and GPUs the plan gave it
    placement = json.loads((workspace / "rehearse" / "rehearsal.json").read_text())["placement"]
    planned_rows = report.expansion.components["actor"].processes
    assert [(p["rank"], p["node_rank"], p["gpus"]) for p in placement] == [
        (row.rank, row.node_rank, list(row.visible_accelerators)) for row in planned_rows
    ]
    assert [(p["node_rank"], p["gpus"]) for p in placement] == [
        (0, [0]),
        (0, [1]),
        (1, [0]),
        (1, [1]),
    ]
    # checkpoints at every save_interval, where RLinf writes them (mapped into the workspace)
    root = workspace / "rehearse" / "mounts" / "output" / "rehearse" / "demo" / "checkpoints"
    assert [(c.step, c.readable, Path(c.path).parent) for c in snap.checkpoints] == [
        (2, True, root),
        (4, True, root),
    ]
    assert sorted(p.name for p in (root / "global_step_4" / "actor").iterdir()) == [
        f"rehearsal_rank_{r}.json" for r in range(4)
    ]
    progress = snap.progress
    assert (
        progress.config_saved,
        progress.last_step,
        progress.max_steps,
        progress.save_interval,
    ) == (
        True,
        4,
        4,
        2,
    )
    diagnosis = diagnose(snap)
    assert diagnosis.ok and not diagnosis.training
    assert diagnosis.title == (
        "The rehearsal finished, latest checkpoint global_step_4; Stop releases its 2 Workers."
    )
    assert diagnosis.detail == "placement verified: 4 processes on 2 nodes as planned"
    assert snap.verdict is not None and snap.verdict.passed
    assert snap.verdict.line.startswith("REHEARSAL PASSED")
    assert any("REHEARSAL PASSED" in line for line in snap.log_tail)
    assert (
        backend.logs(job.name, "run")
        .splitlines()[0]
        .startswith("[rlark-local] run mode: rehearsal")
    )


@pytest.mark.slow
def test_another_backend_reads_the_job_and_never_starts_it_twice(
    rehearsal, workspace: Path
) -> None:
    _, job, _, _ = rehearsal
    before = leaders(workspace, job.name)
    other = LocalBackend(workspace, site=example_site())
    again = other.submit(job)
    # still running, or finished with its Workers holding their nodes: never a second start
    assert not again.created
    assert "already running" in again.message or "has finished" in again.message
    assert leaders(workspace, job.name) == before
    assert other.snapshot(job.name).members_alive == 2
    assert "RLINF_NODE_RANK 1" in other.logs(job.name, "workers/0")
    with pytest.raises(BackendError) as error:
        other.logs(job.name, "nobody/3")
    assert "header/0, workers/0, run, supervisor" in error.value.fix


@pytest.mark.slow
def test_a_killed_worker_shows_failed_and_its_member_dead_within_10_s(rehearsal, workspace) -> None:
    backend, job, _, _ = rehearsal
    worker = JobDir.of(workspace, job.name).read("state.json")["workers"]["workers/0"]
    os.killpg(worker["pid"], signal.SIGKILL)
    killed = time.monotonic()

    def shown(snap: JobSnapshot) -> bool:
        dead = [m for m in snap.members if m.node_rank == 1 and m.state == "DEAD"]
        return snap.workers[1].phase == FAILED and bool(dead)

    snap = wait_for(backend, job.name, shown, 10.0)
    assert shown(snap), (snap.workers[1], snap.members)
    assert time.monotonic() - killed <= 10.5
    failed = snap.workers[1]
    assert (failed.reason, failed.exit_code, failed.rank) == ("Killed (SIGKILL)", 137, 1)
    diagnosis = diagnose(snap)
    assert diagnosis.link == "workers-running"
    assert diagnosis.title.startswith(
        "Worker workers/0 (RLINF_NODE_RANK 1) failed: Killed (SIGKILL)"
    )


@pytest.mark.slow
def test_stop_leaves_no_process_of_the_job(rehearsal, workspace: Path) -> None:
    backend, job, _, _ = rehearsal
    assert survivors(workspace, job.name)
    message = str(backend.stop(job.name))  # a Text: English here
    assert message.startswith(f"Stopped Job '{job.name}'")
    assert survivors(workspace, job.name) == []
    for pid, start in leaders(workspace, job.name):
        assert not psutil.pid_exists(pid) or psutil.Process(pid).create_time() != pytest.approx(
            start
        )
    snap = backend.snapshot(job.name)
    assert snap.phase == "Succeeded" and snap.members == []  # the rehearsal ended before
    assert [(w.phase, w.reason) for w in snap.workers] == [
        (STOPPED, "Stopped"),
        (FAILED, "Killed (SIGKILL)"),
    ]
    assert str(backend.stop(job.name)) == f"Job '{job.name}' is not running: nothing to stop."


# --- failures -------------------------------------------------------------------------------
@pytest.mark.slow
def test_missing_worker_fails_the_rehearsal_naming_it(workspace: Path) -> None:
    """The supervisor gives the Worker up; the rehearsal stops waiting at once (#24 item 16),
    long before its member timeout."""
    backend = LocalBackend(workspace, member_timeout=600, site=example_site())
    job, report = planned("no-robot")
    job.roles[
        1
    ].prepare_script = "echo 'checking the robot'\necho 'no robot at 10.0.0.9' >&2\nexit 3\n"
    backend.submit(job, expansion=report.expansion)
    try:
        snap = wait_for(backend, job.name, finished, START_TIMEOUT)
        assert (snap.phase, snap.run_script_state, snap.run_script_exit_code) == (
            "Failed",
            "failed",
            1,
        )
        assert snap.log_tail[-1].endswith(
            "REHEARSAL FAILED: only 1 of 2 Ray nodes joined, and no more will: RLINF_NODE_RANK 1"
            " (Worker workers/0) could not start and was given up. RLinf would wait forever here;"
            " read that Worker's log."
        )
        worker = snap.workers[1]
        assert (worker.phase, worker.reason, worker.exit_code, worker.restarts) == (
            FAILED,
            "Error",
            3,
            0,
        )
        assert str(worker.message) == "the prepare script failed: no robot at 10.0.0.9"
        assert (
            diagnose(snap).title
            == "Worker workers/0 (RLINF_NODE_RANK 1) failed: Error (exit code 3)."
        )
    finally:
        stop_and_check(backend, workspace, job.name)


@pytest.mark.slow
def test_a_run_script_that_exits_1_fails_the_job_with_its_log_tail(workspace: Path) -> None:
    script = (
        'set -e\ncd "$(mktemp -d)"\n'
        "python -c 'import ray; ray.init(); print(\"ray nodes:\", len(ray.nodes()))'\n"
        "echo 'no checkpoint at /mnt/output/missing' >&2\nexit 1\n"
    )
    backend = LocalBackend(workspace, run_mode="job", site=example_site())
    job, _ = planned("fails", ONE_NODE, run_script=script)
    backend.submit(job)
    try:
        snap = wait_for(backend, job.name, finished, START_TIMEOUT)
        assert (snap.phase, snap.run_script_state, snap.run_script_exit_code) == (
            "Failed",
            "failed",
            1,
        )
        assert not snap.rehearsal
        assert "ray nodes: 1" in snap.log_tail
        assert snap.log_tail[-1] == "no checkpoint at /mnt/output/missing"
        diagnosis = diagnose(snap)
        assert (diagnosis.link, diagnosis.title, diagnosis.detail) == (
            "config-saved",
            "The run script failed with exit code 1.",
            "no checkpoint at /mnt/output/missing",
        )
    finally:
        stop_and_check(backend, workspace, job.name)


# --- refusals and building blocks (no Ray) --------------------------------------------------
def test_a_layout_that_does_not_fit_is_refused_with_a_fix(tmp_path: Path) -> None:
    job, _ = planned("big")
    job.roles[1].replicas = 199
    finding = memory_finding(job, available_mib=8 * 1024)
    assert finding is not None and finding.rule_id == "LOC-MEMORY"
    assert finding.message.startswith("200 Workers need about 96.0 GiB here")
    assert finding.message.endswith("only 8.0 GiB is available: this machine fits 12.")
    assert "cluster.num_nodes <= 12" in finding.fix
    assert required_mib(2) <= 8 * 1024 and memory_finding(planned("small")[0], 8 * 1024) is None
    job.roles[1].replicas = 4000
    with pytest.raises(BackendError) as error:
        LocalBackend(tmp_path, site=example_site()).submit(job)
    assert (
        "4001 Workers need about" in error.value.message and "kubernetes backend" in error.value.fix
    )
    assert not (tmp_path / "big").exists()


def test_refusals_name_the_problem_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(BackendError) as error:
        LocalBackend(tmp_path, node_ip="127.0.0.1", site=example_site())
    assert "127.0.0.2" in error.value.fix
    headless = Job("headless", [Role("workers", 2)])
    with pytest.raises(BackendError) as error:
        LocalBackend(tmp_path, site=example_site()).submit(headless)
    assert "exactly one Header role" in error.value.message
    backend = LocalBackend(tmp_path, site=example_site())
    with pytest.raises(BackendError) as error:
        backend.stop("never-submitted")
    assert "No local Job named 'never-submitted'" in error.value.message
    with pytest.raises(BackendError):
        backend.snapshot("Not A Name")
    snap = backend.snapshot("never-submitted")
    assert not snap.exists and diagnose(snap).link == "job-created"


def test_preflight_says_what_is_not_modelled(tmp_path: Path) -> None:
    job, report = planned(
        "notes", mounts=[OUTPUT, Mount("data", "hostPath", "/no/such/dir", "/data")]
    )
    rules = [
        f.rule_id for f in LocalBackend(tmp_path, site=example_site()).preflight(job, report.config)
    ]
    assert rules == ["LOC-REHEARSAL", "LOC-NOT-MODELLED", "LOC-HOSTPATH", "LOC-HOSTPATH"]
    # without the config it was planned from, the rehearsal cannot verify placement: it says so
    bare = [f.rule_id for f in LocalBackend(tmp_path, site=example_site()).preflight(job)]
    assert bare == [
        "LOC-REHEARSAL",
        "LOC-NO-PLAN",
        "LOC-NOT-MODELLED",
        "LOC-HOSTPATH",
        "LOC-HOSTPATH",
    ]
    assert "LOC-REHEARSAL" not in [
        f.rule_id
        for f in LocalBackend(tmp_path, run_mode="job", site=example_site()).preflight(job)
    ]


def test_container_paths_map_into_the_workspace(tmp_path: Path) -> None:
    source = tmp_path / "datasets"
    source.mkdir()
    mounts = [
        OUTPUT,
        Mount("data", "hostPath", str(source), "/mnt/data"),
        Mount("robots", "hostPath", "/no/such/dir", "/mnt/robots"),
    ]
    job, _ = planned("paths", mounts=mounts)
    root = tmp_path / "paths"
    mapping = MountMap.for_job(job, root)
    assert mapping.local("/mnt/output/x/checkpoints") == root / "mounts/output/x/checkpoints"
    assert mapping.local("/mnt/data/train") == source / "train"
    assert mapping.local("/mnt/robots") == root / "mounts/robots"
    assert mapping.local("/workspace/RLinf/logs") == root / "root/workspace/RLinf/logs"
    assert mapping.local("../results/demo") == root / "root/results/demo"
    assert mapping.local("/mnt/outputs2") == root / "root/mnt/outputs2"


def test_each_worker_gets_its_rank_labels_gpus_devices_and_env(tmp_path: Path) -> None:
    job = Job(
        "robots",
        [
            Role("header", 1, head=True, gpus=8, env={"GLOO_SOCKET_IFNAME": "lo"}),
            Role("franka", 2, devices={"rlinf.io/franka": 1}),
        ],
    )
    spec = build_spec(
        job,
        JobDir.of(tmp_path, "robots"),
        LocalBackend(tmp_path, site=example_site()).options,
        site=example_site(),
    )
    assert [(w.key, w.rank, w.head, w.gpus) for w in spec.workers] == [
        ("header/0", 0, True, 8),
        ("franka/0", 1, False, 0),
        ("franka/1", 2, False, 0),
    ]
    worker = spec.workers[2]
    assert worker.env["RLINF_NODE_RANK"] == "2" and worker.env["RLARK_LOCAL_TOKEN"] == spec.run_id
    assert spec.workers[0].env["GLOO_SOCKET_IFNAME"] == "lo"
    assert "RAY_health_check_period_ms" in spec.workers[0].env
    assert "RAY_health_check_period_ms" not in worker.env
    argv = ray_start_argv(
        node_ip="127.0.0.2",
        temp_dir=worker.temp_dir,
        ports=dict.fromkeys(
            [
                "node_manager",
                "object_manager",
                "agent_listen",
                "agent_grpc",
                "metrics",
                "runtime_env_agent",
            ],
            7,
        ),
        head_address="127.0.0.2:6380",
        num_gpus=worker.gpus,
        resources=worker.resources,
        labels=worker.labels,
    )
    assert "--address=127.0.0.2:6380" in argv and "--head" not in argv
    assert '--resources={"rlinf.io/franka": 1}' in argv and "--num-gpus=0" in argv
    assert (
        "--labels=rlark.io/job=robots,rlark.io/role=franka,rlark.io/worker-index=1,rlinf.io/node-rank=2"
        in argv
    )
    assert len(worker.temp_dir) < 40  # Ray's socket paths under it must stay below 107 bytes


def test_exit_codes_read_like_kubernetes() -> None:
    assert exit_reason(-9) == ("Killed (SIGKILL)", 137)
    assert exit_reason(-15) == ("Killed (SIGTERM)", 143)
    assert exit_reason(3) == ("Error", 3)
    assert exit_reason(0) == ("Completed", 0)


def test_a_restart_resumes_only_from_a_readable_checkpoint(tmp_path: Path) -> None:
    def first_step(resume: Path | None) -> int:
        paths = {"resume_dir": {"container": "/mnt/x", "local": str(resume)} if resume else None}
        return Rehearsal({"job": "j", "paths": paths}).first_step()

    step = tmp_path / "checkpoints" / "global_step_4"
    assert first_step(None) == 1
    step.mkdir(parents=True)
    with pytest.raises(RehearsalFailure) as error:
        first_step(step)
    assert "readable actor/" in str(error.value) and "RLinf asserts it" in str(error.value)
    (step / "actor").mkdir()
    with pytest.raises(RehearsalFailure) as error:
        first_step(step)  # an empty actor/: nothing to load
    assert "has an empty actor/" in str(error.value)
    (step / "actor" / "rehearsal_rank_0.json").write_text(json.dumps({"step": 2}))
    with pytest.raises(RehearsalFailure) as error:
        first_step(step)  # a shard of another step
    assert str(error.value) == (
        "rehearsal_rank_0.json in runner.resume_dir is not a shard of global_step_4 (it says"
        " step 2)."
    )
    (step / "actor" / "rehearsal_rank_0.json").write_text(json.dumps({"step": 4}))
    assert first_step(step) == 5
    with pytest.raises(RehearsalFailure):
        first_step(tmp_path / "checkpoints")


def test_snapshot_reads_a_stopped_run_from_the_job_directory(tmp_path: Path) -> None:
    """Phases and reasons come from the files alone (no process of this Job is alive)."""
    backend = LocalBackend(tmp_path, site=example_site())
    job = Job("stopped", [Role("header", 1, head=True), Role("workers", 2)])
    where = JobDir.of(tmp_path, job.name)
    spec = build_spec(job, where, backend.options, site=example_site())
    where.write("spec.json", spec.to_json())
    mounts = MountMap.for_job(job, where.root)
    where.write("plan.json", build_plan(job, where, backend.options, None, None, mounts))
    gone = {"pid": 2**22 + 1, "create_time": 1.0}  # above pid_max: never a live process
    where.write("supervisor.json", gone)
    where.write("stop.json", {"time": 3.0})
    Path(spec.workers[2].log).parent.mkdir(parents=True)
    Path(spec.workers[2].log).write_text(
        "[rlark-local] start 10:00:00 Worker workers/1\nno robot\n"
    )
    where.write(
        "state.json",
        {
            "phase": "ended",
            "workers": {
                "header/0": {
                    **gone,
                    "started": 1.0,
                    "ended": 3.0,
                    "returncode": -15,
                    "stopped_by": "stop",
                },
                "workers/0": {**gone, "started": 1.0, "ended": 2.0, "returncode": -9},
                "workers/1": {**gone, "started": 1.0, "ended": 1.5, "returncode": 3, "restarts": 2},
            },
            "run": {**gone, "started": 2.5, "ended": 3.0, "returncode": -15, "stopped_by": "stop"},
        },
    )
    snap = backend.snapshot(job.name)
    assert (snap.phase, snap.run_script_state, snap.missing) == ("Stopped", "stopped", [])
    assert [(w.key, w.phase, w.reason, w.exit_code, w.restarts) for w in snap.workers] == [
        ("header/0", STOPPED, "Stopped", 143, 0),
        ("workers/0", FAILED, "Killed (SIGKILL)", 137, 0),
        ("workers/1", FAILED, "Error", 3, 2),
    ]
    assert str(snap.workers[2].message) == "the prepare script failed: no robot"
    assert (snap.checkpoints, snap.progress.config_saved, snap.progress.max_steps) == ([], False, 3)
    assert snap.tasks == [
        {"name": "header", "replicas": 1, "pending": 0, "running": 0, "failed": 0},
        {"name": "workers", "replicas": 2, "pending": 0, "running": 0, "failed": 2},
    ]
