"""A verdict says only what was checked (issue #24 item 2): a rehearsal of a Job submitted
without its plan ends "rehearsal ran; placement not verified: no plan was given", never
"REHEARSAL PASSED", and ``submit`` says so before it starts, in English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_jobs import cli
from test_local_backend import START_TIMEOUT, finished, survivors, wait_for
from test_run_identity import local_job

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.rehearsal import verdict
from rlark_widgets.cli import main
from rlark_widgets.examples import example_configs
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.pipeline import PlanRequest, plan_job
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.rlinf import GpuLayout, load_config

UNVERIFIED_LOG = [
    "[rlark-local] run mode: rehearsal",
    "[rehearsal]   0.1s REHEARSAL, NOT TRAINING: checks the planned layout on real Ray nodes.",
    "[rehearsal]   9.0s placement NOT verified: no plan was given",
    "[rehearsal]  12.0s step 3/3",
    "[rehearsal]  12.1s REHEARSAL RAN; placement not verified: no plan was given. Nothing was"
    " trained.",
]
RAN_EN = "REHEARSAL RAN; placement not verified: no plan was given. Nothing was trained."
RAN_ZH = "演练已运行（REHEARSAL RAN），放置未核对：没有提供规划。未进行任何训练。"


def test_an_unverified_rehearsal_is_not_a_pass_in_either_language() -> None:
    said = verdict(UNVERIFIED_LOG)
    assert said is not None and said.passed and said.placement is None
    assert said.line == RAN_EN
    assert (str(said.said), said.said.render("zh")) == (RAN_EN, RAN_ZH)  # type: ignore[union-attr]


def test_status_shows_what_the_rehearsal_checked(tmp_path: Path, capsys) -> None:
    backend, where, _ = local_job(tmp_path)
    where.logs.mkdir(parents=True, exist_ok=True)
    where.run_log.write_text("\n".join(UNVERIFIED_LOG) + "\n")
    gone = {"pid": 2**22 + 1, "create_time": 1.0}
    run = {**gone, "started": 1.0, "ended": 2.0, "returncode": 0}
    where.write("state.json", {"phase": "ended", "workers": {}, "run": run})
    diagnosis = diagnose(backend.snapshot("again"))
    assert (diagnosis.detail, diagnosis.detail_text.render("zh")) == (RAN_EN, RAN_ZH)  # type: ignore[union-attr]
    for lang, words, never in (("en", RAN_EN, "PASSED"), ("zh", RAN_ZH, "通过")):
        code, out, err = cli(
            capsys, "--lang", lang, "status", "again", "--workspace", str(tmp_path)
        )
        assert code in (0, 1), err
        assert words in out and never not in out, out


@pytest.mark.slow
def test_submit_of_a_job_yaml_says_before_it_starts_that_placement_is_not_verified(
    tmp_path: Path, capsys
) -> None:
    config = load_config(example_configs()["local_rehearsal_2node"])
    planned = plan_job(
        PlanRequest(
            config, GpuLayout.uniform(2), settings=JobSettings(name="bare"), site=example_site()
        )
    )
    assert planned.job is not None
    job_file = tmp_path / "bare.yaml"
    job_file.write_text(render_job_yaml(planned.job))
    workspace = tmp_path / "ws"
    local = ("--backend", "local", "--workspace", str(workspace))
    try:
        code, out, err = cli(capsys, "--lang", "zh", "submit", str(job_file), *local)
        assert code == 0, out + err
        warning = out.index("[警告] LOC-NO-PLAN")
        assert "无法核对放置" in out[warning:] and warning < out.index("已提交")
        snap = wait_for(
            LocalBackend(workspace, site=example_site()), "bare", finished, 2 * START_TIMEOUT
        )
        assert snap.run_script_state == "succeeded", "\n".join(snap.log_tail)
        assert snap.verdict is not None and snap.verdict.line == RAN_EN
        assert not any("REHEARSAL PASSED" in line for line in snap.log_tail)
        code, out, _ = cli(capsys, "status", "bare", "--workspace", str(workspace))
        assert RAN_EN in out and "REHEARSAL PASSED" not in out
        # finished, its Workers still up: submitting again says so, not "already running"
        code, out, _ = cli(capsys, "submit", str(job_file), *local)
        assert "Job 'bare' has finished, but its Workers still hold their nodes here" in out
        assert "already running" not in out
    finally:
        main(["stop", "bare", *local])
        assert survivors(workspace, "bare") == []
        main(["delete", "bare", *local, "--yes"])
