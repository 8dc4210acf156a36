"""The level of each log line, read where Ray, RLinf and Python's logging write it.

A level counts only in a line's header, never as a word of its message ("0 ERROR(s) found" is
not an error). The headers that appear in Worker logs:

- Python's logging as RLinf and most libraries configure it: ``[2026-12-01 10:00:00,123][INFO]
  ...``, ``2026-12-01 10:00:00 | WARNING | ...``, ``INFO:root:...``, ``[INFO] ...``;
- Ray's Python logs: ``2026-12-01 10:00:00,123\tINFO worker.py:1724 -- ...``; vLLM's
  ``INFO 12-01 10:00:00 [engine.py:42] ...``;
- Ray's C++ logs (raylet, GCS, core worker): ``[2026-12-01 10:00:00,123 W 4242 4242] ...``
  (spdlog's letters T, D, I, W, E, C) and glog's ``W1201 10:00:00.123456 4242 file.cc:12] ...``
  (D, I, W, E, F);
- Python warnings: ``/path/x.py:12: UserWarning: ...`` (WARNING).

Ray prefixes what a task or actor prints with ``(pid=4242)`` or ``(ActorName pid=4242,
ip=10.0.0.2)``, and what its daemons print with ``(raylet)``: the header is read after it.

A line without a header of its own continues the record above it when it is indented or part
of a traceback: a logged exception's traceback keeps the level of the line that logged it
(``logger.warning(..., exc_info=True)`` stays WARNING). A traceback that follows no WARNING or
worse line is an uncaught exception: ERROR. Lines are read as a person reads them: terminal
escapes already stripped (:func:`rlark_widgets.rlark.logs.clean_log`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Log levels, lowest first (WARN is WARNING, FATAL is CRITICAL).
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
NAMES = {
    **{level: level for level in LEVELS},
    "WARN": "WARNING",
    "FATAL": "CRITICAL",
    "T": "DEBUG",  # spdlog's trace
    "D": "DEBUG",
    "I": "INFO",
    "W": "WARNING",
    "E": "ERROR",
    "F": "CRITICAL",
    "C": "CRITICAL",
}
WORD = r"(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"
STAMP = r"(?:\d{4}-\d{2}-\d{2}|\d{2}-\d{2})[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
#: Ray's prefix on what a task, actor or daemon prints.
RAY_PREFIX = re.compile(r"^\((?:[\w.<>-]+ )?(?:pid=\d+[^)]*|raylet|gcs_server|[\w-]+ \+\d+s)\) ?")
HEADERS = (
    re.compile(rf"^\[?{STAMP}\]?[\s|,:-]*\[?{WORD}\b"),  # timestamp first, then the level
    re.compile(rf"^\[{WORD}[\] ]"),  # [INFO] msg, [INFO 2026-... file:1] msg
    re.compile(rf"^{WORD}(?::|\s|$)"),  # INFO:root:, INFO 12-01 10:00:03 [x.py:1], ERROR x
    re.compile(rf"^\[{STAMP} ([TDIWEC]) \d+ \d+\]"),  # Ray's C++ logs (spdlog letters)
    re.compile(r"^([DIWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ "),  # glog
)
PY_WARNING = re.compile(r"^\S+\.py:\d+: \w*Warning:")
TRACEBACK = re.compile(
    r"^(Traceback \(most recent call last\):"
    r"|During handling of the above exception"
    r"|The above exception was the direct cause)"
)
#: The exception line that ends a traceback: ``ValueError: bad``, ``ray.exceptions.X``.
EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?::.*)?$")


def header_level(line: str) -> str | None:
    """The level ``line``'s own header names (None: it has no header)."""
    body = RAY_PREFIX.sub("", line, count=1)
    for header in HEADERS:
        match = header.match(body)
        if match is not None:
            return NAMES[match[1]]
    return "WARNING" if PY_WARNING.match(body) else None


def line_levels(lines: Iterable[str]) -> list[str | None]:
    """Each line's level: its header's, or the record's it continues (see the module's rules)."""
    found: list[str | None] = []
    current: str | None = None  # the level of the record being continued
    in_traceback = False
    for line in lines:
        body = RAY_PREFIX.sub("", line, count=1)
        own = header_level(line)
        if own is not None:
            current, in_traceback = own, False
        elif TRACEBACK.match(body):
            if not in_traceback and (current is None or rank(current) < rank("WARNING")):
                current = "ERROR"  # an uncaught exception, not part of the record above
            in_traceback = True
        elif body[:1].isspace() and body.strip():
            pass  # an indented continuation (a traceback frame, a wrapped message)
        elif in_traceback and EXCEPTION.match(body):
            in_traceback = False  # the exception line ends the traceback, and belongs to it
            found.append(current)
            current = None
            continue
        else:
            current, in_traceback = None, False
        found.append(current)
    return found


def rank(level: str) -> int:
    return LEVELS.index(level)


def at_level(text: str, level: str) -> str:
    """The lines of ``text`` at ``level`` or above (a record's continuation lines with it)."""
    lines = text.splitlines()
    floor = rank(level)
    kept = [
        line
        for line, named in zip(lines, line_levels(lines), strict=True)
        if named is not None and rank(named) >= floor
    ]
    return "\n".join(kept) + ("\n" if kept else "")
