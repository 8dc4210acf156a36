"""Rule behaviours that once were wrong (each case is a reproducer of a fixed defect)."""

from __future__ import annotations

import pytest
from test_rules import (
    GPU1,
    OUTPUT,
    RULES_BY_ID,
    job,
    launch_with,
    role,
    scenario,
)

from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.rules import evaluate

RESUME = "runner.resume_dir=/mnt/resume/global_step_100"


def fired(rule_id: str, build) -> bool:
    return bool(evaluate(build(), rules=[RULES_BY_ID[rule_id]]))


@pytest.mark.parametrize(
    ("rule_id", "build", "fires"),
    [
        pytest.param("JOB-NAME", scenario(job(name="lab-run\n")), True, id="name-trailing-newline"),
        pytest.param(
            "RES-RESUME-DIR",
            scenario(
                role(
                    0,
                    mounts=[
                        OUTPUT,
                        Mount(
                            "resume",
                            "hostPath",
                            "/data/ckpt/global_step_100",
                            "/mnt/resume/global_step_100",
                        ),
                    ],
                ),
                launch_with("runner.resume_dir=/mnt/resume/global_step_100"),
            ),
            False,
            id="resume-dir-is-the-mount",
        ),
        pytest.param(
            "RES-NO-AUTO-RESUME", scenario(launch_with(RESUME)), False, id="resume-override-counts"
        ),
        pytest.param(
            "JOB-CHECKPOINT-PERSIST",
            scenario(role(0, mounts=[]), role(1, mounts=[])),
            True,
            id="mount-on-one-role-only",
        ),
        pytest.param(
            "PLN-SHARED-NODES",
            scenario(role(2, node_selector=GPU1)),
            True,
            id="two-single-worker-roles-share-a-host",
        ),
        pytest.param(
            "JOB-MOUNT-SHADOW",
            scenario(
                job(run_script="set -e; cd /workspace/RLinf && python train.py\nray status\n"),
                role(0, mounts=[OUTPUT, Mount("code", "hostPath", "/src", "/workspace")]),
            ),
            True,
            id="cd-after-semicolon-under-mount",
        ),
        pytest.param(
            "PLN-DEVICE-COVER",
            scenario(role(2, devices={"rlinf.io/camera-realsense": 2})),
            True,
            id="wrong-device-kind",
        ),
        pytest.param(
            "JOB-RUN-SCRIPT-RAY",
            scenario(
                job(run_script="cd /workspace/RLinf\n# TODO: ray status check\npython train.py\n")
            ),
            True,
            id="ray-check-only-in-a-comment",
        ),
        pytest.param(
            "JOB-ENV-ROBOT",
            scenario(role(2, env={"OMP_NUM_THREADS": "4", "ROBOT_IP": "10.0.0.2"})),
            False,
            id="robot-ip-on-robot-node",
        ),
        pytest.param(
            "JOB-ENV-ROBOT",
            scenario(role(1, env={"ROBOT_IP": "10.0.0.2"})),
            True,
            id="robot-ip-on-gpu-node",
        ),
    ],
)
def test_fixed_rule_behaviour(rule_id: str, build, fires: bool) -> None:
    assert fired(rule_id, build) is fires


def test_selector_spanning_clusters_without_a_target_names_them_all() -> None:
    build = scenario(
        role(1, node_selector={"rlark.io/node-category": "cloud"}), target_cluster=None
    )
    (finding,) = evaluate(build(), rules=[RULES_BY_ID["JOB-SELECTOR-CLUSTER"]])
    assert "matches nodes of several clusters (lab, prod)" in finding.message
