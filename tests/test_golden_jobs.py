"""Golden Job YAML for five configs that cover the shapes researchers bring.

Regenerate after an intended change with ``RLARK_UPDATE_GOLDEN=1 pytest tests/test_golden_jobs.py``
and review the diff: these files are what a user would submit.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.schema import schema_findings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import parse_job_yaml, render_job_yaml
from rlark_widgets.rlinf import inspect_config

GOLDEN = Path(__file__).resolve().parent / "golden"
INVENTORIES = Path(__file__).resolve().parents[1] / "rlark_widgets" / "examples" / "inventories"
CASES = {
    "single-node-embodied": (
        "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml",
        "gpu-cloud.yaml",
    ),
    "two-node-franka": (
        "examples/embodiment/config/realworld_charger_sac_cnn_async.yaml",
        "mixed-robots.yaml",
    ),
    "sixteen-node-reasoning": (
        "examples/reasoning/config/math/qwen2.5-1.5b-grpo-megatron.yaml",
        "gpu-cloud.yaml",
    ),
    "env-configs": (
        "examples/embodiment/config/isaaclab_franka_stack_cube_ppo_gr00t.yaml",
        "gpu-cloud.yaml",
    ),
    "decoupled-process-ranks": (
        "tests/e2e_tests/embodied/maniskill_sac_mlp_async_decoupled.yaml",
        "gpu-cloud.yaml",
    ),
}
SETTINGS = dict(
    image="registry.example.com/rlinf:v0.3.0-cuda12.4",
    prepare_script="source /opt/venv/bin/activate\n",
    mounts=[Mount("output", "storage", "oss-rlinf", "/mnt/output")],
    output_mount="/mnt/output",
)


@pytest.mark.parametrize("case", CASES)
def test_job_yaml_matches_golden(case: str, corpus_config) -> None:
    relative, inventory = CASES[case]
    report = inspect_config(corpus_config(relative), 8, search_gpus=False)
    plan = plan_roles(report, load_inventory(INVENTORIES / inventory, site=example_site()))
    job = build_job(plan, JobSettings(**SETTINGS), site=example_site())
    text = render_job_yaml(job)
    golden = GOLDEN / f"{case}.job.yaml"
    if os.environ.get("RLARK_UPDATE_GOLDEN") == "1":
        golden.write_text(text)
    assert text == golden.read_text()
    assert schema_findings(job.to_manifest(), site=example_site()) == []
    assert parse_job_yaml(text, site=example_site()) == job
