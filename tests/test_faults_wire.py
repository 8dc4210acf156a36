"""Every Kubernetes command through a bad network (issue #23, class 6): no traceback, no hang.

A :class:`~fault_proxy.FaultProxy` sits between ``rlark-migrate`` and the emulator and spoils
the command's key request: drops it, cuts the answer short, answers 500 or 403, or is slow. The
command must end with exit code 0-3, no traceback, and words that name the cause; a submit
whose answer never came says whether the Job exists, as read back from the API (and that is
the truth: the emulator is asked too).

The normal suite runs one fault per command and backend (round-robin over the faults, so each
fault is met); ``HYPOTHESIS_PROFILE=fuzz`` (``make fuzz``) runs the whole matrix.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fault_proxy import FAULTS, FaultProxy
from test_cli_jobs import cli, write_kubeconfig
from test_kuberay_backend import claim
from test_kuberay_runs import rayjob_running
from test_kubernetes_backend import NAMESPACE, demo_job, running

from rlark_widgets.rlark.yaml_io import render_job_yaml

#: As many spoiled answers as the API door's retry policy makes attempts: the fault outlasts it.
ATTEMPTS = 4
#: Words that name each fault's cause in the command's output (the slow one just works).
CAUSE = {
    "drop": "the server closed the connection without answering",
    "truncate": "the answer was cut short",
    "500": "500",
    "403": "403",
    "slow": "",
}


@dataclass(frozen=True)
class Row:
    """A command, on a backend, and the request of it the proxy spoils."""

    backend: str
    command: str
    argv: tuple[str, ...]
    pattern: str

    @property
    def id(self) -> str:
        return f"{self.backend}-{self.command}"


_OBJECT = r"^GET \S*/demo[ ?]"  # the Job (RLark's Job, or the RayJob) read by name
_COMMANDS = (
    (
        "submit",
        ("submit", "{job_file}"),
        r"^POST \S*/(jobs|rayjobs)(?!\S*dryRun)[ ?]",
    ),  # the create
    ("status", ("status", "demo"), _OBJECT),
    ("watch", ("status", "demo", "--watch", "--interval", "0.1", "--timeout", "3"), _OBJECT),
    ("list", ("list",), r"^GET \S*/(jobs|rayjobs|rayclusters)[ ?]"),
    ("inventory", ("inventory",), r"^GET /api/v1/nodes[ ?]"),
    ("logs", ("logs", "demo"), r"^GET \S*/log[ ?]"),
    ("delete", ("delete", "demo", "--yes"), r"^DELETE "),
)
ROWS = [
    Row(backend, command, argv, pattern)
    for backend in ("kubernetes", "kuberay")
    for command, argv, pattern in _COMMANDS
]
FULL = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
CASES = (
    [(row, fault) for row in ROWS for fault in FAULTS]
    if FULL
    else [(row, FAULTS[i % len(FAULTS)]) for i, row in enumerate(ROWS)]
)


@pytest.fixture
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Row, Any, Path]]:
    """The row, its emulated cluster with the demo Job running, and a Job file named 'fresh'."""
    row: Row = request.param
    job_file = tmp_path / "fresh.yaml"
    job_file.write_text(render_job_yaml(demo_job("fresh")))
    if row.backend == "kubernetes":
        kube = request.getfixturevalue("kube")
        running(kube)
        kube.ray("demo")
        yield row, kube, job_file
    else:
        kuberay = request.getfixturevalue("kuberay")
        claim(kuberay, "shared-out")
        rayjob_running(kuberay)
        yield row, kuberay, job_file


def _exists(emulated: Any, backend: str) -> bool:
    """Whether the emulator holds the Job 'fresh' (asked directly, not through the proxy)."""
    if backend == "kubernetes":
        return bool(emulated.exists("jobs", "fresh"))
    return emulated.object("RayJob", "fresh") is not None


@pytest.mark.parametrize(
    ("cluster", "fault"),
    [pytest.param(row, fault, id=f"{row.id}-{fault}") for row, fault in CASES],
    indirect=["cluster"],
)
def test_a_spoiled_request_ends_in_words_and_an_exit_code(cluster, fault: str, capsys, tmp_path):
    row, emulated, job_file = cluster
    proxy = FaultProxy(emulated.url)
    try:
        config = write_kubeconfig(tmp_path / "kubeconfig", proxy.url, NAMESPACE)
        rule = proxy.add(fault, row.pattern, times=ATTEMPTS, delay=0.3)
        argv = [a.format(job_file=job_file) for a in row.argv]
        kuberay_submit = row.backend == "kuberay" and row.command == "submit"
        extra = ["--claim", "output=shared-out"] if kuberay_submit else []
        code, out, err = cli(
            capsys, *argv, "--backend", row.backend, "--kubeconfig", str(config), *extra
        )
        if fault == "slow":  # only later: the same command on a sound wire, for comparison
            proxy.rules.clear()
            sound, _, _ = cli(
                capsys, *argv, "--backend", row.backend, "--kubeconfig", str(config), *extra
            )
    finally:
        proxy.close()
    said = out + err
    assert rule.hits >= 1, f"the fault never met {row.pattern}: {said}"
    assert 0 <= code <= 3 and "Traceback" not in said, said
    assert CAUSE[fault] in said, said
    if fault == "slow":  # slow, not broken: the answer is the one a sound wire gives
        assert code == sound, said
    if row.command == "submit" and fault != "403" and fault != "slow":
        exists = _exists(emulated, row.backend)
        assert code == 1
        if exists:
            assert "but the Job exists on the cluster (read back just now)" in err, err
        else:
            assert "the Job does not exist on the cluster (read back just now)" in err, err
        assert exists == (fault == "truncate")  # only a cut answer let the create through


def test_the_app_says_an_interrupted_submit_created_the_job(kube, tmp_path, monkeypatch):
    """The app's boundary: the create's answer cut short on every attempt; the Job is there,
    and the Submit error says so (read back), with what the user typed kept."""
    from rlark_widgets.rlark.build import JobSettings
    from rlark_widgets.ui.session import Session, finding_key

    proxy = FaultProxy(kube.url)
    try:
        monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kc", proxy.url)))
        s = Session(workspace=tmp_path / "workspace")
        s.settings = JobSettings(
            image="registry.example.com/rlinf:v0.3.0", name="cut", namespace=NAMESPACE
        )
        assert s.load_example("maniskill_ppo_openvlaoft"), s.error
        selector = {"rlark.io/cluster": "gpu-a", "kubernetes.io/hostname": "a800-0"}
        assert s.update_role(0, node_selector=selector)
        s.backend_name, s.k8s_namespace = "kubernetes", NAMESPACE
        s.acknowledge([finding_key(f) for f in s.unacknowledged()])
        typed = (s.settings, list(s.roles), s.job_yaml)
        rule = proxy.add("truncate", _COMMANDS[0][2], times=ATTEMPTS)
        assert s.submit(wait=True)
    finally:
        proxy.close()
    assert rule.hits == ATTEMPTS and kube.exists("jobs", "cut")
    assert s.error.startswith("Submit: The submit of cut was interrupted ("), s.error
    assert "but the Job exists on the cluster (read back just now): it was created." in s.error
    assert "Traceback" not in s.error and (s.settings, list(s.roles), s.job_yaml) == typed
