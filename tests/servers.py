"""Servers the tests start (Voila, jupyter server): a free port, the start-up wait, a clean stop."""

from __future__ import annotations

import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from rlark_widgets.ui import serve

LOOPBACK = "127.0.0.1"
REPO = Path(__file__).resolve().parents[1]


def voila_command(notebook: Path, port: int) -> tuple[list[str], dict[str, str]]:
    """The command line of `make app` (``rlark-app``) for ``notebook`` on loopback ``port``, and
    its environment: a fresh token in ``$RLARK_APP_TOKEN`` so the test knows it."""
    argv = [sys.executable, "-m", "rlark_widgets.ui.serve", str(notebook), f"--port={port}"]
    return argv, {serve.TOKEN_VARIABLE: secrets.token_urlsafe(24)}


def app_url(port: int, env: dict[str, str]) -> str:
    """The URL that opens the app started with ``env`` (from :func:`voila_command`): its token."""
    return serve.app_url(port, env[serve.TOKEN_VARIABLE])


def make_app_command(port: int) -> list[str]:
    """The command line of ``make app`` (``make -n`` prints it without running it)."""
    dry_run = subprocess.run(
        ["make", "-n", "app", f"PORT={port}"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    return shlex.split(
        next(line for line in dry_run.splitlines() if " rlark_widgets.ui.serve " in line)
    )


@dataclass(frozen=True)
class AppServer:
    """The app as ``make app`` starts it, with the token it was given and its log."""

    port: int
    command: list[str]
    token: str
    log: Path

    @property
    def origin(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def url(self) -> str:
        """The page, with its token (as the app prints it)."""
        return serve.app_url(self.port, self.token)


@contextmanager
def make_app(folder: Path) -> Iterator[AppServer]:
    """``make app``'s command run from the repository root, its workspace and log in ``folder``."""
    port = free_port()
    server = AppServer(
        port, make_app_command(port), secrets.token_urlsafe(24), folder / "voila.log"
    )
    env = {"RLARK_WORKSPACE": str(folder / "workspace"), serve.TOKEN_VARIABLE: server.token}
    with serving(server.command, port, env=env, cwd=REPO, log=server.log):
        yield server


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
