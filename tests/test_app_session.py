"""The app's handlers, driven through the Session without a browser (views only forward clicks)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from rlark_widgets.findings import Severity
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.text_fields import format_mounts, parse_mounts
from rlark_widgets.ui.app import App, launch
from rlark_widgets.ui.session import Session, finding_key
from rlark_widgets.ui.steps import JobStep

FRANKA_EXAMPLE = "realworld_peginsertion_rlpd_cnn_async_2arms"


def session(example: str = FRANKA_EXAMPLE, **fields: str) -> Session:
    s = Session(workspace=Path("/nonexistent-workspace"))
    s.settings = JobSettings(image="registry.example.com/rlinf:v0.3.0", **fields)
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


def test_an_impossible_gpu_map_is_refused_and_kept_for_editing() -> None:
    s = session()
    yaml_before = s.job_yaml
    assert not s.set_gpus(per_node_map="0:8,1:1000000000")
    assert "GPU count 1000000000 is outside 0 to 1,024." in s.error
    assert s.gpu_map_text == "0:8,1:1000000000" and s.job_yaml == yaml_before
    assert s.set_gpus(per_node_map="0:8,1:8"), s.error


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


def test_the_kuberay_backend_is_blocked_by_the_exports_errors_not_rlarks() -> None:
    s = session(output_storage="oss://bucket/out", output_mount="/mnt/output")
    s.backend_name = "kubernetes"
    assert "JOB-STORAGE-SOURCE" in {f.rule_id for f in s.blocking()}  # RLark-only
    s.backend_name = "kuberay"
    stopping = s.blocking()
    assert "JOB-STORAGE-SOURCE" not in {f.rule_id for f in stopping}
    assert "JOB-SELECTOR-EMPTY" in {f.rule_id for f in stopping}  # it applies to KubeRay too
    assert not any(f.path.startswith("spec.tasks[") for f in stopping)


def test_the_kuberay_backend_asks_a_yes_for_the_exports_warnings() -> None:
    s = session(output_storage="oss-rlinf", output_mount="/mnt/output")
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    rlark_warnings = {finding_key(f) for f in s.warnings()}
    s.backend_name = "kuberay"
    kuberay_warnings = s.warnings()
    assert kuberay_warnings, "the export's warnings (KubeRay paths) need a yes"
    assert {finding_key(f) for f in kuberay_warnings} != rlark_warnings
    assert not any(f.path.startswith("spec.tasks[") for f in kuberay_warnings)
    assert s.unacknowledged() and not s.can_submit()
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    assert s.unacknowledged() == []
    step = JobStep(s)  # the Job step offers a checkbox for each warning the chosen backend weighs
    assert len(step.warnings.children) == len(kuberay_warnings)


def test_job_fields_inventory_and_record(tmp_path: Path) -> None:
    s = session(output_storage="oss-rlinf", output_mount="/mnt/output")
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


# --- per-role image and mounts (issue #6) -----------------------------------------------------
OUTPUT = "output storage oss-rlinf /mnt/output"


def rule_paths(s: Session, rule_id: str) -> list[str]:
    return [f.path for f in s.findings if f.rule_id == rule_id]


def test_role_mounts_update_the_yaml_and_findings_live() -> None:
    s = session(output_storage="oss-rlinf", output_mount="/mnt/output")
    assert format_mounts(s.roles[1].mounts) == OUTPUT  # seeded by the Job step
    assert rule_paths(s, "JOB-HOSTPATH") == [] and rule_paths(s, "JOB-CHECKPOINT-PERSIST") == []

    assert s.set_role_mounts(
        1, f"{OUTPUT}\n\n# robot data\ndata hostPath /data/franka /mnt/data ro"
    )
    assert [m.name for m in s.roles[1].mounts] == ["output", "data"]
    assert "path: /data/franka" in s.job_yaml and "readOnly: true" in s.job_yaml
    assert rule_paths(s, "JOB-HOSTPATH") == ["spec.tasks[1].template.spec.volumes[1].hostPath.path"]

    assert s.set_role_mounts(0, f"{OUTPUT}\nbucket storage s3://my-bucket /mnt/bucket")
    assert rule_paths(s, "JOB-STORAGE-SOURCE") == [
        "spec.tasks[0].template.spec.containers[0].volumeMounts[1]"
    ]
    assert s.set_role_mounts(1, "data hostPath /data/franka /mnt/data")  # output removed
    persist = next(f for f in s.findings if f.rule_id == "JOB-CHECKPOINT-PERSIST")
    assert "role(s) franka:" in str(persist.text)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("data hostpth /data/x /mnt/data", "the kind 'hostpth' is neither storage nor hostPath"),
        (
            "data hostPath /data/x",
            "expected NAME KIND SOURCE MOUNT_PATH and optionally ro, found 3 word(s)",
        ),
        ("Data hostPath /data/x /mnt/data", "'Data' is not a volume name"),
        ("output hostPath /data/x /mnt/data", "the name 'output' is used by an earlier line"),
        (
            "data hostPath /data/x /mnt/data readonly",
            "the last word 'readonly' is neither ro nor rw",
        ),
        ("data hostPath '/data/x /mnt/data", "a quote is not closed"),
        ("output storage other-class /mnt/output", "the name 'output' is used by an earlier line"),
    ],
)
def test_a_bad_mounts_line_names_the_role_and_line(line: str, problem: str) -> None:
    s = session(output_storage="oss-rlinf", output_mount="/mnt/output")
    before, typed = s.job_yaml, f"{OUTPUT}\n{line}"
    assert not s.set_role_mounts(1, typed)
    assert s.error.startswith(f"Mounts: role 'franka', line 2 ({line}): {problem}"), s.error
    assert "Fix: One mount per line" in s.error and "Traceback" not in s.error
    assert s.job_yaml == before and s.mount_drafts["franka"][0] == typed


def test_one_storage_name_has_one_storage_class() -> None:
    s = session(output_storage="oss-rlinf", output_mount="/mnt/output")
    assert not s.set_role_mounts(1, "output storage other-class /mnt/output")
    assert "'output' is StorageClass oss-rlinf in role 'header'" in s.error


def test_typed_mounts_survive_errors_re_renders_renames_and_the_language() -> None:
    s = session(output_storage="oss-rlinf", output_mount="/mnt/output")
    app = App(s)
    roles = app.steps[3]

    def editor(index: int):
        return roles.rows.children[index].children[-1].children  # (text area, note)

    def note(index: int) -> str:
        return html.unescape(editor(index)[1].value)

    typed = f"{OUTPUT}\ndata hostpth /data/x /mnt/data"
    editor(1)[0].value = typed  # what a user types (applied when the text area loses focus)
    assert "line 2" in s.error and "Not applied: role 'franka', line 2" in note(1)
    s.update_role(0, gpus=2)  # another edit re-renders every row
    assert s.error == "" and editor(1)[0].value == typed and "Not applied" in note(1)
    s.update_role(1, name="arms")  # the draft follows its role
    assert editor(1)[0].value == typed
    s.set_language("zh")
    assert "未应用：角色“franka”第 2 行" in note(1)
    s.set_language("en")

    editor(1)[0].value = typed.replace("hostpth", "hostPath")
    assert s.mount_drafts == {} and editor(1)[1].value == ""
    assert [m.kind for m in s.roles[1].mounts] == ["storage", "hostPath"]
    assert s.roles[1].name == "arms" and s.roles[0].gpus == 2


def test_job_step_output_mount_is_set_on_every_role_and_keeps_role_edits() -> None:
    s = session()
    assert all(r.mounts == [] for r in s.roles)
    s.update_role(1, gpus=1)
    assert s.set_role_mounts(1, "data hostPath /data/franka /mnt/data ro")
    s.set_job_field("output_storage", "oss-rlinf")  # no output path yet: nothing to mount
    assert [len(r.mounts) for r in s.roles] == [0, 1]
    s.set_job_field("output_mount", "/mnt/output")
    assert format_mounts(s.roles[0].mounts) == OUTPUT
    assert format_mounts(s.roles[1].mounts) == f"{OUTPUT}\ndata hostPath /data/franka /mnt/data ro"
    assert s.roles[1].gpus == 1  # the role edits stay (no re-plan)
    assert "runner.logger.log_path=/mnt/output/" in s.job.run_script

    s.set_job_field("output_mount", "/mnt/results")
    assert [m.mount_path for m in s.roles[1].mounts] == ["/mnt/results", "/mnt/data"]
    assert "runner.logger.log_path=/mnt/results/" in s.job.run_script
    assert rule_paths(s, "JOB-CHECKPOINT-PERSIST") == []
    s.add_role()
    assert format_mounts(s.roles[2].mounts) == "output storage oss-rlinf /mnt/results"
    s.set_job_field("output_storage", "")  # cleared: the output mount leaves every role
    assert [[m.name for m in r.mounts] for r in s.roles] == [[], ["data"], []]


def test_the_job_prepare_script_replaces_only_its_own_lines_in_each_role() -> None:
    s = session()
    check = "test -x /opt/rlinf/bin/python || exit 1\n"  # as planning adds for an interpreter
    assert s.update_role(0, prepare_script=check) and s.update_role(1, prepare_script=check)
    assert s.set_job_field("prepare_script", "source /opt/venv/bin/activate")
    assert [r.prepare_script for r in s.roles] == ["source /opt/venv/bin/activate\n" + check] * 2
    assert s.update_role(1, prepare_script="echo franka only\n")  # rewritten for the role
    assert s.set_job_field("prepare_script", "module load cuda\nsource /opt/venv/bin/activate")
    assert [r.prepare_script for r in s.roles] == [
        "module load cuda\nsource /opt/venv/bin/activate\n" + check,
        "echo franka only\n",
    ]
    assert s.set_job_field("prepare_script", "")
    assert s.roles[0].prepare_script == check and "venv" not in s.job_yaml


def test_each_role_has_its_own_image() -> None:
    s = session()
    app = App(s)
    image = app.steps[3].rows.children[1].children[2]
    assert image.value == "registry.example.com/rlinf:v0.3.0"
    image.value = "registry.example.com/franka-bridge:1.2"
    assert "image: registry.example.com/franka-bridge:1.2" in s.job_yaml
    s.set_job_field("image", "registry.example.com/rlinf:v0.3.1")  # the Job step's image
    assert [r.image for r in s.roles] == [
        "registry.example.com/rlinf:v0.3.1",
        "registry.example.com/franka-bridge:1.2",  # the role's own image stays
    ]


def test_mount_lines_round_trip() -> None:
    mounts = parse_mounts("a storage oss /mnt/a\nb hostPath '/data/with space' /mnt/b ro", "r")
    assert mounts[1] == Mount("b", "hostPath", "/data/with space", "/mnt/b", read_only=True)
    assert parse_mounts(format_mounts(mounts), "r") == mounts
    assert parse_mounts("b HOSTPATH /x /y rw", "r") == [Mount("b", "hostPath", "/x", "/y")]


def test_each_refresh_draws_banner_and_charts_from_that_refresh(kube, tmp_path, monkeypatch):
    """The monitor's charts and banner show the snapshot just taken, not the one before it
    (a Job that ended on the second refresh had kept a chart of the first, at 0 members)."""
    from test_cli_jobs import write_kubeconfig
    from test_kubernetes_backend import NAMESPACE, host

    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kubeconfig", kube.url)))
    app = App(session("maniskill_ppo_openvlaoft", namespace=NAMESPACE))
    s, monitor = app.session, app.steps[5]
    assert s.update_role(0, node_selector=host("gpu-a", "a800-0")), s.error
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    s.backend_name, s.k8s_namespace = "kubernetes", NAMESPACE
    assert s.submit(wait=True) and s.submitted == s.job.name, s.error
    s._monitor.cancel()  # this test refreshes by hand, after the monitor's first refresh
    s._monitor.join(timeout=30)

    def drawn() -> tuple[list, str]:
        expected, alive = monitor.members.widget.data
        assert expected.y[-1] == 1
        summary = html.unescape(monitor.summary.value)
        assert s.diagnosis.title in summary  # the banner is this refresh's diagnosis
        return list(alive.y), summary

    kube.start_workers(s.submitted)
    assert s.refresh(), s.error
    alive, summary = drawn()
    assert alive[-1] == 0 and "Ray members: 0/1 alive" in summary
    first = s.diagnosis.title
    kube.run_all(s.submitted)
    kube.ray(s.submitted)
    assert s.refresh(), s.error
    alive, summary = drawn()
    assert alive[-2:] == [0, 1] and len(alive) == len(s.history)
    assert "Ray members: 1/1 alive" in summary
    assert s.diagnosis.title != first


def test_role_text_fields_read_or_refuse_with_the_role_and_item() -> None:
    s = session()
    assert s.set_role_text(1, "devices", "rlinf.io/device-franka=2"), s.error
    assert s.roles[1].devices == {"rlinf.io/device-franka": 2}
    before = (list(s.roles), s.job_yaml)
    assert not s.set_role_text(1, "devices", "rlinf.io/device-franka=two")  # was dropped silently
    assert (
        "role 'franka', devices: 'rlinf.io/device-franka=two' does not end in a whole number"
        in s.error
    )
    assert "Fix: Write RESOURCE=COUNT" in s.error
    assert not s.set_role_text(1, "node_selector", "rlark.io/cluster=a, zone")
    assert "role 'franka', nodes: 'zone' is not NAME=VALUE" in s.error
    assert (list(s.roles), s.job_yaml) == before  # nothing applied
    assert s.set_role_text(1, "env", "A=1\nB = 2"), s.error
    assert s.roles[1].env == {"A": "1", "B": "2"}
    s.set_language("zh")
    assert not s.set_role_text(1, "env", "NOVALUE")
    assert "角色“franka”的环境变量：“NOVALUE”不是 NAME=VALUE 格式" in s.error


def test_run_timeout_reaches_the_local_backend(tmp_path: Path) -> None:
    s = Session(workspace=tmp_path)
    assert s.backend().options.run_timeout is None
    assert s.set_run_timeout("45"), s.error
    assert s.backend().options.run_timeout == 45.0
    for typo in ("soon", "nan", "inf", "-1", "0"):
        assert not s.set_run_timeout(typo), typo
        assert f"'{typo}' is not a number of seconds above 0." in s.error
    assert s.run_timeout == 45.0


def test_job_phases_say_when_a_job_has_ended() -> None:
    from rlark_widgets.monitor.snapshot import JobPhase, JobSnapshot

    assert [p.ended for p in JobPhase] == [False, False, True, True, True]
    assert JobSnapshot("j", "local", 0.0, phase=JobPhase.STOPPED).ended
    assert JobPhase.read("Creating") is None  # a phase RLark does not write is read as none
    assert not JobSnapshot("j", "local", 0.0, phase=JobPhase.read("Creating")).ended
    assert JobSnapshot("j", "local", 0.0, exists=False).ended
