"""Servers the tests start (Voila, jupyter server): a free port, the start-up wait, a clean stop."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

LOOPBACK = "127.0.0.1"
#: Where Voila finds the app's page template ``rlark`` (its lab template without CDN links),
#: as `make app` points it there.
VOILA_TEMPLATES = Path(__file__).resolve().parents[1] / "rlark_widgets/ui/jupyter"


def voila_command(notebook: Path, port: int) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of `make app`, for ``notebook`` on loopback ``port``."""
    voila = Path(sys.executable).parent / "voila"
    argv = [str(voila), str(notebook), "--template=rlark", "--no-browser", f"--port={port}"]
    return [*argv, f"--Voila.ip={LOOPBACK}"], {"JUPYTER_PATH": str(VOILA_TEMPLATES)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@contextmanager
def serving(
    argv: list[str],
    port: int,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    log: Path | None = None,
    timeout: float = 120.0,
) -> Iterator[subprocess.Popen]:
    """Run ``argv`` in its own session until it listens on ``port``; stop the whole group after."""
    output = log.open("w") if log else subprocess.DEVNULL
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while socket.socket().connect_ex((LOOPBACK, port)) != 0:
            assert process.poll() is None, f"{Path(argv[0]).name} exited during start-up"
            assert time.monotonic() < deadline, (
                f"{Path(argv[0]).name} did not listen in {timeout} s"
            )
            time.sleep(0.5)
        yield process
    finally:
        # A server that exited during start-up has no group left: its own error stays the one shown.
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if log:
            output.close()
