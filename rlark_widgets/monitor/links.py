"""Links out of the monitor: the Ray dashboard, TensorBoard, and the terminal equivalents.

A user should be able to continue in a browser tab or a terminal from anything the monitor
shows. Locally those are URLs on this machine; on Kubernetes they are the exact ``kubectl``
commands (port-forwards, the API-server proxy URL, and the ``get`` / ``logs`` / ``exec``
commands behind every monitor panel), built from the Job's namespace, labels and head pod.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import shell
from ..i18n import Text

DASHBOARD_PORT = 8265
TENSORBOARD_PORT = 6006


@dataclass
class Link:
    """One way to look further: a URL to open, or a command to run (exactly one of them)."""

    label: Text
    url: str | None = None
    command: str | None = None


def local_links(dashboard: str | None, tensorboard: str | None, logdir: str | None) -> list[Link]:
    """A local run: the head's dashboard URL; TensorBoard's once started, else how to start it."""
    links = []
    if dashboard:
        links.append(Link(Text("Ray dashboard"), url=dashboard))
    if tensorboard:
        links.append(Link(Text("TensorBoard"), url=tensorboard))
    elif logdir:
        command = shell.command("tensorboard", "--logdir", logdir, "--host", "127.0.0.1")
        links.append(Link(Text("TensorBoard (start it with)"), command=command))
    return links


def kube_links(
    namespace: str,
    job: str,
    head: str | None,
    workers: list[str],
    server: str | None,
    checkpoint_dir: str | None,
    tensorboard_dir: str | None,
    job_resource: str,
    pods: str,
) -> list[Link]:
    """The port-forwards, the API-server proxy URL and the kubectl behind every panel;
    ``job_resource`` is the object's resource (the site profile's Job resource, or KubeRay's
    ``rayjobs.ray.io``) and ``pods`` the label selector of its pods."""

    def kubectl(*argv: str) -> str:
        return shell.command("kubectl", "-n", namespace, *argv)

    links = [
        Link(Text("Job (phase, tasks)"), command=kubectl("get", job_resource, job, "-o", "yaml")),
        Link(Text("Workers"), command=kubectl("get", "pods", "-l", pods, "-o", "wide")),
        Link(
            Text("Worker events"),
            command=kubectl(
                "get",
                "events",
                "--field-selector",
                "involvedObject.kind=Pod",
                "--sort-by=.lastTimestamp",
            ),
        ),
    ]
    links += [
        Link(
            Text("Log of {worker}", worker=pod),
            command=kubectl("logs", pod, "-c", "main", "--tail=200"),
        )
        for pod in workers
    ]
    if head is None:
        return links
    links += [
        Link(
            Text("Ray dashboard (then open http://127.0.0.1:{port})", port=DASHBOARD_PORT),
            command=kubectl("port-forward", f"pod/{head}", f"{DASHBOARD_PORT}:{DASHBOARD_PORT}"),
        ),
        Link(
            Text("Ray members"), command=kubectl("exec", head, "-c", "main", "--", "ray", "status")
        ),
    ]
    if server:
        proxy = f"{server.rstrip('/')}/api/v1/namespaces/{namespace}/pods/{head}:{DASHBOARD_PORT}/proxy/"
        links.append(
            Link(Text("Ray dashboard through the API server (needs your token)"), url=proxy)
        )
    if checkpoint_dir:
        command = kubectl("exec", head, "-c", "main", "--", "ls", "-l", checkpoint_dir)
        links.append(Link(Text("Checkpoints"), command=command))
    if tensorboard_dir:
        start = kubectl(
            "exec",
            head,
            "-c",
            "main",
            "--",
            "tensorboard",
            "--logdir",
            tensorboard_dir,
            "--host",
            "0.0.0.0",
            "--port",
            str(TENSORBOARD_PORT),
        )
        links += [
            Link(Text("TensorBoard in the head Worker (start it with)"), command=start),
            Link(
                Text("TensorBoard (then open http://127.0.0.1:{port})", port=TENSORBOARD_PORT),
                command=kubectl(
                    "port-forward", f"pod/{head}", f"{TENSORBOARD_PORT}:{TENSORBOARD_PORT}"
                ),
            ),
        ]
    return links
