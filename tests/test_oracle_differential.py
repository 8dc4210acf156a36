"""Hypothesis-driven differential tests: our expansion against RLinf's own code on new shapes.

Each example is a config the corpus does not contain (see ``oracle/shapes.py``), written to a
YAML file and read the same way by both sides (Hydra composition, as RLinf's launchers read
it); verdicts, messages, process rows and per-node figures must agree (``oracle/compare.py``).
``make test`` runs the short profile (derandomized, HYPOTHESIS_PROFILE dev/ci); ``make fuzz``
runs ``ORACLE_EXAMPLES`` examples (default 2,000) with a random search. The same shapes also
check that the GPU-count search's verdict-only mode agrees with the full expansion.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from oracle.compare import disagreement, with_test_ips
from oracle.shapes import configs

from rlark_widgets.rlinf import (
    RLinfConfigError,
    expand_placement,
    inspect_config,
    load_config,
    load_text,
    parse_cluster,
)

FUZZING = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "2000" if FUZZING else "60"))


#: Found by make fuzz; each once disagreed with RLinf.
IP_BEFORE_A_LATER_GROUP = (
    {
        "cluster": {
            "num_nodes": 2,
            "component_placement": {"actor": "all"},
            "node_groups": [
                {
                    "label": "a",
                    "node_ranks": "0,1",
                    "hardware": {
                        "type": "Franka",
                        "configs": [{"node_rank": 0, "robot_ip": "ROBOT_IP"}],
                    },
                },
                {
                    "label": "b",
                    "node_ranks": "0",
                    "hardware": {"type": "Franka", "configs": [{"node_rank": 0}, {"node_rank": 0}]},
                },
            ],
        },
        "runner": {"task_type": "embodied"},
    },
    8,
)
TASK_TYPE_BEFORE_CLUSTER = (
    {
        "cluster": {
            "num_nodes": 1,
            "component_placement": {"actor": "all"},
            "node_groups": [
                {
                    "label": "g",
                    "node_ranks": "0",
                    "hardware": {
                        "type": "Turtle2",
                        "configs": [{"node_rank": 0}, {"node_rank": 0}],
                    },
                }
            ],
        },
        "runner": {"task_type": "chess"},
    },
    8,
)


def _franka(*configs: dict) -> dict:
    return {"type": "Franka", "configs": list(configs)}


SERIALS = {"robot_ip": "10.0.0.2", "camera_serials": ["111"]}
#: RLinf compares YAML dumps, which never match for configs holding a list: no duplicate.
LIST_VALUED_TWINS = (
    {
        "cluster": {
            "num_nodes": 2,
            "component_placement": {"actor": "0:0-1"},
            "node_groups": [
                {
                    "label": "a",
                    "node_ranks": "0,1",
                    "hardware": _franka({"node_rank": 0, **SERIALS}, {"node_rank": 0, **SERIALS}),
                }
            ],
        },
        "runner": {"task_type": "embodied"},
    },
    8,
)
#: Robots are checked in config order, not node order.
ROBOT_OWNERS_IN_CONFIG_ORDER = (
    {
        "cluster": {
            "num_nodes": 2,
            "component_placement": {"actor": "0:0"},
            "node_groups": [
                {
                    "label": "a",
                    "node_ranks": "0,1",
                    "hardware": _franka(
                        {"node_rank": 0, "robot_ip": "10.0.0.2"},
                        {"node_rank": 1, "robot_ip": "10.0.0.3"},
                    ),
                },
                {
                    "label": "b",
                    "node_ranks": "0,1",
                    "hardware": _franka(
                        {"node_rank": 1, "robot_ip": "10.0.0.4"},
                        {"node_rank": 0, "robot_ip": "10.0.0.5"},
                    ),
                },
            ],
        },
        "runner": {"task_type": "embodied"},
    },
    8,
)


#: No GPUs: RLinf's packed placement refuses the GPU-less group before the float TP size.
FLOAT_TP_WITHOUT_GPUS = (
    {
        "cluster": {"num_nodes": 2, "component_placement": {"rollout,reward": "all"}},
        "runner": {"task_type": "reasoning_eval"},
        "rollout": {"tensor_parallel_size": 2.0, "pipeline_parallel_size": 1},
    },
    0,
)


#: A config class checks its robot IP before it converts its camera serials.
IP_BEFORE_SERIALS = (
    {
        "cluster": {
            "num_nodes": 1,
            "component_placement": {"actor": "0:0"},
            "node_groups": [
                {
                    "label": "a",
                    "node_ranks": "0",
                    "hardware": _franka(
                        {"node_rank": 0, "robot_ip": "ROBOT_IP", "camera_serials": 7}
                    ),
                }
            ],
        },
        "runner": {"task_type": "embodied"},
    },
    8,
)


@settings(
    max_examples=EXAMPLES,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=configs)
@example(case=IP_BEFORE_SERIALS)
@example(case=FLOAT_TP_WITHOUT_GPUS)
@example(case=LIST_VALUED_TWINS)
@example(case=ROBOT_OWNERS_IN_CONFIG_ORDER)
@example(case=IP_BEFORE_A_LATER_GROUP)
@example(case=TASK_TYPE_BEFORE_CLUSTER)
def test_new_shapes_agree_with_rlinf(case, rlinf_oracle, tmp_path_factory) -> None:
    document, gpus = case
    file = Path(tmp_path_factory.mktemp("shape")) / "config.yaml"
    file.write_text(yaml.safe_dump(document, sort_keys=False))
    config = load_config(file)
    ours = inspect_config(config, gpus, search_gpus=False, follow_config=False)
    theirs = rlinf_oracle.expand(file, gpus)
    problem = disagreement(ours, theirs)
    assert problem is None, f"{problem}\nGPUs {gpus}\n{file.read_text()}"
    if not theirs["ok"] and "must be a valid IP address" in theirs["error"]:
        theirs = rlinf_oracle.expand(file, gpus, extra=["--fix-placeholders"])
        ours = inspect_config(with_test_ips(config), gpus, search_gpus=False, follow_config=False)
        problem = disagreement(ours, theirs)
        assert problem is None, f"test IPs: {problem}\nGPUs {gpus}\n{file.read_text()}"


@given(case=configs)
def test_verdict_only_search_agrees_with_full_expansion(case) -> None:
    """The GPU-count search computes verdicts without rows and reuses them across counts; on
    every count it must reach the same verdict and message as the full expansion."""
    document, _ = case
    config = load_text(yaml.safe_dump(document))
    try:
        cluster = parse_cluster(config.cluster_section)
    except RLinfConfigError:
        return
    verdicts: dict = {}
    for gpus in (1, 2, 3, 4, 8, 0, 5):
        args = dict(task_type=config.task_type, lookup=config.get)
        full = expand_placement(cluster, gpus, **args)
        quick = expand_placement(cluster, gpus, verdicts=verdicts, **args)
        assert (quick.ok, str(quick.error)) == (full.ok, str(full.error)), gpus
