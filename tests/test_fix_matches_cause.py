"""Fixes that match their cause (#24 item 15), in both languages.

A GPU count too small for the placement was blamed on the placement grammar; CFG-ROBOT-IP named
``cluster.node_groups[1]...``, which typed as an override gave Hydra's raw
``LexerNoViableAltException``. The robot IP fix names the field as an override takes it (and
that override clears the finding); a refused override is explained in words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rlark_widgets.cli import main
from rlark_widgets.rlinf import ConfigLoadError, GpuLayout, inspect_config, load_config
from rlark_widgets.rlinf.overrides import override_key

FRANKA = "examples/embodiment/config/realworld_pnp_dagger_openpi.yaml"
SINGLE = "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml"


def _findings(config_dir: Path, overrides: tuple[str, ...] = (), gpus: str = "8"):
    env = {"EMBODIED_PATH": str(config_dir / "examples/embodiment")}
    config = load_config(config_dir / FRANKA, overrides, env)
    return inspect_config(config, GpuLayout.parse(gpus)).findings


def test_override_key_uses_dots_for_list_items():
    assert override_key("cluster.node_groups[1].hardware.configs[0].robot_ip") == (
        "cluster.node_groups.1.hardware.configs.0.robot_ip"
    )
    assert override_key("runner.max_steps") == "runner.max_steps"


def test_robot_ip_fix_names_an_override_that_clears_it(rlinf_configs_dir: Path):
    (finding,) = [f for f in _findings(rlinf_configs_dir) if f.rule_id == "CFG-ROBOT-IP"]
    key = "cluster.node_groups.1.hardware.configs.0.robot_ip"
    assert f"{key}=<IP>" in finding.fix and f"{key}=<IP>" in finding.fix_in("zh")
    after = _findings(rlinf_configs_dir, (f"{key}=10.0.0.2",))
    assert [f for f in after if f.rule_id == "CFG-ROBOT-IP"] == []


@pytest.mark.parametrize(
    ("override", "en", "zh"),
    [
        (
            "cluster.node_groups[1].hardware.configs[0].robot_ip=10.0.0.2",
            "Write it as cluster.node_groups.1.hardware.configs.0.robot_ip=10.0.0.2.",
            "写成 cluster.node_groups.1.hardware.configs.0.robot_ip=10.0.0.2。",
        ),
        ("runner.max_steps", "has no '=' and no value", "没有 '='"),
        ("runner.name=$(whoami)", "Quote a value that holds spaces", "用单引号把值括起来"),
    ],
)
def test_a_refused_override_is_explained_in_words(
    capsys, rlinf_configs_dir: Path, override: str, en: str, zh: str
):
    with pytest.raises(ConfigLoadError) as raised:
        _findings(rlinf_configs_dir, (override,))
    assert raised.value.path == "overrides"
    for lang, fragment in (("en", en), ("zh", zh)):
        code = main(
            ["--lang", lang, "inspect", str(rlinf_configs_dir / FRANKA), "--override", override]
            + ["--rlinf-repo", str(rlinf_configs_dir)]
        )
        err = capsys.readouterr().err
        assert code == 1
        assert fragment in err, err
        assert override in err and "Exception" not in err


def test_a_gpu_count_too_small_is_not_blamed_on_the_grammar(capsys, rlinf_configs_dir: Path):
    config = str(rlinf_configs_dir / SINGLE)
    for lang, fragment, grammar in (
        ("en", "If the nodes have more, give their count (--gpus-per-node N", "placement grammar"),
        ("zh", "如果节点实际 GPU 更多", "放置语法"),
    ):
        main(["--lang", lang, "inspect", config, "--no-compose", "--gpus-per-node", "2"])
        out = capsys.readouterr().out
        assert "PLC-PLACEMENT" in out and fragment in out and grammar not in out


def test_a_grammar_error_keeps_the_grammar_fix(capsys, rlinf_configs_dir: Path):
    config = str(rlinf_configs_dir / SINGLE)
    main(["inspect", config, "--no-compose", "--override", "cluster.component_placement.env=3-0"])
    out = capsys.readouterr().out
    assert "PLC-PLACEMENT" in out and "placement grammar" in out and "--gpus-per-node N" not in out
