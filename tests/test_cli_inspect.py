"""``rlark-migrate inspect``: the summary, the JSON expansion and the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rlark_widgets.cli import main

EMBODIED = "examples/embodiment/config"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_summary_shows_nodes_groups_components_and_findings(capsys, rlinf_configs_dir: Path):
    config = rlinf_configs_dir / EMBODIED / "realworld_pnp_dagger_openpi.yaml"
    code, out, _ = run_cli(capsys, "inspect", str(config), "--rlinf-repo", str(rlinf_configs_dir))
    assert "task type: embodied" in out and "nodes: 2" in out
    assert "Node groups" in out and "franka" in out
    # per node: node 0 runs actor and rollout on GPUs 0-1, node 1 runs env with its Franka
    node0 = next(line for line in out.splitlines() if line.startswith("0 "))
    assert "[0, 1]" in node0 and "actor,rollout" in node0
    node1 = next(line for line in out.splitlines() if line.startswith("1 "))
    assert "env" in node1 and "Franka:0" in node1
    # the placeholder robot IP is an error finding, so the exit code says "not runnable yet"
    assert "CFG-ROBOT-IP" in out and code == 1


def test_json_matches_rlinf_expected(capsys, rlinf_configs_dir: Path):
    relative = f"{EMBODIED}/maniskill_ppo_mlp_vlm_trend_reward_sglang.yaml"
    expected = json.loads(
        (rlinf_configs_dir / "expected" / relative).with_suffix(".gpn4.json").read_text()
    )
    code, out, _ = run_cli(
        capsys,
        "inspect",
        str(rlinf_configs_dir / relative),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--gpus-per-node",
        "4",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    for key in (
        "ok",
        "task_type",
        "placement_class",
        "placement_mode",
        "num_nodes",
        "per_node",
        "components",
    ):
        assert data[key] == expected[key], key
    assert data["min_gpus_per_node"] == 2


def test_rejected_config_exits_1_with_the_reason(capsys, rlinf_configs_dir: Path):
    config = rlinf_configs_dir / EMBODIED / "maniskill_ppo_openvlaoft.yaml"
    code, out, _ = run_cli(
        capsys,
        "inspect",
        str(config),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--gpus-per-node",
        "4",
    )
    assert code == 1
    assert "End rank 7" in out and "cluster.component_placement.actor" in out


def test_per_node_gpu_map_and_overrides(capsys, rlinf_configs_dir: Path):
    config = rlinf_configs_dir / "examples/sft/config/qwen3_vl_moe_megatron_sft_vlm.yaml"
    code, out, _ = run_cli(
        capsys,
        "inspect",
        str(config),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--gpus-per-node-map",
        "0:8,1:4",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    actor = data["components"]["actor"]
    assert actor["world_size"] == 12
    assert [p["node_rank"] for p in actor["processes"][8:]] == [1, 1, 1, 1]
    assert data["per_node"]["1"]["accelerators_on_node"] == 4


def test_config_dir_and_name_with_override(capsys, rlinf_configs_dir: Path):
    code, out, _ = run_cli(
        capsys,
        "inspect",
        "--config-dir",
        str(rlinf_configs_dir / EMBODIED),
        "--config-name",
        "libero_spatial_ppo_openpi",
        "--override",
        "cluster.num_nodes=2",
        "--env",
        f"EMBODIED_PATH={rlinf_configs_dir / 'examples/embodiment'}",
        "--json",
    )
    assert code == 0
    assert json.loads(out)["num_nodes"] == 2


def test_missing_variable_is_explained(capsys, rlinf_configs_dir: Path, monkeypatch):
    monkeypatch.delenv("EMBODIED_PATH", raising=False)
    code, _, err = run_cli(
        capsys, "inspect", str(rlinf_configs_dir / EMBODIED / "maniskill_ppo_openvlaoft.yaml")
    )
    assert code == 1
    assert "EMBODIED_PATH is not set" in err and "fix:" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect"],
        ["inspect", "a.yaml", "--config-dir", "d", "--config-name", "n"],
        ["inspect", "a.yaml", "--gpus-per-node", "-1"],
        ["inspect", "a.yaml", "--gpus-per-node-map", "0:x"],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert "error:" in err


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--gpus-per-node-map", "0:1000000000", "GPU count 1000000000 is outside 0 to 1,024."),
        ("--gpus-per-node-map", "20000:8", "Node rank 20000 is outside 0 to 9,999."),
        ("--gpus-per-node-map", "0:8,1:four", "GPU count 'four' is not a whole number."),
        ("--gpus-per-node", "5000", "GPUs per node 5000 is outside 0 to 1,024."),
    ],
)
def test_an_impossible_gpu_layout_is_refused_before_anything_is_built(
    capsys, option: str, value: str, problem: str
) -> None:
    """A typo such as 0:1000000000 once built a billion GPU slots; now it is a usage error."""
    code, _, err = run_cli(capsys, "inspect", "missing.yaml", option, value)
    assert code == 2
    assert f"{option}: {problem}" in err and "--gpus-per-node-map 0:8,1:4" in err


def test_console_script_help():
    result = subprocess.run(
        [sys.executable, "-m", "rlark_widgets.cli", "inspect", "--help"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0
    assert "--gpus-per-node-map" in result.stdout and "Exit code 1" in result.stdout


def test_streamed_json_is_the_reports_json(capsys, tmp_path: Path):
    """inspect --json writes rows as they come; the result is exactly report.to_json()."""
    from rlark_widgets.rlinf import inspect_config, load_config

    file = tmp_path / "mixed.yaml"
    file.write_text(
        "cluster:\n  num_nodes: 3\n  component_placement:\n"
        "    actor: all\n    env: '0-3:0-7'\n    rollout: '4-5:0'\n"
        "    agent: {node_group: node, placement: '0-2:0-5'}\n"
        "    reward: {node_group: bots, placement: all}\n"
        "  node_groups:\n    - label: bots\n      node_ranks: 1-2\n"
        "      hardware: {type: Turtle2, configs: [{node_rank: 1}, {node_rank: 2}]}\n"
        "runner: {task_type: embodied}\n"
    )
    code, out, _ = run_cli(
        capsys, "inspect", str(file), "--gpus-per-node-map", "0:4,1:2,2:0", "--json"
    )
    report = inspect_config(load_config(file), "0:4,1:2,2:0")
    assert json.loads(out) == json.loads(json.dumps(report.to_json()))
    assert json.loads(out)["components"]["reward"]["processes"][1]["local_hardware_ranks"] == [0]
    assert code == 0
