"""One argument grammar for every command (issue #25 item 7): the same config options wherever a
config is read, ``-o`` always an output file, no abbreviations, and one finding per cause."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_kubernetes_backend import demo_job

from rlark_widgets.cli import build_parser, main
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.site import example_site

CONFIG = "tests/data/rlinf-configs/examples/embodiment/config/realworld_pnp_dagger_openpi.yaml"
CONFIG_OPTIONS = {
    "--config",
    "--config-dir",
    "--config-name",
    "--override",
    "--env",
    "--rlinf-repo",
    "--no-compose",
    "--gpus-per-node",
    "--gpus-per-node-map",
}


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {option: action for action in parser._actions for option in action.option_strings}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_no_parser_takes_an_abbreviation() -> None:
    assert not build_parser().allow_abbrev
    assert {name: p.allow_abbrev for name, p in _commands().items()} == {
        name: False for name in _commands()
    }


def test_an_abbreviated_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "inspect", CONFIG, "--gpus", "4")
    assert code == 2 and "unrecognized arguments: --gpus 4" in err


def test_every_command_that_reads_a_config_has_the_same_config_options() -> None:
    reading = {n: p for n, p in _commands().items() if "--config-dir" in _options(p)}
    assert {"inspect", "plan", "check", "export", "sheet", "admin-request", "submit"} <= set(
        reading
    )
    for name, parser in reading.items():
        assert set(_options(parser)) >= CONFIG_OPTIONS, name


def test_dash_o_is_always_the_output_file() -> None:
    having = {n: _options(p)["-o"] for n, p in _commands().items() if "-o" in _options(p)}
    assert {"plan", "export", "sheet", "admin-request", "inventory", "record"} <= set(having)
    assert {n: a.dest for n, a in having.items()} == {n: "output" for n in having}


def test_the_config_is_one_option_positional_or_not(capsys: pytest.CaptureFixture[str]) -> None:
    positional = run(capsys, "inspect", CONFIG, "--json")
    named = run(capsys, "inspect", "--config", CONFIG, "--json")
    assert positional[0] == named[0] == 1  # the placeholder robot IP: an error finding
    assert json.loads(positional[1]) == json.loads(named[1])
    assert run(capsys, "inspect", CONFIG, "--config", CONFIG)[0] == 1  # the same file: one config
    other = "tests/data/rlinf-configs/examples/embodiment/config/maniskill_ppo_openvlaoft.yaml"
    code, _, err = run(capsys, "inspect", CONFIG, "--config", other)
    assert code == 2 and "two configs given" in err and other in err
    code, _, err = run(capsys, "plan", "--config", CONFIG, other, "--lang", "zh")
    assert code == 2 and "给出了两个配置" in err


def test_an_empty_image_is_one_finding_at_its_field() -> None:
    job = demo_job()
    job.roles[1] = replace(job.roles[1], image="")
    path = "spec.tasks[1].template.spec.containers[0].image"
    at_image = [f for f in given_job(job, site=example_site()).findings if f.path == path]
    assert [f.rule_id for f in at_image] == ["JOB-IMAGE"]


def test_sheet_and_admin_request_write_with_dash_o(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    job = tmp_path / "job.yaml"
    assert run(capsys, "plan", CONFIG, "--image", "r/x:v1", "-o", str(job))[0] in (0, 1)
    for command in ("sheet", "admin-request"):
        out = tmp_path / f"{command}.txt"
        code, said, _ = run(capsys, command, str(job), "-o", str(out))
        assert code in (0, 1) and out.read_text() and f"Wrote {out}." in said
