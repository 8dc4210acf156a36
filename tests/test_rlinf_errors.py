"""RLinf's own rejections, reproduced with RLinf's wording and the config path of the culprit.

Every invalid-input case is one of RLinf 0.3.0's own error messages (the cluster schema, the
placement grammar, the resource universe, the strategies, the reasoning re-placement). Each case
asserts a distinctive phrase of RLinf's message *and* the exact ``.path``. The positive half
checks worked examples of RLinf's placement and the quirks of its code, row by row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from rlark_widgets.rlinf import (
    ClusterConfigError,
    Expansion,
    GpuLayout,
    PlacementError,
    RLinfConfigError,
    expand_placement,
    gpu_requirements,
    load_text,
    parse_cluster,
)
from rlark_widgets.rlinf.yaml_traps import sexagesimal_findings

CP = "cluster.component_placement"


# --- helpers ------------------------------------------------------------------------------------
def cluster(
    placement: Mapping[str, Any] | None = None,
    num_nodes: Any = 1,
    node_groups: list[Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A ``cluster`` mapping as OmegaConf would hand it over (plain dicts and lists)."""
    data: dict[str, Any] = {
        "num_nodes": num_nodes,
        "component_placement": dict(placement or {"actor": "all"}),
    }
    if node_groups is not None:
        data["node_groups"] = node_groups
    data.update(extra)
    return data


def expand(
    placement: Mapping[str, Any],
    gpus: int | str | GpuLayout = 8,
    num_nodes: int = 1,
    node_groups: list[Any] | None = None,
    **kwargs: Any,
) -> Expansion:
    return expand_placement(
        parse_cluster(cluster(placement, num_nodes, node_groups)), gpus, **kwargs
    )


#: The sections every reasoning config has (RLinf reads them; a test that drops one says so).
REASONING_BASE = {"actor.model": {}, "rollout": {}, "algorithm.recompute_logprobs": False}


def lookup(values: Mapping[str, Any], base: Mapping[str, Any] = REASONING_BASE):
    """A ``lookup(path, default)`` over a config built from dotted paths, as RLinfConfig.get."""
    tree: dict[str, Any] = {}
    for dotted, value in {**base, **values}.items():
        *parents, leaf = dotted.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = dict(value) if isinstance(value, Mapping) else value

    def get(path: str, default: Any = None) -> Any:
        node: Any = tree
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return default if node is None else node

    return get


def rows(exp: Expansion, name: str) -> list[tuple]:
    """(rank, node, local hardware ranks, visible GPUs, local_rank, local_world_size) per process."""
    assert exp.ok, exp.error
    return [
        (
            p.rank,
            p.node_rank,
            list(p.local_hardware_ranks),
            list(p.visible_accelerators),
            p.local_rank,
            p.local_world_size,
        )
        for p in exp.components[name].processes
    ]


def franka_group(label: str, node_ranks: Any, robot_nodes: list[int], **extra: Any) -> dict:
    configs = [{"node_rank": n, "robot_ip": f"192.0.2.{i + 1}"} for i, n in enumerate(robot_nodes)]
    return {
        "label": label,
        "node_ranks": node_ranks,
        "hardware": {"type": "Franka", "configs": configs},
        **extra,
    }


def group(label: str, node_ranks: Any, **extra: Any) -> dict:
    return {"label": label, "node_ranks": node_ranks, **extra}


def env_group(env_configs: Any, node_ranks: Any = "0-1", label: str = "g") -> dict:
    return {"label": label, "node_ranks": node_ranks, "env_configs": env_configs}


# --- the cluster schema (ClusterConfig.from_dict_cfg) ------------------------------
CLUSTER_ERRORS = [
    # num_nodes
    pytest.param(
        cluster(num_nodes="2"),
        "'num_nodes' must be a positive integer. But got 2 of type <class 'str'>",
        "cluster.num_nodes",
        id="num_nodes-quoted-string",
    ),
    pytest.param(
        cluster(num_nodes=0),
        "'num_nodes' must be a positive integer",
        "cluster.num_nodes",
        id="num_nodes-zero",
    ),
    pytest.param(
        cluster(num_nodes=-3),
        "'num_nodes' must be a positive integer",
        "cluster.num_nodes",
        id="num_nodes-negative",
    ),
    pytest.param(
        cluster(num_nodes=2.0),
        "'num_nodes' must be a positive integer. But got 2.0 of type <class 'float'>",
        "cluster.num_nodes",
        id="num_nodes-float",
    ),
    pytest.param(
        cluster(num_nodes=True),
        "'num_nodes' must be a positive integer. But got True of type <class 'bool'>",
        "cluster.num_nodes",
        id="num_nodes-bool",
    ),
    # required top-level keys
    pytest.param(
        {"num_nodes": 1},
        "Missing fields '['component_placement']' detected in cluster yaml config",
        "cluster",
        id="missing-component_placement",
    ),
    pytest.param(
        {"component_placement": {"actor": "all"}},
        "Missing fields '['num_nodes']' detected in cluster yaml config",
        "cluster",
        id="missing-num_nodes",
    ),
    pytest.param(
        {"num_nodes": 1, "component_placement": "actor: all"},
        "component_placement must be",
        CP,
        id="component_placement-not-a-mapping",
    ),
    pytest.param(
        cluster({"actor": {"node_group": "g"}}, node_groups=[group("g", 0)]),
        "placement must be specified in component_placement config",
        f"{CP}.actor.placement",
        id="node-group-form-without-placement",
    ),
    # node_groups[]
    pytest.param(
        cluster(num_nodes=2, node_groups={"label": "g", "node_ranks": 0}),
        "node_groups must be a list",
        "cluster.node_groups",
        id="node_groups-not-a-list",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=["g"]),
        "Each node yaml config must be a dictionary",
        "cluster.node_groups[0]",
        id="node-group-not-a-dict",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("node", 0)]),
        "Node group label 'node' is reserved by the scheduler",
        "cluster.node_groups[0].label",
        id="reserved-label-node",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("a", 0), group("cluster", 1)]),
        "Node group label 'cluster' is reserved by the scheduler",
        "cluster.node_groups[1].label",
        id="reserved-label-cluster",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", 0), group("g", 1)]),
        "Node group labels must be unique",
        "cluster.node_groups[1].label",
        id="duplicate-label",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", [0, 1])]),
        "Invalid rank format [0, 1] for node",
        "cluster.node_groups[0].node_ranks",
        id="node_ranks-yaml-list",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", "0-2")]),
        "Error parsing node_ranks 0-2 in node group 'g'. End rank 2 in rank config string \"0-2\" "
        "must be within the available node ranks [0, 1]",
        "cluster.node_groups[0].node_ranks",
        id="node_ranks-out-of-range",
    ),
    pytest.param(
        cluster(num_nodes=4, node_groups=[group("g", "3-1")]),
        "Start rank 3 must be less than or equal to end rank 1",
        "cluster.node_groups[0].node_ranks",
        id="node_ranks-backwards",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", "first")]),
        'Invalid rank format first for node, expected format: "a,b,c-d" or "all"',
        "cluster.node_groups[0].node_ranks",
        id="node_ranks-junk",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", 0, foo=1)]),
        "Unknown fields '{'foo'}' detected in cluster node_groups yaml config. Valid fields are",
        "cluster.node_groups[0].foo",
        id="node-group-unknown-field",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[{"label": "g"}]),
        "Missing fields '['node_ranks']' detected in cluster node_groups yaml config",
        "cluster.node_groups[0]",
        id="node-group-missing-node_ranks",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[{"node_ranks": 0}]),
        "Missing fields '['label']' detected in cluster node_groups yaml config",
        "cluster.node_groups[0]",
        id="node-group-missing-label",
    ),
    # hardware (robots)
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", 1, hardware={"type": "Foo", "configs": []})]),
        "Unsupported hardware type: Foo. Currently supported types only include: "
        "['DOSW1', 'DualFranka', 'Franka', 'GimArm', 'Turtle2']",
        "cluster.node_groups[0].hardware.type",
        id="unsupported-hardware-type",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[franka_group("g", 1, [0])]),
        "node_rank 0 in hardware config must be within node_ranks [1] in node group 'g'.",
        "cluster.node_groups[0].hardware.configs[0].node_rank",
        id="robot-node_rank-outside-group",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[
                group("g", 1, hardware={"type": "Franka", "configs": [{"node_rank": "1"}]})
            ],
        ),
        "'node_rank' in franka config must be an integer",
        "cluster.node_groups[0].hardware.configs[0].node_rank",
        id="robot-node_rank-quoted",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[
                group(
                    "g",
                    1,
                    hardware={"type": "Franka", "configs": [{"node_rank": 1}, {"node_rank": 1}]},
                )
            ],
        ),
        "Duplicate hardware configs found",
        "cluster.node_groups[0].hardware.configs[1]",
        id="robot-duplicate-entry",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[
                group(
                    "g", 1, hardware={"type": "Franka", "configs": [{"node_rank": 1, "bogus": 1}]}
                )
            ],
        ),
        "Unknown fields '{'bogus'}' detected",
        "cluster.node_groups[0].hardware.configs[0].bogus",
        id="robot-unknown-field",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[
                group("g", 1, hardware={"type": "Franka", "configs": [{"robot_ip": "192.0.2.1"}]})
            ],
        ),
        "Missing fields '['node_rank']' detected in cluster node_group hardware yaml config",
        "cluster.node_groups[0].hardware.configs[0]",
        id="robot-missing-node_rank",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[group("g", 1, hardware={"configs": [{"node_rank": 1}]})]),
        "Missing fields '['type']' detected in cluster node_group hardware yaml config",
        "cluster.node_groups[0].hardware",
        id="hardware-missing-type",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[group("g", 1, hardware={"type": "Franka", "configs": [], "count": 2})],
        ),
        "Unknown fields '{'count'}' detected in cluster node_group hardware yaml config",
        "cluster.node_groups[0].hardware.count",
        id="hardware-unknown-field",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[franka_group("g", 1, [1]), franka_group("h", 1, [1])]),
        "Cannot have multiple hardware configs of the same type 'Franka' for the same node_rank 1 "
        "in different node groups 'g' and 'h'",
        "cluster.node_groups[1].hardware.configs[0]",
        id="robot-defined-in-two-groups",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[franka_group("g", 1, [1], hardware_type="Franka")]),
        "hardware_type should not be specified.",
        "cluster.node_groups[0].hardware_type",
        id="hardware_type-with-hardware",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[franka_group("g", 1, [1], ignore_hardware=True)]),
        "Cannot specify hardware when ignore_hardware is set to True.",
        "cluster.node_groups[0].ignore_hardware",
        id="hardware-with-ignore_hardware",
    ),
    # env_configs[]
    pytest.param(
        cluster(num_nodes=2, node_groups=[env_group({"node_ranks": 0})]),
        "env_configs must be a list of dicts",
        "cluster.node_groups[0].env_configs",
        id="env_configs-not-a-list",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[env_group(["OMP_NUM_THREADS=32"])]),
        "Each node env_configs yaml config must be a dictionary",
        "cluster.node_groups[0].env_configs[0]",
        id="env_config-not-a-dict",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[env_group([{"node_ranks": 0, "env_vars": {"OMP_NUM_THREADS": 32}}])],
        ),
        "env_vars must be a list of dicts",
        "cluster.node_groups[0].env_configs[0].env_vars",
        id="env_vars-plain-map",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[env_group([{"node_ranks": 0, "env_vars": [{"A": 1, "B": 2}]}])],
        ),
        "Each node env_var dict must contain exactly one key-value pair",
        "cluster.node_groups[0].env_configs[0].env_vars[0]",
        id="env_var-item-two-keys",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[env_group([{"node_ranks": 0, "env_vars": ["A=1"]}])]),
        "Each node env_var must be a dict",
        "cluster.node_groups[0].env_configs[0].env_vars[0]",
        id="env_var-item-not-a-dict",
    ),
    pytest.param(
        cluster(num_nodes=3, node_groups=[env_group([{"node_ranks": "0-2"}], node_ranks="0,2")]),
        "node_ranks [0, 1, 2] in env_config must be a subset of node_ranks [0, 2] in node group 'g'",
        "cluster.node_groups[0].env_configs[0].node_ranks",
        id="env_config-ranks-not-subset",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[env_group([{"node_ranks": 0}], node_ranks=1)]),
        "Error parsing node_ranks 0 in env_config of node group 'g'",
        "cluster.node_groups[0].env_configs[0].node_ranks",
        id="env_config-ranks-outside-group",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[env_group([{"node_ranks": 0}, {"node_ranks": "0-1"}])]),
        "Node rank 0 in env_config is duplicated in node group 'g'.",
        "cluster.node_groups[0].env_configs[1].node_ranks",
        id="env_config-node-duplicated",
    ),
    pytest.param(
        cluster(
            num_nodes=2,
            node_groups=[
                env_group(
                    [
                        {"node_ranks": 0, "env_vars": [{"A": 1}]},
                        {"node_ranks": 1, "env_vars": [{"A": 2}]},
                    ]
                )
            ],
        ),
        "Environment variable 'A' in env_config is duplicated in node group 'g'",
        "cluster.node_groups[0].env_configs[1].env_vars",
        id="env_var-duplicated-in-group",
    ),
    pytest.param(
        cluster(
            num_nodes=2, node_groups=[env_group([{"node_ranks": 0, "python": "/usr/bin/python"}])]
        ),
        "Unknown fields '{'python'}' detected in cluster node_group env_configs yaml config",
        "cluster.node_groups[0].env_configs[0].python",
        id="env_config-unknown-field",
    ),
    pytest.param(
        cluster(num_nodes=2, node_groups=[env_group([{"env_vars": [{"A": 1}]}])]),
        "Missing fields '['node_ranks']' detected in cluster node_group env_configs yaml config",
        "cluster.node_groups[0].env_configs[0]",
        id="env_config-missing-node_ranks",
    ),
    # profiling
    pytest.param(
        cluster(profiling={"enabled": True}),
        "cluster.profiling.backend must be specified",
        "cluster.profiling.backend",
        id="profiling-without-backend",
    ),
    pytest.param(
        cluster(profiling={"backend": "perf"}),
        "Unknown profiling backend: perf",
        "cluster.profiling.backend",
        id="profiling-unknown-backend",
    ),
]


@pytest.mark.parametrize(("mapping", "phrase", "path"), CLUSTER_ERRORS)
def test_cluster_schema_errors(mapping: dict, phrase: str, path: str) -> None:
    with pytest.raises(ClusterConfigError) as info:
        parse_cluster(mapping)
    error = info.value
    assert phrase in error.message
    assert error.path == path
    assert str(error) == f"{path}: {error.message}"
    finding = error.to_finding()
    assert (finding.rule_id, finding.path, finding.message) == ("CFG-CLUSTER", path, error.message)


def test_missing_cluster_section_points_at_cluster() -> None:
    with pytest.raises(ClusterConfigError) as info:
        parse_cluster(None)
    assert info.value.path == "cluster"
    assert "num_nodes" in info.value.message


# --- Same rejections when the YAML is read the way RLinf reads it (OmegaConf) ----------------------
YAML_CLUSTER_ERRORS = [
    pytest.param(
        'cluster:\n  num_nodes: "2"\n  component_placement:\n    actor: all\n',
        "'num_nodes' must be a positive integer. But got 2 of type <class 'str'>",
        "cluster.num_nodes",
        id="yaml-quoted-num_nodes",
    ),
    pytest.param(
        "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\n"
        "  node_groups:\n    - label: g\n      node_ranks: [0, 1]\n",
        "Invalid rank format [0, 1] for node",
        "cluster.node_groups[0].node_ranks",
        id="yaml-list-node_ranks",
    ),
    pytest.param(
        "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\n"
        "  node_groups:\n    - label: g\n      node_ranks: all\n      env_configs:\n"
        "        - node_ranks: 0\n          env_vars:\n            OMP_NUM_THREADS: 32\n",
        "Perhaps missing '-' in yaml before each environment variable?",
        "cluster.node_groups[0].env_configs[0].env_vars",
        id="yaml-env_vars-missing-dash",
    ),
]


@pytest.mark.parametrize(("text", "phrase", "path"), YAML_CLUSTER_ERRORS)
def test_cluster_errors_from_yaml_text(text: str, phrase: str, path: str) -> None:
    config = load_text(text)
    with pytest.raises(ClusterConfigError) as info:
        parse_cluster(config.cluster_section)
    assert phrase in info.value.message
    assert info.value.path == path


# --- Startup findings: accepted in the YAML, rejected on the real machines ------------------------
def test_robot_ip_placeholder_is_a_finding_not_an_error() -> None:
    mapping = cluster(
        {"env": {"node_group": "franka", "placement": "0"}},
        num_nodes=2,
        node_groups=[
            group(
                "franka",
                1,
                hardware={"type": "Franka", "configs": [{"node_rank": 1, "robot_ip": "ROBOT_IP"}]},
            )
        ],
    )
    spec = parse_cluster(mapping)
    [finding] = spec.findings
    assert finding.rule_id == "CFG-ROBOT-IP"
    assert finding.path == "cluster.node_groups[0].hardware.configs[0].robot_ip"
    assert "'robot_ip' in franka config must be a valid IP address" in finding.message
    # The placement itself is fine: the robot still counts as one resource.
    assert expand_placement(spec, 8).ok


def test_dual_franka_ip_placeholders_are_findings() -> None:
    configs = [{"node_rank": 1, "left_robot_ip": "LEFT_ROBOT_IP", "right_robot_ip": "10.0.0.2"}]
    spec = parse_cluster(
        cluster(
            num_nodes=2,
            node_groups=[group("arms", 1, hardware={"type": "DualFranka", "configs": configs})],
        )
    )
    assert [(f.rule_id, f.path) for f in spec.findings] == [
        ("CFG-ROBOT-IP", "cluster.node_groups[0].hardware.configs[0].left_robot_ip")
    ]


def test_interpreter_placeholder_is_a_finding_not_an_error() -> None:
    spec = parse_cluster(
        cluster(
            num_nodes=2,
            node_groups=[
                env_group([{"node_ranks": "all", "python_interpreter_path": "/path/to/python"}])
            ],
        )
    )
    [finding] = spec.findings
    assert finding.rule_id == "CFG-INTERPRETER-PLACEHOLDER"
    assert finding.path == "cluster.node_groups[0].env_configs[0].python_interpreter_path"
    assert "[0, 1]" in finding.message  # `all` means all of the group's nodes


def test_real_interpreter_and_ip_give_no_findings() -> None:
    spec = parse_cluster(
        cluster(
            num_nodes=2,
            node_groups=[
                env_group([{"node_ranks": 0, "python_interpreter_path": "/opt/venv/bin/python"}]),
                franka_group("franka", 1, [1]),
            ],
        )
    )
    assert spec.findings == ()


# --- placement grammar and strategies (generic ComponentPlacement) --------------
TWO_GROUPS = [group("train", 0), group("infer", 1)]
GPU_AND_CPU = [group("gpu", 0), group("cpu", 1)]
ROBOT_AND_GPU_ON_ONE_NODE = [franka_group("arm", 0, [0]), group("gpu", 0)]

PLACEMENT_ERRORS = [
    # step 1
    pytest.param(
        {"actor": "0:1:2"},
        8,
        1,
        None,
        "Invalid rank map string: 0:1:2 in placement config: 0:1:2. Expected format: resource_ranks:process_ranks",
        f"{CP}.actor",
        id="three-colon-pieces",
    ),
    # step 2
    pytest.param(
        {"actor": "gpu0"},
        8,
        1,
        None,
        'Invalid rank format gpu0 for Accelerator, expected format: "a,b,c-d" or "all"',
        f"{CP}.actor",
        id="junk-resource-ranks",
    ),
    pytest.param(
        {"actor": "-1"},
        8,
        1,
        None,
        "Invalid rank format -1 for Accelerator",
        f"{CP}.actor",
        id="negative-rank",
    ),
    pytest.param(
        {"actor": [0, 1]},
        8,
        1,
        None,
        "Invalid rank format [0 for Accelerator",
        f"{CP}.actor",
        id="yaml-list-placement",
    ),
    pytest.param(
        {"actor": "3-1"},
        8,
        1,
        None,
        "Error parsing resource ranks in placement string: 3-1 of placement config: 3-1. "
        "Start rank 3 must be less than or equal to end rank 1",
        f"{CP}.actor",
        id="backwards-range",
    ),
    pytest.param(
        {"actor": "0-8"},
        8,
        1,
        None,
        'End rank 8 in rank config string "0-8" must be within the available Accelerator ranks',
        f"{CP}.actor",
        id="end-rank-beyond-gpus",
    ),
    pytest.param(
        {"actor": "9"},
        8,
        1,
        None,
        'Start rank 9 in rank config string "9" must be within the available Accelerator ranks',
        f"{CP}.actor",
        id="start-rank-beyond-gpus",
    ),
    pytest.param(
        {"reward": 6},
        4,
        1,
        None,
        'Start rank 6 in rank config string "6" must be within the available Accelerator ranks [0, 1, 2, 3]',
        f"{CP}.reward",
        id="yaml-int-placement-out-of-range",
    ),
    pytest.param(
        {"actor": "0-1"},
        0,
        1,
        None,
        "must be within the available Node ranks [0]",
        f"{CP}.actor",
        id="gpu-less-cluster-counts-nodes",
    ),
    pytest.param(
        {"env": {"node_group": "franka", "placement": "0-2"}},
        8,
        3,
        [franka_group("franka", "1-2", [1, 2])],
        "must be within the available Franka ranks [0, 1]",
        f"{CP}.env",
        id="robot-rank-out-of-range",
    ),
    # step 3
    pytest.param(
        {"actor": "0-3,2-5"},
        8,
        1,
        None,
        "Duplicate resource ranks found in placement string: 0-3,2-5. Resource ranks must be unique.",
        f"{CP}.actor",
        id="duplicate-resource-ranks",
    ),
    pytest.param(
        {"actor": "4-5,0-1"},
        8,
        1,
        None,
        "Resource ranks must be in ascending order in placement string: 4-5,0-1.",
        f"{CP}.actor",
        id="descending-resource-ranks",
    ),
    pytest.param(
        {"actor": ":0"},
        8,
        1,
        None,
        "No valid resource ranks found in placement string: :0.",
        f"{CP}.actor",
        id="empty-resource-side",
    ),
    pytest.param(
        {"env": {"node_group": "franka", "placement": "all"}},
        8,
        2,
        [group("franka", 1, hardware={"type": "Franka", "configs": []})],
        "No valid resource ranks found in placement string: all.",
        f"{CP}.env",
        id="all-over-zero-resources",
    ),
    # step 4
    pytest.param(
        {"actor": "0-3:all"},
        8,
        1,
        None,
        "The latter part of a ':' separated placement string (i.e., the process ranks) cannot be 'all'",
        f"{CP}.actor",
        id="process-ranks-all",
    ),
    pytest.param(
        {"actor": "0-3:ALL"},
        8,
        1,
        None,
        "ALL",
        f"{CP}.actor",
        id="process-ranks-ALL-fails-in-parse_rank_config",
    ),
    pytest.param(
        {"actor": "0:"},
        8,
        1,
        None,
        "No valid process ranks found in placement string: 0:.",
        f"{CP}.actor",
        id="empty-process-side",
    ),
    # step 5
    pytest.param(
        {"actor": "0-1:0,2-3:2"},
        8,
        1,
        None,
        "Process ranks must be in ascending order and continuous in placement string: 0-1:0,2-3:2.",
        f"{CP}.actor",
        id="process-ranks-gap",
    ),
    pytest.param(
        {"actor": "0-1:0-1,2-3:1-2"},
        8,
        1,
        None,
        "Duplicate process ranks found in placement string: 0-1:0-1,2-3:1-2. Process ranks must be unique.",
        f"{CP}.actor",
        id="process-ranks-overlap",
    ),
    # step 6
    pytest.param(
        {"actor": "0-2:0-1"},
        8,
        1,
        None,
        "The number of process ranks 2 must be divisible by the number of resource ranks 3 in placement "
        "string: 0-2:0-1 or the number of resource ranks must be divisible by the number of process ranks.",
        f"{CP}.actor",
        id="multiple-of-rule",
    ),
    # component keys and node_group
    pytest.param(
        {"actor": "0-1", "actor,rollout": "2-3"},
        8,
        1,
        None,
        "Component actor has multiple placements defined.",
        f"{CP}.actor,rollout",
        id="component-placed-twice",
    ),
    pytest.param(
        {"actor": "0-1", " rollout , actor ": "2-3"},
        8,
        1,
        None,
        "Component actor has multiple placements defined.",
        f"{CP}. rollout , actor ",
        id="component-placed-twice-whitespace",
    ),
    pytest.param(
        {"actor": {"node_group": "nope", "placement": "0"}},
        8,
        2,
        [group("a800", 0)],
        "Node group not found for components ['actor'] with label \"nope\".",
        f"{CP}.actor.node_group",
        id="unknown-node-group",
    ),
    pytest.param(
        {"actor": {"node_group": "A800", "placement": "0"}},
        8,
        2,
        [group("a800", 0)],
        "Node group not found for components ['actor'] with label \"A800\".",
        f"{CP}.actor.node_group",
        id="node-group-labels-are-case-sensitive",
    ),
    pytest.param(
        {"actor": {"node_group": "a800,nope", "placement": "0"}},
        8,
        2,
        [group("a800", 0)],
        'with label "nope"',
        f"{CP}.actor.node_group",
        id="unknown-second-node-group",
    ),
    # several groups
    pytest.param(
        {"actor": {"node_group": "infer,train", "placement": "0-7"}},
        4,
        2,
        TWO_GROUPS,
        "Placements must be sorted by node_id.",
        f"{CP}.actor",
        id="groups-listed-against-node-order",
    ),
    pytest.param(
        {"actor": {"node_group": "gpu,cpu", "placement": "2"}},
        "0:8,1:0",
        2,
        GPU_AND_CPU,
        "Node rank 2 is out of range for selected node groups ['gpu', 'cpu'] (total nodes 2).",
        f"{CP}.actor",
        id="mixed-groups-fall-back-to-nodes",
    ),
    # strategies
    pytest.param(
        {"actor": {"node_group": "node", "placement": "0-1:0"}},
        8,
        2,
        None,
        "Process rank 0 is allocated to node ranks [0, 1], which is impossible as one process cannot "
        "run across multiple nodes.",
        f"{CP}.actor",
        id="node-placement-process-on-two-nodes",
    ),
    pytest.param(
        {"actor": "0-5:0-1"},
        4,
        2,
        None,
        "All hardware ranks [3, 4, 5] for a process must be on the same node. Instead, the hardware "
        "exist across node ranks {0, 1}",
        f"{CP}.actor",
        id="process-across-nodes",
    ),
    pytest.param(
        {"actor": ","},
        8,
        1,
        None,
        "The hardware_ranks_list must not be empty.",
        f"{CP}.actor",
        id="empty-placement",
    ),
    pytest.param(
        {"actor": {"node_group": "arm,gpu", "placement": "0-1:0"}},
        8,
        1,
        ROBOT_AND_GPU_ON_ONE_NODE,
        "All hardware ranks [0, 1] for a process must use the same hardware type, but got",
        f"{CP}.actor",
        id="process-mixes-hardware-types",
    ),
    pytest.param(
        {"agent": {"node_group": "a,b", "placement": "0-1"}},
        8,
        2,
        [group("a", "0-1", ignore_hardware=True), group("b", 1, ignore_hardware=True)],
        "Node groups ['a', 'b'] have overlapping nodes {1}.",
        f"{CP}.agent",
        id="node-placement-overlapping-groups",
    ),
]


@pytest.mark.parametrize(
    ("placement", "gpus", "num_nodes", "node_groups", "phrase", "path"), PLACEMENT_ERRORS
)
def test_placement_errors(
    placement: dict, gpus: Any, num_nodes: int, node_groups: list | None, phrase: str, path: str
) -> None:
    spec = parse_cluster(cluster(placement, num_nodes, node_groups))
    exp = expand_placement(spec, gpus)
    assert isinstance(exp.error, PlacementError)
    assert phrase in exp.error.message
    assert exp.error.path == path
    assert exp.error.fix
    assert not exp.ok and exp.components == {} and exp.per_node == {}
    assert exp.to_json()["error_path"] == path


# --- ModelParallelComponentPlacement (reasoning) ----------------------------------
TP = "actor.model.tensor_model_parallel_size"
ROLLOUT_TP = "rollout.tensor_parallel_size"

REASONING_ERRORS = [
    pytest.param(
        {"actor,rollout": "all"},
        8,
        1,
        {},
        "Reward GPUs must be specified in the component_placement config.",
        id="no-reward",
    ),
    pytest.param(
        {"rollout,reward": "all"},
        8,
        1,
        {},
        "Actor GPUs must be specified in the component_placement config.",
        id="no-actor",
    ),
    pytest.param(
        {"actor,reward": "all"},
        8,
        1,
        {},
        "Rollout GPUs must be specified in the component_placement config.",
        id="no-rollout",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-1,3-4"},
        8,
        1,
        {},
        "Actor GPUs [0, 1, 3, 4] must be continuous.",
        id="actor-not-continuous",
    ),
    pytest.param(
        {"actor": "0-3", "rollout": "4-5,7", "reward": "0-3"},
        8,
        1,
        {},
        "Rollout GPUs [4, 5, 7] must be continuous.",
        id="rollout-not-continuous",
    ),
    pytest.param(
        {"actor,reward": "0-3", "rollout": "2-5"},
        8,
        1,
        {},
        "The specified placement does not match either the collocated mode (all the components use the "
        "same GPUs) or the disaggregated mode",
        id="neither-collocated-nor-disaggregated",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-3", "inference": "4-7"},
        8,
        1,
        {},
        "Inference GPUs must not be specified in collocated mode.",
        id="inference-in-collocated-mode",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-3", "critic_inference": "4-7"},
        8,
        1,
        {},
        "Critic inference GPUs must not be specified in collocated mode.",
        id="critic-inference-in-collocated-mode",
    ),
    pytest.param(
        {"actor": "0-1", "rollout": "2-3", "reward": "0-1"},
        8,
        1,
        {"cluster.auto_scheduler": True},
        "AUTO mode requires components to be placed in the order of actor -> rollout -> inference.",
        id="auto-mode-must-end-on-last-gpu",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-3"},
        4,
        1,
        {"cluster.auto_scheduler": True},
        "AUTO mode is a more advanced version of disaggregated mode",
        id="auto-mode-needs-disaggregated",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-7"},
        8,
        1,
        {TP: 4, ROLLOUT_TP: 3},
        "Actor TP size (4) must be divisible by Rollout TP size (3)",
        id="actor-tp-not-divisible-by-rollout-tp",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-7"},
        8,
        1,
        {TP: 16},
        "Actor TP size 16 must be less than or equal to Actor world size 8.",
        id="actor-tp-larger-than-world",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-3"},
        8,
        1,
        {ROLLOUT_TP: 8},
        "Rollout TP size 8 must be less than or equal to Rollout world size 4.",
        id="rollout-tp-larger-than-world",
    ),
    pytest.param(
        {"actor,rollout,reward": "0-2"},
        8,
        1,
        {ROLLOUT_TP: 2},
        "The number of hardware 3 must be divisible by num_hardware_per_process * stride (2).",
        id="packed-range-not-divisible",
    ),
    pytest.param(
        {"actor,rollout,reward": "all"},
        5,
        16,
        {TP: 4, ROLLOUT_TP: 2},
        "Trouble finding placement for Rank 2 which starts at hardware 4 in node 0",
        id="rollout-process-would-span-nodes",
    ),
    pytest.param(
        {"actor": "0-1", "rollout": "2-5", "reward": "0-1", "inference": "6-7"},
        8,
        1,
        {},
        "algorithm.recompute_logprobs has been set to false, which disables inference. "
        "So inference GPUs [6, 7] must not be specified.",
        id="inference-without-recompute-logprobs",
    ),
    pytest.param(
        {"actor": "0-1", "rollout": "2-5", "reward": "0-1", "inference": "6-7"},
        8,
        1,
        {
            "algorithm.recompute_logprobs": True,
            "inference": {},
            "inference.model.tensor_model_parallel_size": 4,
        },
        "Inference TP size 4 must be less than or equal to Inference world size 2.",
        id="inference-tp-larger-than-world",
    ),
]


@pytest.mark.parametrize(("placement", "gpus", "num_nodes", "values", "phrase"), REASONING_ERRORS)
def test_reasoning_placement_errors(
    placement: dict, gpus: int, num_nodes: int, values: dict, phrase: str
) -> None:
    exp = expand(placement, gpus, num_nodes, task_type="reasoning", lookup=lookup(values))
    assert isinstance(exp.error, PlacementError)
    assert phrase in exp.error.message
    assert exp.error.path == CP
    assert exp.placement_mode is None


def test_reasoning_runs_the_generic_parser_first() -> None:
    """ModelParallel first runs the generic parser, so its errors and paths come first."""
    exp = expand({"actor,rollout,reward": "0-9"}, 8, task_type="reasoning")
    assert "must be within the available Accelerator ranks" in exp.error.message
    assert exp.error.path == f"{CP}.actor,rollout,reward"


def test_reward_only_checked_for_presence_in_disaggregated_mode() -> None:
    """reward is not part of the disjointness check; reward 0-15 over rollout is accepted."""
    exp = expand(
        {"rollout": "0-3", "actor": "4-7", "reward": "0-3"},
        8,
        task_type="reasoning",
        lookup=lookup({ROLLOUT_TP: 2}),
    )
    assert exp.ok, exp.error
    assert exp.placement_mode == "DISAGGREGATED"
    assert [list(p.local_hardware_ranks) for p in exp.components["rollout"].processes] == [
        [0, 1],
        [2, 3],
    ]


# --- the YAML 1.1 sexagesimal trap --------------------------------------------------------
def test_unquoted_h_m_placement_becomes_resource_rank_65() -> None:
    text = "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 1:5\n    rollout: 0:1\n"
    config = load_text(text)
    assert config.resolved["cluster"]["component_placement"] == {"actor": 65, "rollout": "0:1"}

    [finding] = [f for f in config.findings if f.rule_id == "CFG-YAML-SEXAGESIMAL"]
    assert finding.path == "cluster.component_placement.actor"
    assert "65" in finding.message and "1:5" in finding.message
    assert finding.severity == "error"
    assert sexagesimal_findings(text) == [finding]

    exp = expand_placement(parse_cluster(config.cluster_section), 8)
    assert isinstance(exp.error, PlacementError)
    assert exp.error.path == f"{CP}.actor"
    assert "65" in exp.error.message
    assert "must be within the available Accelerator ranks" in exp.error.message


@pytest.mark.parametrize(
    ("value", "number"), [("1:5", 65), ("1:0", 60), ("10:30", 630)], ids=["1:5", "1:0", "10:30"]
)
def test_sexagesimal_values_from_the_spec(value: str, number: int) -> None:
    text = f"cluster:\n  component_placement:\n    actor: {value}\n"
    [finding] = sexagesimal_findings(text)
    assert finding.path == "cluster.component_placement.actor"
    assert f"integer {number}" in finding.message


@pytest.mark.parametrize("value", ["0:1", "1:0-1", '"1:5"', "0:0-4, 1:5-9"])
def test_values_that_stay_strings_give_no_finding(value: str) -> None:
    assert sexagesimal_findings(f"cluster:\n  component_placement:\n    actor: {value}\n") == []


# --- worked examples -------------------------------------------------------------------------
def test_example1_short_form_hybrid_on_one_8_gpu_node() -> None:
    exp = expand({"actor": "0-7", "env": "0-3", "rollout": "4-7"}, 8)
    assert exp.placement_mode == "HYBRID"
    assert rows(exp, "actor") == [(i, 0, [i], [i], i, 8) for i in range(8)]
    assert rows(exp, "env") == [(i, 0, [i], [i], i, 4) for i in range(4)]
    assert rows(exp, "rollout") == [(i, 0, [4 + i], [4 + i], i, 4) for i in range(4)]
    assert list(exp.per_node) == [0]
    assert exp.per_node[0].min_accelerators_needed == 8
    assert exp.per_node[0].processes == 16
    # Needs one pod with at least 8 GPUs.
    assert gpu_requirements(
        parse_cluster(cluster({"actor": "0-7", "env": "0-3", "rollout": "4-7"}))
    ) == (
        8,
        list(range(1, 8)),
    )


def test_example2_all_follows_the_discovered_gpus() -> None:
    spec = parse_cluster(cluster({"actor": "all"}, num_nodes=2))
    exp = expand_placement(spec, 8)
    assert rows(exp, "actor") == [(r, r // 8, [r % 8], [r % 8], r % 8, 8) for r in range(16)]

    exp = expand_placement(spec, "0:8,1:4")
    assert rows(exp, "actor")[8:] == [(8 + i, 1, [i], [i], i, 4) for i in range(4)]
    assert len(rows(exp, "actor")) == 12
    assert gpu_requirements(spec) == (1, [])


@pytest.mark.parametrize(("gpus", "actors"), [(4, 4), (8, 8)])
def test_example2_behavior_actor_all_world_size(gpus: int, actors: int) -> None:
    exp = expand({"rollout": "0-1", "env": "2-3", "actor": "all"}, gpus)
    assert exp.components["actor"].world_size == actors


def test_example3_processes_sharing_a_gpu() -> None:
    placement = {"env": "0:0-4, 1:5-9", "rollout": "0:0-1"}
    exp = expand(placement, 8)
    assert rows(exp, "env") == [(i, 0, [i // 5], [i // 5], i, 10) for i in range(10)]
    assert rows(exp, "rollout") == [(0, 0, [0], [0], 0, 2), (1, 0, [0], [0], 1, 2)]
    assert gpu_requirements(parse_cluster(cluster(placement)))[0] == 2


def test_example4_one_process_on_several_gpus() -> None:
    exp = expand({"reward_server": "0-1:0"}, 8)
    assert rows(exp, "reward_server") == [(0, 0, [0, 1], [0, 1], 0, 1)]
    assert exp.components["reward_server"].processes[0].local_accelerator_rank == 0

    exp = expand({"env": "4-7:0-1"}, 4, num_nodes=2)
    assert rows(exp, "env") == [(0, 1, [0, 1], [0, 1], 0, 2), (1, 1, [2, 3], [2, 3], 1, 2)]

    exp = expand({"env": "0-5:0-1"}, 4, num_nodes=2)
    assert "must be on the same node" in exp.error.message


def test_example5_reserved_node_group_and_docs_cluster() -> None:
    node_groups = [
        group("a800", "0-7"),
        group("4090", "8-15"),
        franka_group("franka", "16-17", [16, 17]),
    ]
    placement = {
        "actor": {"node_group": "a800", "placement": "0-63"},
        "rollout": {"node_group": "4090", "placement": "0-63"},
        "env": {"node_group": "franka", "placement": "0-1"},
        "agent": {"node_group": "node", "placement": "0-1:0-199,2-3:200-399"},
    }
    exp = expand(placement, 8, num_nodes=18, node_groups=node_groups)
    all_gpus = list(range(8))
    assert rows(exp, "agent") == [(r, r // 100, [], all_gpus, r % 100, 100) for r in range(400)]
    assert {p.node_group for p in exp.components["agent"].processes} == {"node"}
    assert {p.local_accelerator_rank for p in exp.components["agent"].processes} == {0}
    assert rows(exp, "actor") == [(r, r // 8, [r % 8], [r % 8], r % 8, 8) for r in range(64)]
    assert rows(exp, "rollout") == [(r, 8 + r // 8, [r % 8], [r % 8], r % 8, 8) for r in range(64)]
    assert rows(exp, "env") == [(0, 16, [0], all_gpus, 0, 1), (1, 17, [0], all_gpus, 0, 1)]
    assert sorted(exp.per_node) == list(range(18))


@pytest.mark.parametrize(
    ("gpus", "robot_pc_gpus"),
    [(8, list(range(8))), ("0:8,1:0,2:0", [])],
    ids=["robot-pc-8-gpus", "robot-pc-no-gpu"],
)
def test_example6_robots(gpus: Any, robot_pc_gpus: list[int]) -> None:
    node_groups = [
        group("4090", "0-0"),
        group(
            "franka",
            "1-2",
            hardware={
                "type": "Franka",
                "configs": [
                    {"node_rank": 1, "robot_ip": "192.0.2.1"},
                    {"node_rank": 2, "robot_ip": "192.0.2.2"},
                ],
            },
        ),
    ]
    placement = {
        "actor": {"node_group": "4090", "placement": 0},
        "env": {"node_group": "franka", "placement": "0-1"},
        "rollout": {"node_group": "4090", "placement": "0:0-1"},
    }
    exp = expand(placement, gpus, num_nodes=3, node_groups=node_groups)
    assert rows(exp, "actor") == [(0, 0, [0], [0], 0, 1)]
    assert rows(exp, "env") == [(0, 1, [0], robot_pc_gpus, 0, 1), (1, 2, [0], robot_pc_gpus, 0, 1)]
    assert [p.hardware_type for p in exp.components["env"].processes] == ["Franka", "Franka"]
    assert rows(exp, "rollout") == [(0, 0, [0], [0], 0, 2), (1, 0, [0], [0], 1, 2)]
    assert sorted(exp.per_node) == [0, 1, 2]
    assert exp.per_node[1].other_hardware_used == ["Franka:0"]
    assert exp.per_node[1].min_accelerators_needed == 0
    assert exp.per_node[0].components == ["actor", "rollout"]


def test_example7_mixed_parts() -> None:
    exp = expand({"rollout": "0-1:0-3,3-5,7:7-8"}, 4, num_nodes=2)
    assert rows(exp, "rollout") == [
        (0, 0, [0], [0], 0, 5),
        (1, 0, [0], [0], 1, 5),
        (2, 0, [1], [1], 2, 5),
        (3, 0, [1], [1], 3, 5),
        (4, 0, [3], [3], 4, 5),
        (5, 1, [0], [0], 0, 4),
        (6, 1, [1], [1], 1, 4),
        (7, 1, [3], [3], 2, 4),
        (8, 1, [3], [3], 3, 4),
    ]
    # Global GPUs 2 and 6 (local GPU 2 on each node) are unused by this component.
    assert exp.per_node[0].idle_accelerators == [2]
    assert exp.per_node[1].idle_accelerators == [2]


def test_example8_several_node_groups() -> None:
    exp = expand(
        {"inference,critic": {"node_group": "train,infer", "placement": "2-5"}},
        4,
        num_nodes=2,
        node_groups=TWO_GROUPS,
    )
    expected = [
        (0, 0, [2], [2], 0, 2),
        (1, 0, [3], [3], 1, 2),
        (2, 1, [0], [0], 0, 2),
        (3, 1, [1], [1], 1, 2),
    ]
    assert rows(exp, "inference") == expected
    assert rows(exp, "critic") == expected
    assert [p.node_group for p in exp.components["critic"].processes] == [
        "train",
        "train",
        "infer",
        "infer",
    ]


# --- Documented quirks ----------------------------------------------------------------------------
def test_quirk_comma_splits_before_colon() -> None:
    """`0-3:0-1,4-5` is two parts: two 2-GPU processes, then processes 2 and 3 on GPUs 4 and 5."""
    exp = expand({"actor": "0-3:0-1,4-5"}, 8)
    assert rows(exp, "actor") == [
        (0, 0, [0, 1], [0, 1], 0, 4),
        (1, 0, [2, 3], [2, 3], 1, 4),
        (2, 0, [4], [4], 2, 4),
        (3, 0, [5], [5], 3, 4),
    ]


def test_quirk_first_process_ranks_need_not_start_at_zero() -> None:
    exp = expand({"actor": "0-1:2-3"}, 8)
    assert exp.components["actor"].world_size == 2
    assert rows(exp, "actor") == [(0, 0, [0], [0], 0, 2), (1, 0, [1], [1], 1, 2)]


def test_quirk_all_is_case_insensitive_on_the_resource_side() -> None:
    assert expand({"actor": "ALL"}, 4).components["actor"].world_size == 4


def test_quirk_8_then_4_gpus_with_all() -> None:
    exp = expand({"actor": "all"}, "0:8,1:4", num_nodes=2)
    actor = exp.components["actor"].processes
    assert len(actor) == 12
    assert [p.rank for p in actor if p.node_rank == 1] == [8, 9, 10, 11]
    assert exp.per_node[1].accelerators_used == [0, 1, 2, 3]
    assert exp.per_node[1].processes == 4


def test_quirk_gpu_rank_14_is_node_1_local_6() -> None:
    exp = expand({"actor": "14"}, 8, num_nodes=2)
    assert rows(exp, "actor") == [(0, 1, [6], [6], 0, 1)]


def test_quirk_gpu_less_cluster_counts_nodes() -> None:
    exp = expand({"actor": "all"}, 0, num_nodes=2)
    assert exp.components["actor"].strategy == "NodePlacementStrategy"
    assert rows(exp, "actor") == [(0, 0, [], [], 0, 1), (1, 1, [], [], 0, 1)]
    assert [p.local_accelerator_rank for p in exp.components["actor"].processes] == [-1, -1]


def test_quirk_packed_off_by_one_gives_local_gpu_8_on_an_8_gpu_node() -> None:
    """rollout 3-10 with TP 2 on 8-GPU nodes has a process on local GPUs [7, 8] of node 0."""
    exp = expand(
        {"actor,rollout,reward": "3-10"},
        8,
        num_nodes=2,
        task_type="reasoning",
        lookup=lookup({ROLLOUT_TP: 2}),
    )
    assert exp.ok, exp.error
    assert exp.placement_mode == "COLLOCATED"
    rollout = exp.components["rollout"].processes
    assert [(p.node_rank, list(p.local_hardware_ranks)) for p in rollout[:3]] == [
        (0, [3, 4]),
        (0, [5, 6]),
        (0, [7, 8]),
    ]
    assert rollout[2].visible_accelerators == (7, 8)  # local GPU 8 does not exist
    assert exp.components["rollout"].strategy == "PackedPlacementStrategy"
    # The actor stays one process per GPU, 5 on node 0 and 3 on node 1.
    assert [
        (p.node_rank, list(p.local_hardware_ranks)) for p in exp.components["actor"].processes
    ] == [
        (0, [3]),
        (0, [4]),
        (0, [5]),
        (0, [6]),
        (0, [7]),
        (1, [0]),
        (1, [1]),
        (1, [2]),
    ]


def test_collocated_rollout_stride_example() -> None:
    """8 GPUs, actor TP 4, rollout TP 2 -> rollout on [0,2], [1,3], [4,6], [5,7]."""
    exp = expand(
        {"actor,rollout,reward": "0-7"},
        8,
        task_type="reasoning",
        lookup=lookup({TP: 4, ROLLOUT_TP: 2}),
    )
    assert exp.placement_mode == "COLLOCATED"
    assert rows(exp, "rollout") == [
        (0, 0, [0, 2], [0, 2], 0, 4),
        (1, 0, [1, 3], [1, 3], 1, 4),
        (2, 0, [4, 6], [4, 6], 2, 4),
        (3, 0, [5, 7], [5, 7], 3, 4),
    ]
    assert exp.components["actor"].world_size == 8
    assert exp.components["reward"].world_size == 8


def test_rollout_0_7_with_tp_2_gives_4_processes_not_8() -> None:
    exp = expand(
        {"actor,rollout,reward": "0-7"}, 8, task_type="reasoning", lookup=lookup({ROLLOUT_TP: 2})
    )
    assert exp.components["rollout"].world_size == 4
    assert expand({"actor,rollout,reward": "0-7"}, 8).components["rollout"].world_size == 8


def test_auto_mode_needs_the_exact_total() -> None:
    placement = {"actor": "0-1", "rollout": "2-3", "reward": "0-1"}
    values = lookup({"cluster.auto_scheduler": True})
    exp = expand(placement, 4, task_type="reasoning", lookup=values)
    assert exp.ok, exp.error
    assert exp.placement_mode == "AUTO"
    assert exp.components["actor"].world_size == 4  # the actor is packed on every GPU
    smallest, failing = gpu_requirements(
        parse_cluster(cluster(placement)), task_type="reasoning", lookup=values, counts=range(1, 9)
    )
    assert (smallest, failing) == (4, [1, 2, 3, 5, 6, 7, 8])


QWEN = cluster({"actor,rollout,reward": "all"}, num_nodes=16)
QWEN_SIZES = lookup({TP: 4, ROLLOUT_TP: 2})


@pytest.mark.parametrize(("gpus", "ok"), [(4, True), (5, False), (6, False), (7, False), (8, True)])
def test_qwen_collocated_all_depends_on_gpus_per_node(gpus: int, ok: bool) -> None:
    exp = expand_placement(parse_cluster(QWEN), gpus, task_type="reasoning", lookup=QWEN_SIZES)
    assert exp.ok is ok
    if ok:
        assert exp.placement_mode == "COLLOCATED"
        assert exp.components["rollout"].world_size == 16 * gpus // 2
        assert all(len(p.local_hardware_ranks) == 2 for p in exp.components["rollout"].processes)
    else:
        assert "Trouble finding placement" in exp.error.message
        assert (
            "this process will spread across multiple nodes, which is impossible"
            in exp.error.message
        )
        assert exp.error.path == CP


def test_qwen_gpu_requirements() -> None:
    smallest, failing = gpu_requirements(
        parse_cluster(QWEN), task_type="reasoning", lookup=QWEN_SIZES
    )
    assert smallest == 4
    assert {5, 6, 7}.issubset(failing)
    assert not {4, 8}.intersection(failing)


def test_qwen_hybrid_accepts_any_gpu_count() -> None:
    """The same placement through HybridComponentPlacement (embodied) has no TP rules."""
    assert gpu_requirements(parse_cluster(QWEN)) == (1, [])


def test_every_error_is_an_rlinf_config_error() -> None:
    assert issubclass(ClusterConfigError, RLinfConfigError)
    assert issubclass(PlacementError, RLinfConfigError)


# --- Found by these tests, fixed in the library -----------------------------------------------
@pytest.mark.parametrize(
    ("placement", "gpus"),
    [
        pytest.param({"agent": {"node_group": "node", "placement": ","}}, 8, id="node-group"),
        pytest.param({"agent": ","}, 0, id="gpu-less-cluster"),
    ],
)
def test_empty_node_placement_is_rejected(placement: dict, gpus: int) -> None:
    exp = expand(placement, gpus)
    assert isinstance(exp.error, PlacementError)
    assert "must not be empty" in exp.error.message
    assert exp.error.path == f"{CP}.agent"


def test_empty_node_group_list_is_rejected() -> None:
    exp = expand({"actor": {"node_group": [], "placement": "0"}}, 8)
    assert isinstance(exp.error, PlacementError)
    assert exp.error.path.startswith(f"{CP}.actor")


def test_hardware_type_accelerator_without_hardware_counts_gpus() -> None:
    exp = expand(
        {"actor": {"node_group": "g", "placement": "0-3"}},
        8,
        node_groups=[group("g", 0, hardware_type="Accelerator")],
    )
    assert exp.ok, exp.error
    assert rows(exp, "actor") == [(i, 0, [i], [i], i, 4) for i in range(4)]


def test_hardware_without_configs_is_rejected() -> None:
    with pytest.raises(ClusterConfigError) as info:
        parse_cluster(
            cluster(num_nodes=2, node_groups=[group("g", 1, hardware={"type": "Franka"})])
        )
    assert "Missing fields '['configs']'" in info.value.message
    assert info.value.path == "cluster.node_groups[0].hardware"
