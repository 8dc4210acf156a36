"""Only ``rlark_widgets/shell.py`` writes shell: a scan of the package's source says so.

What counts as writing shell, outside the one writer: calling ``shlex.quote``/``shlex.join``
(quoting is the writer's job), a shebang, or interpolating a value into shell text: an
f-string or a ``"..." + value`` whose literal text opens a line with a shell command
(``export``, ``set -``, ``cd``, ``echo``, ``exec``, ``eval``, ``bash``, ``python``, ``kubectl``,
...). A constant line without a value in it (``ulimit -n 65536``) cannot carry an injection and
is allowed. ``shlex.split`` reads shell words and is allowed too. The scan is simple on
purpose; ``tests/test_shell_injection.py`` runs what the writer builds under real bash.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rlark_widgets"
WRITER = PACKAGE / "shell.py"
COMMANDS = (
    "export [A-Za-z_][A-Za-z0-9_]*=",
    "set -",
    "cd ",
    "echo ",
    "printf ",
    "exec ",
    "eval ",
    "test ",
    "bash ",
    "sh -c",
    "python ",
    "ray start",
    "kubectl ",
    "tensorboard ",
    "ulimit ",
    "source ",
)
LINE_START = re.compile(r"(?:^|\n)\s*(" + "|".join(COMMANDS) + ")")


def _literal_head(node: ast.expr) -> str | None:
    """The literal text an interpolating expression starts with (None: it interpolates none)."""
    if isinstance(node, ast.JoinedStr):
        if not any(isinstance(v, ast.FormattedValue) for v in node.values):
            return None
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = node.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str):
            return left.value
        return _literal_head(left)
    return None


def shell_writing(source: str) -> list[str]:
    """Each place in ``source`` that writes shell, as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "shlex" and node.attr in ("quote", "join"):
                found.append(f"{where}: shlex.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "shlex":
            names = {a.name for a in node.names} & {"quote", "join"}
            found += [f"{where}: from shlex import {n}" for n in sorted(names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("#!/"):
                found.append(f"{where}: a shebang")
        elif isinstance(node, (ast.JoinedStr, ast.BinOp)):
            head = _literal_head(node)
            if head is not None and (match := LINE_START.search(head)):
                found.append(f"{where}: a value interpolated into '{match.group(1).split()[0]}'")
    return found


def test_no_module_but_the_shell_writer_writes_shell() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != WRITER and (found := shell_writing(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}


@pytest.mark.parametrize(
    ("snippet", "what"),
    [
        ("import shlex\nx = shlex.quote(v)", "shlex.quote"),
        ("import shlex\nx = shlex.join(v)", "shlex.join"),
        ("from shlex import quote", "from shlex import quote"),
        ("x = '#!/bin/bash\\nset -e'", "a shebang"),
        ("x = f'export A={v}'", "'export'"),
        ("x = f'# a comment\\ncd {d}'", "'cd'"),
        ("x = f\"echo '{m}' >&2\"", "'echo'"),
        ("x = 'python ' + entry", "'python'"),
        ("x = f'--resources={r}'.join(y) + f'kubectl -n {ns}'", "'kubectl'"),
    ],
)
def test_the_scan_finds_each_way_of_writing_shell(snippet: str, what: str) -> None:
    found = shell_writing(snippet)
    assert len(found) == 1 and found[0].endswith(what), found


@pytest.mark.parametrize(
    "snippet",
    [
        "import shlex\nwords = shlex.split(line)",
        "LINES = ('ulimit -n 65536', 'eval \"$KUBERAY_GEN_RAY_START_CMD\"')",
        "x = f'--node-ip-address={ip}'",
        "x = f'run mode: job ({script})'",
    ],
)
def test_the_scan_lets_reading_argv_and_constant_lines_pass(snippet: str) -> None:
    assert shell_writing(snippet) == []
