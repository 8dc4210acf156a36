"""TensorBoard for a local run, started on demand on loopback and ended with the Job.

One TensorBoard per Job, on 127.0.0.1 and a free port, over the run's TensorBoard directory;
``tensorboard.json`` in the Job's directory records it so the snapshot can link it and Stop or
Delete can end it (it carries no run token: it never keeps a run "alive").
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

from .layout import JobDir
from .procs import ProcessRef
from .ray_nodes import free_ports
from .removal import remove_within

RECORD = "tensorboard.json"
HOST = "127.0.0.1"
#: Seconds to wait for TensorBoard to answer before giving its URL anyway.
START_WAIT = 30.0


def running_url(where: JobDir) -> str | None:
    """The URL of the Job's TensorBoard while it runs."""
    record = where.read(RECORD)
    ref = ProcessRef.from_json(record)
    return str(record["url"]) if record and ref is not None and ref.alive else None


def start(where: JobDir, logdir: Path) -> str:
    """Start (or find) the Job's TensorBoard over ``logdir``; its URL once it answers."""
    url = running_url(where)
    if url:
        return url
    port = free_ports(HOST, ("tensorboard",))["tensorboard"]
    url = f"http://{HOST}:{port}/"
    logdir.mkdir(parents=True, exist_ok=True)
    where.root.mkdir(parents=True, exist_ok=True)
    with open(where.file("tensorboard.log"), "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir)]
            + ["--host", HOST, "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    where.write(RECORD, {**ProcessRef.of(proc.pid).to_json(), "url": url})
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=1):
                break
        except OSError:
            time.sleep(0.3)
    return url


def end(where: JobDir, workspace: Path) -> None:
    """End the Job's TensorBoard, if it runs (its record is removed only inside ``workspace``)."""
    ref = ProcessRef.from_json(where.read(RECORD))
    proc = ref.process() if ref is not None else None
    if proc is not None:
        proc.terminate()
        _, alive = psutil.wait_procs([proc], timeout=5)
        for left in alive:
            left.kill()
    remove_within(where.file(RECORD), workspace)
