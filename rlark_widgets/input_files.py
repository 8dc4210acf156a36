"""The one reader for every file a user hands us: configs, Job YAML, inventories.

A path can name a FIFO (reading blocks until a writer comes, so ``check`` hung), a device
(``/dev/zero`` never ends, so reading it filled memory) or a file far larger than any config.
The file is opened without blocking, refused unless it is a regular file, and read only up to
the input limit (``$RLARK_MAX_INPUT_MB``) plus one byte, so no input can hang or exhaust us.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .i18n import Text, TextError
from .safe_yaml import INPUT_LIMIT_FIX, input_limit_bytes


class InputFileError(TextError, ValueError):
    """A file we cannot or will not read (missing, not a regular file, too large, not UTF-8)."""

    def __init__(self, text: Text, fix_text: Text | str = "", path: str = "") -> None:
        super().__init__(text, fix_text)
        self.path = path


def _kind(mode: int) -> Text:
    if stat.S_ISDIR(mode):
        return Text("a directory")
    if stat.S_ISFIFO(mode):
        return Text("a FIFO (named pipe)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Text("a device")
    if stat.S_ISSOCK(mode):
        return Text("a socket")
    return Text("not a regular file")


def not_a_file(path: str | os.PathLike[str]) -> Text | None:
    """What ``path`` is when it exists and is no regular file (a directory, a FIFO, ...), else
    None: for readers that hand the path to a library (the kubeconfig) and must not let it
    wait on a FIFO or misreport a directory as missing."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else _kind(mode)


def _too_large(file: str, size: int, limit: int) -> InputFileError:
    return InputFileError(
        Text(
            "{name} is {size} MB; inputs over {limit} MB are refused.",
            name=Path(file).name,
            size=f"{size / 1e6:.1f}",
            limit=f"{limit / 1e6:.1f}",
        ),
        INPUT_LIMIT_FIX,
        file,
    )


def read_input_text(path: str | os.PathLike[str], max_bytes: int | None = None) -> str:
    """The UTF-8 text of a regular file no larger than the input limit, or InputFileError."""
    file = str(path)
    limit = max_bytes or input_limit_bytes()
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputFileError(
            Text("No file at {file}.", file=file), Text("Check the path."), file
        ) from None
    except OSError as exc:
        raise InputFileError(
            Text("{file} cannot be read: {reason}.", file=file, reason=exc.strerror or str(exc)),
            Text("Check the path and its permissions."),
            file,
        ) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # before fdopen, which refuses a directory with a traceback
        os.close(fd)
        raise InputFileError(
            Text(
                "{file} is {kind}, not a regular file; it is not read.",
                file=file,
                kind=_kind(mode),
            ),
            Text("Give the path of a YAML file (copy a stream into a file first)."),
            file,
        )
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if size > limit:
            raise _too_large(file, size, limit)
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise InputFileError(
                Text(
                    "{file} cannot be read: {reason}.", file=file, reason=exc.strerror or str(exc)
                ),
                Text("Check the path and its permissions."),
                file,
            ) from None
    if len(data) > limit:
        raise _too_large(file, len(data), limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputFileError(
            Text("{name} is not UTF-8 text.", name=Path(file).name), Text("Save it as UTF-8."), file
        ) from None
