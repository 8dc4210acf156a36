"""Every run has an identity: the monitor reports this run and only this run.

Kubernetes against the emulator (a Terminating pod of an earlier uid beside a Running one, a
checkpoint directory older than the run, a Job submitted again after a stop); the local backend
from its Job directory (no Ray needed: the files say which run is current); the diagnosis and
the report over hand-made snapshots.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import CHECKPOINTS, NAMESPACE, demo_job, running

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.spec import build_plan, build_spec
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.runs import split_checkpoints
from rlark_widgets.monitor.snapshot import (
    EARLIER_RUN,
    EARLIER_TERMINATING,
    FAILED,
    RUNNING,
    STOPPED,
    SUCCEEDED,
    Checkpoint,
    JobPhase,
    JobSnapshot,
    RayMember,
    RunInfo,
    Verdict,
    WorkerSnapshot,
)
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.site import example_site

if TYPE_CHECKING:
    from kube_emulator import Cluster

HOUR = 3600.0


# --- the model --------------------------------------------------------------------------------
def test_checkpoints_count_only_when_written_after_the_run_started_or_resumed() -> None:
    found = [
        Checkpoint(10, "/out/ckpt/global_step_10", 100.0),
        Checkpoint(20, "/out/ckpt/global_step_20", 200.0),
        Checkpoint(30, "/out/ckpt/global_step_30", 1_000.0),
        Checkpoint(40, "/out/ckpt/global_step_40", None),  # unknown time: not provably ours
    ]
    ours, earlier = split_checkpoints(found, 900.0, "/out/ckpt/global_step_20/")
    assert [(c.step, c.resumed) for c in ours] == [(20, True), (30, False)]
    assert [c.step for c in earlier] == [10, 40]
    assert split_checkpoints(found, None) == (found, [])  # no identity: nothing is hidden


def snapshot(**fields) -> JobSnapshot:
    workers = [
        WorkerSnapshot("header", 0, 0, "demo-header-0", STOPPED, reason="Stopped", head=True),
        WorkerSnapshot("workers", 0, 1, "demo-workers-0", STOPPED, reason="NotStarted"),
    ]
    snap = JobSnapshot("demo", "local", 10_000.0, phase=JobPhase.STOPPED, expected_workers=2)
    snap.workers, snap.rehearsal, snap.run_script_state = workers, True, "stopped"
    snap.run = RunInfo("a" * 32, 9_970.0)
    for key, value in fields.items():
        setattr(snap, key, value)
    return snap


def test_a_run_stopped_before_it_persisted_a_checkpoint_is_not_ok() -> None:
    old = Checkpoint(6, "/out/global_step_6", 9_800.0)
    result = diagnose(snapshot(earlier_checkpoints=[old]))
    assert not result.ok and result.link == "ended"
    assert result.title == "The rehearsal was stopped, no checkpoint."
    lines = summary_lines(snapshot(earlier_checkpoints=[old]), {"header": 1, "workers": 1})
    assert lines[-2].startswith("!! The rehearsal was stopped, no checkpoint.")
    assert "  Checkpoints: none yet" in lines
    assert "  Previous run's checkpoints (not this run's): global_step_6" in lines
    assert "  Run aaaaaaaa, submitted 30 s ago" in lines
    assert "  workers: 1/1 Workers (1 Stopped)" in lines


def test_a_stop_after_this_runs_checkpoint_is_ok() -> None:
    mine = Checkpoint(2, "/out/global_step_2", 9_990.0)
    result = diagnose(snapshot(checkpoints=[mine]))
    assert (
        result.ok and result.title == "The rehearsal was stopped, latest checkpoint global_step_2."
    )


def test_a_finished_run_that_still_holds_workers_says_stop_releases_them() -> None:
    workers = [
        WorkerSnapshot("header", 0, 0, "h", RUNNING, head=True),
        WorkerSnapshot("workers", 0, 1, "w", RUNNING),
    ]
    verdict = Verdict(
        True,
        "REHEARSAL PASSED: the layout matches the plan. Nothing was trained.",
        "placement verified: 20 processes on 2 nodes as planned",
    )
    snap = snapshot(
        phase=JobPhase.SUCCEEDED, run_script_state="succeeded", workers=workers, verdict=verdict
    )
    result = diagnose(snap)
    assert result.ok and result.title == (
        "The rehearsal finished, no checkpoint; Stop releases its 2 Workers."
    )
    assert result.detail == "placement verified: 20 processes on 2 nodes as planned"
    assert result.fix == "Stop the Job: its Workers hold their nodes until then (outputs stay)."
    assert result.to_dict("zh")["title"] == (
        "演练已完成，没有 checkpoint；停止（Stop）该 Job 即可释放它占用的 2 个 Worker。"
    )
    lines = summary_lines(snap, {"header": 1, "workers": 1})
    assert "  Rehearsal verdict: " + verdict.line in lines
    assert "  Rehearsal: placement verified: 20 processes on 2 nodes as planned" in lines


def test_a_failed_rehearsal_names_its_reason_in_the_diagnosis() -> None:
    verdict = Verdict(False, "REHEARSAL FAILED: Worker workers/0 (rank 1) never joined Ray")
    snap = snapshot(phase=JobPhase.FAILED, run_script_state="failed", verdict=verdict, workers=[])
    snap.run_script_exit_code, snap.log_tail = 1, ["some other last line"]
    snap.workers = [
        WorkerSnapshot("header", 0, 0, "h", RUNNING, head=True),
        WorkerSnapshot("workers", 0, 1, "w", RUNNING),
    ]
    snap.members = [
        RayMember("n0", "127.0.0.2", "ALIVE", is_head=True, node_rank=0),
        RayMember("n1", "127.0.0.2", "ALIVE", node_rank=1),
    ]
    result = diagnose(snap)
    assert result.title == "The run script failed with exit code 1."
    assert result.detail == verdict.line


# --- Kubernetes -------------------------------------------------------------------------------
def test_a_terminating_pod_of_an_earlier_run_is_listed_apart_and_never_counted(kube: Cluster):
    backend = running(kube)
    kube.ray("demo")
    old = kube.earlier_pod("demo", "header", 0, 0, terminating=True)
    other = kube.earlier_pod("demo", "actor", 0, 1, terminating=False)
    kube.checkpoint(CHECKPOINTS, 10)
    snap = backend.snapshot("demo")
    job = kube.job("demo")
    assert snap.run == RunInfo(job["metadata"]["uid"], snap.run.started)
    assert snap.run.started is not None and abs(snap.run.started - time.time()) < 60
    assert [w.key for w in snap.workers] == ["header/0", "actor/0", "env/0"]
    assert all(w.phase == RUNNING and w.apart is None for w in snap.workers)
    assert [(w.name, w.apart, w.phase, w.exit_code) for w in snap.others] == [
        (old, EARLIER_TERMINATING, FAILED, 137),
        (other, EARLIER_RUN, FAILED, 137),
    ]
    result = diagnose(snap)
    assert result.ok and result.title == "Training: step 10, latest checkpoint global_step_10."
    lines = summary_lines(snap, {"header": 1, "actor": 1, "env": 1})
    assert "  header: 1/1 Workers (1 Running)" in lines
    apart = next(line for line in lines if line.startswith("  Not counted: "))
    assert f"header/0 ({old}, from an earlier run, terminating, phase Failed)" in apart
    assert f"actor/0 ({other}, from an earlier run, phase Failed)" in apart
    kube.emulator.logs["demo-header-0"] = "this run\n"
    kube.emulator.logs[old] = "the earlier run\n"
    assert backend.logs("demo", "header/0") == "this run\n"


def test_a_checkpoint_directory_older_than_the_run_is_not_this_runs(kube: Cluster) -> None:
    backend = running(kube)
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 30, age=HOUR)
    snap = backend.snapshot("demo")
    assert snap.checkpoints == [] and [c.step for c in snap.earlier_checkpoints] == [30]
    assert snap.progress.last_step is None
    assert diagnose(snap).title == "Running, but not training: no step has completed yet."
    lines = summary_lines(snap, {})
    assert "  Checkpoints: none yet" in lines
    assert "  Previous run's checkpoints (not this run's): global_step_30" in lines

    kube.checkpoint(CHECKPOINTS, 10)  # this run's first
    snap = backend.snapshot("demo")
    assert [c.step for c in snap.checkpoints] == [10] and snap.progress.last_step == 10


def test_the_checkpoint_a_run_resumed_from_counts_and_is_said_so(kube: Cluster) -> None:
    job = demo_job()
    job.run_script += f" runner.resume_dir={CHECKPOINTS}/global_step_30"
    backend = kube.backend()
    assert backend.submit(job).created
    kube.start_workers("demo")
    kube.run_all("demo")
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 20, age=2 * HOUR)
    kube.checkpoint(CHECKPOINTS, 30, age=HOUR)
    snap = backend.snapshot("demo")
    assert [(c.step, c.resumed) for c in snap.checkpoints] == [(30, True)]
    assert [c.step for c in snap.earlier_checkpoints] == [20]
    assert snap.progress.last_step is None  # resuming is no step of this run
    line = next(line for line in summary_lines(snap, {}) if "resumed" in line)
    assert line == (
        f"  Checkpoint resumed from (runner.resume_dir): global_step_30 ({CHECKPOINTS}/"
        "global_step_30); none written by this run yet"
    )


def test_a_job_submitted_again_after_a_stop_is_a_new_run(kube: Cluster) -> None:
    backend = running(kube)
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 10, age=HOUR)  # the first run's, written an hour ago
    first = backend.snapshot("demo").run
    backend.stop("demo")  # the pods stay until RLark's garbage collection removes them
    assert backend.submit(demo_job()).created
    snap = backend.snapshot("demo")
    assert snap.run is not None and snap.run.id != first.id
    assert snap.workers == [] and {w.apart for w in snap.others} == {EARLIER_RUN}
    assert snap.checkpoints == [] and [c.step for c in snap.earlier_checkpoints] == [10]
    result = diagnose(snap)
    assert (
        not result.ok and result.title != "The Job was stopped, latest checkpoint global_step_10."
    )


def test_status_json_carries_the_run(kube: Cluster, tmp_path: Path, capsys) -> None:
    running(kube)
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    code, out, _ = cli(
        capsys, "status", "demo", "--backend", "kubernetes", "--kubeconfig", str(config), "--json"
    )
    data = json.loads(out)
    job = kube.job("demo")
    assert code == 0
    assert data["run"]["id"] == job["metadata"]["uid"] == data["snapshot"]["run"]["id"]
    assert isinstance(data["run"]["started"], float)


# --- local ------------------------------------------------------------------------------------
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")


def local_job(tmp_path: Path, name: str = "again") -> tuple[LocalBackend, JobDir, dict]:
    """A submitted local Job's files (as submit writes them), without starting anything."""
    backend = LocalBackend(tmp_path, site=example_site())
    job = Job(
        name,
        [Role("header", 1, head=True, mounts=[OUTPUT]), Role("workers", 1, mounts=[OUTPUT])],
        annotations={"rlark.io/checkpoint-dir": "/mnt/output/ckpt"},
    )
    where = JobDir.of(tmp_path, name)
    spec = build_spec(job, where, backend.options, site=example_site())
    where.write("spec.json", spec.to_json())
    plan = build_plan(job, where, backend.options, None, None, MountMap.for_job(job, where.root))
    where.write("plan.json", plan)
    gone = {"pid": 2**22 + 1, "create_time": 1.0}
    where.write("supervisor.json", gone)
    return backend, where, plan


def test_a_local_run_counts_only_its_own_checkpoints_and_says_which_run(tmp_path: Path) -> None:
    backend, where, plan = local_job(tmp_path)
    root = Path(plan["paths"]["checkpoints"]["local"])
    for step in (6, 2):
        (root / f"global_step_{step}" / "actor").mkdir(parents=True)
    age_tree(root / "global_step_6", HOUR)
    snap = backend.snapshot("again")
    spec = where.read("spec.json")
    assert snap.run == RunInfo(spec["run_id"], spec["submitted"])
    assert [c.step for c in snap.checkpoints] == [2]
    assert [c.step for c in snap.earlier_checkpoints] == [6]


def test_local_workers_of_a_stopped_run_are_stopped_not_succeeded(tmp_path: Path) -> None:
    backend, where, _ = local_job(tmp_path)
    gone = {"pid": 2**22 + 1, "create_time": 1.0}
    where.write("stop.json", {"time": 3.0})
    header = {**gone, "started": 1.0, "ended": 3.0, "returncode": -15, "stopped_by": "stop"}
    where.write("state.json", {"phase": "ended", "workers": {"header/0": header}})
    snap = backend.snapshot("again")
    assert [(w.key, w.phase, w.reason) for w in snap.workers] == [
        ("header/0", STOPPED, "Stopped"),
        ("workers/0", STOPPED, "NotStarted"),
    ]
    assert SUCCEEDED not in {w.phase for w in snap.workers}
    assert str(snap.workers[1].message) == "never started: the Job was stopped first"
    assert not diagnose(snap).ok


def age_tree(path: Path, seconds: float) -> None:
    """Make ``path`` and everything under it look written ``seconds`` ago."""
    then = time.time() - seconds
    for item in [*path.rglob("*"), path]:
        os.utime(item, (then, then))


def test_a_step_saved_again_into_an_earlier_runs_directory_is_this_runs(kube: Cluster) -> None:
    """RLinf (and the rehearsal) overwrite a step's files in place: the directories keep the
    earlier run's times, the files get this run's, so the newest of them dates the checkpoint."""
    running(kube)
    kube.ray("demo")
    old = kube.checkpoint(CHECKPOINTS, 10)
    (old / "actor" / "shard.pt").write_text("earlier run")
    kube.checkpoint(CHECKPOINTS, 20)
    age_tree(old, HOUR)
    age_tree(old.parent / "global_step_20", HOUR)
    for reader in (kube.backend(), kube.backend(checkpoint_root=None)):  # mount, exec
        snap = reader.snapshot("demo")
        assert snap.checkpoints == [] and [c.step for c in snap.earlier_checkpoints] == [10, 20]
    (old / "actor" / "shard.pt").write_text("this run")  # saved again, in place
    for reader in (kube.backend(), kube.backend(checkpoint_root=None)):
        snap = reader.snapshot("demo")
        assert [c.step for c in snap.checkpoints] == [10]
        assert [c.step for c in snap.earlier_checkpoints] == [20]
