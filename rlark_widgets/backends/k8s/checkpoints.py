"""Checkpoints of a Job on a cluster: ``global_step_N`` directories listed in the head pod.

RLinf writes ``<log_path>/<experiment>/checkpoints/global_step_N/actor/``; the planner records
that directory in the Job's ``rlark.io/checkpoint-dir`` annotation. On a real cluster we list it
with an exec in the head pod (one short ``sh`` command); when the output volume is also
mounted on this machine (``checkpoint_root``), we read it directly, which needs no exec right.
"""

from __future__ import annotations

import re
from typing import Any, cast

from kubernetes.client.exceptions import ApiException

from ...i18n import Text
from ...monitor.snapshot import Checkpoint
from ...rlark.job import MAIN_CONTAINER
from ..checkpoints import step_checkpoint
from .api import KubeApi

LISTING = re.compile(r"^global_step_(\d+) (\S+) ([01])$")
#: Prints "global_step_N <mtime|-> <1 if actor/ is listable>" per checkpoint; $1 is the directory.
#: The time is the newest of the directory, its actor/ and the files in it (a step saved again
#: overwrites its files in place and leaves the directories' times as they were).
LIST_SCRIPT = (
    'cd "$1" 2>/dev/null || exit 0; for d in global_step_*; do [ -d "$d" ] || continue; '
    'if [ -r "$d/actor" ] && [ -x "$d/actor" ]; then r=1; else r=0; fi; '
    't=$(stat -c %Y "$d" "$d/actor" "$d"/actor/* 2>/dev/null | sort -n | tail -n 1); '
    'echo "$d ${t:--} $r"; done'
)


def parse_listing(text: str, directory: str) -> list[Checkpoint]:
    """Checkpoints from :data:`LIST_SCRIPT`'s output (unrecognised lines are ignored)."""
    found = []
    for line in text.splitlines():
        match = LISTING.match(line.strip())
        if match:
            step, mtime, readable = match.groups()
            stamp = float(mtime) if mtime.isdigit() else None
            found.append(step_checkpoint(directory, int(step), stamp, readable == "1"))
    return sorted(found, key=lambda c: c.step)


class ExecFailed(Exception):
    """The listing could not run in the head pod (no exec right, no shell, a dropped socket).

    ``why`` is the server's reason, or ours as a message.
    """

    def __init__(self, why: Text | str) -> None:
        super().__init__(str(why))
        self.why = why


def exec_checkpoints(api: KubeApi, namespace: str, pod: str, directory: str) -> list[Checkpoint]:
    """List ``directory`` inside the head pod through the API server's exec (a websocket)."""
    return parse_listing(run_in_head(api, namespace, pod, LIST_SCRIPT, [directory]), directory)


def run_in_head(api: KubeApi, namespace: str, pod: str, script: str, args: list[str]) -> str:
    """The output of ``sh -c script sh args...`` in the pod's main container (ExecFailed
    when it cannot run or exits non-zero)."""
    from kubernetes.stream import stream  # imports the websocket client only when needed

    api.requests += 1
    try:
        socket = stream(
            api.exec_core.connect_get_namespaced_pod_exec,
            pod,
            namespace,
            command=["sh", "-c", script, "sh", *args],
            container=MAIN_CONTAINER,
            stderr=False,
            stdin=False,
            stdout=True,
            tty=False,
            _preload_content=False,  # we close the socket ourselves (the preloading path leaks it)
        )
    except ApiException as exc:
        raise ExecFailed(exc.reason) from None
    try:
        socket.run_forever(timeout=api.timeout)
        output, code = socket.read_all(), _exit_code(socket)
    finally:
        socket.close()
        socket.sock.shutdown()  # websocket-client's close() skips this once the server hung up
    if code:
        raise ExecFailed(Text("the listing exited with code {code}", code=code))
    return str(output)


def _exit_code(socket: Any) -> int | None:
    """The command's exit code from the status channel; None when the server sent none."""
    try:
        return cast(int | None, socket.returncode)
    except (TypeError, KeyError, ValueError, IndexError):
        return None
