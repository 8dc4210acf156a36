"""``runner.save_interval: -1`` (no checkpoint ever) is said before Submit and in the monitor
(issue #24 item 5), in English and Chinese."""

from __future__ import annotations

from test_notices import snap

from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.pipeline import PlanRequest, plan_job
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import GpuLayout, load_text

CONFIG = """\
cluster:
  num_nodes: 1
  component_placement: {actor: 0-1}
runner:
  task_type: embodied
  max_steps: 10
  save_interval: -1
  logger: {log_path: /mnt/output/logs, experiment_name: demo}
"""


def test_a_config_that_never_saves_gets_a_warning_in_both_languages() -> None:
    planned = plan_job(
        PlanRequest(load_text(CONFIG, "never.yaml"), GpuLayout.uniform(2), site=example_site())
    )
    (warning,) = [f for f in planned.findings if f.rule_id == "RES-NO-CHECKPOINTS"]
    assert warning.severity.value == "warning"
    assert warning.message.startswith("runner.save_interval is -1: RLinf never saves")
    assert warning.message_in("zh").startswith("runner.save_interval 为 -1：RLinf 不会保存")
    evaluating = CONFIG.replace("task_type: embodied", "task_type: embodied_eval")
    planned = plan_job(
        PlanRequest(load_text(evaluating, "eval.yaml"), GpuLayout.uniform(2), site=example_site())
    )
    assert [f for f in planned.findings if f.rule_id == "RES-NO-CHECKPOINTS"] == []


def test_the_monitor_does_not_wait_for_checkpoints_that_cannot_come() -> None:
    never = snap(steps=())
    never.progress.save_interval = -1
    en = [line.strip() for line in summary_lines(never, {})]
    assert "Checkpoints: none will come (runner.save_interval is -1: this run saves none)" in en
    assert "Checkpoints: none yet" not in en
    zh = summary_lines(never, {}, lang="zh")
    assert any("不会有" in line and "runner.save_interval 为 -1" in line for line in zh), zh
    saving = snap(steps=())
    saving.progress.save_interval = 5
    assert "Checkpoints: none yet" in [line.strip() for line in summary_lines(saving, {})]
