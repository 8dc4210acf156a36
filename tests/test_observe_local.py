"""Inside a local run on real Ray (issue #18): the rehearsal writes TensorBoard events that the
snapshot reads as curves and steps, Ray's node summary says its logical GPUs have no metrics,
the dashboard and an on-demand TensorBoard are linked, and the curves stay readable after Stop."""

from __future__ import annotations

import base64
import io
import json
import urllib.request
import zipfile
from pathlib import Path

import pytest
from test_local_backend import ONE_NODE, START_TIMEOUT, finished, planned, stop_and_check, wait_for

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.i18n import render
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.rlark.site import example_site
from rlark_widgets.ui.session import Session
from rlark_widgets.ui.steps.log_panel import LogPanel
from rlark_widgets.ui.steps.runs_panel import RunsPanel


@pytest.mark.slow
def test_a_rehearsal_shows_its_curves_gpu_note_and_links_and_keeps_them_after_stop(tmp_path: Path):
    backend = LocalBackend(tmp_path, step_seconds=2.0, site=example_site())
    job, report = planned("curves", ONE_NODE)
    backend.submit(job, expansion=report.expansion, config=report.config)
    try:
        snap = wait_for(
            backend,
            job.name,
            lambda s: (s.progress.last_step or 0) >= 2 or finished(s),
            START_TIMEOUT,
        )
        assert snap.run_script_state == "running", "\n".join(snap.log_tail)
        steps = snap.scalars["rehearsal/nodes_answering"].steps
        assert steps[:2] == [1, 2] and snap.scalars["rehearsal/nodes_answering"].values[0] == 1.0
        assert snap.progress.last_step == steps[-1]
        assert snap.gpus == [] and render(snap.gpu_note).startswith(
            "No GPU metrics: Ray counts 2 GPU(s)"
        )
        links = {render(link.label): link for link in snap.links}
        dashboard = links["Ray dashboard"].url
        with urllib.request.urlopen(dashboard + "/api/version", timeout=10) as answer:
            assert answer.status == 200
        url = backend.tensorboard(job.name)
        with urllib.request.urlopen(url + "data/plugin/scalars/tags", timeout=30) as answer:
            assert "rehearsal/step_seconds" in json.load(answer)["."]
        assert backend.snapshot(job.name).links[1].url == url
        done = wait_for(backend, job.name, finished, START_TIMEOUT)
        assert done.run_script_state == "succeeded" and diagnose(done).ok
        assert done.scalars["rehearsal/step_seconds"].steps == [1, 2, 3, 4]
        backend.stop(job.name)
        after = backend.snapshot(job.name)
        assert after.scalars["rehearsal/step_seconds"].steps == [1, 2, 3, 4]
        assert [render(link.label) for link in after.links] == ["TensorBoard (start it with)"]
        assert backend.list_jobs() == ["curves"]
        # A new kernel: a fresh Session on the same workspace lists the run and reattaches to it.
        session = Session(workspace=tmp_path)
        runs = RunsPanel(session)
        runs.load()
        (label,) = [text for text, _ in runs.choice.options]
        run = session.job_rows()[0].run
        assert label.startswith(
            f"curves  Succeeded  run {run[:8]}  Workers 0/1  step 4  global_step_4  started "
        )
        runs.choice.value = "curves"
        runs.attach()
        session._monitor.cancel()
        assert session.refresh() and session.submitted == "curves"
        assert session.snapshot.scalars["rehearsal/step_seconds"].steps == [1, 2, 3, 4]
        # The stopped run's logs stay readable: searched across Workers, and zipped.
        panel = LogPanel(session)
        panel.text.value = "rehearsal passed"
        panel.run()
        assert panel.workers.options == ("run", "worker/0")
        assert panel.results.value.startswith("[run] [rehearsal]")
        assert "REHEARSAL PASSED" in panel.results.value
        panel.download()
        data = base64.b64decode(panel.link.value.split("base64,")[1].split("'")[0])
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert sorted(archive.namelist()) == ["logs/run.log", "logs/worker-0.log"]
            assert "REHEARSAL PASSED" in archive.read("logs/run.log").decode()
    finally:
        stop_and_check(backend, tmp_path, job.name)
