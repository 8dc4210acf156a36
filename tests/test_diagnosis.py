"""The diagnosis walks the seeds' chain and names the first broken link with its fix."""

from __future__ import annotations

import pytest

from rlark_widgets.monitor.diagnosis import LINKS, diagnose
from rlark_widgets.monitor.snapshot import (
    FAILED,
    PENDING,
    RUNNING,
    SUCCEEDED,
    Checkpoint,
    EventRecord,
    JobPhase,
    JobSnapshot,
    Progress,
    RayMember,
    WorkerSnapshot,
)

NOW = 10_000.0


def worker(index: int, phase: str = RUNNING, **fields) -> WorkerSnapshot:
    role = "header" if index == 0 else "workers"
    return WorkerSnapshot(
        role, 0 if index == 0 else index - 1, index, f"job-{index}", phase, **fields
    )


def member(rank: int, state: str = "ALIVE") -> RayMember:
    return RayMember(f"n{rank}", f"10.0.0.{rank}", state, is_head=rank == 0, node_rank=rank)


def healthy(**changes) -> JobSnapshot:
    snap = JobSnapshot(
        "job",
        "kubernetes",
        NOW,
        expected_workers=3,
        workers=[worker(0), worker(1), worker(2)],
        members=[member(0), member(1), member(2)],
        checkpoints=[Checkpoint(40, "/mnt/output/ckpt/global_step_40", NOW - 30)],
        progress=Progress(
            config_saved=True, last_step=42, last_step_time=NOW - 10, save_interval=40
        ),
    )
    for key, value in changes.items():
        setattr(snap, key, value)
    return snap


def test_healthy_job_is_training() -> None:
    result = diagnose(healthy())
    assert result.ok and result.training and result.link == "healthy"
    assert result.title == "Training: step 42, latest checkpoint global_step_40."


def test_rehearsal_is_never_called_training() -> None:
    result = diagnose(healthy(rehearsal=True))
    assert result.ok and not result.training and result.title.startswith("Rehearsal running")


SCHEDULING = "0/12 nodes are available: 4 Insufficient nvidia.com/gpu, 8 node(s) didn't match Pod's node affinity/selector."


BROKEN_LINKS = [
    ({"exists": False}, "job-created", "The Job does not exist."),
    ({"tasks": [], "workers": []}, "tasks-generated", "not generated the Job's Tasks"),
    (
        {
            "workers": [
                worker(
                    0,
                    PENDING,
                    events=[
                        EventRecord(
                            "FailedScheduling",
                            "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector.",
                        )
                    ],
                ),
                worker(1, PENDING),
                worker(2, PENDING),
            ]
        },
        "node-selection",
        "No node matches the node selection of role 'header'",
    ),
    (
        {
            "workers": [
                worker(0),
                worker(1, PENDING, events=[EventRecord("FailedScheduling", SCHEDULING)]),
                worker(2),
            ]
        },
        "resources-image-storage",
        "not enough nvidia.com/gpu",
    ),
    (
        {
            "workers": [
                worker(i, PENDING, events=[EventRecord("FailedScheduling", SCHEDULING)])
                for i in range(3)
            ]
        },
        "resources-image-storage",
        "not enough nvidia.com/gpu",
    ),
    (
        {"workers": [worker(0), worker(1, PENDING, reason="ImagePullBackOff"), worker(2)]},
        "resources-image-storage",
        "cannot pull its image (ImagePullBackOff)",
    ),
    (
        {
            "workers": [
                worker(0),
                worker(1, PENDING, events=[EventRecord("FailedMount", "pvc not bound")]),
                worker(2),
            ]
        },
        "resources-image-storage",
        "waiting for storage (FailedMount)",
    ),
    ({"workers": [worker(0), worker(1)]}, "workers-running", "Only 2 of 3 Workers exist"),
    (
        {
            "workers": [
                worker(0),
                worker(1, FAILED, reason="OOMKilled", exit_code=137),
                worker(2),
            ]
        },
        "workers-running",
        "failed: OOMKilled (exit code 137)",
    ),
    (
        {"workers": [worker(0), worker(1, PENDING), worker(2)]},
        "workers-running",
        "1 of 3 Workers are not running yet",
    ),
    ({"members": [member(1), member(2)]}, "ray-head", "The Ray head is not up."),
    (
        {"members": [member(0), member(1), member(2, "DEAD")]},
        "ray-members",
        "Ray has 2 of 3 members alive: RLinf waits forever",
    ),
    (
        {"members": [member(0), member(1), member(1)]},
        "ray-members",
        "RLINF_NODE_RANK values are [0, 1, 1]",
    ),
    (
        {
            "run_script_state": "failed",
            "run_script_exit_code": 1,
            "log_tail": ["Traceback", "KeyError: 'x'"],
        },
        "config-saved",
        "The run script failed with exit code 1.",
    ),
    (
        {"progress": Progress(config_saved=False)},
        "config-saved",
        "has not saved its final config",
    ),
    (
        {"progress": Progress(config_saved=True)},
        "steps-advancing",
        "Running, but not training: no step has completed yet.",
    ),
    (
        {"progress": Progress(config_saved=True, last_step=42, last_step_time=NOW - 3600)},
        "steps-advancing",
        "Steps stopped advancing at step 42 (60 min ago).",
    ),
    (
        {"checkpoints": []},
        "checkpoints",
        "passed save_interval 40, but no checkpoint is persisted",
    ),
    (
        {"checkpoints": [Checkpoint(40, "/x/global_step_40", readable=False)]},
        "checkpoints",
        "has no readable actor/ directory",
    ),
]


@pytest.mark.parametrize(("changes", "link", "title"), BROKEN_LINKS)
def test_first_broken_link_is_named(changes: dict, link: str, title: str) -> None:
    result = diagnose(healthy(**changes))
    assert not result.ok and not result.training
    assert result.link == link and title in result.title
    assert result.fix


def test_every_link_is_exercised() -> None:
    links = {link for _, link, _ in BROKEN_LINKS}
    assert links == set(LINKS)


@pytest.mark.parametrize(
    ("changes", "title"),
    [
        ({"phase": JobPhase.STOPPED}, "The Job was stopped, latest checkpoint global_step_40."),
        (
            {
                "run_script_state": "succeeded",
                "rehearsal": True,
                "workers": [worker(0, SUCCEEDED), worker(1, SUCCEEDED), worker(2, SUCCEEDED)],
            },
            "The rehearsal finished, latest checkpoint global_step_40.",
        ),
    ],
)
def test_ended_jobs_report_their_result_first(changes: dict, title: str) -> None:
    result = diagnose(healthy(members=[], **changes))  # nodes gone: not "the Ray head is not up"
    assert result.ok and result.link == "ended" and result.title == title and not result.training


def test_a_worker_that_fails_after_the_run_finished_is_still_named() -> None:
    snap = healthy(
        run_script_state="succeeded",
        workers=[worker(0), worker(1, FAILED, reason="Killed (SIGKILL)", exit_code=137), worker(2)],
    )
    result = diagnose(snap)
    assert (
        result.link == "workers-running"
        and "Worker workers/0 (RLINF_NODE_RANK 1) failed" in result.title
    )


def test_a_head_within_its_start_deadline_is_starting_not_unreachable() -> None:
    """Issue #24 item 16: the dashboard refuses connections while the head starts; that is a
    normal start, not '!! The Ray head cannot be reached' with urlopen's Errno 111."""
    from rlark_widgets.monitor.snapshot import MEMBERS, RunInfo

    def starting(seconds: float) -> JobSnapshot:
        snap = healthy(members=[], run=RunInfo("uid-1", NOW - seconds), checkpoints=[])
        snap.progress = Progress()
        snap.lack(MEMBERS, "the Ray dashboard did not answer: [Errno 111] Connection refused")
        return snap

    early = diagnose(starting(25))
    assert early.ok and early.link == "ray-head"
    assert (
        early.title == "The Ray head is starting (25 s since submit; a start may take up to 180 s)."
    )
    assert early.title_text.render("zh").startswith("Ray head 正在启动（提交后已过 25 秒")
    assert "Errno" not in early.detail
    late = diagnose(starting(400))
    assert not late.ok and late.title == "The Ray head cannot be reached."
