"""The app's state lifecycle, through the Session and its views, without a browser.

Loading a config clears everything derived from the previous one; buttons are enabled only when
they can act; Delete names what it removes and waits for a confirmation; the monitor watches a
Job until it has ended and its Workers are gone; "Why this plan" follows role edits.
"""

from __future__ import annotations

import html
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_cli_jobs import write_kubeconfig
from test_kubernetes_backend import NAMESPACE, host
from test_run_identity import local_job

from rlark_widgets.backends.all_logs import all_logs
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.logs import RUN_LOG
from rlark_widgets.rlark.planner import job_role_reasons
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session, finding_key
from rlark_widgets.ui.steps.log_panel import LogPanel
from rlark_widgets.ui.steps.topology import topology_rows
from rlark_widgets.ui.watched_run import WatchedRun

if TYPE_CHECKING:
    from kube_emulator import Cluster

REASONING_32 = "rlinf-configs/examples/reasoning/config/math/qwen2.5-32b-grpo-megatron.yaml"


def watched_local_job(tmp_path: Path) -> tuple[App, Session]:
    """An app whose session watches a stopped local Job (its files, no process), as if it was
    submitted from the loaded config."""
    _, where, _ = local_job(tmp_path)
    where.write("stop.json", {"time": 3.0})
    session = Session(workspace=tmp_path)
    session.settings = JobSettings(image="registry.example.com/rlinf:v0.3.0")
    app = App(session)
    assert session.load_example("maniskill_ppo_openvlaoft"), session.error
    session._watch(WatchedRun("again", session.job, session.draft.generation))
    assert session.refresh(), session.error
    return app, session


def test_a_new_config_clears_the_previous_ones_monitor_overlays_and_record(
    tmp_path: Path, rlinf_configs_dir: Path
) -> None:
    app, s = watched_local_job(tmp_path)
    monitor, topology = app.steps[5], app.steps[2]
    monitor.prepare_record()
    assert monitor.record_data and "Download run record" in monitor.record.value
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    assert s.acknowledged and s.snapshot is not None and monitor.summary.value
    assert any(row.state for row in topology_rows(s))  # the Job's state drawn on the plan

    s.env_text = f"EMBODIED_PATH={rlinf_configs_dir}/examples/embodiment"
    assert s.load_path(str(rlinf_configs_dir.parent / REASONING_32)), s.error
    assert s.report.cluster.num_nodes == 32
    assert (s.submitted, s.snapshot, s.diagnosis, s.history) == ("", None, None, [])
    assert s.acknowledged == []
    assert all(row.state is None for row in topology_rows(s))  # no status overlay
    assert monitor.record_data is None and monitor.record.value == ""
    assert monitor.summary.value == "" and monitor.members.widget is None
    assert list(monitor.worker_choice.options) == []
    assert monitor.stop.disabled and monitor.delete.disabled and monitor.refresh.disabled
    topology.open()
    labels = list(topology.grid.widget.data[0].y)
    assert len(labels) == 32 and labels[0] == "rank 0 · header"
    assert not any("Ray" in label or "Worker" in label for label in labels)


def test_a_running_job_of_the_previous_config_is_named_as_still_running(tmp_path: Path) -> None:
    _, s = watched_local_job(tmp_path)
    (tmp_path / "again" / "stop.json").unlink()  # not stopped: its supervisor "exited early"
    assert s.refresh() and s.snapshot.phase not in ("Stopped", "Succeeded")
    assert s.load_example("maniskill_sac_mlp_async_decoupled"), s.error
    assert s.notice == (
        "Job 'again' of the previous config is no longer watched here; it keeps running until"
        " you stop it (rlark-migrate stop again)."
    )
    s.set_language("zh")
    assert s.notice.startswith("上一个配置的 Job 'again' 不再在此处监控")


def test_a_gpu_map_typed_for_one_config_is_cleared_with_a_note_for_the_next() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    assert s.set_gpus(per_node_map="0:4"), s.error
    assert s.report.expansion.layout.per_node
    assert s.load_example("maniskill_sac_mlp_async_decoupled"), s.error
    assert s.gpu_map_text == ""
    assert not s.report.expansion.layout.per_node
    assert s.notice == (
        "The per-node GPU map (0:4) was typed for the previous config and is cleared: every GPU"
        " node now has 8 GPUs."
    )


def test_stop_and_delete_are_enabled_only_when_they_can_act(tmp_path: Path) -> None:
    s = Session(workspace=tmp_path)
    app = App(s)
    monitor = app.steps[5]
    assert monitor.stop.disabled and monitor.delete.disabled and monitor.refresh.disabled
    assert not s.stop() and s.error.startswith("Stop is disabled")
    assert not s.request_delete() and s.error.startswith("Delete is disabled")
    _, s = watched_local_job(tmp_path)  # a stopped Job: Delete can act, Stop cannot
    assert not s.can_stop() and s.can_delete()


def test_delete_names_what_it_removes_and_waits_for_a_confirmation(tmp_path: Path) -> None:
    app, s = watched_local_job(tmp_path)
    monitor = app.steps[5]
    root = tmp_path / "again"
    monitor.delete.click()
    assert s.delete_pending == (
        f"Delete removes Job 'again' and its directory {root}: the logs, outputs and checkpoints"
        " of every run in it (hostPath sources outside it stay). This cannot be undone."
    )
    assert monitor.confirm_box.layout.display == "flex" and root.exists()
    assert str(root) in html.unescape(monitor.confirm_text.value)
    monitor.cancel.click()
    assert s.delete_pending == "" and root.exists()
    assert monitor.confirm_box.layout.display == "none"
    monitor.delete.click()
    monitor.confirm.click()
    s._actions.join(timeout=30)
    assert not root.exists() and s.status.startswith("Deleted Job 'again'")
    s._monitor.join(timeout=30)
    # a deleted Job is no longer watched: no "does not exist" banner (#24 item 18)
    assert s.run is None and s.snapshot is None and s.diagnosis is None


def test_why_this_plan_follows_role_edits() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    app = App(s)
    assert s.load_example("realworld_peginsertion_rlpd_cnn_async_2arms"), s.error
    roles = app.steps[3]
    old = s.roles[1].name
    assert s.update_role(1, name="arms"), s.error
    why = html.unescape(roles.why.value)
    assert "<b>arms</b>" in why and f"<b>{old}</b>" not in why
    reasons = dict(job_role_reasons(s.plan, s.job.roles))
    assert list(reasons) == [r.name for r in s.job.roles]
    assert s.update_role(1, replicas=1), s.error
    why = html.unescape(roles.why.value)
    assert "— Edited after planning: holds RLINF_NODE_RANK [1] (1 Worker(s))" in why


def test_the_run_record_leaves_nothing_in_the_temp_dir(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    s = Session(workspace=Path("/nonexistent-workspace"))
    s.settings = JobSettings(image="registry.example.com/rlinf:v0.3.0")
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    data = s.record_bytes()
    assert data is not None and data[:2] == b"PK" and list(tmp_path.iterdir()) == []


@pytest.fixture
def kube_session(kube: Cluster, tmp_path: Path, monkeypatch) -> Session:
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kubeconfig", kube.url)))
    s = Session(workspace=tmp_path)
    s.settings = JobSettings(image="registry.example.com/rlinf:v0.3.0", namespace=NAMESPACE)
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    assert s.update_role(0, node_selector=host("gpu-a", "a800-0")), s.error
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    s.backend_name, s.k8s_namespace = "kubernetes", NAMESPACE
    return s


def test_the_monitor_watches_a_finished_job_until_its_workers_are_gone(kube, kube_session):
    s = kube_session
    assert s.submit(wait=True), s.error
    name = s.submitted
    kube.start_workers(name)
    kube.run_all(name)
    kube.set_job_status(name, "Succeeded", running=True)  # finished; its Worker still runs
    s.start_monitor(interval=0.1)
    s._monitor.join(timeout=3)
    assert s._monitor.busy  # still watching: the Worker holds its node
    assert s.diagnosis.title == "The Job finished, no checkpoint; Stop releases its 1 Workers."
    assert s.can_stop()
    assert s.stop(wait=True), s.error  # deletes the Job: the monitor refreshes at once and ends
    s._monitor.join(timeout=10)
    assert not s._monitor.busy and not s.snapshot.exists
    assert not s.can_stop() and not s.can_delete()


def test_logs_read_at_a_refresh_use_its_workers_instead_of_listing_them_again(kube, kube_session):
    """The log box follows new lines at every refresh: its Worker comes from the snapshot just
    taken (listing a 1,000-Worker Job's pods again cost as much as the snapshot's own listing)."""
    s = kube_session
    assert s.submit(wait=True), s.error
    s._monitor.cancel()
    name = s.submitted
    kube.start_workers(name)
    kube.run_all(name)
    header = next(w for w in s.backend().snapshot(name).workers if w.head)
    kube.emulator.logs[header.name] = "placement verified\nstep 1"
    assert s.refresh(), s.error
    api = s.backend().api
    before = api.requests
    assert s.logs(RUN_LOG).splitlines() == ["placement verified", "step 1"], s.error
    assert api.requests - before == 2  # the Job (who is the Header) and the log: no pod list
    before = api.requests
    s.backend().snapshot(name)
    snapshot = api.requests - before
    before = api.requests
    found = all_logs(s.backend(), name)  # one snapshot, then one request per log
    assert found == {header.key: "placement verified\nstep 1\n"}  # the run log: the Header's
    assert api.requests - before == snapshot + 3  # + the Job and the run log, the Header's log


def test_follow_searches_every_log_after_a_refresh_in_the_background(kube, kube_session):
    """Follow reads every Worker's log again after each refresh, in a thread of its own: the
    refresh does not wait for a 1,000-Worker Job's logs, and a refresh while the last search
    still runs starts no second one."""
    s = kube_session
    assert s.submit(wait=True), s.error
    s._monitor.cancel()
    name = s.submitted
    kube.start_workers(name)
    kube.run_all(name)
    header = next(w for w in s.backend().snapshot(name).workers if w.head)
    kube.emulator.logs[header.name] = "step 1"
    panel = LogPanel(s)
    panel.follow.value = True
    assert s.refresh(), s.error
    first = panel.following
    assert first is not None and first is not threading.current_thread()
    first.join(timeout=60)
    assert panel.results.value == f"[{header.key}] step 1"
    kube.emulator.logs[header.name] = "step 1\nstep 2"
    with panel._searching:  # a search still running: this refresh starts none
        assert s.refresh(), s.error
        assert panel.following is first and panel.results.value == f"[{header.key}] step 1"
    assert s.refresh(), s.error
    assert panel.following is not first
    panel.following.join(timeout=60)
    assert panel.results.value.splitlines()[-1] == f"[{header.key}] step 2"


# --- the whole journey on real Ray ------------------------------------------------------------
def wait_until(s: Session, done, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert s.refresh(), s.error
        if done(s.snapshot):
            return
        time.sleep(1.0)
    raise AssertionError(f"timed out; last: {s.diagnosis.sentence() if s.diagnosis else None}")


@pytest.mark.slow
def test_a_second_run_never_shows_the_first_runs_results(tmp_path: Path) -> None:
    """Run to a checkpoint, Stop, Submit again, Stop within 30 s, Refresh: no OK banner, no old
    checkpoint, charts from 0, no Worker Succeeded (the first run's results were all shown)."""
    s = Session(workspace=tmp_path)
    s.settings = JobSettings(image="registry.example.com/rlinf:v0.3.0")
    app = App(s)
    monitor = app.steps[5]
    assert s.load_example("local_rehearsal_2node"), s.error
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    try:
        assert s.submit(wait=True), s.error
        wait_until(s, lambda snap: bool(snap.checkpoints))
        first = s.snapshot.run
        assert s.stop(wait=True), s.error
        s._monitor.join(timeout=60)
        assert s.snapshot.checkpoints and s.diagnosis.ok  # it persisted its own checkpoint

        assert s.submit(wait=True), s.error
        time.sleep(5)
        assert s.stop(wait=True), s.error
        s._monitor.join(timeout=60)
        assert s.refresh(), s.error
        snap = s.snapshot
        assert snap.run is not None and snap.run.id != first.id
        assert snap.checkpoints == [] and snap.earlier_checkpoints  # kept on disk, not counted
        assert not s.diagnosis.ok
        assert s.diagnosis.title == "The rehearsal was stopped, no checkpoint."
        assert "Succeeded" not in {w.phase for w in snap.workers}
        summary = html.unescape(monitor.summary.value)
        assert "OK " not in summary and "Checkpoints: none yet" in summary
        assert "Previous run's checkpoints (not this run's): global_step_" in summary
        members = monitor.members.widget.data[0]
        assert min(members.x) >= 0  # charts start at this run's start
        assert all(x >= 0 for trace in monitor.checkpoints.widget.data for x in trace.x)
        assert len(monitor.checkpoints.widget.data[0].x) == 0  # no old checkpoint drawn
    finally:
        if s.submitted and s.can_stop():
            s.stop(wait=True)
        s._monitor.cancel()
        s._monitor.join(timeout=60)
