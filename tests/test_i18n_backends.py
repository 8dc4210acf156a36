"""The backends' messages read in Chinese, and their English is what it was (issue #7).

Each test drives real code the way the backend tests do (the Kubernetes emulator, a local Job
directory, the rehearsal's checks on stand-in Ray answers), collects every finding, error and
message it produces, and renders them in zh: Chinese present, no ``{placeholder}`` left. The
English is asserted word for word where no other test already does.
"""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import kubernetes.stream
import pytest
from kubernetes import client
from test_kubernetes_backend import NAMESPACE, demo_job, kubeconfig

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.k8s.api import Action, RetryPolicy
from rlark_widgets.backends.k8s.checkpoints import ExecFailed, exec_checkpoints
from rlark_widgets.backends.k8s.inventory import node_selection
from rlark_widgets.backends.kube.backend import KubernetesBackend
from rlark_widgets.backends.kube.preflight import storage_findings
from rlark_widgets.backends.local import backend as local_module
from rlark_widgets.backends.local.backend import LocalBackend, _started_message
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.preflight import memory_finding, preflight_findings
from rlark_widgets.backends.local.rehearsal import Rehearsal, RehearsalFailure
from rlark_widgets.backends.local.spec import Spec, build_plan, build_spec
from rlark_widgets.findings import Finding, Severity
from rlark_widgets.i18n import Listing, Text
from rlark_widgets.rlark.inventory import Inventory, NodeInfo
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.site import example_site

if TYPE_CHECKING:
    from collections.abc import Callable

    from kube_emulator import Cluster

CJK = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")
K8S_RULES = {
    "K8S-CRD",
    "K8S-ACCESS",
    "K8S-DRY-RUN",
    "K8S-CAPACITY",
    "K8S-STORAGECLASS",
    "K8S-SELECTOR-OUTSIDE",
    "K8S-SELECTOR-COUNT",
    "K8S-NAMESPACE",
}
LOC_RULES = {
    "LOC-HEADER",
    "LOC-MEMORY",
    "LOC-NODE-IP",
    "LOC-REHEARSAL",
    "LOC-NOT-MODELLED",
    "LOC-HOSTPATH",
    "LOC-PREPARE-HERE",
}


def chinese(message: Text | str) -> str:
    """``message`` in zh, checked: a Text, with Chinese in it and every placeholder filled."""
    assert isinstance(message, Text), f"not a Text: {message!r}"
    zh = message.render("zh")
    assert CJK.search(zh), zh
    assert not PLACEHOLDER.search(zh), zh
    return zh


def check_finding(finding: Finding) -> None:
    chinese(finding.text)
    if finding.fix:
        chinese(finding.fix_text)


def raised(action: Callable[[], Any]) -> BackendError:
    """The BackendError ``action`` raises, its message and fix checked in zh."""
    with pytest.raises(BackendError) as caught:
        action()
    chinese(caught.value.text)
    chinese(caught.value.fix_text)
    return caught.value


# --- Kubernetes: preflight ------------------------------------------------------------------------
def test_every_kubernetes_preflight_finding_reads_in_chinese(kube: Cluster) -> None:
    findings: list[Finding] = []
    reaching = demo_job()  # an actor selection spilling into cluster gpu-b
    reaching.roles[1].node_selector, reaching.roles[1].replicas = {"gpu.model": "a800"}, 6
    findings += kube.backend().preflight(reaching)
    findings += kube.backend(cluster="gpu-a").preflight(reaching)
    lab = demo_job()  # robots of two node categories
    lab.roles[2].node_selector = {"rlark.io/cluster": "lab"}
    findings += kube.backend().preflight(lab)
    broken = demo_job()  # GPUs on a NotReady and a tainted node; shared nodes; no bucket
    broken.roles[1].node_selector = {"rlark.io/cluster": "gpu-b", "gpu.model": "h100"}
    broken.roles[1].replicas = 2
    for role in broken.roles:
        role.mounts = [Mount("output", "storage", "oss-missing", "/mnt/output")]
    findings += kube.backend().preflight(broken)
    shared = demo_job()
    for role in shared.roles[:2]:
        role.node_selector, role.replicas = {"rlark.io/cluster": "gpu-a", "gpu.model": "a800"}, 4
    findings += kube.backend().preflight(shared)
    invalid = demo_job(namespace="default")
    invalid.roles[2].replicas = 0
    findings += kube.backend().preflight(invalid)
    kube.fail("POST", "selfsubjectaccessreviews", 403, "no reviews for you")
    findings += kube.backend().preflight(demo_job())
    backend = kube.backend()
    backend.submit(demo_job())
    findings += backend.preflight(demo_job())  # a Job of that name exists
    kube.emulator.access.denied.add(("create", "jobs", NAMESPACE))
    findings += backend.preflight(demo_job())

    assert {f.rule_id for f in findings} == K8S_RULES - {"K8S-CRD"}
    for rule in ("K8S-ACCESS", "K8S-DRY-RUN"):  # could not check / refused; exists / rejected
        assert {f.severity for f in findings if f.rule_id == rule} == {
            Severity.WARNING,
            Severity.ERROR,
        }
    for finding in findings:
        check_finding(finding)
    outside = [f.message for f in findings if f.rule_id == "K8S-SELECTOR-OUTSIDE"]
    intents = {m.split(" is meant for ")[1].split(" but ")[0] for m in outside}
    assert intents == {"one cluster", "cluster 'gpu-a'", "cluster 'lab' and one node category"}
    capacity = next(f for f in findings if f.rule_id == "K8S-CAPACITY" and "NotReady" in f.message)
    assert chinese(capacity.text).endswith(
        "（原因：b-h100-0 未就绪（NotReady）；b-h100-1 带有污点 nvidia.com/gpu=xid-79:NoSchedule）。"
        "没有哪个可用节点能为单个 Worker 提供 8 个。"
    )


def test_every_node_selection_intent_reads_in_chinese(kube: Cluster) -> None:
    """What a selection was meant for, named or "one", in the words of K8S-SELECTOR-OUTSIDE."""
    CLUSTER_LABEL, CATEGORY_LABEL = example_site().cluster_label, example_site().category_label
    cases = {
        (None, ()): ("one cluster and one node category", "同一个集群中的同一个节点类别"),
        (None, (("gpu.model", "a800"),)): ("one cluster", "同一个集群"),
        ("gpu-a", (("gpu.model", "a800"),)): ("cluster 'gpu-a'", "集群 'gpu-a'"),
        (None, ((CATEGORY_LABEL, "edge"),)): ("category 'edge'", "节点类别 'edge'"),
        (None, ((CATEGORY_LABEL, "cloud"),)): (
            "one cluster and category 'cloud'",
            "同一个集群中的节点类别 'cloud'",
        ),
        (None, ((CLUSTER_LABEL, "lab"),)): (
            "cluster 'lab' and one node category",
            "集群 'lab' 中的同一个节点类别",
        ),
        (None, ((CLUSTER_LABEL, "gpu-a"), (CATEGORY_LABEL, "cloud"))): (
            "cluster 'gpu-a' and category 'cloud'",
            "集群 'gpu-a' 中的节点类别 'cloud'",
        ),
    }
    inventory = kube.backend().inventory()
    for (cluster, selector), (english, zh) in cases.items():
        intent = node_selection(inventory, dict(selector), cluster).intent_text
        assert (str(intent), chinese(intent)) == (english, zh)
    lab = [
        NodeInfo(n, {CLUSTER_LABEL: "lab", CATEGORY_LABEL: n}, cluster="lab", category=n)
        for n in ("edge", "robot")
    ]
    intent = node_selection(Inventory(tuple(lab), (), "lab", site=example_site()), {}).intent_text
    assert (str(intent), chinese(intent)) == ("one node category", "同一个节点类别")


def test_a_cluster_without_rlark_says_so_in_chinese(kube: Cluster) -> None:
    del kube.emulator.resources[kube.jobs]
    (crd,) = [f for f in kube.backend().preflight(demo_job()) if f.rule_id == "K8S-CRD"]
    check_finding(crd)
    assert "这里没有安装 RLark" in crd.message_in("zh")


def test_a_cluster_without_storage_classes_says_so_in_both_languages() -> None:
    manifest = {"spec": {"storage": [{"storageClassName": "oss-rlinf"}]}}
    (finding,) = storage_findings(manifest, Inventory((), (), "empty", site=example_site()))
    assert finding.message == (
        "StorageClass 'oss-rlinf' does not exist on this cluster (it has: none)."
    )
    assert "没有任何 StorageClass" in chinese(finding.text)


# --- Kubernetes: errors ---------------------------------------------------------------------------
def test_api_server_refusals_read_in_chinese_and_keep_their_english(kube: Cluster) -> None:
    backend = kube.backend(retry=RetryPolicy(attempts=2, backoff=0.01, cap=0.01))
    demo = "create jobs.rlark.io 'demo' in namespace 'research'"
    expected = {
        401: f"The API server at {kube.url} did not accept your credentials (401) when trying to"
        f" {demo}.",
        403: f"Kubernetes refused to {demo}: you may not 'create' jobs.rlark.io in namespace"
        " 'research' (403 Forbidden). nope",
        404: f"Not found when trying to {demo} (404): nope",
        500: f"The API server kept answering 500 (Internal Server Error) to {demo} after 2"
        " attempt(s). nope",
        400: f"The API server refused to {demo} (400 Bad Request): nope",
    }
    errors = {}
    for status, english in expected.items():
        kube.fail("POST", "jobs", status, "nope", times=2 if status == 500 else 1)
        errors[status] = raised(lambda: backend.submit(demo_job()))
        assert errors[status].message == english
    assert chinese(errors[403].text).endswith("（403 Forbidden）。服务器返回：nope")

    kube.fail("GET", "nodes", 403, "no nodes")
    error = raised(backend.inventory)
    assert error.message == (
        "Kubernetes refused to list nodes: you may not 'list' nodes cluster-wide (403 Forbidden)."
        " no nodes"
    )
    assert error.fix == "Ask the cluster admin for 'list' on nodes cluster-wide."
    assert chinese(error.text).startswith("Kubernetes 拒绝列出 nodes：你无权在整个集群范围内")

    invalid = demo_job()
    invalid.roles[1].replicas = 0
    assert "(422)" in raised(lambda: backend.submit(invalid)).message
    backend.submit(demo_job())
    kube.fail("GET", "jobs", 409, "busy")
    error = raised(lambda: backend.snapshot("demo"))
    assert error.message == (
        "Conflict when trying to get jobs.rlark.io 'demo' in namespace 'research' (409): busy"
    )
    kube.slow("GET", "jobs", 1.0, times=2)
    slow = kube.backend(timeout=0.2, retry=RetryPolicy(attempts=2, backoff=0.01))
    assert "在 0.2 秒内没有回复" in chinese(raised(lambda: slow.snapshot("demo")).text)


def test_an_unreachable_server_and_a_non_json_answer_read_in_chinese() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configuration = client.Configuration(host=f"http://127.0.0.1:{port}")
    configuration.retries = False
    backend = KubernetesBackend(
        client.ApiClient(configuration), retry=RetryPolicy(attempts=1), site=example_site()
    )
    assert chinese(raised(backend.inventory).text) == (
        f"无法连接 http://127.0.0.1:{port} 的 Kubernetes API 服务器来列出 nodes：connection refused."
    )
    answer = SimpleNamespace(
        data=b"<html>", headers={"Content-Type": "application/json"}, release_conn=lambda: None
    )
    error = raised(lambda: backend.api._decode(Action("list", "pods", "research"), answer))
    assert error.message == (
        f"The API server at http://127.0.0.1:{port} answered 'list pods in namespace 'research''"
        " with something that is not JSON."
    )
    backend.close()


def test_every_action_reads_in_chinese_and_a_new_verb_still_reads() -> None:
    actions = {
        Action("list", "nodes"): "列出 nodes",
        Action(
            "get", "jobs.rlark.io", "research", "demo"
        ): "读取 jobs.rlark.io 'demo'（命名空间 'research'）",
        Action("create", "jobs.rlark.io", "research"): "创建 jobs.rlark.io（命名空间 'research'）",
        Action("delete", "persistentvolumeclaims", "research", "out"): (
            "删除 persistentvolumeclaims 'out'（命名空间 'research'）"
        ),
        Action("discover", "API group rlark.io/v1alpha1"): "查询 API group rlark.io/v1alpha1",
        Action(
            "read the log of", "pods", "research", "p"
        ): "读取 pods 'p'（命名空间 'research'） 的日志",
        Action("patch", "pods", None, "p"): "对 pods 'p' 执行 patch",
    }
    for action, zh in actions.items():
        assert chinese(action.text) == zh
    assert str(Action("patch", "pods", "research")) == "patch pods in namespace 'research'"


def test_a_failed_checkpoint_listing_says_why_in_chinese(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exec in the head pod ran, but its listing exited non-zero."""
    channel = SimpleNamespace(
        run_forever=lambda timeout: None,
        read_all=lambda: "",
        returncode=2,
        close=lambda: None,
        sock=SimpleNamespace(shutdown=lambda: None),
    )
    monkeypatch.setattr(kubernetes.stream, "stream", lambda *args, **kwargs: channel)
    api = SimpleNamespace(
        requests=0, timeout=1.0, exec_core=SimpleNamespace(connect_get_namespaced_pod_exec=None)
    )
    with pytest.raises(ExecFailed) as caught:
        exec_checkpoints(api, "research", "demo-header-0", "/mnt/output/checkpoints")
    assert str(caught.value) == "the listing exited with code 2"
    assert chinese(caught.value.why) == "列出 checkpoint 的命令以退出码 2 结束"


def test_kubeconfig_problems_read_in_chinese(
    kube: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = kubeconfig(tmp_path / "config", kube.url)
    error = raised(
        lambda: KubernetesBackend.from_kubeconfig("prod", config_file=config, site=example_site())
    )
    assert error.message == f"Context 'prod' is not in {config} (it has: lab)."
    broken = tmp_path / "broken"
    broken.write_text("apiVersion: v1\nclusters: [\n")
    raised(lambda: KubernetesBackend.from_kubeconfig(config_file=broken, site=example_site()))
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "nothing-here"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    raised(lambda: KubernetesBackend.from_kubeconfig(site=example_site()))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")  # a pod without a token
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    error = raised(lambda: KubernetesBackend.from_kubeconfig(site=example_site()))
    assert error.message.startswith("Running inside a cluster, but its service account cannot")


# --- Kubernetes: submit, logs, stop, delete -------------------------------------------------------
def test_submit_logs_stop_and_delete_messages_read_in_chinese(
    kube: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = kube.backend()
    messages: list[Text] = []
    kube.fail("POST", "jobs", 409, "exists")  # a 409 for a Job that is not there
    error = raised(lambda: backend.submit(demo_job()))
    assert error.message == (
        "Job 'demo' existed a moment ago in namespace 'research' and is gone now."
    )
    kube.slow("POST", "jobs", 0.5, after=True)
    lost = kube.backend(timeout=0.2).submit(demo_job())  # created, its answer lost
    again, changed = backend.submit(demo_job()), demo_job()
    changed.roles[1].gpus = 4
    different = backend.submit(changed)
    for result in (lost, again, different):
        messages += [result.text, result.where_text]
    assert chinese(again.where_text) == (
        f"{kube.url} 上的命名空间 'research'（kubectl -n research get jobs.rlark.io demo）"
    )

    error = raised(lambda: backend.logs("demo", "actor/7"))
    assert error.fix == "Use one of its Workers: none yet."
    kube.start_workers("demo")
    assert chinese(raised(lambda: backend.logs("demo", "actor/7")).fix_text) == (
        "请使用它的某个 Worker：header/0, actor/0, env/0。"
    )
    kube.waiting("demo-env-0", "ImagePullBackOff", "Back-off pulling image")
    assert "还没有日志" in chinese(raised(lambda: backend.logs("demo", "env/0")).text)

    def unknown_shape(manifest: object) -> Job:
        raise ValueError("a shape this tool does not know")

    with monkeypatch.context() as patched:
        patched.setattr(Job, "from_manifest", unknown_shape)
        raised(lambda: backend.job("demo"))

    kube.claims("demo")
    messages += [backend.stop("demo"), backend.stop("demo"), backend.delete("demo")]
    backend.submit(demo_job("kept"))
    kube.claims("kept")
    messages.append(backend.delete("kept"))
    bare = demo_job("bare")
    for role in bare.roles:
        role.mounts = []
    backend.submit(bare)
    messages += [backend.delete("bare")]
    assert str(messages[-1]) == "Deleted Job 'bare' in namespace 'research'."
    for message in messages:
        chinese(message)


# --- local backend --------------------------------------------------------------------------------
def test_every_local_preflight_finding_reads_in_chinese(tmp_path: Path) -> None:
    data = Mount("data", "hostPath", str(tmp_path / "not-here"), "/data")
    prepare = "source /opt/venv/bin/activate\n"
    headless = Job("headless", [Role("workers", 2, mounts=[data], prepare_script=prepare)])
    findings = preflight_findings(headless, "192.0.2.1", rehearsal=True)  # not on this machine
    findings.append(memory_finding(Job("big", [Role("h", 1, head=True), Role("w", 199)]), 8192))
    assert {f.rule_id for f in findings} == LOC_RULES
    for finding in findings:
        check_finding(finding)
    hostpath = next(f for f in findings if f.rule_id == "LOC-HOSTPATH")
    assert hostpath.message == (
        f"hostPath {tmp_path / 'not-here'} does not exist here: /data maps to a directory of the"
        " Job's workspace instead."
    )


def test_local_refusals_read_in_chinese(tmp_path: Path) -> None:
    raised(lambda: LocalBackend(tmp_path, node_ip="not-an-ip", site=example_site()))
    raised(lambda: LocalBackend(tmp_path, node_ip="127.0.0.1", site=example_site()))
    error = raised(lambda: LocalBackend(tmp_path, run_mode="train", site=example_site()))  # type: ignore[arg-type]
    assert (error.message, error.fix) == ("Unknown run mode 'train'.", "Use 'rehearsal' or 'job'.")
    backend = LocalBackend(tmp_path, site=example_site())
    raised(lambda: backend.stop("Not_A_Name"))
    error = raised(lambda: backend.stop("never-submitted"))
    assert error.message == f"No local Job named 'never-submitted' in {tmp_path.resolve()}."
    error = raised(lambda: backend.submit(Job("headless", [Role("workers", 1)])))
    assert error.message.startswith("The Job needs exactly one Header role")
    raised(lambda: Spec.from_json({"job": "old"}))


def stopped_job(workspace: Path, backend: LocalBackend) -> tuple[Job, JobDir, Spec]:
    """A Job directory as a stopped run leaves it (as in test_local_backend.py): no process."""
    job = Job("stopped", [Role("header", 1, head=True), Role("workers", 3)])
    where = JobDir.of(workspace, job.name)
    spec = build_spec(job, where, backend.options, site=example_site())
    where.write("spec.json", spec.to_json())
    plan = build_plan(job, where, backend.options, None, None, MountMap.for_job(job, where.root))
    where.write("plan.json", plan)
    gone = {"pid": 2**22 + 1, "create_time": 1.0}  # above pid_max: never a live process
    where.write("supervisor.json", gone)
    where.write("stop.json", {"time": 3.0})
    Path(spec.workers[2].log).parent.mkdir(parents=True)
    Path(spec.workers[2].log).write_text("[rlark-local] start 10:00:00 Worker\nno robot\n")
    records = {
        "header/0": {**gone, "started": 1.0, "joined": 1.2, "ended": 3.0, "returncode": -15},
        "workers/0": {**gone, "started": 1.0, "ended": 2.0},  # nobody recorded its exit
        "workers/1": {**gone, "started": 1.0, "ended": 1.5, "returncode": 3},
    }
    records["header/0"]["stopped_by"] = "stop"
    where.write("state.json", {"phase": "stopping", "workers": records})
    return job, where, spec


def test_local_worker_notes_and_events_read_in_chinese(tmp_path: Path) -> None:
    backend = LocalBackend(tmp_path, site=example_site())
    stopped_job(tmp_path, backend)
    snap = backend.snapshot("stopped")
    notes = {w.key: w.message for w in snap.workers}
    assert {k: str(v) for k, v in notes.items()} == {
        "header/0": "None",
        "workers/0": "None",
        "workers/1": "the prepare script failed: no robot",
        "workers/2": "never started: the Job was stopped first",
    }
    assert chinese(notes["workers/1"]) == "准备脚本失败：no robot"
    events = [e.message for w in snap.workers for e in w.events]
    assert [str(e) for e in events[:3]] == ["process started", "Ray node ALIVE", "return code -15"]
    for message in [*events, notes["workers/1"], notes["workers/2"]]:
        chinese(message)

    (tmp_path / "stopped" / "stop.json").unlink()
    waiting = LocalBackend(tmp_path, site=example_site()).snapshot("stopped")
    assert chinese(waiting.workers[1].message) == "它在没有监管进程看护时结束：退出码未知"
    assert chinese(waiting.workers[3].message) == "Worker 依次启动"
    assert chinese(backend.delete("stopped")).startswith("已删除 Job 'stopped'：已移除 ")


def test_local_submit_stop_and_delete_messages_read_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = LocalBackend(tmp_path, site=example_site())
    job, where, spec = stopped_job(tmp_path, backend)
    plan = where.read("plan.json")
    resumed = {**plan, "paths": {**plan["paths"], "resume_dir": {"container": "/mnt/ckpt/s_4"}}}
    job_mode = LocalBackend(tmp_path, run_mode="job", site=example_site())
    started = [
        _started_message(job, spec, plan, False, None, tmp_path),
        _started_message(job, spec, resumed, True, None, tmp_path),
        _started_message(
            job,
            build_spec(job, where, job_mode.options, site=example_site()),
            plan,
            True,
            None,
            tmp_path,
        ),
    ]
    assert (
        "The run script is the Job's runScript, run on this machine. This is a new run: it does"
        " not resume (runner.resume_dir is not set). The workspace "
    ) in str(started[2])
    messages = [*started, backend.stop("stopped")]
    error = raised(lambda: backend.logs("stopped", "workers/9"))
    assert error.fix == "Use one of: header/0, workers/0, workers/1, workers/2, run, supervisor."

    alive = [SimpleNamespace(pid=4242)]
    found = iter([alive, []])
    monkeypatch.setattr(local_module, "job_processes", lambda *args: next(found))
    monkeypatch.setattr(local_module, "end_run", lambda *args: 2)
    messages.append(backend.stop("stopped"))
    assert str(messages[-1]).startswith(
        "Stopped Job 'stopped': 1 processes ended (2 needed SIGKILL)."
    )
    monkeypatch.setattr(local_module, "job_processes", lambda *args: alive)
    error = raised(lambda: backend.stop("stopped"))
    assert error.message == "Processes of Job 'stopped' survived SIGKILL (PIDs 4242)."
    found = iter([alive, []])
    monkeypatch.setattr(local_module, "job_processes", lambda *args: next(found))
    monkeypatch.setattr(local_module, "end_run", lambda *args: 0)
    messages.append(backend.delete("stopped"))
    monkeypatch.setattr(local_module.subprocess, "call", lambda *args, **kwargs: 1)
    monkeypatch.setattr(local_module, "job_processes", lambda *args: [])
    error = raised(lambda: job_mode.submit(Job("again", [Role("header", 1, head=True)])))
    assert error.message == "The local supervisor of Job 'again' did not start (exit code 1)."
    for message in messages:
        chinese(message)
    assert "已结束 1 个进程" in chinese(messages[-1])


def test_a_running_job_is_not_started_twice_in_either_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = LocalBackend(tmp_path, site=example_site())
    stopped_job(tmp_path, backend)
    monkeypatch.setattr(local_module, "_live", lambda where: True)
    result = backend.submit(Job("stopped", [Role("header", 1, head=True)]))
    assert not result.created and result.where == str(tmp_path.resolve() / "stopped")
    # its run has ended (Stopped) while processes still hold the nodes: it says so
    assert chinese(result.text).startswith("Job 'stopped' 已经结束，但它的 Worker 仍占着本机的节点")


# --- the rehearsal's failures ---------------------------------------------------------------------
class FakeRay:
    """What the rehearsal asks of Ray, answered from lists (no cluster is started)."""

    class RayError(Exception):
        pass

    exceptions = SimpleNamespace(RayError=RayError)

    def __init__(self, nodes: list[dict] = (), answers: list = (), fails: bool = False) -> None:
        self._nodes, self.answers, self.fails = list(nodes), list(answers), fails

    def nodes(self) -> list[dict]:
        return self._nodes

    def remote(self, **_: object) -> Callable[[type], Any]:
        actor = SimpleNamespace(
            rank_env=SimpleNamespace(remote=lambda: None),
            step=SimpleNamespace(remote=lambda step: None),
            report=SimpleNamespace(remote=lambda: None),
        )
        maker = SimpleNamespace(remote=lambda *args: actor)
        return lambda cls: SimpleNamespace(options=lambda **_: maker)

    def get(self, refs: list, timeout: float | None = None) -> list:
        if self.fails:
            raise self.RayError("gone")
        return self.answers

    def init(self, **_: object) -> None:
        raise ConnectionError("no head here")


def node(rank: int, gpus: float = 2.0) -> dict:
    """A Ray node as ``ray.nodes()`` lists it (node IDs are 28-byte hex strings)."""
    labels = {"rlinf.io/node-rank": str(rank)}
    return {
        "NodeID": f"{rank + 1:056x}",
        "Alive": True,
        "Labels": labels,
        "Resources": {"GPU": gpus},
    }


def rehearsal(tmp_path: Path, **plan: object) -> Rehearsal:
    paths = {k: {"local": str(tmp_path / k)} for k in ("config", "metrics", "tensorboard")}
    workers = [{"rank": r, "key": f"workers/{r}"} for r in range(2)]
    base = {"job": "j", "num_nodes": 2, "member_timeout": 0, "workers": workers, "paths": paths}
    return Rehearsal({**base, "node_ip": "127.0.0.2", "steps": 1, "save_interval": None, **plan})


def failure(action: Callable[[], Any]) -> str:
    """The English a RehearsalFailure writes to the run log, its zh checked."""
    with pytest.raises(RehearsalFailure) as caught:
        action()
    chinese(caught.value.text)
    assert str(caught.value) == str(caught.value.text)
    return str(caught.value)


def test_every_rehearsal_failure_reads_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = rehearsal(tmp_path)
    assert failure(lambda: one.wait_for_members(FakeRay([node(0)]))) == (
        "only 1 of 2 Ray nodes joined within 0 s; missing: RLINF_NODE_RANK 1 (Worker workers/1)."
        " RLinf would wait forever here; read the missing Workers' logs."
    )
    failure(lambda: one.check_ranks([node(0), node(0)]))
    failure(lambda: one.check_ranks([node(0), node(2)]))
    nodes = {0: node(0), 1: node(1, gpus=1.0)}
    wrong = failure(lambda: one.start_probes(FakeRay(answers=["0", "7"]), nodes))
    assert wrong == "node rank labels and environments disagree: label 1 but RLINF_NODE_RANK='7'."
    row = {"rank": 3, "node_rank": 1, "visible_accelerators": [1]}
    elsewhere = {"node_id": nodes[0]["NodeID"], "rank_env": "0"}
    failure(lambda: one._compare("actor", row, elsewhere, nodes))
    got = {"node_id": nodes[1]["NodeID"], "rank_env": "1", "gpus": [0]}
    failure(lambda: one._compare("actor", row, got, nodes))
    assert failure(lambda: one._compare("actor", row, {**got, "gpus": [1]}, nodes)) == (
        "actor rank 3 is planned on GPU 1 of node rank 1, but that Worker declares 1 GPU(s):"
        " raise the role's GPU count."
    )
    far = {"components": {"actor": {"processes": [{**row, "node_rank": 5}]}}}
    failure(lambda: rehearsal(tmp_path, expansion=far).check_placement(FakeRay(), nodes))
    probe = SimpleNamespace(step=SimpleNamespace(remote=lambda step: None))
    failure(lambda: one.run_steps(FakeRay(fails=True), {0: probe}, 1))
    resume = tmp_path / "global_step_4"
    resume.mkdir()
    paths = {**one.plan["paths"], "resume_dir": {"container": "/mnt/s", "local": str(resume)}}
    failure(rehearsal(tmp_path, paths=paths).first_step)
    read_only = {"container": "/mnt/output/c.yaml", "local": "x", "read_only_mount": "/mnt/output"}
    failure(rehearsal(tmp_path, paths={**one.plan["paths"], "config": read_only}).save_config)
    monkeypatch.setitem(sys.modules, "ray", FakeRay())
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert failure(one.run).startswith("cannot reach the Ray head at ''")


def test_a_listing_is_joined_in_the_readers_language() -> None:
    reasons = Listing([Text("{node} is NotReady", node="a"), Text("{node} is cordoned", node="b")])
    assert (str(reasons), reasons.render("zh")) == (
        "a is NotReady; b is cordoned",
        "a 未就绪（NotReady）；b 已被禁止调度（cordoned）",
    )
