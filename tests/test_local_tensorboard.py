"""TensorBoard on demand for a local run (issue #18): a real TensorBoard on loopback serving the
run's scalars, found again while it runs, ended with the Job."""

from __future__ import annotations

import json
import urllib.request

import pytest
from test_scalars import write_events

from rlark_widgets.backends.local import tensorboard
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.procs import ProcessRef


@pytest.mark.slow
def test_tensorboard_starts_on_loopback_serves_the_runs_scalars_and_ends(tmp_path):
    where = JobDir.of(tmp_path, "demo")
    logdir = tmp_path / "out" / "tensorboard"
    logdir.mkdir(parents=True)
    write_events(logdir, [(1, 1000.0, {"rehearsal/step_seconds": 1.0})])
    url = tensorboard.start(where, logdir)
    try:
        assert url.startswith("http://127.0.0.1:")
        assert tensorboard.start(where, logdir) == url  # found again, not a second one
        assert tensorboard.running_url(where) == url
        with urllib.request.urlopen(url + "data/plugin/scalars/tags", timeout=30) as answer:
            tags = json.load(answer)
        assert tags == {".": {"rehearsal/step_seconds": {"displayName": "", "description": ""}}}
    finally:
        ref = ProcessRef.from_json(where.read(tensorboard.RECORD))
        tensorboard.end(where, tmp_path)
    assert ref is not None and not ref.alive and tensorboard.running_url(where) is None
