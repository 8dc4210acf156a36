"""Export to KubeRay: golden manifests, KubeRay's own schema, node ranks, check, and the CLI.

Regenerate the golden files after an intended change with
``RLARK_UPDATE_GOLDEN=1 pytest tests/test_kuberay_export.py`` and review the diff: these are
what a user applies to a cluster with KubeRay.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from kuberay_emulator import operator_pods
from test_cli_jobs import cli

from rlark_widgets.examples import example_configs
from rlark_widgets.findings import Severity
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.kuberay import (
    ExportOptions,
    check_kuberay,
    export_checked,
    export_job,
    kuberay_schema_findings,
    read_kuberay,
)
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import dump_yaml, render_job_yaml
from rlark_widgets.rlinf import inspect_config, load_config

GOLDEN = Path(__file__).resolve().parent / "golden" / "kuberay"
INVENTORIES = Path(__file__).resolve().parents[1] / "rlark_widgets" / "examples" / "inventories"
ROBOT_CONFIG = "realworld_peginsertion_rlpd_cnn_async_2arms"
SETTINGS = dict(
    image="registry.example.com/rlinf:v0.3.0-cuda12.4",
    prepare_script="source /opt/venv/bin/activate\n",
    mounts=[Mount("output", "storage", "oss-rlinf", "/mnt/output")],
    output_mount="/mnt/output",
)


def planned(name: str, inventory: str | None = None):
    report = inspect_config(load_config(str(example_configs()[name])), 8, search_gpus=False)
    plan = plan_roles(
        report, load_inventory(INVENTORIES / inventory, site=example_site()) if inventory else None
    )
    return report, build_job(plan, JobSettings(**SETTINGS), site=example_site())


def pods_by_rank(manifest: dict, job: Job) -> dict[int, list[dict]]:
    """What each planned node rank gets once the operator makes the pods: rank -> its pods.

    With RLINF_NODE_RANK set, a pod's rank is its env; without, RLinf puts the driver's head at
    0 and the other pods are interchangeable, so they fill the remaining ranks in any order.
    """
    spec = manifest["spec"].get("rayClusterSpec", manifest["spec"])
    pods = []
    for pod, group in operator_pods(spec, "c"):
        container = pod["spec"]["containers"][0]
        env = {e["name"]: e["value"] for e in container.get("env") or []}
        limits = dict((container.get("resources") or {}).get("limits") or {})
        params = group.get("rayStartParams") or {}
        # bash reads the value as one word (KubeRay pastes it into the command it evals)
        words = shlex.split(params["resources"]) if "resources" in params else ["{}"]
        devices = json.loads(words[0])
        pods.append(
            {
                "head": pod["metadata"]["labels"]["ray.io/node-type"] == "head",
                "rank": env.get("RLINF_NODE_RANK"),
                "gpus": int(limits.pop("nvidia.com/gpu", 0)),
                "num_gpus": int(params["num-gpus"]),
                "devices": limits,
                "ray_resources": devices,
            }
        )
    ranked = [p for p in pods if p["rank"] is not None]
    assert not ranked or len(ranked) == len(pods), "RLinf: all pods set RLINF_NODE_RANK or none"
    by_rank: dict[int, list[dict]] = {}
    if ranked:
        for pod in pods:
            by_rank.setdefault(int(pod["rank"]), []).append(pod)
        return by_rank
    head = [p for p in pods if p["head"]]
    others = [p for p in pods if not p["head"]]
    by_rank[0] = head
    wanted = {rank: role for role, ranks in job.node_rank_ranges() for rank in ranks}
    # interchangeable pods: match them to the ranks greedily by what they carry
    for rank in sorted(r for r in wanted if r != 0):
        role = wanted[rank]
        match = next(
            (p for p in others if p["gpus"] == role.gpus and p["devices"] == role.devices), None
        )
        by_rank[rank] = [match] if match else []
        if match:
            others.remove(match)
    assert not others, "more pods than planned node ranks"
    return by_rank


def assert_one_pod_per_rank(manifest: dict, job: Job) -> None:
    by_rank = pods_by_rank(manifest, job)
    assert sorted(by_rank) == list(range(job.total_workers))
    for role, ranks in job.node_rank_ranges():
        for rank in ranks:
            (pod,) = by_rank[rank]
            assert pod["head"] == (role.head and rank == ranks.start)
            assert (pod["gpus"], pod["num_gpus"]) == (role.gpus, role.gpus)
            assert pod["devices"] == role.devices == pod["ray_resources"]


# --- golden manifests ---------------------------------------------------------------------------
CASES = {name: (name, "gpu-cloud.yaml") for name in example_configs()}
CASES[ROBOT_CONFIG] = (ROBOT_CONFIG, "mixed-robots.yaml")


@pytest.mark.parametrize("case", sorted(CASES))
def test_exported_manifest_matches_golden_and_kuberays_schema(case: str) -> None:
    name, inventory = CASES[case]
    report, job = planned(name, inventory)
    exported = export_checked(
        given_job(
            job,
            report,
            load_inventory(INVENTORIES / inventory, site=example_site()),
            site=example_site(),
        )
    )
    text = dump_yaml(exported.manifest)
    golden = GOLDEN / f"{case}.rayjob.yaml"
    if os.environ.get("RLARK_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()
    assert kuberay_schema_findings(exported.manifest) == []
    assert_one_pod_per_rank(exported.manifest, job)
    back = read_kuberay(yaml.safe_load(text), site=example_site()).job
    assert [(r.name, r.replicas, r.head, r.gpus, r.devices) for r in back.roles] == [
        (r.name, r.replicas, r.head, r.gpus, r.devices) for r in job.roles
    ]
    assert back.run_script == job.run_script
    assert [r.prepare_script for r in back.roles] == [r.prepare_script for r in job.roles]


def test_the_robot_config_with_node_groups_gives_every_rank_its_group_and_its_devices() -> None:
    report, job = planned(ROBOT_CONFIG, "mixed-robots.yaml")
    manifest = export_checked(given_job(job, report, site=example_site())).manifest
    groups = manifest["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert [(g["groupName"], g["replicas"]) for g in groups] == [
        ("franka-rank-1", 1),
        ("franka-rank-2", 1),
    ]
    for rank, group in enumerate(groups, start=1):
        container = group["template"]["spec"]["containers"][0]
        assert {"name": "RLINF_NODE_RANK", "value": str(rank)} in container["env"]
        assert container["resources"]["limits"] == {"rlinf.io/device-franka": 1}
        assert group["rayStartParams"]["resources"] == "'{\"rlinf.io/device-franka\": 1}'"


def test_a_rayjob_runs_the_run_script_and_exposes_its_lifetime_fields() -> None:
    _, job = planned("qwen2.5-7b-grpo-megatron")
    options = ExportOptions(
        node_groups=False, ttl_seconds_after_finished=30, active_deadline_seconds=86400
    )
    spec = export_job(job, options, site=example_site()).manifest["spec"]
    assert spec["entrypoint"].startswith("bash -c 'set -euo pipefail\ncd /workspace/RLinf\n")
    assert "fewer than {expected} Ray nodes joined" in spec["entrypoint"]
    assert spec["shutdownAfterJobFinishes"] is True
    assert (spec["ttlSecondsAfterFinished"], spec["activeDeadlineSeconds"]) == (30, 86400)
    assert spec["submissionMode"] == "HTTPMode"
    kept = export_job(
        job, ExportOptions(shutdown_after_job_finishes=False), site=example_site()
    ).manifest["spec"]
    assert kept["shutdownAfterJobFinishes"] is False and "ttlSecondsAfterFinished" not in kept


def test_grouped_replicas_only_without_node_groups_and_with_one_kind_of_worker() -> None:
    _, job = planned("qwen2.5-7b-grpo-megatron")
    grouped = export_job(job, ExportOptions(node_groups=False), site=example_site())
    assert [(g.name, g.replicas, g.ranks) for g in grouped.groups] == [
        ("headgroup", 1, None),
        ("workers", 15, None),
    ]
    why = next(f for f in grouped.findings if f.rule_id == "KRAY-RANKS")
    assert why.message.startswith("No cluster.node_groups and one kind of Worker")
    unknown = export_job(job, ExportOptions(node_groups=None), site=example_site())
    assert len(unknown.groups) == 16 and unknown.groups[5].ranks == (5,)
    assert "Without the RLinf config" in next(
        f.message for f in unknown.findings if f.rule_id == "KRAY-RANKS"
    )


def test_rlark_fields_kuberay_lacks_are_findings_and_pvcs_are_named() -> None:
    _, job = planned("maniskill_ppo_openvlaoft")
    job.tensorboard_log_dir, job.network_domain = "/mnt/output/tb", "lab-net"
    job.ssh_keys = ["alice-laptop"]
    exported = export_job(
        job, ExportOptions(kind="RayCluster", claims={"output": "shared-out"}), site=example_site()
    )
    found = {(f.rule_id, f.path) for f in exported.findings}
    assert {
        ("KRAY-NO-FIELD", "spec.tensorboard"),
        ("KRAY-NO-FIELD", "spec.networkDomain"),
        ("KRAY-NO-FIELD", "spec.sshKeys"),
        ("KRAY-RUN-SCRIPT", "spec.runScript"),
        ("KRAY-PVC", "volumes.output"),
    } <= found
    volumes = exported.manifest["spec"]["headGroupSpec"]["template"]["spec"]["volumes"]
    assert volumes == [{"name": "output", "persistentVolumeClaim": {"claimName": "shared-out"}}]
    pvc = next(f for f in exported.findings if f.rule_id == "KRAY-PVC")
    assert "PVC 'shared-out' (StorageClass 'oss-rlinf'" in pvc.message
    assert "KubeRay 不会创建存储" in pvc.message_in("zh")


def test_a_job_without_one_single_worker_header_is_not_exported() -> None:
    job = Job("x", [Role("a", 2, "img:1", head=True)], run_script="true")
    exported = export_job(job, site=example_site())
    assert exported.manifest is None and [f.rule_id for f in exported.findings] == ["KRAY-HEAD"]


# --- the property: every planned node rank gets exactly one pod with its GPUs and devices --------
DEVICE_NAMES = ("rlinf.io/device-franka", "rlinf.io/camera-d435")
roles = st.lists(
    st.tuples(
        st.integers(1, 4),
        st.integers(0, 8),
        st.dictionaries(st.sampled_from(DEVICE_NAMES), st.integers(1, 2), max_size=2),
    ),
    min_size=0,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(
    head_gpus=st.integers(0, 8),
    workers=roles,
    node_groups=st.sampled_from([None, False, True]),
    kind=st.sampled_from(["RayJob", "RayCluster"]),
)
def test_every_planned_rank_gets_exactly_one_pod_with_its_gpus_and_devices(
    head_gpus, workers, node_groups, kind
) -> None:
    job = Job(
        "prop",
        [
            Role("header", 1, "img:1", head=True, gpus=head_gpus),
            *(
                Role(f"role{i}", replicas, "img:1", gpus=gpus, devices=devices)
                for i, (replicas, gpus, devices) in enumerate(workers)
            ),
        ],
        run_script="cd /w && python x.py",
    )
    exported = export_job(
        job, ExportOptions(kind=kind, node_groups=node_groups), site=example_site()
    )
    assert kuberay_schema_findings(exported.manifest) == []
    assert_one_pod_per_rank(exported.manifest, job)
    if node_groups is not False or len(workers) > 1:
        assert all(g.ranks is not None and g.replicas == 1 for g in exported.groups)


CONFIGS = {name: load_config(str(path)) for name, path in example_configs().items()}


@settings(max_examples=20, deadline=None)
@given(
    name=st.sampled_from(sorted(CONFIGS)),
    gpus=st.sampled_from(["8", "4", "2", "1", "0:8,1:4", "0:4,1:8,2:2"]),
    inventory=st.sampled_from([None, "gpu-cloud.yaml", "mixed-robots.yaml"]),
)
def test_every_plan_of_the_examples_exports_one_pod_per_planned_rank(name, gpus, inventory):
    """From the planner itself: any example, GPU layout and inventory it can plan."""
    report = inspect_config(CONFIGS[name], gpus, search_gpus=False)
    plan = plan_roles(
        report, load_inventory(INVENTORIES / inventory, site=example_site()) if inventory else None
    )
    if not plan.ok:
        return  # RLinf rejects the layout: nothing is planned, so nothing is exported
    job = build_job(plan, JobSettings(**SETTINGS), site=example_site())
    exported = export_checked(given_job(job, report, site=example_site()))
    assert exported.manifest is not None
    assert kuberay_schema_findings(exported.manifest) == []
    assert_one_pod_per_rank(exported.manifest, job)
    assert [rank for rank, _, _ in plan.rank_map()] == list(range(job.total_workers))
    if report.cluster.node_groups:
        assert all(g.ranks == (rank,) for rank, g in enumerate(exported.groups))


# --- check on KubeRay YAML ------------------------------------------------------------------------
def test_check_finds_broken_ranks_secrets_and_images_at_kuberay_paths() -> None:
    report, job = planned(ROBOT_CONFIG, "mixed-robots.yaml")
    manifest = export_checked(given_job(job, report, site=example_site())).manifest
    assert [
        f
        for f in check_kuberay(manifest, report, site=example_site())
        if f.rule_id.startswith("KRAY")
    ] == []
    broken = copy.deepcopy(manifest)
    groups = broken["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    container = groups[1]["template"]["spec"]["containers"][0]
    container["env"] = [{"name": "HF_TOKEN", "value": "hf_abcdefghijklmnopqrstuvwxyz012345"}]
    container["image"] = "rlinf:latest"
    found = {(f.rule_id, f.path) for f in check_kuberay(broken, report, site=example_site())}
    assert ("KRAY-RANKS", "spec.rayClusterSpec.workerGroupSpecs[1]") in found
    image = "spec.rayClusterSpec.workerGroupSpecs[1].template.spec.containers[0].image"
    assert ("JOB-IMAGE", image) in found
    assert any(
        rule == "SEC-SECRET"
        and path
        == "spec.rayClusterSpec.workerGroupSpecs[1].template.spec.containers[0].env[0].value"
        for rule, path in found
    )
    schema = copy.deepcopy(manifest)
    schema["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = "two"
    assert ("KRAY-SCHEMA", "spec.rayClusterSpec.workerGroupSpecs[0].replicas") in {
        (f.rule_id, f.path) for f in check_kuberay(schema, site=example_site())
    }


def test_check_says_node_groups_need_ranks_everywhere() -> None:
    report, job = planned(ROBOT_CONFIG, "mixed-robots.yaml")
    flat = export_job(job, ExportOptions(node_groups=False), site=example_site()).manifest
    errors = [
        f for f in check_kuberay(flat, report, site=example_site()) if f.rule_id == "KRAY-RANKS"
    ]
    assert errors and errors[0].severity is Severity.ERROR
    assert "no group sets it" in errors[0].message


def test_check_runs_gpu_coverage_mounts_and_selectors_at_kuberay_paths() -> None:
    report, job = planned("maniskill_ppo_openvlaoft", "gpu-cloud.yaml")
    manifest = copy.deepcopy(export_checked(given_job(job, report, site=example_site())).manifest)
    head = manifest["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    head["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 2
    head["containers"][0]["volumeMounts"][0]["mountPath"] = "relative/out"
    head["nodeSelector"] = {}
    found = {(f.rule_id, f.path) for f in check_kuberay(manifest, report, site=example_site())}
    base = "spec.rayClusterSpec.headGroupSpec.template.spec"
    assert ("PLN-GPU-COVER", f"{base}.containers[0].resources.limits") in found
    assert ("JOB-MOUNT-PATH", f"{base}.containers[0].volumeMounts[0].mountPath") in found
    assert ("JOB-SELECTOR-EMPTY", f"{base}.nodeSelector") in found


# --- the CLI --------------------------------------------------------------------------------------
def test_cli_export_from_a_config_and_from_job_yaml_then_check(tmp_path: Path, capsys) -> None:
    config = str(example_configs()[ROBOT_CONFIG])
    inventory = str(INVENTORIES / "mixed-robots.yaml")
    common = (
        "--inventory",
        inventory,
        "--image",
        SETTINGS["image"],
        "--storage",
        "oss-rlinf:/mnt/output",
    )
    code, out, err = cli(capsys, "export", "--config", config, *common)
    manifest = yaml.safe_load(out)
    assert manifest["kind"] == "RayJob" and "KRAY-RANKS" in err
    assert code == 1  # the config's robot IPs are placeholders (CFG-ROBOT-IP)

    target = tmp_path / "cluster.yaml"
    code, out, _ = cli(
        capsys,
        "--lang",
        "zh",
        "export",
        "--config",
        config,
        *common,
        "--kind",
        "RayCluster",
        "--claim",
        "output=shared-out",
        "-o",
        str(target),
    )
    assert f"Wrote RayCluster to {target}" not in out and "已写入" in out
    written = yaml.safe_load(target.read_text())
    assert written["kind"] == "RayCluster"
    code, out, _ = cli(capsys, "check", str(target), "--json")
    data = json.loads(out)
    assert {f["rule_id"] for f in data["findings"]} >= {"JOB-IMAGE-DIGEST"}
    assert not any(f["rule_id"].startswith("KRAY-SCHEMA") for f in data["findings"])

    _, job = planned("qwen2.5-7b-grpo-megatron")
    job_file = tmp_path / "job.yaml"
    job_file.write_text(render_job_yaml(job))
    code, out, err = cli(capsys, "export", str(job_file))
    groups = yaml.safe_load(out)["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert len(groups) == 15 and "Without the RLinf config" in err
    config = str(example_configs()["qwen2.5-7b-grpo-megatron"])
    code, out, err = cli(capsys, "export", str(job_file), "--config", config)
    groups = yaml.safe_load(out)["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert [(g["groupName"], g["replicas"]) for g in groups] == [("workers", 15)]
