"""Every config in the corpus gets a sound plan, or an error finding naming why RLinf rejects it."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import PRIMARY

from rlark_widgets.findings import Severity
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.schema import schema_findings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import parse_job_yaml, render_job_yaml
from rlark_widgets.rlinf import ConfigLoadError, inspect_config

INVENTORY = load_inventory(
    Path(__file__).resolve().parents[1] / "rlark_widgets/examples/inventories/mixed-robots.yaml",
    site=example_site(),
)
REJECTED = {
    "examples/embodiment/config/realworld_dual_franka_dagger_openpi.yaml": (
        "'left_robot_ip' in DualFranka config must be a valid IP address"
    ),
    "examples/reasoning/config/math/qwen2.5-1.5b-reinpp-megatron.yaml": "Reward GPUs must be specified",
    "tests/e2e_tests/dynamic_scheduler/qwen2.5-1.5b-grpo-dynamic-mg-sgl.yaml": "AUTO mode requires",
}


def _load(relative: str, corpus_config):
    try:
        return corpus_config(relative)
    except ConfigLoadError:
        return corpus_config(relative, compose=False)


@pytest.mark.parametrize("relative", PRIMARY)
def test_plan_is_sound(relative: str, corpus_config) -> None:
    report = inspect_config(_load(relative, corpus_config), 8, search_gpus=False)
    plan = plan_roles(report, INVENTORY)
    if relative in REJECTED:
        assert not plan.ok
        rejection = next(f for f in plan.findings if f.rule_id == "PLN-REJECTED")
        assert rejection.severity is Severity.ERROR and REJECTED[relative] in rejection.message
        return
    assert plan.ok, plan.findings
    num_nodes = report.cluster.num_nodes
    # Workers add up to num_nodes, one Header with one Worker at rank 0, ranks contiguous
    assert plan.total_workers == num_nodes
    heads = [r for r in plan.roles if r.head]
    assert len(heads) == 1 and plan.roles[0].head and heads[0].replicas == 1
    assert [rank for rank, _, _ in plan.rank_map()] == list(range(num_nodes))
    # each Worker's GPU request covers what the expansion places on its node
    for role in plan.roles:
        for rank in role.node_ranks:
            summary = report.expansion.per_node.get(rank)
            if summary is not None:
                assert role.gpus >= summary.min_accelerators_needed
    # hardware groups get device requests, on exactly their Workers
    robot_ranks = {r.node_rank for r in report.cluster.robots}
    for role in plan.roles:
        if robot_ranks & set(role.node_ranks):
            assert any(k.startswith("rlinf.io/device-") for k in role.devices), role
        else:
            assert not role.devices
    job = build_job(
        plan, JobSettings(image="registry.example.com/rlinf:v0.3.0"), site=example_site()
    )
    assert schema_findings(job.to_manifest(), site=example_site()) == []
    assert parse_job_yaml(render_job_yaml(job), site=example_site()) == job
    blocking = {
        f.rule_id
        for f in given_job(job, report, INVENTORY, site=example_site()).findings
        if f.severity is Severity.ERROR
    }
    assert not blocking & {
        "PLN-WORKER-COUNT",
        "PLN-HEADER",
        "PLN-GPU-COVER",
        "PLN-DEVICE-COVER",
        "JOB-SCHEMA",
    }


def test_reasoning_config_is_planned_with_reshaped_template(corpus_config) -> None:
    report = inspect_config(
        corpus_config("examples/reasoning/config/math/qwen2.5-7b-grpo-megatron.yaml"), 8
    )
    plan = plan_roles(report)
    assert [(r.name, r.replicas, r.gpus) for r in plan.roles] == [
        ("header", 1, 8),
        ("workers", 15, 8),
    ]
    assert plan.template == "rl"
    assert any("reshapes them into 2 role(s)" in str(e) for e in plan.explanations)


def test_model_processes_placed_through_a_robot_group_get_the_nodes_gpus() -> None:
    from rlark_widgets.rlinf import load_text

    text = """
cluster:
  num_nodes: 2
  component_placement:
    actor,rollout: {node_group: franka, placement: 0}
    env: {node_group: franka, placement: 1}
  node_groups:
    - label: franka
      node_ranks: 0-1
      hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: 10.0.0.1}, {node_rank: 1, robot_ip: 10.0.0.2}]}
runner: {task_type: embodied}
"""
    report = inspect_config(load_text(text), 4, search_gpus=False)
    plan = plan_roles(report)
    # actor and rollout see all 4 GPUs of node 0 through the robot group: request them;
    # the env on node 1 needs none
    assert [(r.name, r.gpus) for r in plan.roles] == [("header", 4), ("franka", 0)]


def test_unknown_entry_point_is_a_placeholder_the_rules_block(corpus_config) -> None:
    report = inspect_config(
        corpus_config("examples/sft/config/qwen3_vl_moe_megatron_sft_vlm.yaml"),
        8,
        search_gpus=False,
    )
    job = build_job(
        plan_roles(report),
        JobSettings(image="registry.example.com/rlinf:v0.3.0"),
        site=example_site(),
    )
    assert 'python "$ENTRY" --config-path' in job.run_script
    assert "JOB-RUN-SCRIPT-ENTRY" in {
        f.rule_id for f in given_job(job, report, site=example_site()).findings
    }
