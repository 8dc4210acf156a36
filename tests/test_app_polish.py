"""Polish found on the issue-14 journey, each checked where the user meets it (no browser)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from rlark_widgets.findings import Severity
from rlark_widgets.monitor.snapshot import Checkpoint, JobSnapshot, Progress, RunInfo
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlinf import inspect_config, load_text
from rlark_widgets.ui.app import App
from rlark_widgets.ui.html import findings_html
from rlark_widgets.ui.session import Session
from rlark_widgets.viz.flow import flow_figure
from rlark_widgets.viz.monitor_charts import checkpoint_figure

SEARCHPATH = """\
defaults:
  - _self_
hydra:
  searchpath:
    - file://${oc.env:EMBODIED_PATH}/config/
cluster:
  num_nodes: 1
  component_placement:
    actor: all
"""


def test_findings_are_listed_errors_first() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("realworld_peginsertion_rlpd_cnn_async_2arms"), s.error
    shown = findings_html(list(reversed(s.findings)))
    positions = {severity: [shown.find(f"class='sev {severity.value}'")] for severity in Severity}
    present = [p[0] for p in positions.values() if p[0] >= 0]
    assert present == sorted(present) and len(present) >= 2


def test_cluster_only_errors_show_their_message_and_fix() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    s.settings = JobSettings(image="rlinf:latest")  # an error on a cluster, not for the rehearsal
    app = App(s)
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    local_only = [f for f in s.findings if f.severity is Severity.ERROR and f not in s.blocking()]
    assert local_only
    shown = html.unescape(app.steps[4].errors.value)
    assert "error(s) do not block a submission to the local backend" in shown
    for finding in local_only:
        assert finding.message in shown and (not finding.fix or finding.fix in shown)


def test_a_missing_searchpath_variable_points_at_the_search_paths_box(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside an RLinf checkout there is no likely value: the app asks for one."""
    monkeypatch.delenv("EMBODIED_PATH", raising=False)
    config = tmp_path / "demo.yaml"
    config.write_text(SEARCHPATH)
    s = Session(workspace=tmp_path)
    assert not s.load_path(str(config))
    assert "EMBODIED_PATH" in s.error and "Search paths box" in s.error
    assert "--env" not in s.error and "export" not in s.error
    s.set_language("zh")
    assert "搜索路径" in s.error


def test_context_and_namespace_are_read_only_on_the_local_backend() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    cluster = App(s).steps[1]
    assert cluster.context.disabled and cluster.namespace.disabled
    s.backend_name = "kubernetes"
    assert not cluster.context.disabled and not cluster.namespace.disabled
    assert cluster.backend.style.button_width == "auto"


def test_the_sankey_gives_no_component_a_roles_colour() -> None:
    report = inspect_config(
        load_text(
            "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: 0-15\n    env: 0-15\n",
            "x.yaml",
        ),
        8,
        search_gpus=False,
    )
    plan = plan_roles(report)
    sankey = flow_figure(report.expansion, [(r.name, r.replicas) for r in plan.roles]).data[0]
    labels, colours = list(sankey.node.label), list(sankey.node.color)
    components = {colours[labels.index(c)] for c in ("actor", "env")}
    roles = {c for label, c in zip(labels, colours, strict=True) if label.startswith("role: ")}
    assert len(components) == 2 and not components & roles


def test_the_checkpoint_chart_spans_from_the_runs_start_to_now() -> None:
    snap = JobSnapshot("demo", "local", 1_100.0, run=RunInfo("r", 1_000.0))
    snap.checkpoints = [Checkpoint(2, "/c/global_step_2", 1_096.0)]
    snap.progress = Progress(last_step=3, last_step_time=1_099.0, max_steps=6, save_interval=2)
    figure = checkpoint_figure(snap)
    assert list(figure.layout.xaxis.range) == [0, 100.0]
    assert list(figure.data[0].x) == [96.0]
    label = next(a for a in figure.layout.annotations if a.text == "max steps")
    assert label.xanchor == "left"
