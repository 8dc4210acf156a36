"""KubeRay runs and lists (issues #14, #18) against the emulator over real HTTP: a run is the
RayCluster (its uid and creation time), its pods are matched through their ownerReferences,
earlier and Terminating pods are listed apart and never counted, checkpoints and curves count
from the run's start; GPU use comes from the head service's dashboard; ``list`` shows the
RayJobs and RayClusters we created."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

from test_kubernetes_backend import CHECKPOINTS, demo_job
from test_observe_kube import RECORDED, RECORDED_GPUS, TENSORBOARD
from test_run_identity import HOUR
from test_scalars import write_events

from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.snapshot import (
    EARLIER_RUN,
    EARLIER_TERMINATING,
    FAILED,
    RUNNING,
    RunInfo,
)
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.rlark.kuberay import ExportOptions

if TYPE_CHECKING:
    from kuberay_emulator import KubeRayCluster

NAMESPACE = "research"


def rayjob_running(kuberay: KubeRayCluster):
    backend = kuberay.backend()
    assert backend.submit(demo_job()).created
    cluster = kuberay.operate("demo")
    kuberay.run_ray("demo", cluster)
    kuberay.ray_members(cluster)
    return backend, cluster


def test_a_rayjobs_run_is_its_raycluster_and_pods_of_another_uid_are_apart(kuberay):
    backend, cluster = rayjob_running(kuberay)
    old = kuberay.earlier_pod(cluster, "actor-rank-1", terminating=True)
    other = kuberay.earlier_pod(cluster, "env-rank-2", terminating=False)
    kuberay.checkpoint(CHECKPOINTS, 30, age=HOUR)  # an earlier run's, on the same storage
    kuberay.checkpoint(CHECKPOINTS, 10)
    snap = backend.snapshot("demo")
    made = kuberay.object("RayCluster", cluster)
    assert made["metadata"]["ownerReferences"][0]["kind"] == "RayJob"
    assert snap.run == RunInfo(made["metadata"]["uid"], snap.run.started)
    assert snap.run.id != kuberay.object("RayJob", "demo")["metadata"]["uid"]
    assert snap.run.started is not None and abs(snap.run.started - time.time()) < 60
    assert [w.key for w in snap.workers] == ["header/0", "actor/0", "env/0"]
    assert all(w.phase == RUNNING and w.apart is None for w in snap.workers)
    assert [(w.name, w.apart, w.phase, w.exit_code) for w in snap.others] == [
        (old, EARLIER_TERMINATING, FAILED, 137),
        (other, EARLIER_RUN, FAILED, 137),
    ]
    assert [t["running"] for t in snap.tasks] == [1, 1, 1]
    assert [c.step for c in snap.checkpoints] == [10]
    assert [c.step for c in snap.earlier_checkpoints] == [30]
    verdict = diagnose(snap)
    assert verdict.ok and verdict.title == "Training: step 10, latest checkpoint global_step_10."
    lines = summary_lines(snap, {"header": 1, "actor": 1, "env": 1})
    assert "  Previous run's checkpoints (not this run's): global_step_30" in lines
    assert any(line.startswith("  Not counted: ") and old in line for line in lines)
    kuberay.emulator.logs[f"{cluster}-head"] = "this run\n"
    kuberay.emulator.logs[old] = "the earlier run\n"
    assert backend.logs("demo", "header/0") == "this run\n"


def test_a_raycluster_made_again_is_a_new_run(kuberay):
    backend = kuberay.backend(options=ExportOptions(kind="RayCluster"))
    assert backend.submit(demo_job()).created
    kuberay.operate("demo")
    kuberay.run_ray("demo", "demo")
    first = backend.snapshot("demo").run
    assert first == RunInfo(kuberay.object("RayCluster", "demo")["metadata"]["uid"], first.started)
    backend.delete("demo")  # its pods stay until the garbage collector removes them
    assert backend.submit(demo_job()).created
    snap = backend.snapshot("demo")
    assert snap.run is not None and snap.run.id != first.id
    assert snap.workers == [] and {w.apart for w in snap.others} == {EARLIER_RUN}
    assert len(snap.others) == 3


def test_status_json_carries_the_kuberay_run(kuberay, tmp_path: Path, capsys):
    from test_cli_jobs import cli, write_kubeconfig

    _, cluster = rayjob_running(kuberay)
    config = write_kubeconfig(tmp_path / "kubeconfig", kuberay.url, NAMESPACE)
    argv = ["--backend", "kuberay", "--kubeconfig", str(config)]
    code, out, _ = cli(capsys, "status", "demo", *argv, "--json")
    data = json.loads(out)
    uid = kuberay.object("RayCluster", cluster)["metadata"]["uid"]
    assert code == 0 and data["run"]["id"] == uid and isinstance(data["run"]["started"], float)


def test_list_shows_the_rayjobs_and_rayclusters_we_created(kuberay, tmp_path: Path, capsys):
    from test_cli_jobs import cli, write_kubeconfig

    rayjob_running(kuberay)  # KubeRay's RayCluster for it is the RayJob's run, not a Job
    kuberay.checkpoint(CHECKPOINTS, 10)
    other = kuberay.backend(options=ExportOptions(kind="RayCluster"))
    assert other.submit(demo_job("solo")).created
    foreign = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "theirs"}}
    foreign["spec"] = kuberay.object("RayCluster", "solo")["spec"]
    kuberay.custom.create_namespaced_custom_object(
        "ray.io", "v1", NAMESPACE, "rayclusters", foreign
    )  # someone else's: no managed-by label
    assert kuberay.object("RayJob", "demo")["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "rlark-widgets"
    }
    assert other.list_jobs() == ["demo", "solo"]

    config = write_kubeconfig(tmp_path / "kubeconfig", kuberay.url, NAMESPACE)
    argv = ["--backend", "kuberay", "--kubeconfig", str(config)]
    code, out, _ = cli(capsys, "list", *argv, "--json")
    rows = json.loads(out)
    assert code == 0 and [r["name"] for r in rows] == ["demo", "solo"]
    demo, solo = rows
    assert demo["phase"] == "Running" and (demo["workers_running"], demo["workers_expected"]) == (
        3,
        3,
    )
    assert demo["latest_checkpoint"] == "global_step_10" and demo["run"] is not None
    assert (solo["phase"], solo["workers_running"], solo["latest_checkpoint"]) == (
        "Pending",
        0,
        None,
    )
    assert solo["run"] == kuberay.object("RayCluster", "solo")["metadata"]["uid"]
    code, out, _ = cli(capsys, "list", *argv)
    assert out.splitlines()[0].startswith(f"demo  Running  run {demo['run'][:8]}  Workers 3/3")


def test_curves_come_through_the_head_pod_from_the_runs_start(kuberay):
    backend, _ = rayjob_running(kuberay)
    start = backend.snapshot("demo").run.started
    local = kuberay.output_dir / Path(TENSORBOARD).relative_to("/mnt/output")
    local.mkdir(parents=True, exist_ok=True)
    earlier = (9, start - 60.0, {"train/reward": -1.0})
    write_events(local, [earlier, *((s, start + s, {"train/reward": float(s)}) for s in (1, 2))])
    for reader in (backend, kuberay.backend(checkpoint_root=None)):  # the mount, then exec
        snap = reader.snapshot("demo")
        assert snap.scalars["train/reward"].steps == [1, 2]
        assert snap.to_dict()["scalars"]["train/reward"]["value"] == 2.0
        assert snap.lacks("scalars") is None


def test_gpu_use_comes_from_the_head_services_dashboard(kuberay):
    backend, cluster = rayjob_running(kuberay)
    answer = json.loads((RECORDED / "node_summary_two_gpu_nodes.json").read_text())
    kuberay.emulator.summaries[f"{cluster}-head-svc"] = answer
    snap = backend.snapshot("demo")
    assert [(g.worker, g.index, g.utilization) for g in snap.gpus] == RECORDED_GPUS
    assert snap.gpu_note is None and snap.missing == []
    del kuberay.emulator.summaries[f"{cluster}-head-svc"]  # no GPU device rows: said so
    snap = backend.snapshot("demo")
    assert snap.gpus == [] and str(snap.gpu_note).startswith("No GPU metrics")


def test_kuberay_links_are_the_kubectl_of_every_panel(kuberay):
    from test_links_and_panels import commands

    backend, cluster = rayjob_running(kuberay)
    links = commands(backend.snapshot("demo"))
    assert links["Job (phase, tasks)"] == "kubectl -n research get rayjobs.ray.io demo -o yaml"
    assert links["Workers"] == f"kubectl -n research get pods -l ray.io/cluster={cluster} -o wide"
    assert links["Ray dashboard (then open http://127.0.0.1:8265)"] == (
        f"kubectl -n research port-forward pod/{cluster}-head 8265:8265"
    )
    assert links["Checkpoints"] == (
        f"kubectl -n research exec {cluster}-head -c main -- ls -l {CHECKPOINTS}"
    )


def test_the_apps_runs_panel_lists_kuberay_jobs_and_reattaches(kuberay, tmp_path, monkeypatch):
    from test_cli_jobs import write_kubeconfig

    from rlark_widgets.ui.session import Session

    _, cluster = rayjob_running(kuberay)
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", kuberay.url)))
    s = Session(workspace=tmp_path)
    s.backend_name, s.k8s_namespace = "kuberay", NAMESPACE
    rows = s.job_rows()
    assert s.error in (None, "") and [(r.name, r.phase) for r in rows] == [("demo", "Running")]
    assert rows[0].run == kuberay.object("RayCluster", cluster)["metadata"]["uid"]
    assert s.attach("demo") and s.refresh(), s.error
    s._monitor.cancel()
    s._monitor.join(timeout=30)
    assert s.snapshot.backend == "kuberay" and s.snapshot.run.id == rows[0].run
