"""Preflight against the emulator's nodes: roles that share nodes share their GPUs (issue #15).

The emulator's cluster gpu-a has four 8-GPU nodes (32 GPUs). A Header pinned to a800-0 and a
4-Worker role on the whole cluster each fit alone, but together ask for 40 of 32 GPUs.
"""

from __future__ import annotations

from pathlib import Path

from kube_emulator import NAMESPACE
from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import IMAGE, OUTPUT, demo_job, host

from rlark_widgets.rlark.job import Job, Role
from rlark_widgets.rlark.yaml_io import render_job_yaml


def overlapping_job() -> Job:
    return Job(
        "shared",
        [
            Role(
                "header",
                1,
                IMAGE,
                head=True,
                gpus=8,
                node_selector=host("gpu-a", "a800-0"),
                mounts=[OUTPUT],
            ),
            Role(
                "actor",
                4,
                IMAGE,
                gpus=8,
                node_selector={"rlark.io/cluster": "gpu-a"},
                mounts=[OUTPUT],
            ),
        ],
        run_script="cd /workspace/RLinf && bash examples/embodiment/run_embodiment.sh maniskill",
        namespace=NAMESPACE,
    )


def test_roles_sharing_nodes_cannot_ask_for_more_gpus_than_exist(kube) -> None:
    found = [f for f in kube.backend().preflight(overlapping_job()) if f.rule_id == "K8S-CAPACITY"]
    assert len(found) == 1, [f.message for f in found]
    assert found[0].severity.value == "error"
    assert "Role(s) 'header', 'actor' (they select the same nodes) request 40 nvidia.com/gpu" in (
        found[0].message
    )
    assert "have 32" in found[0].message


def test_each_role_alone_is_still_checked(kube) -> None:
    job = overlapping_job()
    job.roles[1].replicas = 5  # 40 of the cluster's 32 on its own
    found = [f for f in kube.backend().preflight(job) if f.rule_id == "K8S-CAPACITY"]
    assert [f.path for f in found] == ["spec.tasks[1].template.spec.containers[0].resources.limits"]
    assert "Role(s) 'actor' request 40 nvidia.com/gpu" in found[0].message


def test_submit_checks_gpus_against_the_nodes_it_read(kube, tmp_path: Path, capsys) -> None:
    """Without --inventory, JOB-GPU-CAPACITY no longer says no inventory backs the GPUs: the
    cluster's nodes do."""
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    code, out, err = cli(
        capsys, "submit", str(job_file), "--backend", "kubernetes", "--kubeconfig", str(config)
    )
    assert code == 0, out + err
    assert "no inventory says the nodes have them" not in out + err
