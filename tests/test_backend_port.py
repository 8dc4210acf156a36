"""The backend is a port: a fourth backend registered in the tests only works through the CLI
and the Session unchanged, and the app's connection fields follow each backend's policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from memory_backend import KIND, POLICY, Memory, MemoryBackend
from test_cli_jobs import cli
from test_kubernetes_backend import demo_job, host

from rlark_widgets.backends import (
    Connect,
    backend_kinds,
    open_backend,
    policy_of,
    register_backend,
    unregister_backend,
)
from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.policy import KUBERAY, KUBERNETES, LOCAL, BackendKind
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.ui.session import Session, finding_key
from rlark_widgets.ui.steps.cluster import ClusterStep

IMAGE = "registry.example.com/rlinf:v0.3.0"


@pytest.fixture
def memory() -> Iterator[Memory]:
    kept = Memory()

    def opener(given: Connect) -> MemoryBackend:
        kept.opened.append(given)
        return MemoryBackend(kept, given.site)

    register_backend(POLICY, opener)
    try:
        yield kept
    finally:
        unregister_backend(KIND)
    assert KIND not in backend_kinds()


def test_the_registry_knows_the_shipped_kinds_and_refuses_an_unknown_one() -> None:
    assert backend_kinds()[:3] == tuple(BackendKind)
    assert [policy_of(k) for k in BackendKind] == [LOCAL, KUBERNETES, KUBERAY]
    with pytest.raises(BackendError, match="Unknown backend 'slurm'") as refused:
        open_backend("slurm", site=example_site())
    assert "local, kubernetes, kuberay" in refused.value.fix_text.render("en")
    with pytest.raises(ValueError, match="registered already"):
        register_backend(
            replace(POLICY, kind="local"), lambda given: open_backend("local", site=example_site())
        )
    with pytest.raises(ValueError, match="shipped"):
        unregister_backend("kuberay")


def test_the_cli_submits_lists_stops_and_deletes_on_a_fourth_backend(
    memory: Memory, tmp_path: Path, capsys
) -> None:
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    backend = ("--backend", KIND, "--namespace", "team-a")

    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 0 and "Submitted: demo. Kept in memory." in out
    assert "Next: rlark-migrate status demo --backend memory --watch" in out  # no --workspace
    assert list(memory.jobs) == ["demo"] and memory.jobs["demo"].namespace == "team-a"
    assert memory.opened[-1].namespace == "team-a" and memory.opened[-1].kuberay is None

    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 0 and "Not submitted again: demo. It is there already." in out

    code, out, _ = cli(capsys, "status", "demo", *backend, "--json")
    data = json.loads(out)
    assert code == 0 and data["snapshot"]["phase"] == "Running"
    assert {w["phase"] for w in data["snapshot"]["workers"]} == {"Running"}
    assert len(data["snapshot"]["workers"]) == demo_job().total_workers

    code, out, _ = cli(capsys, "list", *backend)
    assert code == 0 and out.startswith("demo  Running")

    code, out, _ = cli(capsys, "stop", "demo", *backend)
    assert code == 0 and "Stopped demo in memory." in out
    code, out, _ = cli(capsys, "status", "demo", *backend, "--json")
    assert json.loads(out)["snapshot"]["phase"] == "Stopped"

    code, out, _ = cli(capsys, "delete", "demo", *backend, "--yes")
    assert code == 0 and "Deleted demo from memory." in out and memory.jobs == {}
    code, out, _ = cli(capsys, "list", *backend)
    assert code == 0 and "No Jobs on the memory backend." in out


def test_the_cli_follows_the_fourth_backends_policy_and_abilities(
    memory: Memory, tmp_path: Path, capsys
) -> None:
    job = demo_job()
    job.roles[1] = replace(job.roles[1], image="")  # it runs images: every error blocks it
    job_file = tmp_path / "no-image.yaml"
    job_file.write_text(render_job_yaml(job))
    code, out, err = cli(capsys, "submit", str(job_file), "--backend", KIND)
    assert code == 1 and "JOB-IMAGE" in out and "Not submitted" in err and memory.jobs == {}

    memory.jobs["demo"] = demo_job()  # it keeps no earlier runs: --run-id is refused by ability
    code, _, err = cli(capsys, "logs", "demo", "--backend", KIND, "--run-id", "abc")
    assert code == 2 and "which the memory backend does not keep" in err
    code, out, _ = cli(capsys, "logs", "demo", "--backend", KIND)
    assert code == 0 and out == "log of header/0"

    code, out, _ = cli(capsys, "submit", "--help")
    assert "memory: Jobs kept in memory" in " ".join(out.split())


def test_the_session_submits_stops_and_deletes_on_a_fourth_backend(
    memory: Memory, tmp_path: Path
) -> None:
    s = Session(workspace=tmp_path)
    s.settings = JobSettings(image=IMAGE)
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    assert s.update_role(0, node_selector=host("gpu-a", "a800-0")), s.error
    s.backend_name, s.k8s_namespace = KIND, "team-b"
    assert s.blocking() == []
    assert all(f.rule_id != "LOC-PREPARE-HERE" for f in s.warnings())  # it runs nothing here
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    assert s.submit(wait=True), s.error
    name = s.submitted
    assert list(memory.jobs) == [name] and memory.opened[-1].namespace == "team-b"
    assert [row.name for row in s.job_rows()] == [name]
    s.refresh()
    assert s.snapshot is not None and s.snapshot.phase == "Running"
    assert s.stop(wait=True), s.error
    assert name in memory.stopped and f"Stopped {name} in memory." in s.status
    assert s.request_delete() and s.delete(wait=True), s.error
    assert memory.jobs == {} and f"Deleted {name} from memory." in s.status
    s.open_tensorboard()
    assert "The memory backend starts no TensorBoard" in s.status  # it has no such ability
    assert not s.load_live_inventory() and "has no live nodes" in s.error  # its policy


def test_the_cluster_steps_connection_fields_follow_the_policy(memory: Memory) -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    step = ClusterStep(s)
    assert [value for _, value in step.backend.options] == list(backend_kinds())
    fields = (step.context, step.namespace, step.run_timeout, step.live)

    def open_fields() -> tuple[bool, ...]:
        return tuple(not field.disabled for field in fields)

    assert open_fields() == (False, False, True, False)  # local: the run timeout only
    s.backend_name = "kuberay"  # the Session passes it context and namespace: so does the step
    assert open_fields() == (True, True, False, True)
    s.backend_name = "kubernetes"
    assert open_fields() == (True, True, False, True)
    s.backend_name = KIND
    assert open_fields() == (False, True, False, False)


def test_the_session_reopens_its_backend_when_the_connection_changes(memory: Memory) -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    s.backend_name, s.k8s_namespace = KIND, "first"
    assert s.backend() is s.backend() and len(memory.opened) == 1
    s.k8s_namespace = "second"
    s.backend()
    assert [given.namespace for given in memory.opened] == ["first", "second"]


def test_the_shipped_backends_have_the_abilities_the_cli_and_app_look_for() -> None:
    from rlark_widgets.backends.abilities import (
        HoldsSubmittedObject,
        KeepsEarlierRuns,
        ListsJobs,
        StartsTensorBoard,
        SubmitsExport,
    )
    from rlark_widgets.backends.kube.backend import KubernetesBackend
    from rlark_widgets.backends.kuberay.backend import KubeRayBackend
    from rlark_widgets.backends.local.backend import LocalBackend

    abilities = (
        ListsJobs,
        KeepsEarlierRuns,
        StartsTensorBoard,
        HoldsSubmittedObject,
        SubmitsExport,
    )

    def has(cls: type) -> list[str]:
        return [a.__name__ for a in abilities if issubclass(cls, a)]

    assert has(LocalBackend) == ["ListsJobs", "KeepsEarlierRuns", "StartsTensorBoard"]
    assert has(KubernetesBackend) == ["ListsJobs"]
    assert has(KubeRayBackend) == ["ListsJobs", "HoldsSubmittedObject", "SubmitsExport"]
    assert has(MemoryBackend) == ["ListsJobs"]
