"""The run record: every fact the seeds ask for, missing facts listed, secrets never written."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.facts import RecordFacts
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.record import RecordError, build_record
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import inspect_config, load_text

CONFIG = """\
cluster:
  num_nodes: 2
  component_placement:
    actor: 0-11
runner:
  task_type: embodied
  logger: {log_path: /mnt/output/logs, experiment_name: demo}
actor:
  model: {model_path: /mnt/models/openvla}
"""
SECRET = "AKIAIOSFODNN7EXAMPLE"


def _record(facts: RecordFacts | None = None, env: dict | None = None):
    report = inspect_config(
        load_text(CONFIG, "demo.yaml", ["runner.max_epochs=3"]), 8, search_gpus=False
    )
    plan = plan_roles(report)
    job = build_job(
        plan, JobSettings(image="registry.example.com/rlinf:v0.3.0"), site=example_site()
    )
    job.roles[1].env.update(env or {})
    findings = given_job(job, report, facts=facts, site=example_site()).findings
    return build_record(plan, job, findings, facts, site=example_site()), job


def test_record_holds_config_plan_versions_and_locations() -> None:
    record, job = _record(RecordFacts(rlinf_commit="a3816b59", image_digest="sha256:" + "ab" * 32))
    files = record.files
    assert "runner.max_epochs=3" in files["config/overrides.txt"]
    assert "actor: 0-11" in files["config/original.yaml"]
    assert "max_epochs: 3" in files["config/resolved.yaml"]
    assert "apiVersion: rlark.io/v1alpha1" in files["job.yaml"]
    plan = json.loads(files["plan.json"])
    assert plan["expected_workers"] == 2 == plan["rlinf_num_nodes"]
    assert [(r["name"], r["workers"], r["gpus_per_worker"]) for r in plan["roles"]] == [
        ("header", 1, 8),
        ("workers", 1, 4),
    ]
    versions = json.loads(files["versions.json"])
    assert versions["rlinf_commit"] == "a3816b59" and versions["images"] == [
        "registry.example.com/rlinf:v0.3.0"
    ]
    where = json.loads(files["locations.json"])
    assert where["actor.model.model_path"] == "/mnt/models/openvla"
    assert (
        where["checkpoints (RLinf writes)"]
        == "/mnt/output/logs/demo/checkpoints/global_step_<N>/actor"
    )
    assert json.loads(files["expansion.json"])["components"]["actor"]["world_size"] == 12
    assert any(f["rule_id"] == "JOB-SELECTOR-EMPTY" for f in json.loads(files["findings.json"]))


def test_missing_facts_are_listed_not_invented() -> None:
    record, _ = _record()
    missing = json.loads(record.files["missing.json"])
    assert "versions.rlinf_commit" in missing and "versions.image_digest" in missing
    assert "versions.cuda (image)" in missing
    assert json.loads(record.files["versions.json"])["rlinf_commit"] is None
    assert "rlinf_commit: MISSING" in record.files["README.md"]


def test_secrets_never_reach_the_record(tmp_path: Path) -> None:
    record, job = _record(env={"AWS_ACCESS_KEY_ID": SECRET})
    assert any(f.rule_id == "SEC-SECRET" for f in given_job(job, site=example_site()).findings)
    out = record.write(tmp_path / "record")
    for file in out.rglob("*"):
        if file.is_file():
            assert SECRET not in file.read_text(), file


def test_record_as_zip(tmp_path: Path) -> None:
    record, _ = _record()
    archive = record.write(tmp_path / "run.zip")
    with zipfile.ZipFile(archive) as zf:
        assert {"job.yaml", "README.md", "plan.json", "config/resolved.yaml"} <= set(zf.namelist())


def test_unwritable_record_location_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    record, _ = _record()
    with pytest.raises(RecordError, match="Cannot write the run record"):
        record.write(blocker / "record")


def test_secret_env_values_without_a_token_shape_are_redacted_by_name() -> None:
    record, _ = _record(env={"DB_PASSWORD": "hunter2"})
    plan = json.loads(record.files["plan.json"])
    assert plan["roles"][1]["env"]["DB_PASSWORD"] != "hunter2"
    assert all("hunter2" not in text for text in record.files.values())


def test_the_record_names_the_site_profile_and_its_example_values() -> None:
    """site.json: which profile planned the Job, and that the shipped one is an example."""
    from rlark_widgets.examples import example_configs
    from rlark_widgets.pipeline import PlanRequest, plan_job
    from rlark_widgets.rlark.record import build_record
    from rlark_widgets.rlark.site import site_from_dict
    from rlark_widgets.rlinf import GpuLayout, load_config

    config = load_config(example_configs()["local_rehearsal_2node"])
    planned = plan_job(PlanRequest(config, GpuLayout.parse(2), site=example_site()))
    record = build_record(planned.plan, planned.job, planned.findings, site=planned.site)
    site = json.loads(record.files["site.json"])
    assert "EXAMPLE" in site["note"] and "jobApi" in site["example_fields"]
    own = site_from_dict({"clusterLabel": "x/pool", "name": "mine"}, "mine.yaml")
    record = build_record(planned.plan, planned.job, planned.findings, site=own)
    site = json.loads(record.files["site.json"])
    assert site["name"] == "mine" and "clusterLabel" not in site["example_fields"]
