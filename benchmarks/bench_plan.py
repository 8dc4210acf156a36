"""Planning speed: plan + build + render + schema-validate + rules for the 1,024-node config.

Run: ``.venv/bin/python benchmarks/bench_plan.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_expansion import SYNTHETIC_CLUSTER  # noqa: E402
from common import Result, best_time, print_table  # noqa: E402

from rlark_widgets.pipeline import given_job  # noqa: E402
from rlark_widgets.rlark.build import JobSettings, build_job  # noqa: E402
from rlark_widgets.rlark.planner import plan_roles  # noqa: E402
from rlark_widgets.rlark.site import example_site  # noqa: E402
from rlark_widgets.rlark.yaml_io import (
    dump_yaml,  # noqa: E402
    render_job_yaml,  # noqa: E402
)
from rlark_widgets.rlinf import inspect_config, load_text  # noqa: E402

SYNTHETIC_TEXT = dump_yaml({"cluster": SYNTHETIC_CLUSTER, "runner": {"task_type": "embodied"}})


def plan_render_check():
    report = inspect_config(load_text(SYNTHETIC_TEXT, "synthetic-1024.yaml"), 8, search_gpus=False)
    plan = plan_roles(report)
    job = build_job(
        plan, JobSettings(image="registry.example.com/rlinf:v0.3.0"), site=example_site()
    )
    text = render_job_yaml(job)
    findings = given_job(job, report, site=example_site()).findings
    return plan, text, findings


def run() -> list[Result]:
    plan, _, findings = plan_render_check()
    best, median = best_time(plan_render_check, rounds=3)
    return [
        Result(
            "plan + render + schema + rules, 1,024 nodes x 8 GPUs",
            best,
            "s",
            2.0,
            f"{plan.total_workers} Workers in {len(plan.roles)} roles, {len(findings)} findings; median {median:.2f} s",
        ),
    ]


if __name__ == "__main__":
    print_table("Planning benchmark", run())
