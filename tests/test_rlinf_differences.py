"""The classes of configs where we once differed from RLinf, pinned with RLinf's own values.

Each expected value here was produced by RLinf 0.3.0's own placement code (the shared
rlinf-oracle); ``tests/test_oracle_differential.py`` compares such shapes at random when the
oracle is installed, and these run without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rlark_widgets.rlinf import ClusterConfigError, inspect_config, load_config, parse_cluster

REASONING = {
    "runner": {"task_type": "reasoning"},
    "actor": {"model": {"tensor_model_parallel_size": 2}},
    "rollout": {"tensor_parallel_size": 2, "pipeline_parallel_size": 1},
    "algorithm": {"recompute_logprobs": True},
}


def report(tmp_path: Path, document: dict, gpus: object):
    file = tmp_path / "config.yaml"
    file.write_text(yaml.safe_dump(document))
    return inspect_config(load_config(file), gpus, search_gpus=False)


def rows(result, name: str) -> list[tuple]:
    return [
        (p.rank, p.node_rank, list(p.local_hardware_ranks), p.local_rank, p.local_world_size)
        for p in result.expansion.components[name].processes
    ]


def test_packed_strategy_after_an_overflow_starts_at_the_next_free_local_gpu(tmp_path):
    cluster = {"num_nodes": 2, "component_placement": {"actor,rollout,reward": "all"}}
    result = report(tmp_path, {"cluster": cluster, **REASONING}, "0:3,1:5")
    # process 1 starts on node 0's last GPU and runs into node 1's first (the off-by-one);
    # process 2 then starts at node 1's local GPU 1, not 0
    assert rows(result, "rollout") == [
        (0, 0, [0, 1], 0, 2),
        (1, 0, [2, 3], 1, 2),
        (2, 1, [1, 2], 0, 2),
        (3, 1, [3, 4], 1, 2),
    ]
    per_node = result.expansion.per_node
    assert (per_node[0].min_accelerators_needed, per_node[1].min_accelerators_needed) == (4, 5)
    assert (per_node[0].processes, per_node[1].processes) == (8, 12)


def test_gim_arm_variant_is_checked_as_its_config_class_checks_it():
    group = {
        "label": "arm",
        "node_ranks": "0",
        "hardware": {"type": "GimArm", "configs": [{"node_rank": 0, "arm_variant": "gim_arm_s"}]},
    }
    with pytest.raises(ClusterConfigError) as failure:
        parse_cluster({"num_nodes": 1, "component_placement": {"a": "all"}, "node_groups": [group]})
    assert (
        failure.value.message
        == "'arm_variant' must be 'gim_arm' or 'gim_arm_xl'. But got 'gim_arm_s'."
    )
    assert failure.value.path == "cluster.node_groups[0].hardware.configs[0].arm_variant"


def test_explicit_hardware_types_are_used_as_written(tmp_path):
    franka = [{"node_rank": 1, "robot_ip": "10.0.0.2"}, {"node_rank": 1, "robot_ip": "10.0.0.3"}]
    cluster = {
        "num_nodes": 3,
        "component_placement": {
            "env": {"node_group": "arms", "placement": "all"},
            "actor": {"node_group": "cpu", "placement": "all"},
        },
        "node_groups": [
            {"label": "franka", "node_ranks": 1, "hardware": {"type": "Franka", "configs": franka}},
            # an alias typed as the robots another group defines
            {"label": "arms", "node_ranks": "0-1", "hardware_type": "Franka"},
            # ignore_hardware only stops detection: the explicit type still counts GPUs
            {
                "label": "cpu",
                "node_ranks": 0,
                "ignore_hardware": True,
                "hardware_type": "Accelerator",
            },
        ],
    }
    result = report(
        tmp_path, {"cluster": cluster, "runner": {"task_type": "embodied"}}, "0:8,1:0,2:0"
    )
    env = result.expansion.components["env"].processes
    assert [
        (p.node_rank, list(p.local_hardware_ranks), list(p.visible_accelerators)) for p in env
    ] == [
        (1, [0], []),
        (1, [1], []),
    ]
    actor = result.expansion.components["actor"].processes
    assert [(p.node_rank, list(p.local_hardware_ranks)) for p in actor] == [
        (0, [g]) for g in range(8)
    ]


def test_an_accelerator_type_on_gpu_less_nodes_has_no_resources(tmp_path):
    cluster = {
        "num_nodes": 2,
        "component_placement": {"rollout": {"node_group": "empty", "placement": "all"}},
        "node_groups": [{"label": "empty", "node_ranks": 1, "hardware_type": "Accelerator"}],
    }
    result = report(tmp_path, {"cluster": cluster, "runner": {"task_type": "embodied"}}, "0:8,1:0")
    assert "No valid resource ranks found in placement string: all." in str(result.expansion.error)


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (
            {"actor": {"model": {"tensor_model_parallel_size": "2"}}},
            "actor.model.tensor_model_parallel_size",
            "TypeError",
        ),
        (
            {"rollout": {"tensor_parallel_size": 0}},
            "rollout.tensor_parallel_size",
            "ZeroDivisionError",
        ),
        ({"rollout": {"tensor_parallel_size": None}}, "rollout.tensor_parallel_size", "TypeError"),
        ({"rollout": {"tensor_parallel_size": 2.0}}, "rollout.tensor_parallel_size", "TypeError"),
        ({"actor": None}, "actor.model", "ConfigAttributeError"),
        ({"rollout": {"tensor_parallel_size": -2}}, "cluster.component_placement", "loop forever"),
    ],
)
def test_parallel_sizes_are_not_read_leniently(tmp_path, change: dict, path: str, words: str):
    cluster = {"num_nodes": 1, "component_placement": {"actor,rollout,reward": "all"}}
    document = {"cluster": cluster, **REASONING, **change}
    result = report(tmp_path, {k: v for k, v in document.items() if v is not None}, 8)
    assert not result.ok
    assert result.expansion.error.path == path
    assert words in str(result.expansion.error.message)


def test_critic_inference_without_a_critic_section_names_it(tmp_path):
    placement = {
        "actor": "0-3",
        "rollout": "4-5",
        "inference": "6",
        "critic_inference": "7",
        "reward": "0",
    }
    document = {"cluster": {"num_nodes": 1, "component_placement": placement}, **REASONING}
    document["inference"] = {"model": {"tensor_model_parallel_size": 1}}
    result = report(tmp_path, document, 8)
    assert result.expansion.error.path == "critic.model"


def test_no_phantom_inference_component(tmp_path):
    placement = {"actor": "0-3", "rollout": "4-5", "actor_inference": "6-7", "reward": "0"}
    document = {"cluster": {"num_nodes": 1, "component_placement": placement}, **REASONING}
    document["actor"] = {"model": {"tensor_model_parallel_size": 1}}
    document["rollout"] = {"tensor_parallel_size": 1, "pipeline_parallel_size": 1}
    document["actor_inference"] = {"model": {"tensor_model_parallel_size": 1}}
    result = report(tmp_path, document, 8)
    components = result.expansion.components
    assert {name: (c.strategy, c.world_size) for name, c in components.items()} == {
        "actor": ("PackedPlacementStrategy", 4),
        "rollout": ("PackedPlacementStrategy", 2),
        "actor_inference": ("FlexiblePlacementStrategy", 2),
        "reward": ("PackedPlacementStrategy", 1),
    }
    assert result.expansion.per_node[0].processes == 9


def test_unknown_task_type_is_refused_before_the_cluster(tmp_path):
    result = report(tmp_path, {"cluster": {"num_nodes": "x"}, "runner": {"task_type": "chess"}}, 8)
    finding = next(f for f in result.findings if f.severity.value == "error")
    assert finding.rule_id == "CFG-TASK-TYPE" and finding.path == "runner.task_type"
    assert "task_type must be one of ['embodied'" in str(finding.message)
