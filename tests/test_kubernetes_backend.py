"""The Kubernetes backend against kmock's emulator over real HTTP (see tests/kube_emulator.py).

Each test drives the seeded cluster the way RLark and the kubelets would and asserts what the
user sees: diagnosis titles and fixes, finding rule ids and paths, submit messages, errors.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from kubernetes import client

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.k8s.api import RetryPolicy
from rlark_widgets.backends.k8s.inventory import node_selection
from rlark_widgets.backends.kube.backend import KubernetesBackend
from rlark_widgets.findings import Severity
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.site import example_site

if TYPE_CHECKING:
    from kube_emulator import Cluster

NAMESPACE = "research"

IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"
CHECKPOINTS = "/mnt/output/demo/maniskill/checkpoints"
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")


def host(cluster: str, name: str) -> dict[str, str]:
    return {"rlark.io/cluster": cluster, "kubernetes.io/hostname": name}


def demo_job(name: str = "demo", namespace: str = NAMESPACE) -> Job:
    """Three roles, one Worker each: the Header and actor on A800s, env on a Franka robot node."""
    return Job(
        name,
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
            Role("actor", 1, IMAGE, gpus=8, node_selector=host("gpu-a", "a800-1"), mounts=[OUTPUT]),
            Role(
                "env",
                1,
                IMAGE,
                devices={"rlinf.io/device-franka": 1},
                node_selector=host("lab", "robot-0"),
                mounts=[OUTPUT],
            ),
        ],
        run_script="cd /workspace/RLinf && bash examples/embodiment/run_embodiment.sh maniskill",
        namespace=namespace,
        annotations={
            "rlark.io/rlinf-num-nodes": "3",
            "rlark.io/checkpoint-dir": CHECKPOINTS,
            "rlark.io/save-interval": "10",
            "rlark.io/max-steps": "100",
        },
    )


def submitted(kube: Cluster, job: Job | None = None) -> KubernetesBackend:
    backend = kube.backend()
    assert backend.submit(job or demo_job()).created
    return backend


def running(kube: Cluster) -> KubernetesBackend:
    """The demo Job with all three Workers Running."""
    backend = submitted(kube)
    kube.start_workers("demo")
    kube.run_all("demo")
    return backend


# --- submit to training -------------------------------------------------------------------------
def test_three_role_job_goes_from_submit_to_training_with_three_members_and_a_checkpoint(kube):
    backend = kube.backend()
    result = backend.submit(demo_job())
    assert result.created and result.message == "Created Job 'demo' in namespace 'research'."
    assert "kubectl -n research get jobs.rlark.io demo" in result.where

    snap = backend.snapshot("demo")
    assert diagnose(snap).title == "RLark has not generated the Job's Tasks yet."

    kube.start_workers("demo")
    snap = backend.snapshot("demo")
    assert [w.key for w in snap.workers] == ["header/0", "actor/0", "env/0"]
    assert diagnose(snap).title.startswith("3 of 3 Workers are not running yet")

    ips = kube.run_all("demo")
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 10)
    kube.checkpoint(CHECKPOINTS, 20)
    snap = backend.snapshot("demo")
    assert snap.phase == "Running" and snap.expected_workers == 3
    assert [(w.role, w.rank, w.node) for w in snap.workers] == [
        ("header", 0, "a800-0"),
        ("actor", 1, "a800-1"),
        ("env", 2, "robot-0"),
    ]
    assert {w.name: w.ip for w in snap.workers} == ips
    assert snap.members_alive == 3 and [m.node_rank for m in snap.members] == [0, 1, 2]
    assert [c.step for c in snap.checkpoints] == [10, 20]
    assert snap.checkpoints[-1].path == f"{CHECKPOINTS}/global_step_20"
    assert snap.progress.last_step == 20 and snap.missing == []
    verdict = diagnose(snap)
    assert verdict.ok and verdict.title == "Training: step 20, latest checkpoint global_step_20."


def test_checkpoints_are_listed_by_exec_in_the_head_pod_without_a_local_mount(kube):
    running(kube)
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 10)
    kube.checkpoint(CHECKPOINTS, 20, actor=False)
    snap = kube.backend(checkpoint_root=None).snapshot("demo")
    assert [(c.step, c.readable) for c in snap.checkpoints] == [(10, True), (20, False)]
    assert diagnose(snap).title == "Checkpoint global_step_20 has no readable actor/ directory."


def test_a_refused_exec_leaves_checkpoints_unread_and_says_why(kube):
    running(kube)
    kube.ray("demo")
    kube.fail("GET", "pods", 403, "cannot create pods/exec", subresource="exec")
    snap = kube.backend(checkpoint_root=None).snapshot("demo")
    (missing,) = snap.missing
    assert missing.part == "checkpoints"
    assert str(missing.why).startswith("exec in demo-header-0 failed: Handshake status 403")


def test_ray_members_without_rank_labels_are_joined_to_workers_by_pod_ip(kube):
    backend = running(kube)
    kube.ray("demo", ranked=False, dead=(1,))
    snap = backend.snapshot("demo")
    assert [(m.node_rank, m.alive) for m in snap.members] == [(0, True), (1, False), (2, True)]
    assert diagnose(snap).detail == "Dead: rank 1."


def test_a_refresh_costs_the_same_few_requests_for_3_or_30_workers(kube):
    costs = []
    for name, actors in (("small", 1), ("large", 28)):
        job = demo_job(name)
        job.roles[1].replicas = actors
        job.annotations["rlark.io/rlinf-num-nodes"] = str(actors + 2)
        backend = submitted(kube, job)
        kube.start_workers(name)
        kube.run_all(name)
        kube.ray(name)
        before, served = backend.api.requests, kube.emulator.served
        snap = backend.snapshot(name)
        assert len(snap.workers) == snap.members_alive == actors + 2
        costs.append((backend.api.requests - before, kube.emulator.served - served))
    # job, pods, events, the dashboard's members and node summary (checkpoints: local mount)
    assert costs == [(5, 5), (5, 5)]


# --- diagnosis of what goes wrong ---------------------------------------------------------------
def test_pending_for_lack_of_gpus_is_diagnosed_with_its_fix(kube):
    backend = submitted(kube)
    kube.start_workers("demo")
    message = (  # the scheduler's own words: one node matches but is full, the rest do not match
        "0/12 nodes are available: 1 Insufficient nvidia.com/gpu, 11 node(s) didn't match Pod's "
        "node affinity/selector. preemption: 0/12 nodes are available: 12 Preemption is not helpful."
    )
    kube.unschedulable("demo-header-0", message)
    snap = backend.snapshot("demo")
    header = snap.workers[0]
    assert header.reason == "Unschedulable" and [e.reason for e in header.events] == [
        "FailedScheduling"
    ]
    verdict = diagnose(snap)
    assert (
        verdict.title
        == "Worker header/0 is Pending: not enough nvidia.com/gpu on the matched nodes."
    )
    assert verdict.detail == message
    assert verdict.fix.startswith("Lower the role's GPU/device request")


def test_image_pull_backoff_is_diagnosed(kube):
    backend = submitted(kube)
    kube.start_workers("demo")
    kube.waiting(
        "demo-actor-0",
        "ImagePullBackOff",
        'Back-off pulling image "registry.example.com/rlinf:v0.3.0-cuda12.4"',
    )
    verdict = diagnose(backend.snapshot("demo"))
    assert verdict.title == "Worker actor/0 cannot pull its image (ImagePullBackOff)."
    assert (
        verdict.fix == "Check the image reference and that the cluster may pull from that registry."
    )


def test_a_crash_loop_after_oom_names_the_worker_rank_and_exit_code(kube):
    backend = running(kube)
    oom = {"reason": "OOMKilled", "exitCode": 137}
    kube.waiting("demo-env-0", "CrashLoopBackOff", "back-off 5m0s restarting", last=oom)
    worker = backend.snapshot("demo").workers[2]
    assert (worker.reason, worker.exit_code, worker.restarts) == ("OOMKilled", 137, 3)
    assert diagnose(backend.snapshot("demo")).title == (
        "Worker env/0 (RLINF_NODE_RANK 2) failed: OOMKilled (exit code 137)."
    )


def test_a_failed_mount_is_diagnosed_as_storage(kube):
    backend = submitted(kube)
    kube.start_workers("demo")
    kube.event(
        "demo-header-0",
        "FailedMount",
        'MountVolume.SetUp failed for volume "output": bucket not found',
    )
    verdict = diagnose(backend.snapshot("demo"))
    assert verdict.title == "Worker header/0 is waiting for storage (FailedMount)."


@pytest.mark.parametrize(
    ("ray", "detail"), [({"absent": (2,)}, ""), ({"dead": (2,)}, "Dead: rank 2.")]
)
def test_a_missing_ray_member_is_diagnosed(kube, ray, detail):
    backend = running(kube)
    kube.ray("demo", **ray)
    snap = backend.snapshot("demo")
    assert snap.members_alive == 2
    verdict = diagnose(snap)
    assert verdict.title == "Ray has 2 of 3 members alive: RLinf waits forever for the rest."
    assert verdict.detail == detail


def test_running_but_not_training_when_no_step_completed(kube):
    backend = running(kube)
    kube.ray("demo")
    snap = backend.snapshot("demo")
    assert snap.phase == "Running" and snap.checkpoints == [] and snap.progress.last_step is None
    verdict = diagnose(snap)
    assert not verdict.training
    assert verdict.title == "Running, but not training: no step has completed yet."


def test_an_unreachable_dashboard_means_the_ray_head_is_not_up(kube):
    backend = running(kube)  # no dashboard answers behind the proxy: 503 from the API server
    snap = backend.snapshot("demo")
    assert snap.lacks("ray members")
    assert diagnose(snap).title.startswith("The Ray head is starting")  # just submitted
    assert snap.run is not None and snap.run.started is not None
    snap.time = snap.run.started + 400  # past the head's start deadline
    assert diagnose(snap).title == "The Ray head cannot be reached."


def test_the_job_is_read_back_as_the_cluster_holds_it(kube):
    backend = submitted(kube)
    assert backend.job("demo") == demo_job()
    assert backend.job("ghost") is None


def test_a_job_that_is_not_there_is_diagnosed(kube):
    snap = kube.backend().snapshot("ghost")
    assert not snap.exists
    assert diagnose(snap).fix == "Submit it (or check the name and namespace)."


def test_a_failed_run_script_shows_the_header_log_tail(kube):
    backend = running(kube)
    kube.ray("demo")
    kube.emulator.logs["demo-header-0"] = (
        "starting\nTraceback (most recent call last):\nKeyError: 'actor'"
    )
    kube.set_job_status("demo", "Failed", running=True)
    snap = backend.snapshot("demo")
    verdict = diagnose(snap)
    assert verdict.title == "The run script failed." and verdict.detail == "KeyError: 'actor'"


# --- submit exactly once ------------------------------------------------------------------------
def test_a_double_click_never_creates_a_duplicate(kube):
    backend = kube.backend()
    first, second = backend.submit(demo_job()), backend.submit(demo_job())
    assert first.created and not second.created
    assert "already exists in namespace 'research' and is identical" in second.message
    assert "rlark-migrate status demo --backend kubernetes" in second.message
    assert kube.job("demo")["metadata"]["uid"]  # one object, created once


def test_a_different_job_of_the_same_name_is_not_overwritten(kube):
    backend = submitted(kube)
    changed = demo_job()
    changed.roles[1].gpus = 4
    result = backend.submit(changed)
    assert not result.created
    assert "A different Job named 'demo' already exists" in result.message
    assert (
        "spec.tasks[1].template.spec.containers[0].resources.limits.nvidia.com/gpu"
        in result.message
    )
    assert (
        "It was NOT overwritten" in result.message and "rlark-migrate delete demo" in result.message
    )
    limits = kube.job("demo")["spec"]["tasks"][1]["template"]["spec"]["containers"][0]["resources"]
    assert limits == {"limits": {"nvidia.com/gpu": 8}}


def test_a_retried_create_that_meets_a_different_job_does_not_claim_it(kube):
    changed = demo_job()
    changed.roles[0].gpus = 4
    submitted(kube, changed)
    kube.fail("POST", "jobs", 503)  # the first attempt may have reached the server; the retry: 409
    result = kube.backend().submit(demo_job())
    assert not result.created and "It was NOT overwritten" in result.message


def test_forbidden_names_the_namespace_and_verb(kube):
    forbidden = 'jobs.rlark.io is forbidden: User "ana" cannot create resource "jobs" in API group "rlark.io"'
    kube.fail("POST", "jobs", 403, forbidden)
    with pytest.raises(BackendError) as caught:
        kube.backend().submit(demo_job())
    assert (
        "you may not 'create' jobs.rlark.io in namespace 'research' (403 Forbidden)"
        in caught.value.message
    )
    assert 'User "ana" cannot create' in caught.value.message
    assert (
        caught.value.fix
        == "Ask the cluster admin for 'create' on jobs.rlark.io in namespace 'research'."
    )
    assert not kube.exists("jobs", "demo")


def test_unauthorized_says_to_refresh_credentials(kube):
    kube.fail("POST", "jobs", 401, "Unauthorized")
    with pytest.raises(BackendError) as caught:
        kube.backend().submit(demo_job())
    assert "did not accept your credentials (401)" in caught.value.message
    assert caught.value.fix.startswith("Log in again")


def test_a_missing_namespace_gives_the_servers_words(kube):
    kube.fail("POST", "jobs", 404, 'namespaces "research" not found')
    with pytest.raises(BackendError) as caught:
        kube.backend().submit(demo_job())
    assert caught.value.message == (
        "Not found when trying to create jobs.rlark.io 'demo' in namespace 'research' (404): "
        'namespaces "research" not found'
    )


def test_an_invalid_job_lists_the_servers_field_causes(kube):
    job = demo_job()
    job.roles[1].replicas = 0
    with pytest.raises(BackendError) as caught:
        kube.backend().submit(job)
    assert (
        "rejected create jobs.rlark.io 'demo' in namespace 'research' as invalid (422)"
        in caught.value.message
    )
    assert (
        "spec.tasks[1].replicas: Does not match the RLark Job schema: 0 is less than the minimum of 1."
        in (caught.value.message)
    )
    assert caught.value.fix == "Correct the listed fields of the Job and submit again."


def test_a_server_error_is_retried_then_the_job_is_created_once(kube):
    fault = kube.fail("POST", "jobs", 500)
    result = kube.backend().submit(demo_job())
    assert fault.hits == 1 and result.created
    assert result.message == "Created Job 'demo' in namespace 'research'."


def test_too_many_requests_honours_retry_after(kube):
    waits: list[float] = []
    kube.fail("POST", "jobs", 429, headers={"Retry-After": "1"}, times=2)
    backend = kube.backend(retry=RetryPolicy(backoff=0.01, cap=0.05, sleep=waits.append))
    assert backend.submit(demo_job()).created
    assert waits == [1.0, 1.0]


def test_a_persistent_server_error_gives_up_after_bounded_retries(kube):
    waits: list[float] = []
    kube.fail("POST", "jobs", 503, times=10)
    backend = kube.backend(retry=RetryPolicy(attempts=4, backoff=0.2, cap=2.0, sleep=waits.append))
    with pytest.raises(BackendError) as caught:
        backend.submit(demo_job())
    assert (
        "kept answering 503" in caught.value.message
        and "after 4 attempt(s)" in caught.value.message
    )
    assert waits == [0.2, 0.4, 0.8]
    assert not kube.exists("jobs", "demo")


def test_a_timeout_gives_a_clear_message(kube):
    submitted(kube)
    kube.slow("GET", "jobs", 1.0, times=2)
    backend = kube.backend(timeout=0.2, retry=RetryPolicy(attempts=2, backoff=0.01))
    with pytest.raises(BackendError) as caught:
        backend.snapshot("demo")
    assert caught.value.message == (
        f"The API server at {kube.url} did not answer within 0.2 s when trying to get "
        "jobs.rlark.io 'demo' in namespace 'research' (2 attempt(s))."
    )
    assert "network" in caught.value.fix


def test_a_create_whose_answer_was_lost_is_confirmed_not_duplicated(kube):
    kube.slow("POST", "jobs", 0.5, after=True)  # the server creates it; the client gives up
    result = kube.backend(timeout=0.2).submit(demo_job())
    assert result.created
    assert "the first answer was lost; the server has it exactly as submitted" in result.message


def test_connection_refused_gives_a_clear_message(tmp_path):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configuration = client.Configuration(host=f"http://127.0.0.1:{port}")
    configuration.retries = False
    backend = KubernetesBackend(
        client.ApiClient(configuration),
        retry=RetryPolicy(attempts=2, backoff=0.01),
        site=example_site(),
    )
    with pytest.raises(BackendError) as caught:
        backend.inventory()
    backend.close()
    assert caught.value.message == (
        f"Cannot reach the Kubernetes API server at http://127.0.0.1:{port} to list nodes: connection refused."
    )
    assert caught.value.fix.startswith("Check the server address in your kubeconfig")


# --- preflight ----------------------------------------------------------------------------------
def test_a_sound_job_passes_preflight_and_the_dry_run_stores_nothing(kube):
    findings = kube.backend().preflight(demo_job())
    assert findings == []
    assert not kube.exists("jobs", "demo")


def test_preflight_flags_a_selector_that_reaches_into_another_cluster(kube):
    job = demo_job()
    job.roles[1].node_selector = {"gpu.model": "a800"}
    job.roles[1].replicas = 6
    (finding,) = [f for f in kube.backend().preflight(job) if f.rule_id == "K8S-SELECTOR-OUTSIDE"]
    assert finding.path == "spec.tasks[1].template.spec.nodeSelector"
    assert finding.severity is Severity.WARNING
    assert (
        "meant for one cluster" in finding.message and "b-a800-0 (gpu-b/cloud)" in finding.message
    )

    targeted = kube.backend(cluster="gpu-a").preflight(job)
    outside = {f.path: f for f in targeted if f.rule_id == "K8S-SELECTOR-OUTSIDE"}
    assert sorted(outside) == [  # the env role's robots are in cluster 'lab', not 'gpu-a'
        "spec.tasks[1].template.spec.nodeSelector",
        "spec.tasks[2].template.spec.nodeSelector",
    ]
    assert outside["spec.tasks[1].template.spec.nodeSelector"].message == (
        "Role 'actor' is meant for cluster 'gpu-a' but its node selection also matches: "
        "b-a800-0 (gpu-b/cloud), b-a800-1 (gpu-b/cloud)."
    )


def test_preflight_flags_a_matched_count_that_differs_from_replicas(kube):
    job = demo_job()
    job.roles[1].node_selector = {"rlark.io/cluster": "gpu-a", "gpu.model": "a800"}
    job.roles[1].replicas = 2
    (finding,) = [f for f in kube.backend().preflight(job) if f.rule_id == "K8S-SELECTOR-COUNT"]
    assert finding.path == "spec.tasks[1].template.spec.nodeSelector"
    assert finding.message == "Role 'actor' matches 4 node(s) on the cluster but plans 2 Worker(s)."


def test_preflight_sums_gpus_of_roles_that_select_the_same_nodes(kube):
    job = demo_job()
    gpu_a = {"rlark.io/cluster": "gpu-a", "gpu.model": "a800"}
    job.roles[0].node_selector, job.roles[0].replicas = dict(gpu_a), 4
    job.roles[1].node_selector, job.roles[1].replicas = dict(gpu_a), 4
    (finding,) = [f for f in kube.backend().preflight(job) if f.rule_id == "K8S-CAPACITY"]
    assert finding.path == "spec.tasks[0].template.spec.containers[0].resources.limits"
    assert finding.message == (
        "Role(s) 'header', 'actor' (they select the same nodes) request 64 nvidia.com/gpu in total, "
        "but their 4 usable node(s) of 4 matched have 32."
    )


def test_preflight_counts_only_usable_nodes(kube):
    job = demo_job()
    job.roles[1].node_selector = {"rlark.io/cluster": "gpu-b", "gpu.model": "h100"}
    job.roles[1].replicas = 2
    findings = {f.rule_id: f for f in kube.backend().preflight(job)}
    assert "b-h100-0 is NotReady; b-h100-1 is tainted nvidia.com/gpu=xid-79:NoSchedule" in (
        findings["K8S-CAPACITY"].message
    )
    assert findings["K8S-CAPACITY"].message.endswith("No usable node has 8 for one Worker.")
    assert "2 of them cannot take Workers now" in findings["K8S-SELECTOR-COUNT"].message


def test_preflight_flags_a_storage_class_the_cluster_lacks(kube):
    job = demo_job()
    for role in job.roles:
        role.mounts = [Mount("output", "storage", "oss-missing", "/mnt/output")]
    findings = [f for f in kube.backend().preflight(job) if f.severity is Severity.ERROR]
    assert [(f.rule_id, f.path) for f in findings] == [
        ("K8S-STORAGECLASS", "spec.storage[0].storageClassName")
    ]
    assert "(it has: cpfs-shared, oss-rlinf)" in findings[0].message


def test_preflight_reports_a_denied_access_review(kube):
    kube.emulator.access.denied.add(("create", "jobs", NAMESPACE))
    (finding,) = [f for f in kube.backend().preflight(demo_job()) if f.rule_id == "K8S-ACCESS"]
    assert finding.severity is Severity.ERROR and finding.path == "metadata.namespace"
    assert (
        finding.message
        == "You may not create jobs.rlark.io in namespace 'research'. no RBAC policy matched"
    )


def test_preflight_shows_the_dry_runs_field_causes(kube):
    job = demo_job()
    job.roles[2].replicas = 0
    findings = [f for f in kube.backend().preflight(job) if f.rule_id == "K8S-DRY-RUN"]
    assert [f.path for f in findings] == ["spec.tasks[2].replicas"]
    assert findings[0].message.startswith("The API server's dry run rejects the Job:")


def test_preflight_warns_that_a_job_of_that_name_exists(kube):
    backend = submitted(kube)
    (finding,) = [f for f in backend.preflight(demo_job()) if f.rule_id == "K8S-DRY-RUN"]
    assert finding.severity is Severity.WARNING and finding.path == "metadata.name"


def test_preflight_reports_a_cluster_without_rlark(kube):
    del kube.emulator.resources[kube.jobs]
    findings = kube.backend().preflight(demo_job())
    assert [f.rule_id for f in findings if f.severity is Severity.ERROR] == ["K8S-CRD"]
    assert "RLark is not installed here" in findings[0].message


def test_preflight_says_where_the_job_will_be_created(kube):
    (finding,) = kube.backend().preflight(demo_job(namespace="default"))
    assert (finding.rule_id, finding.severity) == ("K8S-NAMESPACE", Severity.INFO)
    assert finding.message.endswith("it will be created in 'research'.")


# --- inventory ----------------------------------------------------------------------------------
def test_inventory_reads_nodes_devices_readiness_taints_cordons_and_storage_classes(kube):
    inventory = kube.backend().inventory()
    nodes = {n.name: n for n in inventory.nodes}
    assert len(nodes) == 12 and inventory.clusters == ["gpu-a", "gpu-b", "lab"]
    assert sorted(n.category for n in nodes.values()).count("cloud") == 8
    assert nodes["a800-0"].gpus == 8 and nodes["edge-0"].gpus == 1
    assert dict(nodes["robot-0"].devices) == {"rlinf.io/device-franka": 1}
    assert not nodes["b-h100-0"].ready
    assert nodes["b-h100-1"].taints == ("nvidia.com/gpu=xid-79:NoSchedule",)
    assert nodes["edge-1"].unschedulable and not nodes["edge-1"].schedulable
    assert inventory.storage_classes == ("cpfs-shared", "oss-rlinf")


def test_selected_node_count_and_nodes_outside_the_intended_cluster(kube):
    backend = kube.backend(cluster="gpu-a")
    nodes = backend.inventory()
    selection = node_selection(nodes, {"gpu.model": "a800"}, backend.cluster)
    assert selection.count == 6
    assert [n.name for n in selection.outside] == ["b-a800-0", "b-a800-1"]
    lab = node_selection(nodes, {"rlark.io/cluster": "lab"}, backend.cluster)
    assert lab.count == 4 and "one node category" in lab.intent and len(lab.outside) == 4


# --- connection ---------------------------------------------------------------------------------
def kubeconfig(path: Path, server: str) -> Path:
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters: [{{name: emu, cluster: {{server: "{server}"}}}}]
users: [{{name: ana, user: {{token: not-a-secret}}}}]
contexts: [{{name: lab, context: {{cluster: emu, user: ana, namespace: {NAMESPACE}}}}}]
current-context: lab
"""
    )
    return path


def test_the_kubeconfig_context_gives_server_and_namespace(kube, tmp_path):
    backend = KubernetesBackend.from_kubeconfig(
        config_file=kubeconfig(tmp_path / "config", kube.url), site=example_site()
    )
    kube.backends.append(backend)  # closed with the cluster
    assert backend.namespace == NAMESPACE
    assert len(backend.inventory().nodes) == 12


def test_an_unknown_context_lists_the_known_ones(kube, tmp_path):
    with pytest.raises(BackendError) as caught:
        KubernetesBackend.from_kubeconfig(
            "prod", config_file=kubeconfig(tmp_path / "config", kube.url), site=example_site()
        )
    assert caught.value.message.endswith("(it has: lab).")


def test_a_broken_kubeconfig_is_named_with_a_fix(tmp_path):
    broken = tmp_path / "config"
    broken.write_text("apiVersion: v1\nclusters: [\n")
    with pytest.raises(BackendError) as caught:
        KubernetesBackend.from_kubeconfig(config_file=broken, site=example_site())
    assert caught.value.message.startswith(f"The kubeconfig {broken} cannot be used:")
    assert caught.value.fix.startswith("Fix the file or get a fresh one")


def test_no_configuration_at_all_says_how_to_get_one(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "nothing-here"))
    with pytest.raises(BackendError) as caught:
        KubernetesBackend.from_kubeconfig(site=example_site())
    assert caught.value.message.startswith("No Kubernetes configuration found")
    assert "~/.kube/config" in caught.value.fix


# --- logs, stop, delete -------------------------------------------------------------------------
def test_logs_of_a_worker_by_key(kube):
    backend = running(kube)
    kube.emulator.logs["demo-actor-0"] = "\n".join(f"step {i}" for i in range(1, 6))
    assert backend.logs("demo", "actor/0", tail=2) == "step 4\nstep 5\n"
    with pytest.raises(BackendError) as caught:
        backend.logs("demo", "actor/7")
    assert caught.value.fix == "Use one of its Workers: header/0, actor/0, env/0."


def test_logs_of_a_waiting_worker_say_why(kube):
    backend = submitted(kube)
    kube.start_workers("demo")
    kube.waiting("demo-env-0", "ImagePullBackOff", "Back-off pulling image")
    with pytest.raises(BackendError) as caught:
        backend.logs("demo", "env/0")
    assert caught.value.message.startswith("Worker env/0 (demo-env-0) has no log yet:")
    assert "is waiting to start: Back-off pulling image" in caught.value.message


def test_stop_deletes_the_job_but_keeps_its_storage(kube):
    backend = submitted(kube)
    claims = kube.claims("demo")
    message = str(backend.stop("demo"))  # a Text: English here
    assert message.startswith("Stopped Job 'demo' in namespace 'research'")
    assert "storage (PVCs) and run record are kept" in message
    assert not kube.exists("jobs", "demo") and kube.exists("persistentvolumeclaims", claims[0])
    assert str(backend.stop("demo")) == "No Job 'demo' in namespace 'research': nothing to stop."


def test_delete_removes_the_job_and_its_storage(kube):
    backend = submitted(kube)
    (claim,) = kube.claims("demo")
    assert (
        str(backend.delete("demo"))
        == f"Deleted Job 'demo' and its storage ({claim}) in namespace 'research'."
    )
    assert not kube.exists("jobs", "demo") and not kube.exists("persistentvolumeclaims", claim)
