"""The one writer of what leaves this process: files the user named, archives, the terminal.

Every text that leaves passes :func:`rlark_widgets.secret_text.redact` here, whoever made it
(Job YAML, run records, console sheets, admin requests, log zips, KubeRay exports, CLI text in
either language, ``--json``): one choke point, so a new output cannot forget the redaction
(``tests/test_secret_exits.py`` scans the package for writers that go around it).

``plan -o`` into a missing directory, onto a directory or onto ``/dev/full`` raised
FileNotFoundError, IsADirectoryError or OSError(ENOSPC) as tracebacks; here they are answers.
``plan CFG -o CFG``,
``export J -o J`` or ``inventory -o $KUBECONFIG`` overwrote the input, and a write that failed
halfway left a truncated file. Every output goes through :func:`write_output`: it refuses a
path that is one of the inputs (:func:`refuse_inputs`, by resolved path and by inode, so
``./x/../x``, a symlink or a hard link to an input are caught), writes a temporary file in the
same directory, fsyncs it and renames it over the target, so the old file stays whole until the
new one is complete. A device or other special file (``/dev/null``, ``/dev/stdout``) is written
in place: renaming over it would replace the device with a regular file.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from .i18n import Text, TextError
from .secret_text import redact

PathArg = str | os.PathLike[str]


class OutputError(TextError, OSError):
    """The output file cannot be written (the message says why and where)."""


def _same_file(output: Path, given: Path) -> bool:
    """Whether ``output`` names the file ``given`` names (path after symlinks, or inode)."""
    if output.resolve() == given.resolve():
        return True
    try:
        return os.path.samefile(output, given)
    except OSError:  # one of them does not exist: not the same file
        return False


def refuse_inputs(output: PathArg, inputs: Iterable[PathArg | None], option: str = "-o") -> None:
    """Raise :class:`OutputError` when ``output`` is one of ``inputs`` (None entries are skipped).

    ``option`` is the output's command-line option, named in the message.
    """
    target = Path(output)
    for given in inputs:
        if given is None or not str(given):
            continue
        if _same_file(target, Path(given)):
            raise OutputError(
                Text(
                    "{option} {path} is the input {input}: writing there would overwrite it.",
                    option=option,
                    path=str(target),
                    input=str(given),
                ),
                Text("Write the output to another file, e.g. {example}.", example=_beside(target)),
            )


def _beside(target: Path) -> str:
    return str(target.with_name(f"{target.stem}.out{target.suffix or '.yaml'}"))


def refuse_existing(path: PathArg, option: str) -> None:
    """Raise :class:`OutputError` when ``path`` exists (a record file is never overwritten
    without ``--force``)."""
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise OutputError(
            Text(
                "{option}: {path} exists already; it is not overwritten.",
                option=option,
                path=str(target),
            ),
            Text("Choose a new or empty directory, or add --force to overwrite it."),
        )


def _check_place(file: Path) -> None:
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


def _unwritable(file: Path, exc: OSError) -> OutputError:
    return OutputError(
        Text(
            "{path} cannot be written: {reason}.",
            path=str(file),
            reason=exc.strerror or str(exc),
        ),
        Text("Check the path, its permissions and the free space."),
    )


def write_output(
    path: PathArg,
    content: str | bytes,
    *,
    inputs: Iterable[PathArg | None] = (),
    option: str = "-o",
) -> None:
    """Write ``content`` (text as UTF-8) to ``path`` atomically; refuse any of ``inputs``."""
    file = Path(path)
    refuse_inputs(file, inputs, option)
    _check_place(file)
    data = redact(content).encode("utf-8") if isinstance(content, str) else content
    if file.exists() and not stat.S_ISREG(file.stat().st_mode):
        _write_in_place(file, data)  # a device: a rename would replace it with a regular file
        return
    target = file.resolve()  # through a symlink: the file it names is replaced, not the link
    try:
        _replace(target, data)
    except OSError as exc:
        raise _unwritable(file, exc) from None


def _write_in_place(file: Path, data: bytes) -> None:
    try:
        with open(file, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise _unwritable(file, exc) from None


def _replace(target: Path, data: bytes) -> None:
    """Temporary file beside ``target``, fsync, rename: ``target`` is old or new, never half."""
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _default_mode()
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _default_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file (0o666 less the umask)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_archive(
    path: Path,
    files: Mapping[str, str],
    *,
    inputs: Iterable[PathArg | None] = (),
    option: str = "-o",
) -> Path:
    """``{member name: text}`` as one zip, each member redacted (records, log downloads),
    written whole or not at all through :func:`write_output`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, redact(text))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_output(path, buffer.getvalue(), inputs=inputs, option=option)
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
