"""The app's site picker, Console sheet and admin request, through the Session and the views
(no browser: the views only forward clicks to one Session method each)."""

from __future__ import annotations

from pathlib import Path

import yaml
from test_site_profile import SITE

from rlark_widgets.ui.app import App, launch
from rlark_widgets.ui.session import Session
from rlark_widgets.ui.steps.cluster import ClusterStep
from rlark_widgets.ui.steps.job import JobStep


def _session() -> Session:
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example("local_rehearsal_2node"), s.error
    return s


def test_the_app_prefills_no_placeholder_image() -> None:
    widget = launch("local_rehearsal_2node")
    assert widget is not None
    s = _session()
    assert s.settings.image == "" and "registry.example.com" not in s.job_yaml
    assert s.can_submit() or not s.blocking()  # the local rehearsal needs no image
    s.backend_name = "kubernetes"
    blocking = {f.rule_id for f in s.blocking()}
    assert "JOB-IMAGE" in blocking and "JOB-SCHEMA" not in blocking  # one finding per cause


def test_the_site_picker_reads_the_inventory_and_plans_through_the_profile(tmp_path: Path) -> None:
    s = _session()
    cluster = ClusterStep(s)
    assert "EXAMPLE" in cluster.site_note.value
    site_file = tmp_path / "site.yaml"
    site_file.write_text(yaml.safe_dump(SITE), encoding="utf-8")
    inventory = tmp_path / "nodes.yaml"
    nodes = [
        {
            "name": f"n{i}",
            "labels": {
                "kubernetes.io/hostname": f"n{i}",
                "platform.example.org/pool": "east",
                "platform.example.org/kind": kind,
            },
            "allocatable": {"nvidia.com/gpu": 8},
        }
        for i, kind in enumerate(["gpu-server", "gpu-server", "spot-pool"])
    ]
    inventory.write_text(yaml.safe_dump({"nodes": nodes}), encoding="utf-8")
    assert s.set_site(str(site_file)), s.error
    assert s.set_inventory(str(inventory)), s.error
    assert "lab-east" in cluster.site_note.value and "EXAMPLE" not in cluster.site_note.value
    assert "spot-pool (as reported)" in cluster.table.value and "云算力" in cluster.table.value
    assert "apiVersion: train.example.org/v1" in s.job_yaml
    assert "platform.example.org/kind: gpu-server" in s.job_yaml
    assert "INV-CATEGORY" in {f.rule_id for f in s.findings}
    cluster.category.value = "cloud"
    assert "n2" not in cluster.table.value and "n0" in cluster.table.value
    assert not s.set_site(str(tmp_path / "missing.yaml")) and "No site profile" in s.error
    assert s.site.name == "lab-east"  # a failed pick keeps what was there


def test_the_job_step_shows_the_console_sheet_and_the_admin_request() -> None:
    s = _session()
    step = JobStep(s)
    step.extras.selected_index = 0
    assert "任务名称" in step.sheet.value and "navigator.clipboard" in step.sheet.value
    assert "JOB-IMAGE" in step.sheet.value  # beside the image field, which is empty
    step.extras.selected_index = 1
    assert "Worker groups" in step.admin.value and "global match" not in step.admin.value
    s.set_language("zh")
    assert "Worker 分组" in step.admin.value
    assert step.extras.get_title(0) == "控制台填写单"
    step.extras.selected_index = 0
    assert "已选节点数" in step.sheet.value and "Selected node count" not in step.sheet.value
    assert App(s).widget is not None
