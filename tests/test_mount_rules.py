"""Mounts that give away the node, or replace the image's system trees (#23, class 5).

Hypothesis draws node paths and container mount paths under and around the listed ones (the
same path with trailing slashes, ``//``, ``/./``, ``x/..``, a letter's case changed, a
neighbour such as ``/procfs`` or ``/var/logs``) and asserts JOB-HOSTPATH-SYSTEM and
JOB-MOUNT-SYSTEM fire exactly when the path, resolved here by a stack of its parts, touches an
entry of the table (is it, lies under it, or holds it). The CLI's ``:ro`` suffix gives a
read-only mount or a usage error, never a mount at ``/PATH:ro``.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rlark_widgets.cli import main
from rlark_widgets.examples import example_configs
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.rules import RULES, RuleContext, evaluate
from rlark_widgets.rlark.rules.node_paths import NODE_PATHS, PROTECTED_MOUNT_PATHS, RUNTIME_SOCKETS
from rlark_widgets.rlark.site import SiteError, example_site, site_from_dict

RULE = {r.id: r for r in RULES}
IMAGE = "registry.example.com/rlinf:v0.3.0"

AROUND = [
    *(str(e.path) for e in NODE_PATHS),
    *(str(p) for p in PROTECTED_MOUNT_PATHS),
    "/procfs",
    "/var/logs",
    "/var/log/pods",
    "/var/lib",
    "/var/lib/kubelet-data",
    "/etc/kubernetes2",
    "/etc/rlinf",
    "/data/docker.sock",
    "/data/docker.sock.bak",
    "/run/k3s/containerd/containerd.sock",
    "/data",
    "/data/datasets",
    "/home/researcher",
    "/mnt",
    "/opt/rlinf",
    "/usrdata",
    "/library",
    "/bin2",
]


@st.composite
def spelled(draw: st.DrawFn) -> str:
    """A path of AROUND, maybe one level deeper, written in one of the ways that hide it."""
    parts = [p for p in draw(st.sampled_from(AROUND)).split("/") if p]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["x", "kubelet", "containerd.sock", "log"])))
    written: list[str] = []
    for part in parts:
        trick = draw(st.sampled_from(["", "", "dot", "dotdot", "case"]))
        if trick == "dot":
            written.append(".")
        elif trick == "dotdot":
            written += ["elsewhere", ".."]
        written.append(part.swapcase() if trick == "case" else part)
    separator = draw(st.sampled_from(["/", "//"]))
    text = "/" + separator.join(written)
    return text + draw(st.sampled_from(["", "/", "//"]))


def resolved(path: str) -> list[str]:
    """The parts of ``path`` as the kernel walks it (no symlinks on a fresh node path)."""
    stack: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if stack:
                stack.pop()
        else:
            stack.append(part)
    return stack


def _touches(parts: list[str], listed: str) -> bool:
    entry = [p for p in listed.split("/") if p]
    if not entry:  # '/': only the root itself
        return not parts
    shorter = min(len(parts), len(entry))
    return parts[:shorter] == entry[:shorter]


def expected_node_danger(path: str, read_only: bool, allowed: list[str]) -> bool:
    parts = resolved(path)
    if any(parts[: len(resolved(a))] == resolved(a) for a in allowed):
        return False
    if parts and parts[-1] in RUNTIME_SOCKETS:
        return True
    return any(
        _touches(parts, str(e.path)) for e in NODE_PATHS if not (read_only and e.written_only)
    )


def _context(mount: Mount, allowed: tuple[str, ...] = ()) -> RuleContext:
    role = Role("header", 1, IMAGE, head=True, mounts=[mount])
    job = Job("mounts", [role], run_script="cd /workspace/RLinf && ray status && python x.py\n")
    site = example_site()
    if allowed:
        site = site_from_dict({"allowedHostPaths": list(allowed)}, "test-site.yaml")
    return RuleContext(job, site=site)


@given(
    source=spelled(),
    read_only=st.booleans(),
    allowed=st.lists(
        st.sampled_from(["/var/log", "/proc", "/run/containerd", "/data"]), max_size=2
    ),
)
def test_a_host_path_is_refused_exactly_when_it_reaches_the_node(
    source: str, read_only: bool, allowed: list[str]
) -> None:
    mount = Mount("host", "hostPath", source, "/mnt/host", read_only=read_only)
    findings = evaluate(_context(mount, tuple(allowed)), rules=[RULE["JOB-HOSTPATH-SYSTEM"]])
    assert bool(findings) == expected_node_danger(source, read_only, allowed), (source, findings)
    for finding in findings:
        assert finding.path == "spec.tasks[0].template.spec.volumes[0].hostPath.path"
        assert "//" not in finding.message and "/./" not in finding.message


@given(mount_path=spelled())
def test_a_mount_path_over_the_images_system_trees_is_refused(mount_path: str) -> None:
    mount = Mount("data", "storage", "oss-rlinf", mount_path)
    findings = evaluate(_context(mount), rules=[RULE["JOB-MOUNT-SYSTEM"]])
    parts = resolved(mount_path)
    expected = any(_touches(parts, str(p)) for p in PROTECTED_MOUNT_PATHS) or not parts
    assert bool(findings) == expected, (mount_path, findings)


@pytest.mark.parametrize(
    ("source", "read_only", "reaches"),
    [
        ("/var/run/docker.sock", True, "/var/run/docker.sock"),
        ("/run/containerd/containerd.sock", True, "/run/containerd"),
        ("/var/run/crio/crio.sock", True, "/var/run/crio"),
        ("/srv/podman/docker.sock", True, "/srv/podman/docker.sock"),
        ("/etc/kubernetes/pki", True, "/etc/kubernetes"),
        ("/var/lib/etcd", True, "/var/lib/etcd"),
        ("/var/lib/kubelet", True, "/var/lib/kubelet"),
        ("/proc", True, "/proc"),
        ("/sys/fs/cgroup", True, "/sys"),
        ("//", True, "/"),
        ("/var", True, "/var/run/docker.sock"),
        ("/var/log", False, "read-write"),
    ],
)
def test_the_issue_s_list_is_refused(source: str, read_only: bool, reaches: str) -> None:
    mount = Mount("host", "hostPath", source, "/mnt/host", read_only=read_only)
    (finding,) = evaluate(_context(mount), rules=[RULE["JOB-HOSTPATH-SYSTEM"]])
    assert finding.severity.value == "error"
    assert reaches in finding.message
    assert "管理员" in finding.fix_in("zh") or "只读" in finding.fix_in("zh")


def test_read_only_var_log_is_allowed_and_a_site_may_allow_a_path() -> None:
    read_only_logs = Mount("logs", "hostPath", "/var/log", "/mnt/logs", read_only=True)
    assert evaluate(_context(read_only_logs), rules=[RULE["JOB-HOSTPATH-SYSTEM"]]) == []
    sockets = Mount("docker", "hostPath", "/var/run/docker.sock", "/var/run/docker.sock")
    allowed = _context(sockets, ("/var/run/docker.sock",))
    assert evaluate(allowed, rules=[RULE["JOB-HOSTPATH-SYSTEM"]]) == []
    with pytest.raises(SiteError, match="not an absolute path"):
        site_from_dict({"allowedHostPaths": ["var/log"]})


def _plan(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    config = str(example_configs()["local_rehearsal_2node"])
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["plan", config, "--json", *argv])
    return code, out.getvalue(), err.getvalue()


def test_the_ro_suffix_gives_a_read_only_mount(tmp_path: Path) -> None:
    _, out, _ = _plan(
        "--host-path", "/data/rlinf:/mnt/data:ro", "--storage", "oss-rlinf:/mnt/output"
    )
    tasks = json.loads(out)["job"]["spec"]["tasks"]
    mounts = tasks[0]["template"]["spec"]["containers"][0]["volumeMounts"]
    by_path = {m["mountPath"]: m for m in mounts}
    assert set(by_path) == {"/mnt/data", "/mnt/output"}
    assert by_path["/mnt/data"].get("readOnly") is True
    assert not by_path["/mnt/output"].get("readOnly")


@pytest.mark.parametrize("item", ["/data:/mnt/data:rx", "/data:/mnt/data:ro:ro", "/data", ":/mnt"])
def test_a_mount_option_with_an_unknown_mode_is_a_usage_error(item: str) -> None:
    code, _, err = _plan("--host-path", item)
    assert code == 2
    assert "--host-path takes /SRC:/PATH or /SRC:/PATH:ro (read-only)" in err
