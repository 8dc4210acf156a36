"""One meaning per flag across all commands (#24 item 13).

``-o`` was the override in ``inspect`` and ``check`` but the output file in ``plan``: an
override reused with ``plan`` wrote the Job to a file named after it and dropped the override.
``-o`` is now an output file wherever it exists, ``--override`` has no short form, and every
command reading a config takes ``--config FILE`` (``plan --config F`` as ``submit --config F``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from rlark_widgets.cli import build_parser, main
from rlark_widgets.cli.output_args import OUTPUT_OPTIONS

SINGLE = "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml"


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_dash_o_is_an_output_file_in_every_command():
    """Every ``-o`` is one of the output destinations; no command spells an override with it."""
    for name, command in _commands().items():
        for action in command._actions:
            if "-o" in action.option_strings:
                assert action.dest in OUTPUT_OPTIONS, (name, action.dest)
            if "--override" in action.option_strings:
                assert action.option_strings == ["--override"], (name, action.option_strings)


def test_every_command_with_overrides_takes_config_file():
    for name, command in _commands().items():
        options = {o for a in command._actions for o in a.option_strings}
        if "--override" in options:
            assert "--config" in options, name


def test_plan_with_config_option_plans_like_the_positional(capsys, rlinf_configs_dir: Path):
    config = str(rlinf_configs_dir / SINGLE)
    base = ["--no-compose", "--image", "r/x:1", "--json", "--override", "cluster.num_nodes=2"]
    assert main(["plan", "--config", config, *base]) in (0, 1)
    by_option = json.loads(capsys.readouterr().out)
    assert main(["plan", config, *base]) in (0, 1)
    by_position = json.loads(capsys.readouterr().out)
    assert by_option == by_position
    assert sum(role["workers"] for role in by_option["roles"]) == 2


def test_inspect_takes_config_option_and_override(capsys, rlinf_configs_dir: Path):
    config = str(rlinf_configs_dir / SINGLE)
    code = main(
        [
            "inspect",
            "--config",
            config,
            "--no-compose",
            "--override",
            "cluster.num_nodes=2",
            "--json",
        ]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["num_nodes"] == 2


def test_two_different_configs_are_refused(capsys, rlinf_configs_dir: Path, tmp_path: Path):
    config = str(rlinf_configs_dir / SINGLE)
    with pytest.raises(SystemExit) as raised:
        main(["plan", config, "--config", str(tmp_path / "other.yaml"), "--lang", "zh"])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "other.yaml" in err and "给出了两个配置" in err


def test_dash_o_after_inspect_is_not_an_override(capsys, rlinf_configs_dir: Path):
    """``inspect`` writes no file: ``-o KEY=VALUE`` is a usage error, not a silent override."""
    config = str(rlinf_configs_dir / SINGLE)
    with pytest.raises(SystemExit) as raised:
        main(["inspect", config, "-o", "cluster.num_nodes=2"])
    assert raised.value.code == 2
