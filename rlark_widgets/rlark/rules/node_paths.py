"""The one table of node and container paths a mount must not touch (issue #23, class 5).

A hostPath of the container runtime's socket, the kubelet's or etcd's state, ``/proc``, ``/sys``
or ``/`` gives a Worker the node (and every other Pod on it), read-only or not; the rest of the
system trees, and ``/var/log``, only when written. A mount *touches* a listed path when it is
that path, lies under it, or holds it (``/var`` holds ``/var/lib/etcd``; ``/run`` holds the
runtime sockets). Paths are compared as the kernel resolves them (:func:`..job.normal_path`:
``//``, ``/./``, ``..`` and trailing slashes do not hide ``/proc``); Linux paths are
case-sensitive, so ``/PROC`` is not ``/proc``. A site profile may allow a node path explicitly
(``allowedHostPaths``): the path and everything under it.

A container mountPath over the image's own system trees (``/usr``, ``/etc``, ``/proc``,
``/bin``, ``/lib``) replaces them with the volume: the Worker no longer starts as the image does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from ...i18n import Text
from ..job import normal_path


@dataclass(frozen=True)
class NodePath:
    """A node path a hostPath must not touch; ``written_only``: only a read-write mount."""

    path: PurePosixPath
    written_only: bool
    why: Text


def _entries(paths: Iterable[str], written_only: bool, why: Text) -> tuple[NodePath, ...]:
    return tuple(NodePath(PurePosixPath(p), written_only, why) for p in paths)


RUNTIME = Text("the container runtime's socket: whoever reaches it starts any container as root")
#: The container runtime sockets, by name wherever they live, and where runtimes put them.
RUNTIME_SOCKETS = ("docker.sock", "containerd.sock", "crio.sock")
NODE_PATHS: tuple[NodePath, ...] = (  # the first entry a path touches is the one reported
    *_entries(("/",), False, Text("the node's whole file system")),
    *_entries(
        (
            "/var/run/docker.sock",
            "/run/docker.sock",
            "/run/containerd",
            "/var/run/containerd",
            "/run/crio",
            "/var/run/crio",
        ),
        False,
        RUNTIME,
    ),
    *_entries(
        ("/etc/kubernetes", "/var/lib/kubelet", "/var/lib/etcd"),
        False,
        Text("the cluster's credentials and state: kubelet and etcd keys, every Pod's secrets"),
    ),
    *_entries(("/proc", "/sys"), False, Text("the node's kernel and every process on it")),
    *_entries(
        (
            "/var/log",
            "/bin",
            "/boot",
            "/dev",
            "/etc",
            "/lib",
            "/lib64",
            "/root",
            "/run",
            "/sbin",
            "/usr",
            "/var/lib/containerd",
            "/var/lib/docker",
            "/var/run",
        ),
        True,
        Text("the node's system files (and other Pods' data and logs)"),
    ),
)

#: Container paths a mountPath must not replace: the image's own system trees.
PROTECTED_MOUNT_PATHS = tuple(PurePosixPath(p) for p in ("/usr", "/etc", "/proc", "/bin", "/lib"))


ROOT = PurePosixPath("/")


def touches(path: PurePosixPath, listed: PurePosixPath) -> bool:
    """Whether mounting ``path`` reaches ``listed``: it is it, lies under it, or holds it
    (every path lies under ``/``: only ``/`` itself reaches it)."""
    if listed == ROOT:
        return path == ROOT
    return path == listed or listed in path.parents or path in listed.parents


def node_path_danger(source: str, read_only: bool, allowed: Iterable[str] = ()) -> NodePath | None:
    """The table entry a hostPath ``source`` touches (None: harmless, or allowed by the site)."""
    if not source.startswith("/"):
        return None
    path = normal_path(source)
    if any(path == normal_path(a) or normal_path(a) in path.parents for a in allowed):
        return None
    if path.name in RUNTIME_SOCKETS:
        return NodePath(path, False, RUNTIME)
    for entry in NODE_PATHS:
        if (read_only and entry.written_only) or not touches(path, entry.path):
            continue
        return entry
    return None


def protected_mount(mount_path: str) -> PurePosixPath | None:
    """The image's system tree a container ``mount_path`` replaces or hides, if any."""
    if not mount_path.startswith("/"):
        return None
    path = normal_path(mount_path)
    return next((p for p in PROTECTED_MOUNT_PATHS if touches(path, p)), None)
