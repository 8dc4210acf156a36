"""The one writer of shell text: every value a script interpolates goes through ``quote``.

The tool writes bash for the cluster and for this machine: the run script's RLinf launch line,
the prepare script's interpreter check, the KubeRay start script, ``rayStartParams`` and
entrypoint, the local Worker's launch script and the commands the monitor offers to copy. Each
is built here, so a config or Job value (a quote, ``$( )``, a backtick, ``;``, a newline) is
always one shell word and never a command. ``tests/test_shell_writer.py`` fails when another
module writes shell; ``tests/test_shell_injection.py`` runs what is built under real bash.

What cannot be made safe is refused, not rewritten: bash cannot carry a NUL byte in a word, so
:func:`unsafe_fields` names every field holding one and the rule ``VALUE-NUL`` blocks the Job.
Newlines are safe inside single quotes and are kept.

The user's own script text (prepare and run scripts) is a script by design: it is placed as
written, on lines of its own, and only what we write around it is quoted.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence

#: The byte no bash word can hold (``VALUE-NUL`` refuses a Job holding one, naming the field).
NUL = "\x00"
#: What every script we write starts with: stop at the first failing command.
STRICT = "set -euo pipefail"
SHEBANG = "#!/bin/bash"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEREDOC_TAG = re.compile(r"[A-Z]+")
_OPTION = re.compile(r"[a-z0-9][a-z0-9-]*")


def quote(value: str) -> str:
    """``value`` as exactly one bash word (single quotes where needed).

    A NUL byte is kept, not dropped: bash cannot carry it, and ``VALUE-NUL`` (an error on every
    backend) refuses the Job naming the field, so no script holding one is ever run.
    """
    return shlex.quote(value)


def command(*argv: str) -> str:
    """A command line whose words are ``argv``, each quoted."""
    return " ".join(quote(word) for word in argv)


def raw_command(program: str, *argv: str) -> str:
    """A command line whose first word is ours, unquoted: ``$VAR`` or a word such as ``python``.

    ``program`` is never a value from a config or a Job; the arguments are quoted.
    """
    return " ".join([program, *(quote(word) for word in argv)])


def option(name: str, value: str) -> str:
    """``--name=value`` as one bash word (KubeRay pastes ``rayStartParams`` into a shell so)."""
    if not _OPTION.fullmatch(name):
        raise ValueError(f"not an option name: {name!r}")
    return f"--{name}={quote(value)}"


def assign(name: str, value: str) -> str:
    """``NAME=value``: ``name`` must be a shell variable name (ours, never a user's value)."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a shell variable name: {name!r}")
    return f"{name}={quote(value)}"


def export(variables: Mapping[str, str]) -> str:
    """``export A=... B=...`` for our own variable names, the values quoted."""
    return " ".join(["export", *(assign(k, v) for k, v in variables.items())])


def echo(text: str, stderr: bool = False) -> str:
    """Print ``text`` as it is: bash's ``echo`` reads no escapes, only a leading ``-`` option,
    so such a text goes through ``printf '%s\\n'`` instead."""
    line = command("printf", "%s\\n", text) if text.startswith("-") else command("echo", text)
    return line + " >&2" if stderr else line


def require_executable(path: str, message: str) -> str:
    """Exit 1 with ``message`` unless ``path`` is an executable file."""
    return f"test -x {quote(path)} || {{ {echo(message, stderr=True)}; exit 1; }}"


def comment(text: str) -> str:
    """``text`` as comment lines: each of its lines starts with ``# `` (a newline ends none)."""
    return "\n".join(f"# {line}" for line in text.split("\n"))


def cd(directory: str) -> str:
    return command("cd", directory)


def exec_arguments() -> str:
    """Replace the shell with the command given as the script's arguments (``bash -c S _ argv``)."""
    return 'exec "$@"'


def heredoc(program: str, tag: str, body: Sequence[str]) -> list[str]:
    """``program <<'TAG'``, the body verbatim (nothing in it is expanded), then ``TAG``."""
    if not _HEREDOC_TAG.fullmatch(tag) or tag in body:
        raise ValueError(f"the here-document tag {tag!r} is not safe for this body")
    return [f"{program} <<'{tag}'", *body, tag]


def user_script(text: str) -> list[str]:
    """The user's own script text as the lines of a script we write (empty: none)."""
    body = text.rstrip("\n")
    return [body] if body.strip() else []


def script(lines: Iterable[str], strict: bool = True, shebang: bool = False) -> str:
    """The lines as one script, ending in a newline; ``strict`` opens it with ``set -euo pipefail``."""
    head = [SHEBANG] if shebang else []
    return "\n".join([*head, *([STRICT] if strict else []), *lines, ""])


def unsafe_fields(value: object, path: str = "") -> Iterator[str]:
    """The path of every string in ``value`` (dataclasses, mappings, lists; keys too) holding NUL.

    Paths are ``a.b[0].c``; a key holding NUL is named by its parent's path.
    """
    if isinstance(value, str):
        if NUL in value:
            yield path
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from unsafe_fields(getattr(value, f.name), f"{path}.{f.name}".lstrip("."))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and NUL in key:
                yield path
            yield from unsafe_fields(item, f"{path}.{key}".lstrip("."))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from unsafe_fields(item, f"{path}[{index}]")
