"""Writing a file the user named, with a clear answer when the place cannot take it.

``plan -o`` into a missing directory, onto a directory or onto ``/dev/full`` raised
FileNotFoundError, IsADirectoryError or OSError(ENOSPC) as tracebacks.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .i18n import Text, TextError


class OutputError(TextError, OSError):
    """The output file cannot be written (the message says why and where)."""


def write_output(path: str | os.PathLike[str], text: str) -> None:
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
            handle.write(text)
    except OSError as exc:
        raise OutputError(
            Text(
                "{path} cannot be written: {reason}.",
                path=str(file),
                reason=exc.strerror or str(exc),
            ),
            Text("Check the path, its permissions and the free space."),
        ) from None
