"""The one terminal writer: everything ``rlark-migrate`` prints goes through here.

Values in what we print come from configs, Jobs, servers and Workers, so any of them can carry
an ESC sequence, a carriage return or a bidi override (an image ending in ``\\x1b[8m`` would
conceal every finding printed after it). :func:`write` shows each such character as its escape
(:func:`rlark_widgets.visible_text.visible`) on stdout and stderr alike, and our own terminal
controls (clearing the screen for ``status --watch``, redrawing the progress line) are added
after that, only here. JSON output passes through unchanged: ``json.dumps`` already writes every
control and non-ASCII character as ``\\uXXXX``. ``tests/test_output_escaping.py`` fails when a
module of this package prints without this writer.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from ..rlark.logs import ESCAPES
from ..visible_text import visible

CLEAR_SCREEN = "\x1b[2J\x1b[H"
CLEAR_LINE = "\r\x1b[2K"


def _stream(err: bool, stream: IO[str] | None = None) -> IO[str]:
    """Looked up at each call: tests (and a redirecting caller) swap ``sys.stdout``."""
    if stream is not None:
        return stream
    return sys.stderr if err else sys.stdout


def write(
    text: str, *, err: bool = False, flush: bool = False, stream: IO[str] | None = None
) -> None:
    """``text`` as it is, but with every invisible character shown as its escape; to stdout,
    stderr (``err``) or a given ``stream``."""
    out = _stream(err, stream)
    out.write(visible(text))
    if flush:
        out.flush()


def say(text: str = "", *, err: bool = False, end: str = "\n", flush: bool = False) -> None:
    """One message (``print``'s shape): ``end`` is ours, so it is never escaped."""
    write(text, err=err)
    out = _stream(err)
    out.write(end)
    if flush:
        out.flush()


def is_terminal(stream: IO[str] | None = None, *, err: bool = False) -> bool:
    out = _stream(err, stream)
    return hasattr(out, "isatty") and out.isatty()


def clear_screen() -> None:
    """Our own control: a redrawn ``status --watch`` page starts at the top of a clean screen."""
    if is_terminal():
        sys.stdout.write(CLEAR_SCREEN)


def redraw_line(text: str, stream: IO[str] | None = None) -> None:
    """Our own control: ``text`` replaces the progress line on ``stream`` (default stderr)."""
    out = _stream(True, stream)
    out.write(CLEAR_LINE + visible(text))
    out.flush()


def log_text(text: str) -> str:
    """A Worker's or the server's log as a terminal shows it: its colours and cursor moves
    dropped (they style the text and are not part of it), every other control shown."""
    return visible(ESCAPES.sub("", text.replace("\r\n", "\n")))


class Parser(argparse.ArgumentParser):
    """argparse, whose usage errors repeat what the user typed, printing through :func:`write`.

    No abbreviations, for the command and every subcommand (argparse makes them with this
    class): a prefix that is unique today (``--gpus``) becomes ambiguous, or means another
    option, when an option is added, and a script that used it breaks or changes meaning.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})

    def _print_message(self, message: str, file: object = None) -> None:
        if message:
            write(message, err=file is sys.stderr)
