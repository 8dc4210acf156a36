"""State by lifetime (issue #24 items 7-12, 14): nothing of an earlier config or run is shown as
current, a re-plan keeps the role edits that still apply, and every long action says which step
it is in, ends at its deadline and gives feedback at once.

Through the Session and its views (no browser); the watched Jobs are a local Job's files (no
Ray), the slow or hanging backends small fakes of the backend port.
"""

from __future__ import annotations

import threading
import time
from dataclasses import fields, replace
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_run_identity import local_job

from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.job import Job, Role
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.ui.app import App
from rlark_widgets.ui.background import Background, Token
from rlark_widgets.ui.draft import EDITABLE, carry_edits
from rlark_widgets.ui.session import Session, finding_key
from rlark_widgets.ui.steps.topology import topology_rows
from rlark_widgets.ui.watched_run import WatchedRun

IMAGE = "registry.example.com/rlinf:v0.3.0"
OTHER = "maniskill_sac_mlp_async_decoupled"


def app_watching(tmp_path: Path, from_here: bool = True) -> tuple[App, Session]:
    """An app over the bundled example whose session watches the stopped local Job 'again'
    (its files, no process): submitted from this config, or attached from the Runs list."""
    backend, where, _ = local_job(tmp_path)
    where.write("stop.json", {"time": 3.0})
    job = backend_job(where.root)
    session = Session(workspace=tmp_path)
    session.settings = JobSettings(image=IMAGE)
    app = App(session)
    assert session.load_example("maniskill_ppo_openvlaoft"), session.error
    if from_here:
        session._watch(WatchedRun("again", session.job, session.draft.generation))
        assert session.refresh(), session.error
    else:
        assert session.attach("again")
        session._monitor.join(timeout=30)
    assert session.snapshot is not None and session.run.job is not None, session.error
    assert job.name == "again"
    return app, session


def backend_job(root: Path) -> Job:
    """The Job 'again' as the local backend keeps it (its job.yaml): roles header and workers."""
    job = Job("again", [Role("header", 1, head=True), Role("workers", 1)])
    (root / "job.yaml").write_text(render_job_yaml(job))
    return job


# --- item 7: a Job name belongs to its config ---------------------------------------------------
def test_a_job_name_typed_for_one_config_is_cleared_with_a_note_for_the_next() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    assert s.set_job_field("name", "my-run"), s.error
    assert s.job.name == "my-run"
    assert s.load_example(OTHER), s.error
    assert s.settings.name is None and s.job.name != "my-run"
    assert s.notice == (
        "The Job name 'my-run' was typed for the previous config and is cleared: this config's"
        f" Job is named '{s.job.name}'."
    )
    s.set_language("zh")
    assert s.notice.startswith("Job 名称 'my-run' 是为上一个配置填写的，已清空")


# --- item 8: no panel keeps the previous Job's data ---------------------------------------------
def test_after_another_config_no_panel_shows_the_previous_jobs_data(tmp_path: Path) -> None:
    app, s = app_watching(tmp_path)
    monitor = app.steps[5]
    panels, logs = monitor.inside, monitor.all_logs
    logs.run()  # a search: the Workers list and the results fill
    assert list(logs.workers.options) and monitor.summary.value
    assert list(monitor.worker_choice.options)
    assert s.load_example(OTHER), s.error
    assert s.run is None and s.snapshot is None and s.submitted == ""
    assert monitor.summary.value == "" and monitor.members.widget is None
    assert list(monitor.worker_choice.options) == [] and monitor.log.value == ""
    assert panels.curves.widget is None and panels.gpus.widget is None
    assert panels.links.value == "" and list(panels.picker.options) == []
    assert list(logs.workers.options) == [] and logs.results.value == ""


# --- item 9: a run of another config carries its own roles --------------------------------------
def test_a_job_of_another_config_is_never_drawn_on_this_configs_topology(tmp_path: Path) -> None:
    app, s = app_watching(tmp_path, from_here=False)
    monitor = app.steps[5]
    assert [r.name for r in s.run.job.roles] == ["header", "workers"]  # its own Job
    assert s.run.desired() == {"header": 1, "workers": 1}
    assert {r.name for r in s.job.roles} != {"header", "workers"}  # the config's are others
    assert all(row.state is None for row in topology_rows(s))
    assert not s.drawn_on_topology()
    summary = monitor.summary.value
    assert "workers: 1/1 Workers" in summary and "header: " in summary
    for role in s.job.roles:  # no count of this config's roles
        assert f"{role.name}: 0/" not in summary


def test_a_job_submitted_from_this_config_is_drawn_on_its_topology(tmp_path: Path) -> None:
    _, s = app_watching(tmp_path)
    assert s.drawn_on_topology() and any(row.state for row in topology_rows(s))


# --- item 10: a new run starts empty; a late refresh of the old one writes nothing --------------
def test_a_new_run_starts_with_no_events_curves_or_snapshot_of_the_one_before(tmp_path: Path):
    app, s = app_watching(tmp_path)
    old = s.run
    assert old.snapshot is not None
    from rlark_widgets.monitor.notices import Notice

    s.run = replace(old, notices=(Notice("checkpoint", "global_step_4 saved"),))
    assert "global_step_4 saved" in app.run_notices.value
    assert s.attach("again")  # a new run of it (Watch this run), before its first refresh
    assert s.run.key != old.key and s.run.snapshot is None
    assert s.notices == [] and s.history == [] and app.run_notices.value == ""
    assert app.steps[5].summary.value == "" and app.steps[5].inside.curves.widget is None


class SlowSnapshots:
    """The local backend, with a snapshot that waits for ``release`` (a refresh in flight)."""

    def __init__(self, backend, release: threading.Event) -> None:
        self._backend, self.release = backend, release
        self.name = backend.name
        self.reading = threading.Event()

    def snapshot(self, name: str):
        self.reading.set()
        self.release.wait(30)
        return self._backend.snapshot(name)

    def job(self, name: str):
        return self._backend.job(name)


def test_a_refresh_still_running_for_the_old_job_never_writes_after_attach(tmp_path: Path):
    _, s = app_watching(tmp_path)
    local_job(tmp_path, "other")[1].write("stop.json", {"time": 3.0})  # settled: one refresh
    release = threading.Event()
    slow = SlowSnapshots(s.backend(), release)
    s._backend = slow
    s.start_monitor(interval=0.05)
    assert slow.reading.wait(10)  # the old run's refresh is reading
    s._backend = slow._backend  # the new run reads at once
    assert s.attach("other")
    s._monitor.join(timeout=30)
    assert s.snapshot is not None and s.snapshot.job == "other"
    release.set()  # the old refresh returns now, too late
    time.sleep(0.5)
    assert s.submitted == "other" and s.snapshot.job == "other"


def test_topology_shows_no_old_grid_under_nothing_to_draw(tmp_path: Path) -> None:
    app, s = app_watching(tmp_path)
    topology = app.steps[2]
    topology.open()
    assert topology.grid.widget is not None
    s.job = None  # what an import RLinf rejects leaves
    topology.render()
    assert "Nothing to draw" in topology.note.value
    assert topology.grid.widget is None and topology.flow.widget is None


# --- item 11: a Job left running stays named until it is seen ended -----------------------------
def test_the_no_longer_watched_note_stays_while_the_old_job_runs(tmp_path: Path) -> None:
    _, s = app_watching(tmp_path)
    (tmp_path / "again" / "stop.json").unlink()  # not stopped: it still holds its Workers
    assert s.refresh() and not s.snapshot.settled
    left = "Job 'again' of the previous config is no longer watched here"
    assert s.load_example(OTHER), s.error
    assert s.notice.startswith(left)
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error  # the next import: still named
    assert s.notice.startswith(left)
    (tmp_path / "again" / "stop.json").write_text('{"time": 3.0}')
    s.job_rows()  # List runs sees it ended
    assert left not in s.notice
    assert s.load_example(OTHER), s.error
    assert left not in s.notice


def test_watching_the_left_job_again_ends_its_note(tmp_path: Path) -> None:
    _, s = app_watching(tmp_path)
    (tmp_path / "again" / "stop.json").unlink()
    assert s.refresh()
    assert s.load_example(OTHER) and "no longer watched" in s.notice
    assert s.attach("again")
    assert "no longer watched" not in s.notice


# --- item 12: a re-plan keeps the role edits that still apply -----------------------------------
def test_gpus_per_node_keep_the_role_edits_that_still_apply_and_name_the_dropped() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("local_rehearsal_2node"), s.error
    assert [(r.name, r.gpus) for r in s.roles] == [("header", 8), ("workers", 8)]
    assert s.set_role_text(0, "env", "MY_FLAG=1"), s.error
    assert s.update_role(1, gpus=6), s.error
    assert s.update_role(1, name="learners"), s.error
    assert s.set_gpus(per_node=4), s.error
    header, learners = s.roles
    assert header.env.get("MY_FLAG") == "1"  # kept: the new plan left env as it was
    assert learners.name == "learners"  # the rename is kept
    assert learners.gpus == 4  # dropped: the new plan gives 4 GPUs per Worker, not 8
    assert "header.env" in s.notice and "Role edits kept after the re-plan" in s.notice
    assert "learners.gpus (you set 6; the new plan gives 4)." in s.notice
    assert "learners" in s.job_yaml and "MY_FLAG" in s.job_yaml
    s.set_language("zh")
    assert "重新规划后保留了这些角色修改" in s.notice and "以下角色修改已丢弃" in s.notice


def test_replan_still_discards_role_edits() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    assert s.set_role_text(0, "env", "MY_FLAG=1"), s.error
    assert s.replan() and "MY_FLAG" not in s.roles[0].env


VALUES = {
    "replicas": st.integers(1, 9),
    "image": st.sampled_from(["a:1", "b:2"]),
    "head": st.booleans(),
    "gpus": st.integers(0, 8),
    "devices": st.dictionaries(st.sampled_from(["x/dev", "y/dev"]), st.integers(1, 4)),
    "node_selector": st.dictionaries(st.sampled_from(["zone", "pool"]), st.sampled_from("ab")),
    "env": st.dictionaries(st.sampled_from(["A", "B"]), st.sampled_from(["1", "2"])),
    "prepare_script": st.sampled_from(["", "pip install x", "echo hi"]),
}
EDITED_FIELDS = sorted(VALUES)


@st.composite
def edits(draw: st.DrawFn) -> tuple[list[Role], list[Role], list[Role]]:
    planned = [Role("header", 1, head=True, gpus=8), Role("actor", 2, gpus=8), Role("env", 1)]
    edited, replanned = [], []
    for role in planned:
        mine = {f: draw(VALUES[f]) for f in draw(st.sets(st.sampled_from(EDITED_FIELDS)))}
        theirs = {f: draw(VALUES[f]) for f in draw(st.sets(st.sampled_from(EDITED_FIELDS)))}
        edited.append(replace(role, **mine))
        replanned.append(replace(role, **theirs))
    return planned, edited, replanned


@given(edits())
def test_every_edit_is_kept_where_the_plan_left_its_field_or_named_as_dropped(case) -> None:
    planned, edited, replanned = case
    carried = carry_edits(planned, edited, replanned)
    note = " ".join(t.render() for t in carried.dropped)
    assert [r.name for r in carried.roles] == [r.name for r in replanned]
    for old, mine, new, out in zip(planned, edited, replanned, carried.roles, strict=True):
        for name in (f.name for f in fields(Role)):
            before, yours, now, got = (getattr(x, name) for x in (old, mine, new, out))
            if yours == before:
                assert got == now, name  # not edited: the new plan's value
            elif now == before:
                assert got == yours and f"{mine.name}.{name}" in carried.kept
            else:
                assert got == now and f"{mine.name}.{name} (you set" in note
    assert set(EDITABLE) >= set(EDITED_FIELDS)


# --- item 14: each step shows, ends at its deadline; Stop answers at once -----------------------
def test_a_step_that_hangs_ends_at_its_deadline_naming_the_step() -> None:
    from rlark_widgets.i18n import Text
    from rlark_widgets.ui.background import StepTimedOut

    shown: list[str] = []
    background, token = Background("test"), Token()
    hang = threading.Event()
    started = time.monotonic()
    try:
        background.step(token, Text("Preflight…"), 0.3, lambda: hang.wait(30), shown.append)
    except StepTimedOut as exc:
        assert exc.text.render() == "The step 'Preflight…' did not finish within 0.3 s."
        assert exc.text.render("zh") == "步骤“正在预检…”在 0.3 秒内没有完成。"
    else:
        raise AssertionError("the step did not time out")
    finally:
        hang.set()
    assert time.monotonic() - started < 5 and [str(t) for t in shown] == ["Preflight…"]


class HangingPreflight:
    """A local-named backend whose preflight hangs (the two-minute "Preflight…" of #24)."""

    name = "local"

    def __init__(self) -> None:
        self.release = threading.Event()

    def preflight(self, job, config=None):
        self.release.wait(60)
        return []


def test_submit_shows_its_step_and_ends_a_hanging_preflight_with_a_message(monkeypatch) -> None:
    monkeypatch.setitem(
        __import__("rlark_widgets.ui.session", fromlist=["STEP_TIMEOUTS"]).STEP_TIMEOUTS,
        "preflight",
        0.5,
    )
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    backend = s._backend = HangingPreflight()
    seen: list[str] = []
    s.observe(lambda c: seen.append(c["new"]), "status")
    try:
        assert s.submit(wait=True)
    finally:
        backend.release.set()
    assert "Submitting: opening the backend…" in seen and "Preflight…" in seen
    assert s.error.startswith("Submit: The step 'Preflight…' did not finish within 0.5 s.")
    assert "List runs shows whether the Job was created" in s.error
    assert not s.busy and s.run is None and s.status == ""


class SlowStop:
    """The local backend with a Stop that takes its time (the 8 s of #24 item 14)."""

    def __init__(self, backend) -> None:
        self._backend, self.name = backend, backend.name
        self.release = threading.Event()

    def stop(self, name: str):
        self.release.wait(30)
        return self._backend.stop(name)

    def __getattr__(self, attr: str):
        return getattr(self._backend, attr)


def test_stop_gives_feedback_at_once(tmp_path: Path) -> None:
    _, s = app_watching(tmp_path)
    (tmp_path / "again" / "stop.json").unlink()
    assert s.refresh() and s.can_stop()
    slow = s._backend = SlowStop(s.backend())
    started = time.monotonic()
    assert s.stop()
    assert time.monotonic() - started < 1.0  # the click returns at once
    assert s.status == "Stopping Job 'again'…" and s.busy and not s.can_stop()
    s.set_language("zh")
    assert s.status == "正在停止 Job 'again'…"
    slow.release.set()
    s._actions.join(timeout=30)
    assert not s.busy and s.status != "正在停止 Job 'again'…"


# --- the checkpoint panel after a second run: the watch loop outlives a stale first read --------
def test_a_run_started_here_is_watched_past_a_settled_read_of_the_run_before(tmp_path: Path):
    """The first refreshes after Resume or a second Submit can read the previous run's ended
    state: the loop ended there, and the panel waited forever for the new run's checkpoints."""
    from rlark_widgets.ui.watched_run import START_GRACE

    backend, where, _ = local_job(tmp_path)
    where.write("stop.json", {"time": 3.0})
    ended = backend.snapshot("again")
    assert ended.settled
    now = time.time()
    fresh = WatchedRun("again", submitted_at=now).refreshed(ended)
    assert fresh.watched_on(now + 1)  # not seen live yet: this may be the run before
    assert not fresh.watched_on(now + START_GRACE + 1)  # the grace is bounded
    (where.root / "stop.json").unlink()
    live = fresh.refreshed(backend.snapshot("again"))
    assert live.seen_live and live.watched_on(now + 1)
    assert not live.refreshed(ended).watched_on(now + 1)  # seen live, then ended: done
    assert not WatchedRun("again").refreshed(ended).watched_on(now)  # attached: ends at once


# --- item 18: a deleted Job is no warning and leaves the Runs list ------------------------------
def test_a_deleted_job_is_no_longer_watched_and_leaves_the_runs_list(tmp_path: Path) -> None:
    from rlark_widgets.ui.steps.runs_panel import RunsPanel

    _, s = app_watching(tmp_path)
    panel = RunsPanel(s)
    panel.load()
    assert [row.name for row in panel.rows] == ["again"]
    s.request_delete()
    assert s.delete(wait=True), s.error
    s._actions.join(timeout=30)
    assert s.status.startswith("Deleted Job 'again'") and s.error == ""
    # no run is watched, so no banner ("The Job does not exist.") and no chart of it
    assert s.run is None and s.diagnosis is None and s.snapshot is None and s.history == []
    assert panel.rows == [] and panel.choice.options == ()
    s._monitor.join(timeout=10)
    assert s.run is None and s.diagnosis is None  # nothing came back after the delete
