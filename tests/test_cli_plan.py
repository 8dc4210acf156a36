"""``rlark-migrate plan``, ``check``, ``crd`` and ``rules`` end to end (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from rlark_widgets.cli import main
from rlark_widgets.rlark.rules import RULES

REPO = Path(__file__).resolve().parents[1]
INVENTORY = REPO / "rlark_widgets/examples/inventories/mixed-robots.yaml"
FRANKA = "examples/embodiment/config/realworld_pnp_dagger_openpi.yaml"
SINGLE = "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml"


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plan_prints_roles_rank_map_and_writes_job_and_record(
    capsys, rlinf_configs_dir: Path, tmp_path: Path
):
    job_file, record = tmp_path / "job.yaml", tmp_path / "record"
    code, out, _ = cli(
        capsys,
        "plan",
        str(rlinf_configs_dir / FRANKA),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--inventory",
        str(INVENTORY),
        "--image",
        "registry.example.com/rlinf:v0.3.0",
        "--storage",
        "oss-rlinf:/mnt/output",
        "--output-dir",
        "/mnt/output",
        "-o",
        str(job_file),
        "--record",
        str(record),
    )
    assert "Roles" in out and "Node-rank map" in out
    header = next(line for line in out.splitlines() if line.startswith("header "))
    assert "kubernetes.io/hostname=gpu-0" in header
    franka = next(line for line in out.splitlines() if line.startswith("franka "))
    assert "rlinf.io/device-franka: 1" in franka
    # the shipped config has a placeholder robot IP: an error finding, so exit 1
    assert "CFG-ROBOT-IP" in out and code == 1
    manifest = yaml.safe_load(job_file.read_text())
    assert [t["replicas"] for t in manifest["spec"]["tasks"]] == [1, 1]
    assert (record / "job.yaml").read_text() == job_file.read_text()


def test_plan_json_and_exit_0_for_a_clean_plan(capsys, rlinf_configs_dir: Path, tmp_path: Path):
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(
        yaml.safe_dump(
            {
                "cluster": "lab",
                "storageClasses": ["oss-rlinf"],
                "nodes": [
                    {
                        "name": "gpu-0",
                        "labels": {
                            "kubernetes.io/hostname": "gpu-0",
                            "rlark.io/node-category": "cloud",
                        },
                        "allocatable": {"nvidia.com/gpu": 8},
                    }
                ],
            }
        )
    )
    code, out, _ = cli(
        capsys,
        "plan",
        str(rlinf_configs_dir / SINGLE),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--inventory",
        str(inventory),
        "--image",
        "registry.example.com/rlinf@sha256:" + "ab" * 32,
        "--prepare",
        "source /opt/venv/bin/activate",
        "--storage",
        "oss-rlinf:/mnt/output",
        "--output-dir",
        "/mnt/output",
        "--rlinf-commit",
        "a3816b59",
        "--image-digest",
        "sha256:" + "ab" * 32,
        "--json",
    )
    data = json.loads(out)
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert errors == [] and code == 0 and data["ok"]
    assert data["rank_map"] == [{"rlinf_node_rank": 0, "role": "worker", "worker": 0}]
    assert data["roles"][0]["gpus_per_worker"] == 8 and data["roles"][0]["matched_nodes"] == [
        "gpu-0"
    ]


def test_plan_of_a_rejected_config_names_the_reason(capsys, rlinf_configs_dir: Path):
    config = rlinf_configs_dir / "examples/reasoning/config/math/qwen2.5-1.5b-reinpp-megatron.yaml"
    code, out, _ = cli(capsys, "plan", str(config), "--rlinf-repo", str(rlinf_configs_dir))
    assert code == 1
    assert "PLN-REJECTED" in out and "Reward GPUs must be specified" in out


def test_check_reports_schema_and_rule_findings(capsys, rlinf_configs_dir: Path, tmp_path: Path):
    job_file = tmp_path / "job.yaml"
    cli(
        capsys,
        "plan",
        str(rlinf_configs_dir / SINGLE),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--image",
        "registry.example.com/rlinf:v0.3.0",
        "-o",
        str(job_file),
    )
    manifest = yaml.safe_load(job_file.read_text())
    manifest["spec"]["tasks"][0]["replicas"] = 2  # the Header now makes two Workers
    manifest["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = "rlinf:latest"
    job_file.write_text(yaml.safe_dump(manifest))
    code, out, _ = cli(
        capsys,
        "check",
        str(job_file),
        "--config",
        str(rlinf_configs_dir / SINGLE),
        "--rlinf-repo",
        str(rlinf_configs_dir),
        "--json",
    )
    rule_ids = {f["rule_id"] for f in json.loads(out)["findings"]}
    assert {"PLN-HEADER", "PLN-WORKER-COUNT", "JOB-IMAGE"} <= rule_ids and code == 1


def test_check_rejects_non_job_yaml(capsys, tmp_path: Path):
    job_file = tmp_path / "job.yaml"
    job_file.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n")
    code, out, _ = cli(capsys, "check", str(job_file))
    assert code == 1 and "JOB-SCHEMA" in out and "spec" in out


def test_check_refuses_one_storage_name_with_two_storage_classes(capsys, tmp_path: Path):
    """A Job holds one StorageClass per storage name; reading two would keep one silently."""
    from test_kubernetes_backend import demo_job

    from rlark_widgets.rlark.job import Mount
    from rlark_widgets.rlark.yaml_io import render_job_yaml

    job = demo_job()
    job.roles[0].mounts = [Mount("output", "storage", "oss-rlinf", "/mnt/output")]
    manifest = yaml.safe_load(render_job_yaml(job))
    manifest["spec"]["storage"].append(
        {**manifest["spec"]["storage"][0], "storageClassName": "nas"}
    )
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(manifest))
    code, _, err = cli(capsys, "check", str(job_file))
    index = len(manifest["spec"]["storage"]) - 1
    assert (
        code == 1
        and (
            f"spec.storage[{index}]: storage 'output' is StorageClass 'nas' here and 'oss-rlinf' in "
            "spec.storage[0]; one storage name has one StorageClass."
        )
        in err
    )
    manifest["spec"]["storage"][-1]["storageClassName"] = "oss-rlinf"  # listed twice, same class
    job_file.write_text(yaml.safe_dump(manifest))
    assert "one storage name has one" not in cli(capsys, "check", str(job_file))[2]


def test_crd_and_rules(capsys):
    code, out, _ = cli(capsys, "crd")
    crd = yaml.safe_load(out)
    assert code == 0 and crd["metadata"]["name"] == "jobs.rlark.io"
    assert "openAPIV3Schema" in crd["spec"]["versions"][0]["schema"]
    code, out, _ = cli(capsys, "rules", "--markdown")
    assert code == 0
    for rule in RULES:
        assert f"| {rule.id} |" in out


def test_rules_lists_every_kubernetes_and_kuberay_rule_the_code_raises(capsys):
    """Preflight and the KubeRay export raise K8S-* and KRAY-* findings outside the registry."""
    import re

    import rlark_widgets

    package = Path(rlark_widgets.__file__).parent
    raised = {
        rule_id
        for path in package.rglob("*.py")
        for rule_id in re.findall(
            r'"((?:K8S|KRAY)-[A-Z-]*[A-Z])"', path.read_text(encoding="utf-8")
        )
    }
    assert {"K8S-CAPACITY", "KRAY-RANKS", "KRAY-PVC-MISSING"} <= raised
    code, english, _ = cli(capsys, "rules")
    code_zh, chinese, _ = cli(capsys, "--lang", "zh", "rules")
    assert code == code_zh == 0
    readme = (REPO / "docs" / "reference" / "rules.md").read_text()
    for rule_id in sorted(raised):
        line_en = next(line for line in english.splitlines() if line.startswith(rule_id + " "))
        line_zh = next(line for line in chinese.splitlines() if line.startswith(rule_id + " "))
        assert line_en != line_zh, rule_id  # the title is in Chinese
        assert f"| {rule_id} |" in readme, rule_id


def test_the_reference_page_lists_every_rule():
    readme = (REPO / "docs" / "reference" / "rules.md").read_text()
    for rule in RULES:
        assert f"| {rule.id} |" in readme, rule.id
