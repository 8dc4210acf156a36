"""Searching the logs of every Worker at once: by text, by Worker, by level, and following them.

Plain functions over ``{worker: text}``: the CLI's ``logs-all`` and the app's log search call
them with what the backend returned, so both filter the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

#: Log levels as Python's logging, Ray and RLinf print them, lowest first (WARN is WARNING).
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LEVEL = re.compile(r"\b(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b")


@dataclass(frozen=True)
class LogLine:
    """One line of one Worker's log, with its level when the line names one."""

    worker: str
    number: int  # 1-based, within the text that was searched
    text: str
    level: str | None

    def __str__(self) -> str:
        return f"[{self.worker}] {self.text}"


def level_of(line: str) -> str | None:
    """The first level word of ``line`` (WARN as WARNING, FATAL as CRITICAL), or None."""
    match = LEVEL.search(line)
    if match is None:
        return None
    return {"WARN": "WARNING", "FATAL": "CRITICAL"}.get(match[1], match[1])


def search(
    logs: Mapping[str, str],
    text: str = "",
    workers: Iterable[str] | None = None,
    level: str | None = None,
) -> list[LogLine]:
    """Lines containing ``text`` (case-insensitive), of ``workers`` (all when None), at
    ``level`` or above (lines naming no level are left out when a level is asked for)."""
    wanted = set(workers) if workers is not None else None
    floor = LEVELS.index(level) if level else None
    needle = text.casefold()
    found = []
    for worker, body in logs.items():
        if wanted is not None and worker not in wanted:
            continue
        for number, line in enumerate(body.splitlines(), start=1):
            if needle and needle not in line.casefold():
                continue
            named = level_of(line)
            if floor is not None and (named is None or LEVELS.index(named) < floor):
                continue
            found.append(LogLine(worker, number, line, named))
    return found


def appended(before: list[str], after: list[str]) -> list[str]:
    """The lines of ``after`` written since ``before`` (two tails of one growing log): what
    follows the longest end of ``before`` that ``after`` starts with; all of ``after`` when
    they share nothing (the log moved on by more than a tail)."""
    for overlap in range(min(len(before), len(after)), 0, -1):
        if before[-overlap:] == after[:overlap]:
            return after[overlap:]
    return after
