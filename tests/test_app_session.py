"""The app's handlers, driven through the Session without a browser (views only forward clicks)."""

from __future__ import annotations

from pathlib import Path

from rlark_widgets.findings import Severity
from rlark_widgets.ui.app import App, launch
from rlark_widgets.ui.session import Session, finding_key

FRANKA_EXAMPLE = "realworld_peginsertion_rlpd_cnn_async_2arms"


def session(example: str = FRANKA_EXAMPLE, **fields) -> Session:
    s = Session(workspace=Path("/nonexistent-workspace"))
    s.job_fields = {"image": "registry.example.com/rlinf:v0.3.0", **fields}
    assert s.load_example(example), s.error
    return s


def test_import_plans_roles_and_renders_yaml() -> None:
    s = session()
    assert [(r.name, r.replicas) for r in s.roles] == [("header", 1), ("franka", 2)]
    assert (
        "kind: Job" in s.job_yaml
        and "name: realworld-peginsertion-rlpd-cnn-async-2arms" in s.job_yaml
    )
    assert any(
        f.rule_id == "CFG-ROBOT-IP" for f in s.findings
    )  # placeholder robot IPs in the example


def test_a_failed_import_keeps_what_was_there() -> None:
    s = session()
    before = s.job_yaml
    assert not s.load_path("/no/such/config.yaml")
    assert "No RLinf config file" in s.error and "Fix:" in s.error
    assert s.job_yaml == before and s.config_path == "/no/such/config.yaml"


def test_upload_is_read_without_its_directory() -> None:
    s = session()
    text = b"cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\nrunner: {task_type: embodied}\n"
    assert s.load_upload("mine.yaml", text)
    assert s.report.expansion.components["actor"].world_size == 16
    assert s.load_upload("broken.yaml", b"cluster: [") is False and "not valid YAML" in s.error


def test_gpu_changes_replan_and_a_role_edit_updates_yaml_and_findings() -> None:
    s = session("maniskill_ppo_openvlaoft")
    assert s.roles[0].gpus == 8
    s.set_gpus(per_node=4)  # actor: 0-7 no longer fits: RLinf rejects it
    assert s.job is None and any(f.rule_id == "PLN-REJECTED" for f in s.findings)
    s.set_gpus(per_node=8)
    s.update_role(0, gpus=4)
    assert "nvidia.com/gpu: 4" in s.job_yaml
    assert "PLN-GPU-COVER" in {f.rule_id for f in s.findings if f.severity is Severity.ERROR}
    assert not s.can_submit()


def test_roles_add_move_remove_and_the_rank_map() -> None:
    s = session()
    s.add_role()
    assert [r.name for r in s.roles][-1] == "role-1"
    assert {f.rule_id for f in s.findings} >= {"PLN-WORKER-COUNT"}  # 4 Workers for 3 Ray nodes
    assert not s.move_role(7, -1) and "There is no role 8" in s.error
    s.move_role(2, -2)
    assert s.roles[0].name == "role-1" and "PLN-HEADER-RANK0" in {f.rule_id for f in s.findings}
    s.remove_role(0)
    assert [r.name for r in s.roles] == ["header", "franka"]
    assert [(role.name, list(ranks)) for role, ranks in s.job.node_rank_ranges()] == [
        ("header", [0]),
        ("franka", [1, 2]),
    ]


def test_warnings_need_acknowledgement_and_errors_block(tmp_path: Path) -> None:
    s = session("maniskill_ppo_openvlaoft")
    assert s.blocking() == []  # on the local backend cluster-only errors do not block
    assert s.unacknowledged() and not s.can_submit()
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    assert s.can_submit()
    s.backend_name = "kubernetes"
    assert {f.rule_id for f in s.blocking()} == {"JOB-SELECTOR-EMPTY"}
    assert not s.can_submit()


def test_job_fields_inventory_and_record(tmp_path: Path) -> None:
    s = session(storage_class="oss-rlinf", output_dir="/mnt/output")
    assert "runner.logger.log_path=/mnt/output/" in s.job.run_script
    assert s.set_inventory("mixed-robots")
    assert s.roles[1].devices == {"rlinf.io/device-franka": 1}
    assert s.matched_nodes(s.roles[1].node_selector) == ["franka-pc-0", "franka-pc-1"]
    record = s.record_zip(tmp_path / "record.zip")
    assert record is not None and record.stat().st_size > 1000


def test_app_views_build_over_one_session() -> None:
    widget = launch()
    assert widget.children[-1].get_title(5) == "6 Submit & monitor"
    app = App(session())
    app.tabs.selected_index = 2  # opening Topology builds its figures
    assert app.topology.grid.widget is not None
    heatmap = app.topology.grid.widget.data[0]
    assert list(heatmap.y) == ["rank 0 · header", "rank 1 · franka", "rank 2 · franka"]
