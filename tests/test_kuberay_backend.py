"""The kuberay backend against the emulator serving KubeRay's v1.7.0 CRDs over real HTTP.

Pods are seeded as the KubeRay operator labels them (tests/kuberay_emulator.py); each test
asserts what a user sees: findings, submit messages, Workers, Ray members, the diagnosis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from test_kubernetes_backend import CHECKPOINTS, IMAGE, demo_job, host

from rlark_widgets.examples import example_configs
from rlark_widgets.findings import Severity
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.rlark.job import Job, Role
from rlark_widgets.rlark.kuberay import ExportOptions
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import RLinfConfig, load_config

if TYPE_CHECKING:
    from kuberay_emulator import KubeRayCluster

NAMESPACE = "research"


def rlinf_config(node_groups: bool) -> RLinfConfig:
    """A bundled RLinf config with or without ``cluster.node_groups`` (only that is read)."""
    name = (
        "realworld_peginsertion_rlpd_cnn_async_2arms" if node_groups else "qwen2.5-7b-grpo-megatron"
    )
    loaded = load_config(str(example_configs()[name]))
    assert bool(loaded.get("cluster.node_groups")) is node_groups
    return loaded


def claim(kuberay: KubeRayCluster, name: str = "demo-output") -> None:
    pvc = {"metadata": {"name": name}, "spec": {"storageClassName": "oss-rlinf"}}
    kuberay.core.create_namespaced_persistent_volume_claim(NAMESPACE, pvc, _preload_content=False)


def errors(findings) -> list[tuple[str, str]]:
    return [(f.rule_id, f.path) for f in findings if f.severity is Severity.ERROR]


def test_preflight_checks_crd_access_dry_run_and_the_pvc_kuberay_does_not_create(kuberay):
    backend = kuberay.backend()
    job = demo_job()
    assert errors(backend.preflight(job)) == [("KRAY-PVC-MISSING", "volumes")]
    claim(kuberay)
    findings = backend.preflight(job)
    assert errors(findings) == []
    # the export's own findings (KRAY-RANKS: why ranks get groups) are the pipeline's to weigh
    assert "KRAY-RANKS" not in {f.rule_id for f in findings}
    kuberay.emulator.access.denied.add(("create", "rayjobs", NAMESPACE))
    denied = backend.preflight(job)
    assert errors(denied) == [("KRAY-ACCESS", "metadata.namespace")]
    access = next(f for f in denied if f.rule_id == "KRAY-ACCESS")
    assert access.message.startswith("You may not create rayjobs.ray.io in namespace 'research'")


def test_a_cluster_without_kuberay_is_told_to_install_the_operator(kube):
    from rlark_widgets.backends.k8s.api import RetryPolicy
    from rlark_widgets.backends.kuberay import KubeRayBackend

    backend = KubeRayBackend(
        kube.api_client(),
        namespace=NAMESPACE,
        retry=RetryPolicy(backoff=0.01, cap=0.05),
        site=example_site(),
    )
    kube.backends.append(backend)
    found = [f for f in backend.preflight(demo_job()) if f.rule_id == "KRAY-CRD"]
    assert len(found) == 1 and "the KubeRay operator is not installed here" in found[0].message


def test_the_server_refuses_what_kuberays_schema_refuses(kuberay):
    from rlark_widgets.backends.kuberay.preflight import dry_run_findings

    backend = kuberay.backend()
    manifest = backend.export(demo_job()).manifest
    manifest["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["minReplicas"] = "one"
    found = dry_run_findings(backend.api, manifest)
    assert [(f.rule_id, f.path) for f in found] == [
        ("KRAY-DRY-RUN", "spec.rayClusterSpec.workerGroupSpecs[0].minReplicas")
    ]


def test_a_rayjob_goes_from_submit_to_training_with_ranks_members_and_checkpoints(kuberay):
    backend = kuberay.backend()
    result = backend.submit(demo_job())
    assert result.created and result.message == "Created RayJob 'demo' in namespace 'research'."
    assert "kubectl -n research get rayjobs.ray.io demo" in result.where
    stored = kuberay.object("RayJob", "demo")
    groups = stored["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert [g["groupName"] for g in groups] == ["actor-rank-1", "env-rank-2"]
    assert stored["metadata"]["annotations"]["ray.io/overwrite-container-cmd"] == "true"

    snap = backend.snapshot("demo")
    assert snap.exists and snap.phase == "Pending" and snap.workers == []
    assert diagnose(snap).title == "KubeRay has not created the RayCluster's pods yet."

    cluster = kuberay.operate("demo")
    snap = backend.snapshot("demo")
    assert [(w.key, w.rank) for w in snap.workers] == [
        ("header/0", 0),
        ("actor/0", 1),
        ("env/0", 2),
    ]
    assert [w.head for w in snap.workers] == [True, False, False]
    assert diagnose(snap).title.startswith("3 of 3 Workers are not running yet")

    ips = kuberay.run_ray("demo", cluster)
    kuberay.ray_members(cluster)
    kuberay.checkpoint(CHECKPOINTS, 10)
    kuberay.checkpoint(CHECKPOINTS, 20)
    snap = backend.snapshot("demo")
    assert snap.phase == "Running" and snap.run_script_state == "running"
    assert {w.name: w.ip for w in snap.workers} == ips
    assert [(w.role, w.node) for w in snap.workers] == [
        ("header", "a800-0"),
        ("actor", "a800-1"),
        ("env", "robot-0"),
    ]
    assert snap.members_alive == 3 and [m.node_rank for m in snap.members] == [0, 1, 2]
    assert [t["running"] for t in snap.tasks] == [1, 1, 1]
    assert [c.step for c in snap.checkpoints] == [10, 20] and snap.missing == []
    verdict = diagnose(snap)
    assert verdict.ok and verdict.title == "Training: step 20, latest checkpoint global_step_20."

    kuberay.finish("demo", "SUCCEEDED")
    assert backend.snapshot("demo").phase == "Succeeded"


def test_a_dead_ray_member_is_named_by_its_rank(kuberay):
    backend = kuberay.backend()
    backend.submit(demo_job())
    cluster = kuberay.operate("demo")
    kuberay.run_ray("demo", cluster)
    kuberay.ray_members(cluster, dead=(f"{cluster}-actor-rank-1-worker-0",))
    verdict = diagnose(backend.snapshot("demo"))
    assert verdict.title == "Ray has 2 of 3 members alive: RLinf waits forever for the rest."
    assert verdict.detail == "Dead: rank 1."


def test_a_refresh_costs_the_same_few_requests_for_3_or_30_ranked_workers(kuberay):
    costs = []
    for name, actors in (("small", 1), ("large", 28)):
        job = demo_job(name)
        job.roles[1].replicas = actors
        job.annotations["rlark.io/rlinf-num-nodes"] = str(actors + 2)
        backend = kuberay.backend()
        assert backend.submit(job).created
        cluster = kuberay.operate(name)
        kuberay.run_ray(name, cluster)
        kuberay.ray_members(cluster)
        before, served = backend.api.requests, kuberay.emulator.served
        snap = backend.snapshot(name)
        assert len(snap.workers) == snap.members_alive == actors + 2
        assert [w.rank for w in snap.workers] == list(range(actors + 2))
        costs.append((backend.api.requests - before, kuberay.emulator.served - served))
    # RayJob, its RayCluster (the run), pods, events, dashboard members and GPU summary
    # (checkpoints and curves: local)
    assert costs == [(6, 6), (6, 6)]


def test_checkpoints_are_listed_by_exec_in_the_head_pod_without_a_local_mount(kuberay):
    backend = kuberay.backend(checkpoint_root=None)
    backend.submit(demo_job())
    cluster = kuberay.operate("demo")
    kuberay.run_ray("demo", cluster)
    kuberay.ray_members(cluster)
    kuberay.checkpoint(CHECKPOINTS, 10)
    snap = backend.snapshot("demo")
    assert [c.step for c in snap.checkpoints] == [10] and snap.missing == []


def test_identical_replicas_share_one_group_without_ranks_when_the_config_has_no_node_groups(
    kuberay,
):
    job = Job(
        "flat",
        [
            Role("header", 1, IMAGE, head=True, gpus=8, node_selector=host("gpu-a", "a800-0")),
            Role("workers", 2, IMAGE, gpus=8, node_selector={"rlark.io/cluster": "gpu-a"}),
        ],
        run_script="cd /workspace/RLinf && python train.py",
        namespace=NAMESPACE,
        annotations={"rlark.io/rlinf-num-nodes": "3"},
    )
    backend = kuberay.backend()
    assert backend.submit(job, config=rlinf_config(node_groups=False)).created
    groups = kuberay.object("RayJob", "flat")["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert [(g["groupName"], g["replicas"]) for g in groups] == [("workers", 2)]
    cluster = kuberay.operate("flat")
    kuberay.run_ray("flat", cluster)
    kuberay.ray_members(cluster)
    snap = backend.snapshot("flat")
    assert [(w.key, w.rank) for w in snap.workers] == [
        ("header/0", None),
        ("workers/0", None),
        ("workers/1", None),
    ]
    assert snap.members_alive == 3 and snap.expected_workers == 3
    assert backend.job("flat").roles[1].replicas == 2


def test_node_groups_give_every_rank_its_own_group(kuberay):
    backend = kuberay.backend()
    claim(kuberay)
    backend.submit(demo_job(), config=rlinf_config(node_groups=True))
    groups = kuberay.object("RayJob", "demo")["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    env = {g["groupName"]: g["template"]["spec"]["containers"][0]["env"] for g in groups}
    assert env == {
        "actor-rank-1": [{"name": "RLINF_NODE_RANK", "value": "1"}],
        "env-rank-2": [{"name": "RLINF_NODE_RANK", "value": "2"}],
    }


def test_a_double_submit_never_creates_a_duplicate_and_a_different_one_is_not_overwritten(
    kuberay,
):
    backend = kuberay.backend()
    assert backend.submit(demo_job()).created
    again = backend.submit(demo_job())
    assert not again.created and "is identical: not submitted again" in again.message
    other = demo_job()
    other.roles[1].gpus = 4
    different = backend.submit(other)
    assert not different.created and "It was NOT overwritten" in different.message
    limits = kuberay.object("RayJob", "demo")["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
    assert limits["template"]["spec"]["containers"][0]["resources"]["limits"] == {
        "nvidia.com/gpu": 8
    }


def test_logs_stop_and_delete(kuberay):
    backend = kuberay.backend()
    backend.submit(demo_job())
    cluster = kuberay.operate("demo")
    kuberay.run_ray("demo", cluster)
    kuberay.emulator.logs[f"{cluster}-head"] = "step 1\nstep 2\n"
    assert backend.logs("demo", "header/0", tail=1) == "step 2\n"
    assert backend.job("demo").header.name == "header"

    message = str(backend.stop("demo"))
    assert message.startswith("Suspended RayJob 'demo' in namespace 'research'")
    assert kuberay.object("RayJob", "demo")["spec"]["suspend"] is True
    message = str(backend.delete("demo"))
    assert message.startswith("Deleted RayJob 'demo'") and "are yours and stay" in message
    assert kuberay.object("RayJob", "demo") is None
    assert not backend.snapshot("demo").exists
    assert "nothing to delete" in str(backend.delete("demo"))


def test_a_raycluster_is_submitted_and_watched_too(kuberay):
    backend = kuberay.backend(options=ExportOptions(kind="RayCluster"))
    result = backend.submit(demo_job())
    assert result.message == "Created RayCluster 'demo' in namespace 'research'."
    stored = kuberay.object("RayCluster", "demo")
    assert stored["metadata"]["annotations"]["rlark.io/run-script"].startswith("cd /workspace")
    kuberay.operate("demo")
    kuberay.run_ray("demo", "demo")
    kuberay.ray_members("demo")
    snap = backend.snapshot("demo")
    assert snap.phase == "Running" and snap.members_alive == 3
    assert str(backend.stop("demo")).startswith("Suspended RayCluster 'demo'")
    assert backend.snapshot("demo").phase == "Stopped"


def test_the_app_exports_a_rayjob_and_submits_it_through_the_kuberay_backend(
    kuberay, tmp_path, monkeypatch
):
    """The Job step's Export choice shows KubeRay YAML; the KubeRay backend choice submits it."""
    from test_app_session import session
    from test_cli_jobs import write_kubeconfig

    from rlark_widgets.ui.app import App
    from rlark_widgets.ui.session import finding_key

    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", kuberay.url)
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    app = App(session("maniskill_ppo_openvlaoft", namespace=NAMESPACE))
    s, job_step = app.session, app.steps[4]
    assert s.export_yaml == "" and "kind: Job" in s.job_yaml
    job_step.export.value = "RayJob"  # the toggle, as a click sets it
    assert s.export_format == "RayJob" and "kind: RayJob" in s.export_yaml
    assert "RayJob" in job_step.yaml.value and "headGroupSpec" in job_step.yaml.value
    assert "KRAY-RANKS" in job_step.export_notes.value
    s.set_language("zh")
    assert "同一份规划的 ray.io/v1 版本" in job_step.export_notes.value

    assert s.update_role(0, node_selector=host("gpu-a", "a800-0")), s.error
    s.backend_name, s.k8s_namespace = "kuberay", NAMESPACE
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])  # the export's warnings
    assert s.submit(wait=True) and s.submitted == s.job.name, s.error
    s._monitor.cancel()
    s._monitor.join(timeout=30)
    stored = kuberay.object("RayJob", s.job.name)
    assert stored is not None and stored["spec"]["submissionMode"] == "HTTPMode"
    cluster = kuberay.operate(s.job.name)
    kuberay.run_ray(s.job.name, cluster)
    kuberay.ray_members(cluster)
    assert s.refresh(), s.error
    assert s.snapshot.backend == "kuberay" and s.snapshot.members_alive == 1


def test_the_cli_submits_watches_stops_and_deletes_on_kuberay(kuberay, tmp_path, capsys):
    import json

    import yaml
    from test_cli_jobs import cli, write_kubeconfig

    from rlark_widgets.rlark.yaml_io import render_job_yaml

    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", kuberay.url, NAMESPACE)
    backend = ("--backend", "kuberay", "--kubeconfig", str(kubeconfig))
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    claim(kuberay, "shared-out")

    code, out, _ = cli(capsys, "submit", str(job_file), *backend, "--claim", "output=shared-out")
    assert code == 0 and "Submitted: demo. Created RayJob 'demo'" in out, out
    volumes = kuberay.object("RayJob", "demo")["spec"]["rayClusterSpec"]["headGroupSpec"]
    assert volumes["template"]["spec"]["volumes"][0]["persistentVolumeClaim"] == {
        "claimName": "shared-out"
    }
    assert "Next: rlark-migrate status demo --backend kuberay --watch" in out
    code, out, _ = cli(capsys, "submit", str(job_file), *backend, "--claim", "output=shared-out")
    assert code == 0 and "Not submitted again: demo." in out

    cluster = kuberay.operate("demo")
    kuberay.run_ray("demo", cluster)
    kuberay.ray_members(cluster)
    code, out, _ = cli(capsys, "status", "demo", *backend, "--json")
    data = json.loads(out)
    assert code == 0 and data["snapshot"]["backend"] == "kuberay"
    assert [(w["role"], w["rank"]) for w in data["snapshot"]["workers"]] == [
        ("header", 0),
        ("actor", 1),
        ("env", 2),
    ]
    code, out, _ = cli(capsys, "record", "demo", *backend, "-o", str(tmp_path / "record"))
    stored = kuberay.object("RayJob", "demo")
    written = yaml.safe_load((tmp_path / "record" / "job.yaml").read_text())
    assert code == 0 and written == {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {k: stored["metadata"][k] for k in ("name", "namespace", "annotations")},
        "spec": stored["spec"],
    }
    code, out, _ = cli(capsys, "--lang", "zh", "stop", "demo", *backend)
    assert code == 0 and out.startswith("已暂停命名空间 'research' 中的 RayJob 'demo'")
    code, out, _ = cli(capsys, "delete", "demo", *backend, "--yes")
    assert code == 0 and kuberay.object("RayJob", "demo") is None


def test_preflight_names_the_kuberay_fields_of_node_selection_and_capacity(kuberay):
    """A submission to KubeRay is told where to fix it in the RayJob, not in an RLark Job."""
    backend = kuberay.backend()
    claim(kuberay)
    job = demo_job()
    job.roles[1].node_selector = {"rlark.io/cluster": "gpu-a"}  # a800-0 and a800-1, 1 Worker
    job.roles[1].gpus = 16  # no node has 16
    found = {(f.rule_id, f.path) for f in backend.preflight(job) if f.rule_id.startswith("K8S-")}
    actor = "spec.rayClusterSpec.workerGroupSpecs[0].template.spec"
    assert found == {
        ("K8S-SELECTOR-COUNT", f"{actor}.nodeSelector"),
        ("K8S-CAPACITY", f"{actor}.containers[0].resources.limits"),
    }
    raycluster = kuberay.backend(options=ExportOptions(kind="RayCluster"))
    paths = {f.path for f in raycluster.preflight(job) if f.rule_id.startswith("K8S-")}
    assert paths == {
        "spec.workerGroupSpecs[0].template.spec.nodeSelector",
        "spec.workerGroupSpecs[0].template.spec.containers[0].resources.limits",
    }


def test_preflight_dry_runs_the_groups_submit_creates(kuberay):
    """Without node groups the Workers share one group: the dry run checks that, not one per rank."""
    from rlark_widgets.examples import example_configs, example_inventories
    from rlark_widgets.pipeline import PlanRequest, plan_job, submit_checked
    from rlark_widgets.rlark.inventory import load_inventory
    from rlark_widgets.rlinf import GpuLayout, load_config

    config = load_config(str(example_configs()["qwen2.5-7b-grpo-megatron"]))
    inventory = load_inventory(example_inventories()["gpu-cloud"], site=example_site())
    planned = plan_job(PlanRequest(config, GpuLayout.parse(8), inventory, site=example_site()))
    assert planned.job is not None and not config.get("cluster.node_groups")
    submit_checked(kuberay.backend(), planned)
    dry_runs = [body for dry, body in kuberay.emulator.created if dry]
    assert len(dry_runs) == 1
    groups = dry_runs[0]["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert [(g["groupName"], g["replicas"]) for g in groups] == [("workers", 15)]
    backend = kuberay.backend()
    assert backend.submit(planned.job, config=config).created
    created = kuberay.emulator.created[-1]
    assert created[0] is False and created[1]["spec"] == dry_runs[0]["spec"]
