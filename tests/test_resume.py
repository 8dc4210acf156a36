"""One-click resume (issue #18): find the checkpoint, verify it is persisted and readable, pass
``runner.resume_dir`` to a new run, or refuse with the reason and the fix.

Without Ray: the run-script change; the local backend over a Job directory written as a
stopped run leaves it (checkpoints under a mount, not under one, unreadable, missing); the
Kubernetes backend against the emulator (checkpoints listed through the head Worker, the new
Job's run script, refusals); the CLI; the Session. The real rehearsal resuming from its own
checkpoint is tests/test_resume_local.py.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import CHECKPOINTS, NAMESPACE, demo_job
from test_local_backend import planned

from rlark_widgets.backends.base import expectations
from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.spec import build_plan, build_spec
from rlark_widgets.monitor.snapshot import Checkpoint, JobSnapshot
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.resume import (
    ResumeRefused,
    checkpoints_of_every_run,
    resume,
    resume_choices,
    resumed_text,
    with_resume_dir,
)
from rlark_widgets.rlark.job import Job
from rlark_widgets.rlark.site import example_site
from rlark_widgets.ui.session import Session
from rlark_widgets.ui.steps.monitor import MonitorStep

if TYPE_CHECKING:
    from kube_emulator import Cluster

HOUR = 3600.0
LAUNCH = (
    "set -euo pipefail\ncd /workspace/RLinf\n# python main.py --config-name old\n"
    "python examples/embodiment/train_embodied_agent.py --config-path /workspace/RLinf/cfg \\\n"
    "  --config-name maniskill runner.logger.log_path=/mnt/output/demo\necho done\n"
)


# --- the one change to the run script ---------------------------------------------------------
def test_resume_dir_is_appended_to_the_launch_line_after_its_continuations() -> None:
    script, change = with_resume_dir(LAUNCH, "/mnt/output/demo/checkpoints/global_step_4")
    lines = script.splitlines()
    assert lines[2] == "# python main.py --config-name old"  # a comment is no launch line
    assert lines[4] == (
        "  --config-name maniskill runner.logger.log_path=/mnt/output/demo"
        " ++runner.resume_dir=/mnt/output/demo/checkpoints/global_step_4"
    )
    assert lines[5] == "echo done" and script.count("runner.resume_dir=") == 1
    assert str(change) == (
        "Run script: ++runner.resume_dir=/mnt/output/demo/checkpoints/global_step_4 appended to"
        " the RLinf launch line (++ sets it whether or not the config has the key)."
    )
    assert change.render("zh").startswith("运行脚本：已在 RLinf 启动命令末尾追加")


def test_an_existing_resume_dir_is_replaced_and_the_change_names_both() -> None:
    before = "python x.py --config-name c runner.resume_dir=/mnt/o/global_step_2 a=1"
    script, change = with_resume_dir(before, "/mnt/o/my dir/global_step_6")
    assert (
        script == "python x.py --config-name c runner.resume_dir='/mnt/o/my dir/global_step_6' a=1"
    )
    assert str(change) == (
        "Run script: runner.resume_dir=/mnt/o/global_step_2 becomes"
        " runner.resume_dir='/mnt/o/my dir/global_step_6'."
    )


def test_an_appended_key_form_is_kept_when_replaced() -> None:
    script, _ = with_resume_dir(
        "python x.py --config-name c +runner.resume_dir=/a/global_step_1", "/b/global_step_3"
    )
    assert script == "python x.py --config-name c +runner.resume_dir=/b/global_step_3"


def test_a_script_without_an_rlinf_launch_line_is_refused_with_the_line_to_add() -> None:
    with pytest.raises(ResumeRefused) as refused:
        with_resume_dir("bash examples/run_embodiment.sh maniskill", "/mnt/o/global_step_2")
    assert "no RLinf launch line" in str(refused.value)
    assert refused.value.fix == (
        "Add runner.resume_dir=/mnt/o/global_step_2 to the RLinf command in the run script and"
        " submit the Job."
    )


def test_checkpoints_of_every_run_and_the_pickers_choices() -> None:
    snap = JobSnapshot("j", "local", 0.0)
    assert resume_choices(snap) == []
    snap.earlier_checkpoints = [
        Checkpoint(2, "/c/global_step_2"),
        Checkpoint(4, "/c/global_step_4"),
    ]
    snap.checkpoints = [
        Checkpoint(4, "/c/global_step_4", resumed=True),
        Checkpoint(6, "/c/global_step_6"),
    ]
    assert [(c.step, c.resumed) for c in checkpoints_of_every_run(snap)] == [
        (2, False),
        (4, True),
        (6, False),
    ]
    assert resume_choices(snap) == ["latest", "global_step_6", "global_step_4", "global_step_2"]


# --- the local backend, from a stopped run's Job directory (no Ray) -----------------------------
def stopped_run(workspace: Path, job: Job, steps: dict[int, bool]) -> Path:
    """The Job directory a stopped local run leaves, with ``global_step_N`` (True: with a
    readable actor/ shard) under its checkpoint directory; returns that directory."""
    where = JobDir.of(workspace, job.name)
    backend = LocalBackend(workspace, site=example_site())
    spec = build_spec(job, where, backend.options, site=example_site())
    where.file("job.yaml").parent.mkdir(parents=True, exist_ok=True)
    from rlark_widgets.rlark.yaml_io import render_job_yaml

    where.file("job.yaml").write_text(render_job_yaml(job))
    where.write("spec.json", spec.to_json())
    plan = build_plan(job, where, backend.options, None, None, MountMap.for_job(job, where.root))
    where.write("plan.json", plan)
    gone = {"pid": 2**22 + 1, "create_time": 1.0}  # above pid_max: never a live process
    where.write("supervisor.json", gone)
    where.write("stop.json", {"time": time.time()})
    ended = {**gone, "started": 1.0, "ended": 3.0, "returncode": -15, "stopped_by": "stop"}
    where.write(
        "state.json",
        {"phase": "ended", "workers": {w.key: ended for w in spec.workers}, "run": ended},
    )
    checkpoints = Path(plan["paths"]["checkpoints"]["local"])
    for step, readable in steps.items():
        directory = checkpoints / f"global_step_{step}"
        directory.mkdir(parents=True)
        if readable:
            (directory / "actor").mkdir()
            (directory / "actor" / "rehearsal_rank_0.json").write_text(json.dumps({"step": step}))
    return checkpoints


def refusal(backend, name: str, which: str = "latest") -> ResumeRefused:
    with pytest.raises(ResumeRefused) as refused:
        resume(backend, name, which)
    return refused.value


def test_local_refusals_name_the_checkpoint_and_the_fix(tmp_path: Path) -> None:
    job, _ = planned("ckpt")
    backend = LocalBackend(tmp_path, site=example_site())
    stopped_run(tmp_path, job, {2: True, 4: False})
    assert backend.snapshot("ckpt").phase == "Stopped"
    unreadable = refusal(backend, "ckpt")  # latest is global_step_4, which has no actor/
    directory = expectations(job).checkpoint_dir
    assert str(unreadable) == (
        f"global_step_4 ({directory}/global_step_4) has no readable actor/: RLinf could not load it."
    )
    assert unreadable.fix == "Check the storage's permissions, or resume from global_step_2."
    missing = refusal(backend, "ckpt", "global_step_9")
    assert (str(missing), missing.fix) == (
        "Job 'ckpt' has no checkpoint global_step_9.",
        "Choose one of: global_step_2, global_step_4.",
    )
    assert str(refusal(backend, "ckpt", "step_2")) == "'step_2' names no checkpoint."
    assert str(refusal(backend, "nothing")).startswith("No Job named nothing on local")
    assert missing.text.render("zh") == "Job 'ckpt' 没有 checkpoint global_step_9。"


def test_a_checkpoint_under_no_mount_is_refused_as_not_persisted(tmp_path: Path) -> None:
    job, _ = planned("bare", mounts=[], output_mount=None)
    job.annotations["rlark.io/checkpoint-dir"] = "/results/bare/checkpoints"
    stopped_run(tmp_path, job, {2: True})
    refused = refusal(LocalBackend(tmp_path, site=example_site()), "bare")
    assert str(refused) == (
        "runner.resume_dir '/results/bare/checkpoints/global_step_2' is not under a mount, so no"
        " Worker can read the checkpoint."
    )
    assert refused.fix == "Mount the storage that holds the checkpoint and use its container path."


def test_a_job_without_checkpoints_or_a_launch_line_is_refused(tmp_path: Path) -> None:
    job, _ = planned("fresh")
    stopped_run(tmp_path, job, {})
    none = refusal(LocalBackend(tmp_path, site=example_site()), "fresh")
    assert str(none) == "Job 'fresh' has no checkpoint to resume from."
    job, _ = planned("wrapped", run_script="bash examples/run_embodiment.sh maniskill")
    stopped_run(tmp_path, job, {2: True})
    assert "no RLinf launch line" in str(
        refusal(LocalBackend(tmp_path, site=example_site()), "wrapped")
    )


def test_the_session_shows_a_refusal_with_its_fix_and_keeps_the_choice(tmp_path: Path) -> None:
    job, _ = planned("sess")
    stopped_run(tmp_path, job, {2: True, 4: True})
    s = Session(workspace=tmp_path)
    assert s.resume_choices() == [] and not s.can_resume()
    s.attach("sess")
    s._monitor.join(timeout=30)
    assert s.refresh(), s.error
    assert s.resume_choices() == ["latest", "global_step_4", "global_step_2"]
    assert s.can_resume()
    assert s.resume("global_step_9", wait=True)
    assert s.error == (
        "Resume: Job 'sess' has no checkpoint global_step_9. Fix: Choose one of: global_step_2,"
        " global_step_4."
    )
    assert s.resume_from == "global_step_9" and not s.busy
    s.set_language("zh")
    assert "Job 'sess' 没有 checkpoint global_step_9。" in s.error and s.error.startswith("恢复")


# --- Kubernetes against the emulator ----------------------------------------------------------
def launch_job() -> Job:
    job = demo_job()
    job.run_script = LAUNCH
    return job


def trained(kube: Cluster, phase: str = "Succeeded", job: Job | None = None):
    """The demo Job with its Workers Running, checkpoints 10 and 20 and ``phase``; the backend
    reads checkpoints through the head Worker (no local mount)."""
    backend = kube.backend(checkpoint_root=None)
    assert backend.submit(job or launch_job()).created
    kube.start_workers("demo")
    kube.run_all("demo")
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 10, age=HOUR)
    kube.checkpoint(CHECKPOINTS, 20, age=HOUR)
    kube.set_job_status("demo", phase, running=True)
    return backend


def test_kubernetes_resume_stops_the_ended_run_and_submits_the_resume_dir(kube: Cluster) -> None:
    backend = trained(kube)
    old_uid = kube.job("demo")["metadata"]["uid"]
    done = resume(backend, "demo")
    assert (done.checkpoint.step, done.resume_dir) == (20, f"{CHECKPOINTS}/global_step_20")
    assert done.submission.result is not None and done.submission.result.created
    assert str(done.stopped).startswith("Stopped Job 'demo' in namespace 'research'")
    new = kube.job("demo")
    assert new["metadata"]["uid"] != old_uid
    script = new["spec"]["runScript"]
    assert script == LAUNCH.replace(
        "log_path=/mnt/output/demo",
        f"log_path=/mnt/output/demo ++runner.resume_dir={CHECKPOINTS}/global_step_20",
    )
    assert str(resumed_text(done)).startswith(
        f"Resuming Job 'demo' from global_step_20 ({CHECKPOINTS}/global_step_20). Run script:"
    )
    snap = kube.backend().snapshot("demo")  # the new run: the checkpoint it resumed from is marked
    assert [(c.step, c.resumed) for c in snap.checkpoints] == [(20, True)]
    assert [c.step for c in snap.earlier_checkpoints] == [10]
    lines = summary_lines(snap, {})
    assert "  Resumed from global_step_20: this run starts at step 21." in lines


def test_kubernetes_refuses_a_run_in_progress_unless_told_to_stop_it(kube: Cluster) -> None:
    backend = trained(kube, phase="Running")
    refused = refusal(backend, "demo", "global_step_10")
    assert str(refused) == (
        "Job 'demo' is still running (phase Running): resuming now would drop its steps after"
        " global_step_10."
    )
    assert "--stop-running" in refused.fix
    assert "runner.resume_dir" not in kube.job("demo")["spec"]["runScript"]  # nothing changed
    done = resume(backend, "demo", "global_step_10", stop_running=True)
    assert done.submission.result is not None and done.submission.result.created
    assert (
        f"runner.resume_dir={CHECKPOINTS}/global_step_10" in kube.job("demo")["spec"]["runScript"]
    )


def test_a_job_its_own_checks_block_is_not_resubmitted_and_its_run_not_stopped(
    kube: Cluster,
) -> None:
    job = launch_job()
    # A key in plain text, submitted around the checks: resubmit runs them.
    job.roles[2].env = {"WANDB_API_KEY": "0123456789abcdef0123456789abcdef01234567"}
    backend = trained(kube, job=job)
    old_uid = kube.job("demo")["metadata"]["uid"]
    done = resume(backend, "demo")
    assert done.submission.result is None and done.stopped is None
    assert [(f.rule_id, f.path) for f in done.submission.blocking] == [
        ("SEC-SECRET", "spec.tasks[2].template.spec.containers[0].env[0].value")
    ]
    assert kube.job("demo")["metadata"]["uid"] == old_uid  # untouched, still running
    assert "resume_dir" not in kube.job("demo")["spec"]["runScript"]


def test_kubernetes_refuses_when_no_head_worker_runs_to_read_through(kube: Cluster) -> None:
    backend = kube.backend(checkpoint_root=None)
    assert backend.submit(launch_job()).created
    kube.start_workers("demo")  # Pending: no head to list the checkpoints through
    kube.checkpoint(CHECKPOINTS, 10)
    kube.set_job_status("demo", "Failed")
    refused = refusal(backend, "demo")
    assert str(refused) == (
        "The checkpoints of Job 'demo' cannot be read: the head Worker is not running."
    )
    assert refused.fix == (
        "On a cluster they are listed through the head Worker: resume while it still runs"
        " (before Stop)."
    )
    assert refused.text.render("zh") == "无法读取 Job 'demo' 的 checkpoint：Head Worker 未在运行。"


def test_kubernetes_refuses_an_unreadable_checkpoint_listed_through_the_head(kube: Cluster) -> None:
    backend = trained(kube)
    kube.checkpoint(CHECKPOINTS, 30, actor=False)
    refused = refusal(backend, "demo")
    assert str(refused).startswith("global_step_30 (") and "no readable actor/" in str(refused)
    assert (
        refused.fix
        == "Check the storage's permissions, or resume from global_step_10, global_step_20."
    )


def test_cli_resubmit_on_kubernetes_prints_the_change_and_refuses_with_a_fix(
    kube: Cluster, tmp_path: Path, capsys
) -> None:
    trained(kube)
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    flags = ("--backend", "kubernetes", "--kubeconfig", str(config))
    code, out, err = cli(capsys, "resubmit", "demo", "--resume", "global_step_40", *flags)
    assert code == 1 and out == ""
    assert err == (
        "error: Job 'demo' has no checkpoint global_step_40.\n"
        "  fix: Choose one of: global_step_10, global_step_20.\n"
    )
    code, out, _ = cli(capsys, "resubmit", "demo", "--resume", "global_step_10", "--json", *flags)
    assert code == 0, out
    data = json.loads(out)
    assert (data["resume_dir"], data["first_step"], data["submitted"]) == (
        f"{CHECKPOINTS}/global_step_10",
        11,
        True,
    )
    assert data["change"].endswith(
        "appended to the RLinf launch line (++ sets it whether or not the config has the key)."
    )
    # The new run has no Worker of its own yet: nothing to read the checkpoints through.
    code, out, err = cli(capsys, "--lang", "zh", "resubmit", "demo", *flags)
    assert code == 1 and err.splitlines() == [
        "错误：无法读取 Job 'demo' 的 checkpoint：Head Worker 未在运行。",
        "  修复：在集群上，checkpoint 是通过 Head Worker 列出的：请在它仍在运行时（停止之前）恢复。",
    ]


def test_the_resume_button_resumes_the_watched_kubernetes_job_from_the_chosen_checkpoint(
    kube: Cluster, tmp_path, monkeypatch
) -> None:
    trained(kube)
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kubeconfig", kube.url)))
    s = Session(workspace=tmp_path)
    s.backend_name, s.k8s_namespace = "kubernetes", NAMESPACE
    monitor = MonitorStep(s)
    assert monitor.resume.disabled and monitor.resume_choice.options == ()
    s.attach("demo")
    s._monitor.cancel()  # this test refreshes by hand (the run's Workers keep it watching)
    s._monitor.join(timeout=30)
    assert s.refresh(), s.error
    assert s.resume_choices() == ["latest", "global_step_20", "global_step_10"] and s.can_resume()
    assert [value for _, value in monitor.resume_choice.options] == s.resume_choices()
    assert not monitor.resume.disabled and monitor.resume_choice.value == "latest"
    monitor.resume_choice.value = "global_step_10"
    assert s.refresh() and monitor.resume_choice.value == s.resume_from == "global_step_10"
    monitor.resume.click()
    deadline = time.monotonic() + 60
    while s.busy and time.monotonic() < deadline:
        time.sleep(0.1)
    s._monitor.cancel()
    assert s.error == "", s.error
    assert s.status == (
        f"Resuming Job 'demo' from global_step_10 ({CHECKPOINTS}/global_step_10). Run script:"
        f" ++runner.resume_dir={CHECKPOINTS}/global_step_10 appended to the RLinf launch line (++"
        " sets it whether or not the config has the key). The old run's Workers were stopped"
        " first."
    )
    script = kube.job("demo")["spec"]["runScript"]
    assert f"runner.resume_dir={CHECKPOINTS}/global_step_10" in script
    assert s.refresh(), s.error  # the new run: no phase yet, in progress
    assert not s.can_resume() and monitor.resume.disabled
    s.attach("demo")  # watching a Job afresh (or loading another config) forgets the choice
    s._monitor.cancel()
    assert s.resume_from == "latest"


def test_kuberay_resume_deletes_the_old_rayjob_for_a_new_one_with_the_resume_dir(kuberay) -> None:
    backend = kuberay.backend(checkpoint_root=None)  # checkpoints listed through the head pod
    assert backend.submit(launch_job()).created
    cluster = kuberay.operate("demo")
    kuberay.run_ray("demo", cluster)
    kuberay.ray_members(cluster)
    kuberay.checkpoint(CHECKPOINTS, 10)
    old_uid = kuberay.object("RayJob", "demo")["metadata"]["uid"]
    refused = refusal(backend, "demo")
    assert "is still running" in str(refused) and "--stop-running" in refused.fix
    assert kuberay.object("RayJob", "demo")["metadata"]["uid"] == old_uid  # untouched
    # The backend's preflight blocks the new run (its PVC is gone): the old run is not deleted.
    held = resume(backend, "demo", stop_running=True)
    assert held.submission.result is None and held.stopped is None
    assert [f.rule_id for f in held.submission.blocking] == ["KRAY-PVC-MISSING"]
    assert kuberay.object("RayJob", "demo")["metadata"]["uid"] == old_uid

    claim = {"metadata": {"name": "demo-output"}, "spec": {"storageClassName": "demo-output"}}
    kuberay.core.create_namespaced_persistent_volume_claim(NAMESPACE, claim, _preload_content=False)
    done = resume(backend, "demo", stop_running=True)
    assert done.submission.result is not None and done.submission.result.created
    new = kuberay.object("RayJob", "demo")
    assert new["metadata"]["uid"] != old_uid and not new["spec"].get("suspend")
    resumed = backend.job("demo")
    assert resumed is not None
    assert f"++runner.resume_dir={CHECKPOINTS}/global_step_10" in resumed.run_script
    said = str(resumed_text(done))
    assert said.startswith(
        f"Resuming Job 'demo' from global_step_10 ({CHECKPOINTS}/global_step_10)."
    )
    assert said.endswith(
        "Deleted first, as a suspended one keeps the name: RayJob 'demo' in namespace 'research',"
        " and with it the RayCluster and Ray pods KubeRay made for it. The PVCs it mounts are"
        " yours and stay."
    )


def test_cli_resubmit_on_the_local_backend_refuses_in_either_language(
    tmp_path: Path, capsys
) -> None:
    job, _ = planned("ckpt")
    stopped_run(tmp_path, job, {2: True})
    flags = ("--workspace", str(tmp_path))
    code, out, err = cli(capsys, "resubmit", "ckpt", "--resume", "global_step_4", "--json", *flags)
    assert code == 1 and json.loads(out) == {
        "refused": {
            "message": "Job 'ckpt' has no checkpoint global_step_4.",
            "fix": "Choose one of: global_step_2.",
        }
    }
    code, _, err = cli(capsys, "--lang", "zh", "resubmit", "ckpt", "--resume", "step4", *flags)
    assert code == 1 and err.splitlines() == [
        "错误：'step4' 不是一个 checkpoint 名称。",
        "  修复：请使用 latest 或 global_step_N（该 Job 已有的某个 checkpoint）。",
    ]


def test_resuming_from_the_last_step_is_refused_with_nothing_left_to_train(
    tmp_path: Path, capsys
) -> None:
    """Issue #24 item 4: global_step_4 of a run whose runner.max_steps is 4 trains nothing."""
    job, _ = planned("done")
    assert expectations(job).max_steps == 4
    stopped_run(tmp_path, job, {2: True, 4: True})
    refused = refusal(LocalBackend(tmp_path, site=example_site()), "done")
    assert str(refused) == (
        "global_step_4 is the end of the run: runner.max_steps is 4, so a run resumed from it has"
        " nothing left to train."
    )
    assert "--override runner.max_steps=8" in refused.fix
    flags = ("--workspace", str(tmp_path))
    for lang, words in (
        ("en", "global_step_4 is the end of the run"),
        ("zh", "global_step_4 已是这次运行的终点"),
    ):
        code, out, err = cli(capsys, "--lang", lang, "resubmit", "done", *flags)
        assert code == 1 and words in err, out + err
    assert (
        LocalBackend(tmp_path, site=example_site()).snapshot("done").phase == "Stopped"
    )  # nothing was started


def test_a_rehearsal_resumed_from_the_last_step_fails_saying_nothing_is_left(
    tmp_path: Path,
) -> None:
    from rlark_widgets.backends.local.rehearsal import Rehearsal, RehearsalFailure

    paths = {"metrics": {"local": str(tmp_path / "metrics.jsonl"), "container": "/m"}}
    plan = {"job": "done", "steps": 4, "planned_steps": 4, "save_interval": 2, "paths": paths}
    with pytest.raises(RehearsalFailure) as failed:
        Rehearsal(plan).run_steps(None, {}, first=5)  # type: ignore[arg-type]
    assert str(failed.value) == (
        "runner.resume_dir is global_step_4 and runner.max_steps is 4: nothing is left to train,"
        " so RLinf would end at once."
    )
    assert failed.value.text.render("zh").startswith("runner.resume_dir 是 global_step_4")
