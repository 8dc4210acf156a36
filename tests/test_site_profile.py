"""A site profile with its own label keys, category values and Job API, end to end.

Nothing in the plan, the checks, the inventory or the monitor may fall back to the shipped
example's names (``rlark.io/...``, ``cloud``/``edge``/``robot``) once a site says otherwise: the
seeds say these values are defined by each RLark environment. The cluster is kmock's emulator
seeded in the site's labels and serving the site's Job resource, reached with the official
client over HTTP (``tests/kube_emulator.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from kube_emulator import NAMESPACE, Cluster, LoopThread
from test_cli_jobs import cli, write_kubeconfig

from rlark_widgets.examples import example_configs
from rlark_widgets.pipeline import PlanRequest, given_job, plan_job
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.inventory import inventory_findings, inventory_from_dict, load_inventory
from rlark_widgets.rlark.schema import crd, schema_findings
from rlark_widgets.rlark.site import SiteError, example_site, load_site, site_from_dict
from rlark_widgets.rlark.yaml_io import parse_job_yaml, render_job_yaml
from rlark_widgets.rlinf import GpuLayout, load_config

SITE = {
    "name": "lab-east",
    "clusterLabel": "platform.example.org/pool",
    "nodeCategory": {
        "label": "platform.example.org/kind",
        "values": {"cloud": "gpu-server", "edge": "edge-box", "robot": "robot-pc"},
    },
    "devicePrefix": "devices.example.org/",
    "gpuResource": "nvidia.com/gpu",
    "storageClasses": ["lab-nas"],
    "reservedEnv": ["PLATFORM_TOKEN_DIR"],
    "reservedEnvPrefixes": ["PLATFORM_"],
    "rlinfDir": "/opt/rlinf",
    "jobApi": {
        "group": "train.example.org",
        "version": "v1",
        "kind": "TrainingJob",
        "plural": "trainingjobs",
    },
    "workerLabels": {
        "job": "train.example.org/job",
        "task": "train.example.org/role",
        "workerIndex": "train.example.org/index",
    },
}
EXAMPLE_NAMES = ("rlark.io/", "rlinf.io/device", "/workspace/RLinf")


@pytest.fixture
def site_file(tmp_path: Path) -> Path:
    path = tmp_path / "site.yaml"
    path.write_text(yaml.safe_dump(SITE), encoding="utf-8")
    return path


@pytest.fixture
def site(site_file: Path):
    return load_site(site_file)


@pytest.fixture
def lab(kube_loop: LoopThread, tmp_path: Path, site):
    """The emulated cluster, in the site's labels and serving its TrainingJob resource."""
    cluster = Cluster(kube_loop, tmp_path / "output", site)
    yield cluster
    cluster.close()


def _config():
    return load_config(example_configs()["local_rehearsal_2node"])


def test_the_profile_reads_every_fact_and_says_which_values_are_examples(site) -> None:
    assert site.cluster_label == "platform.example.org/pool"
    assert site.category_value("robot") == "robot-pc"
    assert site.console_category("edge-box") == "edge"
    assert site.api_version == "train.example.org/v1" and site.kind == "TrainingJob"
    assert site.job_resource == "trainingjobs.train.example.org"
    assert not site.is_example
    assert "example" not in site.provenance().render().lower()
    partial = site_from_dict({"clusterLabel": "x/pool"}, "partial.yaml")
    assert partial.cluster_label == "x/pool" and partial.example_fields >= {
        "jobApi",
        "nodeCategory",
    }
    assert "jobApi" in partial.provenance().render() and "示例" in partial.provenance().render("zh")
    example = example_site()
    assert example.is_example and "EXAMPLE" in example.provenance().render()


def test_a_broken_profile_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(SiteError, match="jobApi.group"):
        site_from_dict({"jobApi": {"version": "v1", "kind": "J", "plural": "js"}})
    with pytest.raises(SiteError, match="No site profile"):
        load_site(tmp_path / "missing.yaml")


def test_unknown_categories_are_kept_as_reported_with_an_info(site) -> None:
    data = {
        "nodes": [
            {"name": "n0", "labels": {"platform.example.org/kind": "gpu-server"}},
            {"name": "n1", "labels": {"platform.example.org/kind": "spot-pool"}},
            {"name": "n2", "labels": {}},
        ]
    }
    inventory = inventory_from_dict(data, "x", site=site)
    assert [n.category for n in inventory.nodes] == ["gpu-server", "spot-pool", None]
    (finding,) = inventory_findings(inventory)
    assert finding.rule_id == "INV-CATEGORY" and finding.severity.value == "info"
    assert "platform.example.org/kind=spot-pool" in finding.message and "n1" in finding.message
    assert finding.path == "nodes[1].labels.platform.example.org/kind"


def test_plan_uses_the_sites_labels_values_api_and_checkout(site, lab: Cluster) -> None:
    inventory = lab.backend().inventory()
    assert {n.category for n in inventory.nodes} == {"gpu-server", "edge-box", "robot-pc"}
    assert {n.cluster for n in inventory.nodes} == {"gpu-a", "gpu-b", "lab"}
    planned = plan_job(
        PlanRequest(
            _config(),
            GpuLayout.parse(8),
            inventory,
            settings=JobSettings(image="registry.lab/rlinf:v1"),
            site=site,
        )
    )
    job = planned.job
    assert job is not None and planned.site is site
    for role in job.roles:
        assert role.node_selector[site.cluster_label] == planned.plan.target_cluster
        assert role.node_selector[site.category_label] == "gpu-server"
    manifest = job.to_manifest()
    assert manifest["apiVersion"] == "train.example.org/v1" and manifest["kind"] == "TrainingJob"
    assert "cd /opt/rlinf" in job.run_script
    # the annotation keys are rlark-widgets' own (contract.py); everything else is the site's
    text = render_job_yaml(job).split("spec:", 1)[1]
    assert not [name for name in EXAMPLE_NAMES if name in text], text
    assert not [f for f in planned.findings if f.rule_id in ("JOB-SCHEMA", "JOB-SELECTOR-CLUSTER")]
    # the example's CRD refuses this Job; the site's accepts it
    assert schema_findings(manifest, site=example_site()) and not schema_findings(manifest, site)
    assert crd(site)["metadata"]["name"] == "trainingjobs.train.example.org"


def test_check_reads_the_sites_reserved_names_and_the_consoles_unknown_fields(
    site, site_file: Path, lab: Cluster, tmp_path: Path, capsys
) -> None:
    inventory = lab.backend().inventory()
    planned = plan_job(
        PlanRequest(
            _config(),
            GpuLayout.parse(8),
            inventory,
            settings=JobSettings(image="r/x:v1"),
            site=site,
        )
    )
    manifest = planned.job.to_manifest()
    manifest["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "PLATFORM_TOKEN_DIR", "value": "/x"}
    ]
    manifest["spec"]["priorityClass"] = "research"  # a field the console writes, we do not know
    job_file = tmp_path / "console.yaml"
    job_file.write_text(yaml.safe_dump(manifest), encoding="utf-8")
    nodes = tmp_path / "nodes.yaml"
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", lab.url, NAMESPACE)
    code, out, _ = cli(
        capsys,
        "inventory",
        "--site",
        str(site_file),
        "--kubeconfig",
        str(kubeconfig),
        "-o",
        str(nodes),
    )
    assert code == 0
    code, out, _ = cli(
        capsys,
        "check",
        str(job_file),
        "--site",
        str(site_file),
        "--inventory",
        str(nodes),
        "--json",
    )
    result = json.loads(out)
    by_rule = {f["rule_id"]: f for f in result["findings"]}
    assert by_rule["JOB-UNKNOWN-FIELD"]["severity"] == "info"
    assert by_rule["JOB-UNKNOWN-FIELD"]["path"] == "spec.priorityClass"
    assert by_rule["JOB-ENV-RESERVED"]["severity"] == "error"
    assert "JOB-SCHEMA" not in by_rule and "JOB-SELECTOR-CLUSTER" not in by_rule
    assert result["site"]["name"] == "lab-east" and not result["site"]["example"]
    # without the site, the same YAML is judged by the example's API group
    code, out, _ = cli(capsys, "check", str(job_file), "--json")
    schema = [f for f in json.loads(out)["findings"] if f["rule_id"] == "JOB-SCHEMA"]
    assert [f["path"] for f in schema] == ["apiVersion", "kind"]


def test_the_inventory_export_round_trips_against_the_emulator(
    site, site_file: Path, lab: Cluster, tmp_path: Path, capsys
) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", lab.url, NAMESPACE)
    nodes = tmp_path / "nodes.yaml"
    code, out, _ = cli(
        capsys,
        "inventory",
        "--backend",
        "kubernetes",
        "--kubeconfig",
        str(kubeconfig),
        "--site",
        str(site_file),
        "-o",
        str(nodes),
        "--lang",
        "zh",
    )
    assert code == 0
    assert "站点配置 'lab-east'" in out and "robot-pc (端真机)" in out and "已禁止调度" in out
    exported = load_inventory(nodes, site)
    live = lab.backend().inventory()
    assert exported.nodes == live.nodes and exported.storage_classes == live.storage_classes
    by_name = {n.name: n for n in exported.nodes}
    assert by_name["robot-0"].devices == {"devices.example.org/device-franka": 1}
    assert not by_name["b-h100-0"].ready and by_name["edge-1"].unschedulable
    assert by_name["b-h100-1"].taints == ("nvidia.com/gpu=xid-79:NoSchedule",)
    code, out, _ = cli(
        capsys, "inventory", "--kubeconfig", str(kubeconfig), "--site", str(site_file), "--json"
    )
    data = json.loads(out)
    assert len(data["nodes"]) == 12 and data["storageClasses"] == ["cpfs-shared", "oss-rlinf"]
    # through the example profile these nodes have no cluster or category (not its labels):
    # nothing is guessed, and the output says the profile is the example
    code, out, _ = cli(capsys, "inventory", "--kubeconfig", str(kubeconfig), "--json")
    data = json.loads(out)
    assert data["site"]["example"] and {f["rule_id"] for f in data["findings"]} == set()


def test_plan_and_monitor_against_the_live_cluster(
    site, site_file: Path, lab: Cluster, tmp_path: Path, capsys
) -> None:
    """plan --backend kubernetes reads the live nodes; the monitor finds Workers by the site's
    pod labels, with their roles and indexes."""
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", lab.url, NAMESPACE)
    config = str(example_configs()["local_rehearsal_2node"])
    live = ("--backend", "kubernetes", "--kubeconfig", str(kubeconfig), "--site", str(site_file))
    code, out, _ = cli(capsys, "plan", config, *live, "--image", "r/x:v1", "--json")
    plan = json.loads(out)
    assert plan["site"]["name"] == "lab-east"
    selectors = [r["node_selector"] for r in plan["roles"]]
    assert all(s["platform.example.org/kind"] == "gpu-server" for s in selectors)
    assert all(r["matched_nodes"] for r in plan["roles"])
    capacity = [f for f in plan["findings"] if f["rule_id"] == "JOB-GPU-CAPACITY"]
    assert not capacity  # the live nodes have the GPUs asked for
    code, out, _ = cli(capsys, "plan", config, *live, "--gpus-per-node", "16", "--json")
    capacity = [f for f in json.loads(out)["findings"] if f["rule_id"] == "JOB-GPU-CAPACITY"]
    assert capacity and "have fewer" in capacity[0]["message"]  # what it read: 8 GPUs a node

    planned = plan_job(
        PlanRequest(
            _config(),
            GpuLayout.parse(8),
            lab.backend().inventory(),
            settings=JobSettings(image="r/x:v1"),
            site=site,
        )
    )
    backend = lab.backend()
    result = backend.submit(planned.job)
    assert result.created and lab.job(planned.job.name)["kind"] == "TrainingJob"
    names = lab.start_workers(planned.job.name)
    lab.run_all(planned.job.name)
    snap = backend.snapshot(planned.job.name)
    assert sorted(w.name for w in snap.workers) == sorted(names)
    assert [(w.role, w.index, w.rank) for w in snap.workers] == [
        (role, index, rank) for rank, role, index in planned.plan.rank_map()
    ]
    assert all(w.phase == "Running" for w in snap.workers)


def test_a_job_yaml_keeps_its_api_version(site) -> None:
    """A Job read back writes the apiVersion and kind it was written with, never the example's."""
    manifest = {
        "apiVersion": "train.example.org/v1",
        "kind": "TrainingJob",
        "metadata": {"name": "x"},
        "spec": {
            "runScript": "cd /opt/rlinf && python x.py",
            "tasks": [
                {
                    "name": "worker",
                    "head": True,
                    "replicas": 1,
                    "template": {"spec": {"containers": [{"name": "main", "image": "r/x:v1"}]}},
                }
            ],
        },
    }
    job = parse_job_yaml(yaml.safe_dump(manifest), site)
    assert job.to_manifest()["apiVersion"] == "train.example.org/v1"
    checked = given_job(job, site=site)
    assert not [f for f in checked.findings if f.rule_id == "JOB-SCHEMA"]


def test_kuberay_pods_carry_the_sites_worker_labels_and_the_monitor_reads_them(
    site, kube_loop: LoopThread, tmp_path: Path
) -> None:
    """The KubeRay export labels pods with the site's Worker labels (no rlinf.io/role), and the
    KubeRay backend, opened with the site, finds each Worker's role and index by them."""
    from kuberay_emulator import KubeRayCluster

    from rlark_widgets.pipeline import export_kuberay

    cluster = KubeRayCluster(kube_loop, tmp_path / "output", site)
    try:
        backend = cluster.backend()
        planned = plan_job(
            PlanRequest(
                _config(),
                GpuLayout.parse(8),
                backend.inventory(),
                settings=JobSettings(image="r/x:v1", namespace=NAMESPACE),
                site=site,
            )
        )
        manifest = export_kuberay(planned).manifest
        spec = manifest["spec"]["rayClusterSpec"]
        groups = [spec["headGroupSpec"], *spec["workerGroupSpecs"]]
        labels = [g["template"]["metadata"]["labels"] for g in groups]
        assert all("train.example.org/role" in lab for lab in labels)
        assert not any(
            key.startswith(("rlinf.io/role", "rlark.io/")) for lab in labels for key in lab
        )
        job = planned.job
        assert backend.submit(job).created
        cluster.operate(job.name)
        snap = backend.snapshot(job.name)
        assert [(w.role, w.index, w.rank) for w in snap.workers] == [
            (role, index, rank) for rank, role, index in planned.plan.rank_map()
        ]
    finally:
        cluster.close()
