"""submit_checked: preflight, the one blocking rule, then one submission (kmock's emulator)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from test_kubernetes_backend import demo_job

from rlark_widgets.backends import open_backend
from rlark_widgets.backends.base import BackendError
from rlark_widgets.pipeline import given_job, submission_findings, submit_checked, weighed_findings
from rlark_widgets.rlark.kuberay import ExportOptions
from rlark_widgets.rlark.site import example_site

if TYPE_CHECKING:
    from kube_emulator import Cluster


def test_a_clean_job_is_submitted_once(kube: Cluster) -> None:
    backend = kube.backend(cluster="gpu-a")
    planned = given_job(demo_job(), site=example_site())
    first, second = submit_checked(backend, planned), submit_checked(backend, planned)
    assert first.blocking == [] and first.result is not None and first.result.created
    assert second.result is not None and not second.result.created  # never a duplicate
    assert kube.job("demo")["metadata"]["name"] == "demo"


def test_an_error_blocks_before_anything_is_created(kube: Cluster) -> None:
    backend = kube.backend(cluster="gpu-a")
    job = demo_job()
    job.roles[1] = replace(job.roles[1], image="")  # JOB-IMAGE: an error on a cluster
    submission = submit_checked(backend, given_job(job, site=example_site()))
    assert submission.result is None
    assert "JOB-IMAGE" in {f.rule_id for f in submission.blocking}
    assert all(f in submission.findings for f in submission.blocking)
    with pytest.raises(KeyError):
        kube.job("demo")


def _bucket_output(job):
    """The output mount's source as a bucket URL: JOB-STORAGE-SOURCE, an RLark-only error
    (KubeRay mounts a PVC the user names, so the source is never used there)."""
    bucket = replace(job.roles[0].mounts[0], source="oss://bucket/out")
    job.roles = [replace(r, mounts=[bucket]) for r in job.roles]
    return job


def test_an_rlark_only_error_does_not_block_a_kuberay_submit(kuberay) -> None:
    from test_kuberay_backend import claim

    planned = given_job(_bucket_output(demo_job()), site=example_site())
    rlark_errors = {f.rule_id for f in planned.findings if f.severity.value == "error"}
    assert "JOB-STORAGE-SOURCE" in rlark_errors  # it would block the RLark Job
    weighed = weighed_findings(planned, ExportOptions())  # what a KubeRay backend exports
    assert "JOB-STORAGE-SOURCE" not in {f.rule_id for f in weighed}
    assert not any(f.path.startswith("spec.tasks[") for f in weighed)  # KubeRay's paths
    assert "KRAY-RANKS" in {f.rule_id for f in weighed}  # what export and check say
    claim(kuberay)
    submission = submit_checked(kuberay.backend(), planned)
    assert submission.blocking == [] and submission.result is not None
    assert submission.result.created and kuberay.object("RayJob", "demo") is not None
    assert not any(f.rule_id == "JOB-STORAGE-SOURCE" for f in submission.findings)


def test_a_kuberay_error_blocks_a_kuberay_submit_at_its_field(kuberay) -> None:
    job = demo_job()
    job.roles[1] = replace(job.roles[1], image="")  # no image: an error there too
    submission = submit_checked(kuberay.backend(), given_job(job, site=example_site()))
    assert submission.result is None and kuberay.object("RayJob", "demo") is None
    stopping = {(f.rule_id, f.path) for f in submission.blocking}
    assert any(
        rule == "JOB-IMAGE" and "workerGroupSpecs" in path and not path.startswith("spec.tasks")
        for rule, path in stopping
    )


def test_other_backends_weigh_the_rlark_jobs_findings(tmp_path) -> None:
    planned = given_job(_bucket_output(demo_job()), site=example_site())
    assert weighed_findings(planned) == planned.findings
    local = open_backend("local", workspace=tmp_path, site=example_site())
    weighed = submission_findings(local, planned)  # no export: the RLark Job's own findings
    assert "JOB-STORAGE-SOURCE" in {f.rule_id for f in weighed}
    assert not any("workerGroupSpecs" in f.path for f in weighed)


def test_open_backend_names_the_two_backends(tmp_path) -> None:
    assert (
        open_backend(
            "local", workspace=tmp_path, run_timeout=5, site=example_site()
        ).options.run_timeout
        == 5
    )
    with pytest.raises(BackendError, match="Unknown backend 'slurm'"):
        open_backend("slurm", site=example_site())


def test_open_backend_opens_kuberay_with_what_it_exports(kuberay, tmp_path) -> None:
    from test_cli_jobs import write_kubeconfig

    from rlark_widgets.rlark.kuberay import ExportOptions

    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", kuberay.url)
    options = ExportOptions(kind="RayCluster", ttl_seconds_after_finished=60)
    backend = open_backend(
        "kuberay", kubeconfig=str(kubeconfig), namespace="lab", kuberay=options, site=example_site()
    )
    kuberay.backends.append(backend)
    assert backend.name == "kuberay" and backend.namespace == "lab"
    assert backend.options == options and backend.kind == "RayCluster"


def _qwen_planned():
    from rlark_widgets.examples import example_configs, example_inventories
    from rlark_widgets.pipeline import PlanRequest, plan_job
    from rlark_widgets.rlark.inventory import load_inventory
    from rlark_widgets.rlinf import GpuLayout, load_config

    config = load_config(str(example_configs()["qwen2.5-7b-grpo-megatron"]))
    inventory = load_inventory(example_inventories()["gpu-cloud"], site=example_site())
    return plan_job(PlanRequest(config, GpuLayout.parse(8), inventory, site=example_site()))


def test_the_kuberay_export_starts_from_the_planned_job() -> None:
    """The planning's findings, then the export's at KubeRay's own fields; no RLark Job paths."""
    from rlark_widgets.pipeline import export_kuberay
    from rlark_widgets.rlark.kuberay import ExportOptions, export_checked

    planned = _qwen_planned()
    assert planned.job is not None
    exported = export_kuberay(planned, ExportOptions(kind="RayJob"))
    assert exported.manifest is not None and exported.manifest["kind"] == "RayJob"
    planning = planned.planning_findings
    assert exported.findings[: len(planning)] == planning
    direct = export_checked(
        given_job(planned.job, planned.report, planned.inventory, site=example_site())
    )
    assert exported.findings[len(planning) :] == direct.findings
    assert not any(f.path.startswith("spec.tasks[") for f in exported.findings)
    groups = exported.manifest["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert [(g["groupName"], g["replicas"]) for g in groups] == [("workers", 15)]


def test_a_rejected_plan_exports_nothing_and_says_why() -> None:
    from rlark_widgets.pipeline import export_kuberay

    planned = _qwen_planned()
    rejected = replace(planned, job=None)
    exported = export_kuberay(rejected)
    assert exported.manifest is None and exported.findings == planned.findings
