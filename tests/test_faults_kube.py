"""Faults on the Kubernetes backend, injected into the emulator's real HTTP server (issue #8).

A dropped connection, slow answers, a burst of 429s, a 500 on one of the four lists: each
refresh stays bounded, keeps what the other lists said, and names what is missing in plain
words; a watcher (the CLI's ``status --watch``, the app's monitor) goes on to the next refresh.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_cli_jobs import cli, write_kubeconfig
from test_kubernetes_backend import CHECKPOINTS, NAMESPACE, running

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.k8s.api import RetryPolicy
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.snapshot import CHECKPOINTS as CHECKPOINT_LIST
from rlark_widgets.monitor.snapshot import EVENTS, GPUS, MEMBERS, PODS, SCALARS, JobSnapshot
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.ui.session import Session, finding_key

if TYPE_CHECKING:
    from kube_emulator import Cluster

DROPPED = "the server closed the connection without answering."
IMAGE = "registry.example.com/rlinf:v0.3.0"


def training(kube: Cluster, **options):
    """The demo Job Running with 3 Ray members and checkpoint 10; a backend with ``options``."""
    running(kube)
    kube.ray("demo")
    kube.checkpoint(CHECKPOINTS, 10)
    return kube.backend(**options)


def whole(snap: JobSnapshot) -> bool:
    """Every part was read: 3 Workers, 3 members alive, checkpoint 10, nothing missing."""
    parts = (len(snap.workers), snap.members_alive, [c.step for c in snap.checkpoints])
    return parts == (3, 3, [10]) and snap.missing == []


def missing(snap: JobSnapshot) -> dict[str, str]:
    return {m.part: str(m.why) for m in snap.missing}


def until(check, timeout: float = 30.0) -> None:
    """Wait for the app's background monitor (it refreshes every 3 s)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


# --- a connection dropped mid-watch ---------------------------------------------------------
def test_a_dropped_connection_is_retried_and_one_that_outlasts_the_retries_costs_one_part(kube):
    backend = training(kube)
    once = kube.drop("GET", "pods")  # one dropped connection: retried within the refresh
    first = backend.snapshot("demo")
    assert once.hits == 1 and whole(first)

    kube.drop("GET", "events", times=4)  # as many as the retry policy's attempts
    degraded = backend.snapshot("demo")
    assert missing(degraded) == {
        EVENTS: f"Cannot reach the Kubernetes API server at {kube.url} to list events in "
        f"namespace '{NAMESPACE}': {DROPPED}"
    }
    # what the other lists said is kept, and the diagnosis still reads it
    assert (len(degraded.workers), degraded.members_alive, degraded.progress.last_step) == (
        3,
        3,
        10,
    )
    assert diagnose(degraded).title == "Training: step 10, latest checkpoint global_step_10."
    assert whole(backend.snapshot("demo"))  # the next refresh recovers


def test_an_outage_fails_one_refresh_with_a_clear_error_and_the_next_recovers(kube):
    backend = training(kube)
    kube.drop(times=4)  # every request, as long as the retries of the first one last
    with pytest.raises(BackendError) as caught:
        backend.snapshot("demo")
    assert caught.value.message == (
        f"Cannot reach the Kubernetes API server at {kube.url} to get jobs.rlark.io 'demo' in "
        f"namespace '{NAMESPACE}': {DROPPED}"
    )
    assert caught.value.transient and "network or VPN" in caught.value.fix
    assert whole(backend.snapshot("demo"))


def test_a_dropped_exec_leaves_only_the_checkpoints_unread(kube):
    backend = training(kube, checkpoint_root=None)
    kube.drop("GET", "pods", subresource="exec")
    snap = backend.snapshot("demo")
    assert list(missing(snap)) == [CHECKPOINT_LIST]
    assert missing(snap)[CHECKPOINT_LIST].startswith("exec in demo-header-0 failed:")
    assert (len(snap.workers), snap.members_alive) == (3, 3)
    assert diagnose(snap).title == "Running, but its progress cannot be read."


def test_status_watch_reports_a_failed_refresh_and_keeps_watching(kube, tmp_path: Path, capsys):
    """The CLI as a user runs it: an outage mid-watch prints the error, the watch goes on and
    exits when the Job ends."""
    running(kube)
    kube.ray("demo")
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    served = kube.emulator.served
    outage = None

    def cluster_side() -> None:
        nonlocal outage
        deadline = time.monotonic() + 60
        while kube.emulator.served < served + 6 and time.monotonic() < deadline:
            time.sleep(0.01)  # the Job read and the first refresh are done
        outage = kube.drop("GET", "jobs", times=4)  # the next refresh's first request
        while outage.hits < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)  # at least one whole refresh after the outage
        kube.set_job_status("demo", "Succeeded")
        kube.end_workers("demo")

    driver = threading.Thread(target=cluster_side)
    driver.start()
    argv = ["--backend", "kubernetes", "--kubeconfig", str(config)]
    code, out, err = cli(capsys, "status", "demo", *argv, "--watch", "--interval", "0.1")
    driver.join()
    assert code == 0 and outage is not None and outage.hits == 4
    assert "Traceback" not in out + err
    assert f"error: Cannot reach the Kubernetes API server at {kube.url}" in err
    assert DROPPED in err and "fix: Check the server address in your kubeconfig" in err
    assert out.count("Job demo on kubernetes: Running") >= 2  # before and after the outage
    *report, notice = out.rstrip().splitlines()  # the watch's notices follow its report
    assert report[-1].startswith("OK The Job finished") and notice == "» demo ended: Succeeded."


# --- slow answers -----------------------------------------------------------------------------
def test_a_slow_list_is_cut_by_the_timeout_and_named(kube):
    backend = training(kube, timeout=0.3)
    kube.slow("GET", "events", 2.0, times=10)
    started = time.monotonic()
    snap = backend.snapshot("demo")
    elapsed = time.monotonic() - started
    assert elapsed < backend.reader.budget + backend.api.timeout  # bounded: never the 2 s
    (why,) = missing(snap).values()
    assert list(missing(snap)) == [EVENTS]
    assert why.startswith(f"The API server at {kube.url} did not answer within 0.3 s when trying")
    assert (len(snap.workers), snap.members_alive, snap.progress.last_step) == (3, 3, 10)


def test_a_refresh_out_of_time_skips_the_parts_left_and_says_so(kube):
    """Each answer comes just within the timeout; together they spend the refresh's budget
    (3 timeouts), so the last parts (GPU use, the checkpoint listing and the event files by
    exec) are not started."""
    backend = training(kube, timeout=1.0, checkpoint_root=None)
    for plural, subresource in (("jobs", None), ("pods", None), ("events", None)):
        kube.slow("GET", plural, 0.8, subresource=subresource)
    kube.slow("GET", "pods", 0.8, subresource="proxy")
    started = time.monotonic()
    snap = backend.snapshot("demo")
    assert time.monotonic() - started < backend.reader.budget + 0.5
    late = "not read: this refresh already took 3 s (the API server is slow)"
    assert missing(snap) == {GPUS: late, CHECKPOINT_LIST: late, SCALARS: late}
    assert (len(snap.workers), snap.members_alive) == (3, 3)


# --- a burst of 429s --------------------------------------------------------------------------
def test_a_short_burst_of_429s_is_waited_out_as_the_server_asks(kube):
    waits: list[float] = []
    backend = training(kube, retry=RetryPolicy(backoff=0.01, sleep=waits.append))
    burst = kube.fail("GET", "pods", 429, headers={"Retry-After": "1"}, times=2)
    assert whole(backend.snapshot("demo"))
    assert burst.hits == 2 and waits == [1.0, 1.0]


def test_a_burst_that_outlasts_the_retries_degrades_the_snapshot(kube):
    waits: list[float] = []
    backend = training(kube, retry=RetryPolicy(backoff=0.01, sleep=waits.append))
    kube.fail("GET", "pods", 429, "too many requests, slow down", 10, {"Retry-After": "1"})
    snap = backend.snapshot("demo")
    assert waits == [1.0, 1.0, 1.0]  # 4 attempts, then the refresh goes on without pods
    assert missing(snap)[PODS] == (
        "The API server kept answering 429 (Too Many Requests) to list pods in namespace "
        f"'{NAMESPACE}' after 4 attempt(s). too many requests, slow down"
    )
    assert snap.phase == "Running" and snap.workers == [] and snap.checkpoints  # the rest is read
    verdict = diagnose(snap)
    assert (verdict.link, verdict.title) == (
        "workers-running",
        "The Workers could not be read in this refresh.",
    )
    assert verdict.fix.startswith("The next refresh tries again")


def test_a_retry_after_longer_than_the_refresh_budget_is_not_waited_for(kube):
    waits: list[float] = []
    backend = training(kube, retry=RetryPolicy(backoff=0.01, sleep=waits.append))
    kube.fail("GET", "events", 429, headers={"Retry-After": "30"})
    snap = backend.snapshot("demo")  # a 10 s wait would exceed the refresh's 6 s budget
    assert waits == [] and "after 1 attempt(s)" in missing(snap)[EVENTS]
    assert whole(backend.snapshot("demo"))


# --- a server error on one of the four lists ----------------------------------------------------
@pytest.mark.parametrize(
    ("plural", "subresource", "part", "title"),
    [
        ("pods", None, PODS, "The Workers could not be read in this refresh."),
        ("events", None, EVENTS, "Training: step 10, latest checkpoint global_step_10."),
        ("pods", "proxy", MEMBERS, "The Ray head cannot be reached."),
        ("pods", "exec", CHECKPOINT_LIST, "Running, but its progress cannot be read."),
    ],
)
def test_a_500_on_one_list_names_it_and_keeps_the_others(kube, plural, subresource, part, title):
    backend = training(kube, checkpoint_root=None)
    kube.fail(
        "GET", plural, 500, "etcdserver: request timed out", times=10, subresource=subresource
    )
    snap = backend.snapshot("demo")
    assert "500" in missing(snap).pop(part)
    if part == PODS:  # the head pod is unknown, so nothing can be asked through it
        unknown = "the Ray head cannot be found while the Workers are unread"
        assert missing(snap) == {
            PODS: missing(snap)[PODS],
            MEMBERS: unknown,
            CHECKPOINT_LIST: unknown,
        }
    else:  # the event files come by exec too: a refused exec leaves the curves unread as well
        assert list(missing(snap)) == [part] + ([SCALARS] if subresource == "exec" else [])
    assert snap.phase == "Running" and snap.expected_workers == 3
    if part != PODS:
        assert len(snap.workers) == 3
    if part not in (PODS, MEMBERS):
        assert snap.members_alive == 3
    if part not in (PODS, CHECKPOINT_LIST):
        assert [c.step for c in snap.checkpoints] == [10]
    assert diagnose(snap).title == title


def test_the_summary_names_the_missing_part_in_either_language(kube):
    backend = training(kube)
    kube.fail("GET", "events", 500, "etcdserver: request timed out", times=10)
    snap = backend.snapshot("demo")
    desired = {"header": 1, "actor": 1, "env": 1}
    english = summary_lines(snap, desired)
    assert english[-2] == (
        "  Could not read: Worker events: The API server kept answering 500 (Internal Server "
        f"Error) to list events in namespace '{NAMESPACE}' after 4 attempt(s). etcdserver: "
        "request timed out"
    )
    chinese = summary_lines(snap, desired, lang="zh")
    assert chinese[-2].startswith("  无法读取：Worker 事件，原因：")
    assert chinese[-2].endswith("etcdserver: request timed out")


# --- the app keeps what the user typed ------------------------------------------------------------
@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
def test_the_app_keeps_the_users_inputs_and_says_what_failed(kube, tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kubeconfig", kube.url)))
    s = Session(workspace=tmp_path / "workspace")
    s.settings = JobSettings(image=IMAGE, name="faulty", namespace=NAMESPACE)
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    selector = {"rlark.io/cluster": "gpu-a", "kubernetes.io/hostname": "a800-0"}
    assert s.update_role(0, node_selector=selector)
    s.backend_name, s.k8s_namespace = "kubernetes", NAMESPACE
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    typed = (s.settings, list(s.roles), s.job_yaml)

    kube.fail("GET", "nodes", 503, "the API server is shutting down", times=4)
    assert s.submit(wait=True)
    assert s.error.startswith(
        "Submit: The API server kept answering 503 (Service Unavailable) to list nodes after 4 "
        "attempt(s). the API server is shutting down Fix: The cluster is busy or unwell"
    )
    assert "Traceback" not in s.error and not s.submitted
    assert (s.settings, list(s.roles), s.job_yaml) == typed
    assert not kube.exists("jobs", "faulty")

    kube.fail("GET", "pods", 500, times=1000)  # the monitor's refreshes degrade, never fail
    assert s.submit(wait=True) and s.submitted == "faulty" and s.error == ""
    until(lambda: s.snapshot is not None)
    assert s.error == "" and "500" in missing(s.snapshot)[PODS]
    assert s.diagnosis.title == "The Workers could not be read in this refresh."

    degraded = s.snapshot
    outage = kube.drop("GET", "jobs", times=4)  # the next refresh of the monitor fails whole
    until(lambda: s.error != "")
    assert s.error.startswith(
        f"Refresh: Cannot reach the Kubernetes API server at {kube.url} to get jobs.rlark.io "
        f"'faulty' in namespace '{NAMESPACE}': {DROPPED} Fix: Check the server address"
    )
    assert s.snapshot is degraded and outage.hits == 4  # the last view stays on screen
    until(lambda: s.snapshot is not degraded)  # the monitor went on: the next refresh works
    assert s.error == ""
    assert (s.settings, list(s.roles), s.job_yaml) == typed
    s.stop(wait=True)
    assert not kube.exists("jobs", "faulty")
