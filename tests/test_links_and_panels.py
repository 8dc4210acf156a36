"""Links out of the monitor and the 'Inside the run' panel (issue #18).

Kubernetes links are read from a snapshot of the emulated cluster; the panel is driven through
one Session as the app does (no browser: the widgets' values are what the page shows).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from test_kubernetes_backend import CHECKPOINTS, running

from rlark_widgets.i18n import render
from rlark_widgets.monitor.links import local_links
from rlark_widgets.monitor.scalars import ScalarSeries
from rlark_widgets.monitor.snapshot import JobPhase, JobSnapshot
from rlark_widgets.ui.session import Session
from rlark_widgets.ui.steps.run_panels import RunPanels

if TYPE_CHECKING:
    from kube_emulator import Cluster


def commands(snap: JobSnapshot) -> dict[str, str]:
    return {render(link.label): link.command or link.url or "" for link in snap.links}


def test_kubernetes_links_are_the_exact_kubectl_of_every_panel(kube: Cluster):
    running(kube)
    kube.ray("demo")
    links = commands(kube.backend().snapshot("demo"))
    assert links["Job (phase, tasks)"] == "kubectl -n research get jobs.rlark.io demo -o yaml"
    assert links["Workers"] == "kubectl -n research get pods -l rlark.io/job=demo -o wide"
    assert (
        links["Log of demo-actor-0"] == "kubectl -n research logs demo-actor-0 -c main --tail=200"
    )
    assert links["Ray dashboard (then open http://127.0.0.1:8265)"] == (
        "kubectl -n research port-forward pod/demo-header-0 8265:8265"
    )
    assert links["Ray dashboard through the API server (needs your token)"] == (
        f"{kube.url}/api/v1/namespaces/research/pods/demo-header-0:8265/proxy/"
    )
    assert (
        links["Checkpoints"]
        == f"kubectl -n research exec demo-header-0 -c main -- ls -l {CHECKPOINTS}"
    )
    log_root = str(Path(CHECKPOINTS).parent.parent)
    assert links["TensorBoard in the head Worker (start it with)"] == (
        f"kubectl -n research exec demo-header-0 -c main -- tensorboard --logdir {log_root}"
        " --host 0.0.0.0 --port 6006"
    )
    assert links["TensorBoard (then open http://127.0.0.1:6006)"] == (
        "kubectl -n research port-forward pod/demo-header-0 6006:6006"
    )


def test_before_the_head_runs_only_the_get_commands_are_offered(kube: Cluster):
    backend = kube.backend()
    from test_kubernetes_backend import demo_job

    backend.submit(demo_job())
    links = commands(backend.snapshot("demo"))
    assert "Job (phase, tasks)" in links and not any("port-forward" in c for c in links.values())


def test_local_links_give_urls_and_how_to_start_tensorboard():
    links = local_links("http://127.0.0.2:40001", None, "/tmp/run/tensorboard")
    assert [(render(k.label), k.url or k.command) for k in links] == [
        ("Ray dashboard", "http://127.0.0.2:40001"),
        (
            "TensorBoard (start it with)",
            "tensorboard --logdir /tmp/run/tensorboard --host 127.0.0.1",
        ),
    ]
    started = local_links(None, "http://127.0.0.1:6123/", "/tmp/run/tensorboard")
    assert [(render(k.label, "zh"), k.url) for k in started] == [
        ("TensorBoard 面板", "http://127.0.0.1:6123/")
    ]


def snapshot_with(tags: dict[str, list[float]]) -> JobSnapshot:
    snap = JobSnapshot("demo", "local", time.time(), phase=JobPhase.RUNNING)
    for tag, values in tags.items():
        steps = list(range(1, len(values) + 1))
        snap.scalars[tag] = ScalarSeries(tag, steps, values, [1000.0 + s for s in steps])
    snap.links = local_links("http://127.0.0.2:40001", None, None)
    return snap


def test_the_panel_keeps_the_users_pick_and_updates_its_figure_in_place(tmp_path):
    session = Session(workspace=tmp_path)
    panels = RunPanels(session)
    session.snapshot = snapshot_with(
        {"a/reward": [0.1, 0.2], "b/loss": [1.0, 0.8], "c/x": [0.0, 1.0], "d/y": [5.0, 6.0]}
    )
    assert panels.picker.options == ("a/reward", "b/loss", "c/x", "d/y")
    assert [t.name for t in panels.curves.widget.data] == ["a/reward", "b/loss", "c/x"]
    panels.picker.value = ("d/y",)
    widget = panels.curves.widget
    assert [t.name for t in widget.data] == ["d/y"]
    session.snapshot = snapshot_with(
        {
            "a/reward": [0.1, 0.2, 0.3],
            "b/loss": [1.0, 0.8, 0.7],
            "c/x": [0.0, 1.0, 2.0],
            "d/y": [5.0, 6.0, 7.0],
        }
    )
    assert panels.curves.widget is widget and list(widget.data[0].y) == [5.0, 6.0, 7.0]
    assert panels.picker.value == ("d/y",)
    assert "http://127.0.0.2:40001" in panels.links.value
    assert panels.gpus.widget.layout.title.text == "GPU use: no GPU metrics reported"
    session.lang = "zh"
    assert "在其他地方继续查看" in panels.links.value
