"""``${oc.env:NAME}`` in a config never becomes this machine's value in any output (issue #23,
class 3).

OmegaConf resolves ``oc.env`` where the config is read: on the planning machine that is the
planner's own environment (its secrets, its home directory). RLinf composes the config again in
the pod, so a Job must keep the reference for the Worker's environment to resolve, or refuse the
value with a finding that names the field; never carry the resolved value. Hypothesis sets every
leaf of a config with node groups, robots, an interpreter and variables (one at a time, whole or
inside a string) to ``${oc.env:RLARK_TEST_PLANNING_VALUE}``, with that variable set here to a
marker, and asserts the marker appears in no output of plan (``-o``, ``--record``, ``--json``,
zh), export (both KubeRay kinds), sheet and check.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_secret_exits import EXAMPLES, IMAGE
from test_shell_injection import base_config, set_leaf

from rlark_widgets.cli import main
from rlark_widgets.findings import Severity
from rlark_widgets.i18n import render
from rlark_widgets.rlinf import inspect_config, load_config

VARIABLE = "RLARK_TEST_PLANNING_VALUE"
MARKER = "planner-only-7Qx3"
REFERENCE = f"${{oc.env:{VARIABLE}}}"


def leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every scalar of the config (strings, numbers, booleans, nulls), at any depth."""
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in leaves(value, (*path, key))]
    if isinstance(node, list):
        return [p for index, value in enumerate(node) for p in leaves(value, (*path, index))]
    return [path]


BASE = base_config()
LEAVES = leaves(BASE)
#: The values a Job carries on its Workers (their env, the interpreter check): drawn every run.
NODE_VALUES = [
    ("cluster", "node_groups", 1, "env_configs", 0, "python_interpreter_path"),
    ("cluster", "node_groups", 1, "env_configs", 0, "env_vars", 0, "ROBOT_MODE"),
]


def _outputs(tmp: Path, config: Path, capsys) -> str:
    options = ["--no-compose", "--image", IMAGE, "--gpus-per-node", "8"]
    job = tmp / "job.yaml"
    printed = []
    for argv in (
        ["plan", str(config), *options, "-o", str(job), "--record", str(tmp / "record.zip")],
        ["plan", str(config), *options, "--json"],
        ["plan", str(config), *options, "--lang", "zh"],
        ["export", "--config", str(config), *options, "-o", str(tmp / "rayjob.yaml")],
        ["export", "--config", str(config), *options, "--kind", "RayCluster", "--lang", "zh"],
        ["sheet", "--config", str(config), *options, "--format", "html"],
        ["check", str(job), "--config", str(config), "--no-compose", "--json"],
    ):
        if argv[0] == "check" and not job.exists():
            continue  # RLinf refused the config: there is no Job to check
        main(argv)
        captured = capsys.readouterr()
        printed.append(captured.out + captured.err)
    for path in sorted(tmp.iterdir()):
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                printed += [archive.read(n).decode() for n in archive.namelist()]
        elif path.name != config.name:
            printed.append(path.read_text(encoding="utf-8"))
    return "\n".join(printed)


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
@settings(
    max_examples=EXAMPLES * 3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(leaf=st.sampled_from(LEAVES), inside=st.booleans())
@example(leaf=NODE_VALUES[0], inside=False)
@example(leaf=NODE_VALUES[1], inside=True)
def test_no_output_carries_this_machine_s_value_of_an_environment_reference(
    leaf, inside, capsys, tmp_path_factory
) -> None:
    tmp = tmp_path_factory.mktemp("oc-env")
    config = yaml.safe_load(yaml.safe_dump(BASE))
    set_leaf(config, leaf, f"/data/{REFERENCE}/x" if inside else REFERENCE)
    path = tmp / "cfg.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    with mock.patch.dict(os.environ, {VARIABLE: MARKER}):
        everything = _outputs(tmp, path, capsys)
    assert "Traceback" not in everything
    assert MARKER not in everything, [line for line in everything.splitlines() if MARKER in line][
        :5
    ]


@pytest.mark.parametrize("leaf", NODE_VALUES)
def test_a_node_value_from_this_machine_is_an_error_naming_its_field(leaf, tmp_path) -> None:
    config = yaml.safe_load(yaml.safe_dump(BASE))
    set_leaf(config, leaf, REFERENCE)
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    with mock.patch.dict(os.environ, {VARIABLE: MARKER}):
        report = inspect_config(load_config(path, compose=False), 8)
    (finding,) = [f for f in report.findings if f.rule_id == "CFG-ENV-NODE-VALUE"]
    field = "cluster.node_groups[1].env_configs[0]." + (
        "python_interpreter_path"
        if leaf[-1] == "python_interpreter_path"
        else "env_vars[0].ROBOT_MODE"
    )
    assert finding.severity is Severity.ERROR and finding.path == field
    assert REFERENCE in render(finding.text, "en") and "取自本机的环境变量" in render(
        finding.text, "zh"
    )
    assert report.cluster is not None
    (group,) = [g for g in report.cluster.node_groups if g.env_configs]
    entry = group.env_configs[0]
    carried = (
        entry.python_interpreter_path
        if leaf[-1] != "ROBOT_MODE"
        else dict(entry.env_vars)["ROBOT_MODE"]
    )
    assert carried == REFERENCE  # the reference, never this machine's value
