"""Every RLinf config in the corpus composes through Hydra and its cluster section parses.

The only failures allowed are the ones RLinf itself has: a defaults list naming a config group
that does not exist, and a cluster section RLinf's ClusterConfig rejects. Both must come back as
typed errors pointing at the field, never a crash.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import PRIMARY

from rlark_widgets.rlinf import (
    ClusterConfigError,
    ConfigLoadError,
    inspect_config,
    parse_cluster,
)

MISSING_GROUP = {"examples/embodiment/config/libero_spatial_dagger_openpi_lerobot.yaml"}
REJECTED_CLUSTER = {"examples/embodiment/config/realworld_dual_franka_dagger_openpi.yaml"}


@pytest.mark.parametrize("relative", PRIMARY)
def test_config_composes_and_cluster_parses(relative: str, corpus_config) -> None:
    if relative in MISSING_GROUP:
        with pytest.raises(ConfigLoadError) as failure:
            corpus_config(relative)
        assert "training_backend/fsdp" in failure.value.message
        assert failure.value.path == "defaults"
        return
    config = corpus_config(relative)
    assert config.composed is not None and config.raw_text
    if relative in REJECTED_CLUSTER:
        with pytest.raises(ClusterConfigError) as failure:
            parse_cluster(config.cluster_section)
        # RLinf's DualFranka config class refuses the placeholder IP before it would find
        # node_rank 0 outside the group (the oracle shows both, in this order).
        assert failure.value.path == "cluster.node_groups[1].hardware.configs[0].left_robot_ip"
        return
    spec = parse_cluster(config.cluster_section)
    assert spec.num_nodes >= 1 and spec.placements
    report = inspect_config(config, 8, search_gpus=False)
    assert report.expansion.ok or report.expansion.error.path.startswith("cluster")


def test_corpus_has_all_primary_configs(rlinf_configs_dir: Path) -> None:
    assert len(PRIMARY) == 195


def test_missing_searchpath_variable_takes_the_checkouts_value(
    rlinf_configs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rlark_widgets.rlinf import load_config

    monkeypatch.delenv("EMBODIED_PATH", raising=False)
    config = rlinf_configs_dir / "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml"
    loaded = load_config(config, env={})
    likely = str((rlinf_configs_dir / "examples" / "embodiment").resolve())
    assert loaded.env == {"EMBODIED_PATH": likely}  # recorded as used
    (guessed,) = [f for f in loaded.findings if f.rule_id == "CFG-ENV-GUESSED"]
    assert guessed.path == "hydra.searchpath" and f"EMBODIED_PATH={likely}" in guessed.message
    assert load_config(config, env={"EMBODIED_PATH": likely}).findings == tuple(
        f for f in loaded.findings if f.rule_id != "CFG-ENV-GUESSED"
    )  # set by the user: nothing to say


def test_composed_config_keeps_record_material(corpus_config) -> None:
    config = corpus_config("examples/embodiment/config/maniskill_ppo_openvlaoft.yaml")
    assert "component_placement" in config.raw_text
    assert config.resolved["cluster"]["component_placement"] == {
        "actor": "0-7",
        "env": "0-3",
        "rollout": "4-7",
    }
    # the defaults list was composed: env.train comes from env/maniskill_put_on_plate...
    assert config.get("env.train.max_episode_steps") == 80
    assert config.task_type == "embodied"


def test_overrides_apply_like_rlinf_launchers(rlinf_configs_dir: Path) -> None:
    from rlark_widgets.rlinf import load_config, rlinf_repo_env

    config = load_config(
        rlinf_configs_dir / "examples/sft/config/qwen3_vl_moe_megatron_sft_vlm.yaml",
        overrides=["cluster.num_nodes=4"],
        env=rlinf_repo_env(rlinf_configs_dir),
    )
    assert config.overrides == ("cluster.num_nodes=4",)
    report = inspect_config(config, 8)
    assert report.expansion.num_nodes == 4
    assert report.expansion.components["actor"].world_size == 32
    assert report.min_gpus_per_node == 1 and report.failing_gpus_per_node == []


def test_rlinf_resolvers_resolve_without_rlinf(corpus_config) -> None:
    config = corpus_config(
        "tests/e2e_tests/dynamic_scheduler/qwen2.5-1.5b-grpo-dynamic-mg-sgl.yaml"
    )
    # rollout.return_logprobs: ${not:${algorithm.recompute_logprobs}} with recompute_logprobs: True
    assert config.get("algorithm.recompute_logprobs") is True
    assert config.resolved["rollout"]["return_logprobs"] is False
    assert not [u for u in config.unresolved if "not:" in u.expression]


def test_unresolvable_interpolation_is_reported_not_fatal(tmp_path: Path) -> None:
    from rlark_widgets.rlinf import load_config

    file = tmp_path / "job.yaml"
    file.write_text(
        "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n"
        "runner:\n  task_type: embodied\n  logger:\n    log_path: ${oc.env:RLARK_TEST_UNSET_DIR}\n"
        "data:\n  path: ${multiply:2,3}\n"
    )
    config = load_config(file)
    assert [u.path for u in config.unresolved] == ["runner.logger.log_path"]
    assert config.resolved["data"]["path"] == 6
    finding = next(f for f in config.findings if f.rule_id == "CFG-UNRESOLVED")
    assert finding.path == "runner.logger.log_path" and "RLARK_TEST_UNSET_DIR" in finding.message
    report = inspect_config(config, 2, search_gpus=False)
    assert report.ok and report.expansion.components["actor"].world_size == 2


def test_yaml_syntax_error_points_at_the_line(tmp_path: Path) -> None:
    from rlark_widgets.rlinf import load_config

    file = tmp_path / "broken.yaml"
    file.write_text("cluster:\n  num_nodes: 1\n  component_placement: [oops\n")
    with pytest.raises(ConfigLoadError) as failure:
        load_config(file)
    assert "not valid YAML at line" in failure.value.message
