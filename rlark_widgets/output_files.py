"""The one writer of what leaves this process: files the user named, archives, the terminal.

Every text that leaves passes :func:`rlark_widgets.secret_text.redact` here, whoever made it
(Job YAML, run records, console sheets, admin requests, log zips, KubeRay exports, CLI text in
either language, ``--json``): one choke point, so a new output cannot forget the redaction
(``tests/test_secret_exits.py`` scans the package for writers that go around it).

``plan -o`` into a missing directory, onto a directory or onto ``/dev/full`` raised
FileNotFoundError, IsADirectoryError or OSError(ENOSPC) as tracebacks; here they are answers.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from .i18n import Text, TextError
from .secret_text import redact


class OutputError(TextError, OSError):
    """The output file cannot be written (the message says why and where)."""


def write_output(path: str | os.PathLike[str], text: str) -> None:
    """``text``, redacted, into the file the user named (or an answer saying why not)."""
    file = Path(path)
    if file.is_dir():
        raise OutputError(
            Text("{path} is a directory; the output is a file.", path=str(file)),
            Text("Give a file name, e.g. {example}.", example=str(file / "job.yaml")),
        )
    if file.exists() and (stat.S_ISFIFO(file.stat().st_mode) or stat.S_ISSOCK(file.stat().st_mode)):
        raise OutputError(
            Text(
                "{path} is a FIFO or a socket; writing there would wait for a reader.",
                path=str(file),
            ),
            Text("Give a file name, e.g. {example}.", example=str(file.parent / "job.yaml")),
        )
    if not file.parent.is_dir():
        raise OutputError(
            Text("The directory {folder} does not exist.", folder=str(file.parent)),
            Text(
                "Create it first (mkdir -p {folder}) or write somewhere else.",
                folder=str(file.parent),
            ),
        )
    try:
        with open(file, "w", encoding="utf-8") as handle:
            handle.write(redact(text))
    except OSError as exc:
        raise OutputError(
            Text(
                "{path} cannot be written: {reason}.",
                path=str(file),
                reason=exc.strerror or str(exc),
            ),
            Text("Check the path, its permissions and the free space."),
        ) from None


def write_files(folder: Path, files: Mapping[str, str]) -> None:
    """``{relative name: text}`` under ``folder``, each redacted (a run record's directory).

    OSError is left to the caller, which knows what the folder is for and says so.
    """
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(redact(text), encoding="utf-8")


def write_archive(path: Path, files: Mapping[str, str]) -> Path:
    """``{member name: text}`` as one zip, each member redacted (records, log downloads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, redact(text))
    return path


class RedactedStream(io.TextIOBase):
    """A terminal stream whose every write is redacted: what the CLI prints, in any language.

    A print is one write, so a secret is never split across two redactions.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # the wrapped stream's, read-only
        return getattr(self.stream, "encoding", None) or "utf-8"


@contextmanager
def redacted_terminal() -> Iterator[None]:
    """stdout and stderr redacted for as long as a command runs (usage errors included)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactedStream(saved[0]), RedactedStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
