"""``rlark-app``: the one way the app is started (``make app``, the tests, the guide).

Voila alone serves anyone who can reach its port: no token unless asked, any ``Host``, and
static handlers without a user. Here it runs with a token (``$RLARK_APP_TOKEN``, else a fresh
random one, never on the command line where ``ps`` shows it to every local user), on loopback
only, with every handler behind :mod:`rlark_widgets.ui.access`; the URL to open is printed with
its token, as ``jupyter lab`` does. From another machine, forward the port over SSH.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tornado import ioloop
from voila.app import Voila

from rlark_widgets.i18n import Text, default_language
from rlark_widgets.ui.access import AccessPolicy, guard_routes

TOKEN_VARIABLE = "RLARK_APP_TOKEN"
#: A token chosen in ``$RLARK_APP_TOKEN`` must be at least this long (a fresh one has 43).
MIN_TOKEN_LENGTH = 16
LOOPBACK = "127.0.0.1"
#: Voila's template ``rlark`` (its lab template without CDN links): the page needs no other host.
TEMPLATES = Path(__file__).resolve().parent / "jupyter"


class UsageError(Exception):
    """A start the user asked for that cannot be served safely; the message says what to change."""

    def __init__(self, message: Text) -> None:
        super().__init__(message.render("en"))
        self.message = message


def app_token(environ: Mapping[str, str]) -> str:
    """The token the app asks for: ``$RLARK_APP_TOKEN`` when set, else a fresh random one."""
    chosen = environ.get(TOKEN_VARIABLE)
    if chosen is None:
        return secrets.token_urlsafe(32)
    if len(chosen.strip()) < MIN_TOKEN_LENGTH or chosen != chosen.strip():
        raise UsageError(
            Text(
                "{variable} must be at least {length} characters without spaces (it has {count}); unset it to get a fresh random token.",
                variable=TOKEN_VARIABLE,
                length=MIN_TOKEN_LENGTH,
                count=len(chosen),
            )
        )
    return chosen


def check_port_free(port: int) -> None:
    """Refuse a port already in use before Voila starts (Voila's own message names no option)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as tornado binds
        try:
            probe.bind((LOOPBACK, port))
        except OSError as error:
            raise UsageError(
                Text(
                    "Port {port} on 127.0.0.1 cannot be used ({reason}): choose another with --port (make app PORT=...).",
                    port=port,
                    reason=error.strerror or str(error),
                )
            ) from None


def app_url(port: int, token: str) -> str:
    """The URL that opens the app, with its token."""
    return f"http://{LOOPBACK}:{port}/?token={token}"


def voila_argv(notebook: Path, port: int) -> list[str]:
    """Voila's command line for the app (the token is given as a trait, not on it)."""
    return [
        str(notebook),
        "--template=rlark",
        "--no-browser",
        f"--port={port}",
        f"--Voila.ip={LOOPBACK}",
        "--Voila.port_retries=0",  # the printed URL names the port asked for, or none
    ]


class GuardedVoila(Voila):  # type: ignore[misc]  # Voila has no type information
    """Voila with its remote access undone and every handler behind the access guard."""

    def init_settings(self) -> dict[str, Any]:
        settings: dict[str, Any] = super().init_settings()
        policy = AccessPolicy.loopback(self.port)
        return settings | {
            "allow_remote_access": False,  # Voila sets True: any Host would be served
            "local_hostnames": sorted(policy.host_names),
            "allow_unauthenticated_access": False,
            "rlark_access_policy": policy,
        }

    def listen(self) -> None:
        guard_routes(self.app.default_router)  # start() has built the app and its routes
        # Runs once the loop starts, that is once the port is bound (listen() then blocks).
        ioloop.IOLoop.current().add_callback(self._print_url)
        super().listen()

    def _print_url(self) -> None:
        url = app_url(self.port, self.token)
        print(Text("rlark-widgets app: open {url}", url=url).render("en"), flush=True)
        print(Text("rlark-widgets app: open {url}", url=url).render("zh"), flush=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="rlark-app",
        description=Text(
            "Serve the migration assistant with Voila on 127.0.0.1, asking for a token."
        ).render(default_language()),
    )
    parser.add_argument("notebook", nargs="?", type=Path, default=Path("notebooks/app.ipynb"))
    parser.add_argument("--port", type=int, default=8866)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    lang = default_language()
    try:
        token = app_token(os.environ)
        check_port_free(args.port)
        if not args.notebook.is_file():
            raise UsageError(
                Text(
                    "No notebook at {path}: run rlark-app from the repository root or name the notebook.",
                    path=str(args.notebook),
                )
            )
    except UsageError as error:
        print(error.message.render(lang), file=sys.stderr)
        return 2
    templates = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = f"{TEMPLATES}{os.pathsep + templates if templates else ''}"
    GuardedVoila.launch_instance(voila_argv(args.notebook, args.port), token=token)
    return 0


if __name__ == "__main__":
    sys.exit(main())
