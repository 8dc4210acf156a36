"""One-click resume on real Ray nodes: a rehearsal writes events and checkpoints, is stopped,
and a resume from its latest checkpoint reaches the next step (issue #18).

One 1-Worker rehearsal of 6 steps (a checkpoint every 2): stopped after its first checkpoint,
resumed from the latest one (the rehearsal reads that checkpoint's actor/ shards and starts at N+1),
then, once that run has ended with its Ray nodes still up, resumed again (resume stops them
first). Every process of the Job is checked gone at the end.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_local_backend import (
    ONE_NODE,
    START_TIMEOUT,
    finished,
    planned,
    stop_and_check,
    wait_for,
)

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.resume import checkpoints_of_every_run, resume
from rlark_widgets.rlark.site import example_site

pytestmark = pytest.mark.slow

SIX_STEPS = ONE_NODE.replace("max_epochs: 4", "max_epochs: 6")


def metrics_steps(workspace: Path, name: str, since: float) -> list[int]:
    """The steps the run started at ``since`` wrote to its metrics lines."""
    path = next((workspace / name / "mounts").rglob("rehearsal_metrics.jsonl"))
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row["step"] for row in rows if row["time"] >= since]


def test_a_stopped_rehearsal_resumes_from_its_latest_checkpoint_at_the_next_step(
    tmp_path: Path,
) -> None:
    backend = LocalBackend(tmp_path, step_seconds=1.5, site=example_site())
    job, report = planned("resumes", SIX_STEPS)
    assert backend.submit(job, expansion=report.expansion, config=report.config).created
    try:
        first = wait_for(
            backend, job.name, lambda s: bool(s.checkpoints) or finished(s), START_TIMEOUT
        )
        assert first.checkpoints, "\n".join(first.log_tail)
        backend.stop(job.name)
        stopped = backend.snapshot(job.name)
        latest = max(c.step for c in checkpoints_of_every_run(stopped))
        assert latest in (2, 4)  # stopped before its last step

        done = resume(backend, job.name)
        assert (done.checkpoint.step, done.stopped) == (latest, None)  # nothing ran: no stop
        assert done.submission.result is not None and done.submission.result.created
        started = backend.snapshot(job.name).run.started
        snap = wait_for(backend, job.name, finished, START_TIMEOUT)
        assert snap.run_script_state == "succeeded", "\n".join(snap.log_tail)
        said = json.loads((tmp_path / job.name / "rehearsal.json").read_text())
        assert said["resumed_from"] == latest
        # The resumed run has no plan of its own: the first run's placement is verified again.
        assert said["placement"] and len(said["placement"]) == report.expansion.total_processes
        assert said["steps"] == list(range(latest + 1, 7))  # it starts at N+1
        assert metrics_steps(tmp_path, job.name, started)[0] == latest + 1
        assert any(
            f"resuming after global_step_{latest} (runner.resume_dir): read 2 file(s) of actor/"
            in line
            for line in backend.logs(job.name, "run").splitlines()
        )
        # the monitor: the resumed checkpoint marked, this run's own after it, steps from N+1
        assert [(c.step, c.resumed) for c in snap.checkpoints] == [
            (latest, True),
            *((step, False) for step in range(latest + 2, 7, 2)),
        ]
        assert snap.progress.last_step == 6
        assert snap.scalars["rehearsal/step_seconds"].steps[0] == latest + 1  # its curve too
        lines = summary_lines(snap, {})
        assert (
            f"  Resumed from global_step_{latest}: this run starts at step {latest + 1}." in lines
        )

        # The run ended, its Ray nodes linger: resume stops them first, then starts again.
        again = resume(backend, job.name, "global_step_2")
        assert again.stopped is not None and "processes ended" in str(again.stopped)
        assert again.submission.result is not None and again.submission.result.created
        snap = wait_for(backend, job.name, finished, START_TIMEOUT)
        said = json.loads((tmp_path / job.name / "rehearsal.json").read_text())
        assert (snap.run_script_state, said["resumed_from"], said["steps"][0]) == (
            "succeeded",
            2,
            3,
        )
    finally:
        stop_and_check(backend, tmp_path, job.name)
