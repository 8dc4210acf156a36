"""What the user wrote is what is submitted (issue #15).

A Job read from YAML keeps every field the schema allows: read -> write -> read gives the same
document. What a Job cannot keep is refused by a finding that names the field (JOB-NOT-KEPT),
and volume wiring Kubernetes would refuse is an error before submission (JOB-VOLUME). Against
the emulator, what ``check`` passed is what ``submit`` stores.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import yaml
from fuzz_strategies import UNKEPT, schema_jobs
from hypothesis import HealthCheck, given, settings
from kube_emulator import NAMESPACE
from test_cli_jobs import cli, write_kubeconfig

from rlark_widgets.backends.k8s.ownership import without_mark
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.job import Job
from rlark_widgets.rlark.schema import schema_findings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.written import SERVER_METADATA, normal_text, written_findings
from rlark_widgets.rlark.yaml_io import dump_yaml, parse_job_yaml, render_job_yaml

BASE = {
    "apiVersion": "rlark.io/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "resume", "namespace": NAMESPACE, "labels": {"team": "vla"}},
    "spec": {
        "runScript": "cd /workspace/RLinf && bash examples/embodiment/run_embodiment.sh demo\n",
        "tasks": [
            {
                "name": "header",
                "head": True,
                "replicas": 1,
                "template": {
                    "metadata": {"labels": {"app": "rlinf"}, "annotations": {"a": "b"}},
                    "spec": {
                        "nodeSelector": {
                            "rlark.io/cluster": "gpu-a",
                            "kubernetes.io/hostname": "a800-0",
                        },
                        "containers": [
                            {
                                "name": "main",
                                "image": "registry.example.com/rlinf:v0.3.0-cuda12.4",
                                "resources": {"limits": {"nvidia.com/gpu": 8}},
                                "volumeMounts": [{"name": "ckpt", "mountPath": "/mnt/ckpt"}],
                            }
                        ],
                        "volumes": [
                            {
                                "name": "ckpt",
                                "persistentVolumeClaim": {"claimName": "my-existing-pvc"},
                            }
                        ],
                    },
                },
            }
        ],
    },
}


def _findings(document: dict) -> list[tuple[str, str]]:
    return [(f.rule_id, f.path) for f in written_findings(document)]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(manifest=schema_jobs())
def test_every_job_the_schema_allows_reads_back_as_written(manifest: dict) -> None:
    assert schema_findings(manifest, site=example_site()) == [] and written_findings(manifest) == []
    job = Job.from_manifest(copy.deepcopy(manifest), site=example_site())
    assert normal_text(job.to_manifest()) == normal_text(manifest)
    text = render_job_yaml(job)
    again = parse_job_yaml(text, site=example_site())
    assert again == job and render_job_yaml(again) == text  # read -> write -> read is stable


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(manifest=schema_jobs())
def test_fields_a_job_cannot_keep_are_named(manifest: dict) -> None:
    for path, value in UNKEPT:
        document = copy.deepcopy(manifest)
        *parents, last = path.split(".")
        target = document
        for part in parents:
            target = target[part]
        target[last] = value
        found = [
            f
            for f in given_job(
                Job.from_manifest(document, site=example_site()),
                document=document,
                site=example_site(),
            ).findings
        ]
        assert ("JOB-NOT-KEPT", path) in [(f.rule_id, f.path) for f in found], path
        assert all(f.severity.value == "error" for f in found if f.rule_id == "JOB-NOT-KEPT")


def test_an_existing_claim_labels_and_template_metadata_are_kept() -> None:
    job = parse_job_yaml(dump_yaml(BASE), site=example_site())
    manifest = job.to_manifest()
    volume = manifest["spec"]["tasks"][0]["template"]["spec"]["volumes"][0]
    assert volume == {"name": "ckpt", "persistentVolumeClaim": {"claimName": "my-existing-pvc"}}
    assert "storage" not in manifest["spec"]  # an existing claim is not created again
    assert manifest["metadata"]["labels"] == {"team": "vla"}
    assert manifest["spec"]["tasks"][0]["template"]["metadata"]["labels"] == {"app": "rlinf"}
    assert _findings(BASE) == []


def test_a_storage_entrys_own_claim_name_is_kept() -> None:
    document = copy.deepcopy(BASE)
    document["spec"]["storage"] = [
        {"name": "ckpt", "storageClassName": "oss-rlinf", "claimName": "my-existing-pvc"}
    ]
    manifest = parse_job_yaml(dump_yaml(document), site=example_site()).to_manifest()
    assert manifest["spec"]["storage"] == document["spec"]["storage"]
    assert normal_text(manifest) == normal_text(document)


def _pod_spec(document: dict) -> dict:
    return document["spec"]["tasks"][0]["template"]["spec"]


def test_volume_wiring_kubernetes_refuses_is_an_error() -> None:
    spec_path = "spec.tasks[0].template.spec"
    no_volume = copy.deepcopy(BASE)
    _pod_spec(no_volume)["containers"][0]["volumeMounts"].append(
        {"name": "data", "mountPath": "/mnt/data"}
    )
    assert ("JOB-VOLUME", f"{spec_path}.containers[0].volumeMounts[1].name") in _findings(no_volume)

    twice = copy.deepcopy(BASE)
    _pod_spec(twice)["volumes"].append({"name": "ckpt", "hostPath": {"path": "/data"}})
    assert ("JOB-VOLUME", f"{spec_path}.volumes[1].name") in _findings(twice)

    same_path = copy.deepcopy(BASE)
    _pod_spec(same_path)["volumes"].append({"name": "data", "hostPath": {"path": "/data"}})
    _pod_spec(same_path)["containers"][0]["volumeMounts"].append(
        {"name": "data", "mountPath": "//mnt//ckpt/"}  # the same directory, written otherwise
    )
    assert ("JOB-VOLUME", f"{spec_path}.containers[0].volumeMounts[1].mountPath") in _findings(
        same_path
    )

    two_sources = copy.deepcopy(BASE)
    _pod_spec(two_sources)["volumes"][0]["hostPath"] = {"path": "/data"}
    assert ("JOB-VOLUME", f"{spec_path}.volumes[0]") in _findings(two_sources)

    other_claim = copy.deepcopy(BASE)
    other_claim["spec"]["storage"] = [
        {"name": "ckpt", "storageClassName": "oss-rlinf", "claimName": "resume-ckpt"}
    ]
    assert (
        "JOB-VOLUME",
        f"{spec_path}.volumes[0].persistentVolumeClaim.claimName",
    ) in _findings(other_claim)


def test_integral_numbers_compare_as_integers() -> None:
    document = copy.deepcopy(BASE)
    _pod_spec(document)["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 8.0
    document["spec"]["tasks"][0]["replicas"] = 1.0
    assert schema_findings(document, site=example_site()) == []  # 1.0 is an integer to JSON Schema
    assert normal_text(
        parse_job_yaml(dump_yaml(document), site=example_site()).to_manifest()
    ) == normal_text(BASE)


def test_what_a_job_cannot_keep_is_named() -> None:
    env_twice = copy.deepcopy(BASE)
    _pod_spec(env_twice)["containers"][0]["env"] = [
        {"name": "A", "value": "1"},
        {"name": "A", "value": "2"},
    ]
    assert ("JOB-NOT-KEPT", "spec.tasks[0].template.spec.containers[0].env[1]") in _findings(
        env_twice
    )
    storage_twice = copy.deepcopy(BASE)
    storage_twice["spec"]["storage"] = [
        {"name": "out", "storageClassName": "oss-rlinf", "claimName": "a"},
        {"name": "out", "storageClassName": "oss-rlinf", "claimName": "b"},
    ]
    assert ("JOB-NOT-KEPT", "spec.storage[1].name") in _findings(storage_twice)
    two_mains = copy.deepcopy(BASE)
    _pod_spec(two_mains)["containers"].append({"name": "main", "image": "x:1"})
    assert ("JOB-NOT-KEPT", "spec.tasks[0].template.spec.containers") in _findings(two_mains)


def test_a_key_written_twice_is_refused_with_its_line(tmp_path: Path, capsys) -> None:
    text = dump_yaml(BASE).replace("  namespace: research\n", "  namespace: research\n  name: x\n")
    job_file = tmp_path / "job.yaml"
    job_file.write_text(text)
    code, out, err = cli(capsys, "check", str(job_file))
    assert code == 1 and "the key 'name' appears twice (first at line 4)" in err, err


# --- against the emulator: what check passed is what submit stored -----------------------------
def stored(kube, name: str) -> dict:
    """The Job as the API server holds it, without what the server adds and without the one
    label submit adds to every object it creates (the ownership mark, ``k8s/ownership.py``)."""
    document = kube.job(name)
    for key in SERVER_METADATA:
        document["metadata"].pop(key, None)
    document.pop("status", None)
    labels = document["metadata"].get("labels") or {}
    document["metadata"]["labels"] = without_mark(labels)
    if not document["metadata"]["labels"]:
        del document["metadata"]["labels"]
    return document


def test_submit_stores_what_check_passed(kube, tmp_path: Path, capsys) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(BASE))
    assert cli(capsys, "check", str(job_file))[0] == 0
    code, out, err = cli(
        capsys, "submit", str(job_file), "--backend", "kubernetes", "--kubeconfig", str(config)
    )
    assert code == 0, out + err
    assert normal_text(stored(kube, "resume")) == normal_text(BASE)


def test_a_different_job_under_an_existing_name_exits_1(kube, tmp_path: Path, capsys) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    backend = ("--backend", "kubernetes", "--kubeconfig", str(config))
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(BASE))
    assert cli(capsys, "submit", str(job_file), *backend)[0] == 0
    assert cli(capsys, "submit", str(job_file), *backend)[0] == 0  # the same Job: nothing to do
    changed = copy.deepcopy(BASE)
    _pod_spec(changed)["containers"][0]["image"] = "registry.example.com/rlinf:v0.4.0"
    job_file.write_text(yaml.safe_dump(changed))
    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 1 and "Not submitted again: resume." in out and "It was NOT overwritten" in out
    assert normal_text(stored(kube, "resume")) == normal_text(BASE)
    relabelled = copy.deepcopy(BASE)  # a label is part of what the user wrote, too
    relabelled["metadata"]["labels"]["team"] = "other"
    job_file.write_text(yaml.safe_dump(relabelled))
    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 1 and "metadata.labels.team" in out


def test_a_console_field_the_job_cannot_send_is_refused_by_name(tmp_path: Path, capsys) -> None:
    """`check` reads the console's YAML: an unknown field is noted (JOB-UNKNOWN-FIELD) and, as
    the Job would not submit it, refused by name (JOB-NOT-KEPT); submit then refuses it."""
    document = copy.deepcopy(BASE)
    document["spec"]["priorityClass"] = "research"
    job_file = tmp_path / "console.yaml"
    job_file.write_text(yaml.safe_dump(document))
    code, out, _ = cli(capsys, "check", str(job_file), "--json")

    by_rule = {(f["rule_id"], f["path"]): f["severity"] for f in json.loads(out)["findings"]}
    assert code == 1
    assert by_rule[("JOB-UNKNOWN-FIELD", "spec.priorityClass")] == "info"
    assert by_rule[("JOB-NOT-KEPT", "spec.priorityClass")] == "error"
