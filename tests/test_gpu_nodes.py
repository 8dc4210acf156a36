"""The GPU layout follows the config (issue #24 item 1): robot and CPU-only nodes get 0 GPUs by
default, and a process planned on a GPU its Worker does not request is an error at plan time,
with the per-node map that fixes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from test_local_backend import OUTPUT, START_TIMEOUT, finished, stop_and_check, wait_for
from test_placement_properties import cluster_cases, grammatical_placements

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.pipeline import PlannedJob, PlanRequest, plan_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import GpuLayout, load_text
from rlark_widgets.rlinf.ranks import format_ranks

PEG_INSERTION = "examples/embodiment/config/realworld_peginsertion_rlpd_cnn_async.yaml"


def planned(config: Any, gpus: Any = 8) -> PlannedJob:
    return plan_job(PlanRequest(config, GpuLayout.parse(gpus), site=example_site()))


def by_rule(job: PlannedJob, rule_id: str) -> list[Any]:
    return [f for f in job.findings if f.rule_id == rule_id]


def test_a_robot_node_gets_no_gpus_by_default_and_the_plan_says_so(corpus_config) -> None:
    job = planned(corpus_config(PEG_INSERTION))
    assert job.report is not None and job.job is not None
    assert job.report.layout.describe().render("en") == "node 0: 8, node 1: 0"
    assert [(r.name, r.gpus) for r in job.job.roles] == [("header", 1), ("franka", 0)]
    env = job.report.expansion.components["env"].processes
    assert [(p.node_rank, p.visible_accelerators) for p in env] == [(1, ())]
    assert by_rule(job, "PLN-GPU-COVER") == []
    (info,) = by_rule(job, "PLC-GPULESS-NODES")
    assert info.severity.value == "info" and info.path == "cluster.node_groups"
    assert info.text.render("en") == (
        "Node rank(s) [1] belong only to robot or CPU-only node group(s) franka, so they are "
        "assumed to have 0 GPUs (the GPU count applies to the other nodes); the GPU layout is "
        "node 0: 8, node 1: 0."
    )
    assert "--gpus-per-node-map 1:8" in info.fix_text.render("en")
    zh = info.text.render("zh")
    assert zh.startswith("节点 rank [1] 只属于机器人或纯 CPU 节点组 franka") and "0 张 GPU" in zh
    assert "--gpus-per-node-map 1:8" in info.fix_text.render("zh")


def test_a_node_named_in_the_map_keeps_its_gpus_and_a_process_on_them_is_an_error(
    corpus_config,
) -> None:
    job = planned(corpus_config(PEG_INSERTION), "0:8,1:8")
    assert job.report is not None and by_rule(job, "PLC-GPULESS-NODES") == []
    (error,) = by_rule(job, "PLN-GPU-COVER")
    assert error.severity.value == "error"
    assert error.path == "spec.tasks[1].template.spec.containers[0].resources.limits"
    assert error.text.render("en").startswith(
        "RLINF_NODE_RANK 1 (role 'franka', running env) is planned with 8 GPU(s)"
    )
    assert "--gpus-per-node-map 0:8,1:0" in error.fix_text.render("en")
    assert "request 8 per Worker in role 'franka'" in error.fix_text.render("en")
    zh = error.text.render("zh")
    assert "角色 'franka'，运行 env" in zh and "CUDA_VISIBLE_DEVICES" in zh
    assert "--gpus-per-node-map 0:8,1:0" in error.fix_text.render("zh")
    # the map the fix gives plans cleanly
    fixed = planned(corpus_config(PEG_INSERTION), "0:8,1:0")
    assert by_rule(fixed, "PLN-GPU-COVER") == []


def test_a_model_on_a_robot_node_keeps_the_nodes_gpus(corpus_config) -> None:
    job = planned(corpus_config("examples/embodiment/config/realworld_eval_dual_franka.yaml"))
    assert job.report is not None and job.job is not None
    assert job.report.layout.describe().render("en") == "node 0: 8, node 1: 0"
    assert [(r.name, r.gpus) for r in job.job.roles] == [("header", 8), ("franka", 0)]


def test_a_process_on_a_plain_node_through_the_node_group_is_an_error_with_the_map() -> None:
    config = load_text(
        "cluster:\n  num_nodes: 2\n  component_placement:\n    actor,rollout: 0-7\n"
        "    env: {node_group: node, placement: 1}\nrunner: {task_type: embodied}\n",
        "node_env.yaml",
    )
    job = planned(config)
    (error,) = by_rule(job, "PLN-GPU-COVER")
    assert "RLINF_NODE_RANK 1 (role 'workers', running env)" in error.text.render("en")
    assert "--gpus-per-node-map 0:8,1:0" in error.fix_text.render("en")


def _workers(job: PlannedJob) -> list[tuple[int, int, int]]:
    assert job.job is not None
    out, rank = [], 0
    for index, role in enumerate(job.job.roles):
        for _ in range(role.replicas):
            out.append((index, rank, role.gpus))
            rank += 1
    return out


@given(cluster_cases(placements=grammatical_placements(), sane=True))
def test_no_process_sees_a_gpu_its_worker_does_not_request_without_an_error(
    case: tuple[dict[str, Any], Any],
) -> None:
    """Generated: every process row against its Worker's request; an escape fails."""
    mapping, gpus = case
    document = {"cluster": mapping, "runner": {"task_type": "embodied"}}
    config = load_text(yaml.safe_dump(document), "generated.yaml")
    job = planned(config, gpus)
    if job.job is None or job.report is None:
        return
    flagged = {f.path for f in by_rule(job, "PLN-GPU-COVER")}
    requested = {rank: (index, gpus) for index, rank, gpus in _workers(job)}
    for component in job.report.expansion.components.values():
        for row in component.processes:
            index, count = requested[row.node_rank]
            if row.visible_accelerators and max(row.visible_accelerators) >= count:
                path = f"spec.tasks[{index}].template.spec.containers[0].resources.limits"
                assert path in flagged, (component.name, row, count)
    # a robot or CPU-only node the layout does not name, running no model, was given 0 GPUs
    given_layout = GpuLayout.parse(gpus)
    zeroed = [
        rank
        for rank in range(mapping["num_nodes"])
        if job.report.layout.count(rank) == 0 < given_layout.count(rank)
    ]
    said = [f.text.render("en") for f in by_rule(job, "PLC-GPULESS-NODES")]
    assert len(said) == (1 if zeroed else 0)
    if zeroed:
        assert said[0].startswith(f"Node rank(s) {format_ranks(zeroed)} belong only to robot")


@pytest.mark.slow
def test_a_real_two_node_robot_config_rehearses_on_its_default_layout(
    corpus_config, tmp_path: Path
) -> None:
    """The corpus' Franka peg insertion config, planned with the defaults, passes the local
    rehearsal (it failed with 'env rank 0 is planned on GPU 7 of node rank 1')."""
    config = corpus_config(PEG_INSERTION)
    report = planned(config).report
    assert report is not None
    plan = plan_roles(report)
    job = build_job(
        plan, JobSettings(name="peg", image="rlinf:v1", mounts=[OUTPUT]), site=example_site()
    )
    backend = LocalBackend(tmp_path, step_seconds=0.2, site=example_site())
    assert backend.submit(job, expansion=report.expansion, config=report.config).created
    try:
        snap = wait_for(backend, "peg", finished, START_TIMEOUT)
        assert snap.run_script_state == "succeeded", "\n".join(snap.log_tail)
        assert snap.verdict is not None and snap.verdict.passed, snap.verdict
        assert [m.resources.get("GPU", 0.0) for m in snap.members] == [1.0, 0.0]
        placement = json.loads((tmp_path / "peg" / "rehearsal.json").read_text())["placement"]
        env = [(p["node_rank"], p["gpus"]) for p in placement if p["component"] == "env"]
        assert env == [(1, [])]
    finally:
        stop_and_check(backend, tmp_path, "peg")
