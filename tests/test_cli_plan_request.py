"""Every command that plans from a config parses its options once, into the Session's request.

``cli/plan_request.plan_request`` is wrapped in every CLI module that calls it, and its parse
of the GPU options is counted: each command builds exactly one request and parses the GPU
layout once (``plan`` once parsed it twice, and a Job YAML given with ``--config`` built no
request at all). The request ``plan`` builds is the one the app's Session builds from the same
inputs, field by field.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from memory_backend import KIND, POLICY, Memory, MemoryBackend
from test_cli_jobs import cli

from rlark_widgets.backends import register_backend, unregister_backend
from rlark_widgets.cli import plan_request as plan_request_module
from rlark_widgets.examples import example_configs
from rlark_widgets.pipeline import PlanRequest
from rlark_widgets.rlark.build import JobSettings, job_mounts
from rlark_widgets.rlark.facts import RecordFacts
from rlark_widgets.rlinf.topology import GpuLayout
from rlark_widgets.ui.session import Session

IMAGE = "registry.example.com/rlinf:v0.3.0"
CONFIG = str(example_configs()["maniskill_ppo_openvlaoft"])
JOB_OPTIONS = (
    "--image",
    IMAGE,
    "--storage",
    "oss-rlinf:/mnt/output",
    "--output-dir",
    "/mnt/output",
)


@dataclass
class Calls:
    requests: list[PlanRequest | None] = field(default_factory=list)
    layouts: int = 0


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """plan_request wrapped wherever the CLI imported it; GpuLayout.parse counted."""
    seen = Calls()
    original = plan_request_module.plan_request

    def counted(*args: Any, **kwargs: Any) -> PlanRequest | None:
        request = original(*args, **kwargs)
        seen.requests.append(request)
        return request

    callers = [
        module
        for name, module in sys.modules.items()
        if name.startswith("rlark_widgets.cli")
        and getattr(module, "plan_request", None) is original
    ]
    assert len(callers) >= 4, "plan, check, inspect and plan_request itself"
    for module in callers:
        monkeypatch.setattr(module, "plan_request", counted)
    parse = plan_request_module._gpu_layout

    def counted_parse(args: Any) -> GpuLayout:
        seen.layouts += 1
        return parse(args)

    monkeypatch.setattr(plan_request_module, "_gpu_layout", counted_parse)
    return seen


@pytest.fixture
def memory() -> Iterator[Memory]:
    kept = Memory()
    register_backend(POLICY, lambda given: MemoryBackend(kept, given.site))
    try:
        yield kept
    finally:
        unregister_backend(KIND)


@pytest.fixture
def job_yaml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = tmp_path / "job.yaml"
    recorded = ("--override", "runner.max_epochs=2", "--override", "runner.save_interval=7")
    code, _, err = cli(capsys, "plan", CONFIG, *JOB_OPTIONS, *recorded, "-o", str(path))
    assert code in (0, 1) and path.is_file(), err
    return str(path)


def _once(calls: Calls) -> PlanRequest:
    assert len(calls.requests) == 1 and calls.layouts == 1
    request = calls.requests[0]
    assert request is not None
    return request


@pytest.mark.parametrize(
    "argv",
    [
        ("plan", CONFIG, *JOB_OPTIONS),
        ("inspect", CONFIG),
        ("export", "--config", CONFIG, *JOB_OPTIONS),
        ("sheet", "--config", CONFIG, *JOB_OPTIONS),
        ("admin-request", "--config", CONFIG, *JOB_OPTIONS),
    ],
    ids=lambda argv: argv[0],
)
def test_a_command_planning_from_a_config_builds_one_request(
    argv: tuple[str, ...], calls: Calls, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, *argv, "--gpus-per-node-map", "0:8,1:4")
    assert code in (0, 1), err
    request = _once(calls)
    assert request.gpus == GpuLayout.parse("0:8,1:4")
    if argv[0] != "inspect":  # the Job options reach the request's settings
        assert request.settings.image == IMAGE and request.settings.output_mount == "/mnt/output"


def test_submit_with_a_config_builds_one_request(
    memory: Memory, calls: Calls, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "submit", "--config", CONFIG, *JOB_OPTIONS, "--backend", KIND)
    assert code == 1 and "JOB-SELECTOR-EMPTY" in out and memory.jobs == {}  # no inventory
    assert _once(calls).settings.image == IMAGE


@pytest.mark.parametrize("command", ["check", "export", "sheet", "admin-request"])
def test_a_job_yaml_with_a_config_builds_one_request_with_the_jobs_overrides(
    command: str, job_yaml: str, calls: Calls, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(
        capsys, command, job_yaml, "--config", CONFIG, "--override", "runner.max_epochs=3"
    )
    assert code in (0, 1), err
    request = _once(calls)
    # the Job's recorded overrides first, the command line's winning for the same key
    overrides = request.config.overrides
    assert overrides[0] == "runner.save_interval=7" and overrides[-1] == "runner.max_epochs=3"
    assert "runner.max_epochs=2" not in overrides
    assert request.config.resolved["runner"]["max_epochs"] == 3


def test_a_job_yaml_alone_builds_no_request(
    job_yaml: str, calls: Calls, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "check", job_yaml)
    assert code in (0, 1), err
    assert calls.requests == [] and calls.layouts == 0


def test_the_cli_builds_the_request_the_session_builds(
    calls: Calls, capsys: pytest.CaptureFixture[str]
) -> None:
    options = (*JOB_OPTIONS, "--name", "peg", "--template", "rl", "--rlinf-commit", "a38")
    cli(capsys, "plan", CONFIG, *options, "--gpus-per-node", "4")
    from_cli = _once(calls)

    s = Session(workspace=Path("/nonexistent-workspace"))
    s.gpus_per_node = 4
    s.template = "rl"
    s.settings = JobSettings(
        name="peg", image=IMAGE, output_storage="oss-rlinf", output_mount="/mnt/output"
    )
    s.facts = RecordFacts(rlinf_commit="a38")
    assert s.load_path(CONFIG), s.error
    from_app = s.request()
    assert from_app is not None
    assert replace(from_cli, config=from_app.config, settings=from_app.settings) == from_app
    # the app names the output mount's StorageClass, --storage its first mount: the same mounts
    assert job_mounts(from_cli.settings) == job_mounts(from_app.settings)
    assert replace(from_cli.settings, mounts=[]) == replace(from_app.settings, output_storage=None)
