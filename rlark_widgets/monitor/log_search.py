"""Searching the logs of every Worker at once: by text, by Worker, by level, and following them.

Plain functions over ``{worker: text}``: the CLI's ``logs-all`` and the app's log search call
them with what the backend returned, so both filter the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .log_levels import line_levels, rank


@dataclass(frozen=True)
class LogLine:
    """One line of one Worker's log, with its level (:mod:`.log_levels`: its header's, or that
    of the record it continues, such as a traceback)."""

    worker: str
    number: int  # 1-based, within the text that was searched
    text: str
    level: str | None

    def __str__(self) -> str:
        return f"[{self.worker}] {self.text}"


def search(
    logs: Mapping[str, str],
    text: str = "",
    workers: Iterable[str] | None = None,
    level: str | None = None,
) -> list[LogLine]:
    """Lines containing ``text`` (case-insensitive), of ``workers`` (all when None), at
    ``level`` or above (lines of no level are left out when a level is asked for)."""
    wanted = set(workers) if workers is not None else None
    floor = rank(level) if level else None
    needle = text.casefold()
    found = []
    for worker, body in logs.items():
        if wanted is not None and worker not in wanted:
            continue
        lines = body.splitlines()
        for number, (line, named) in enumerate(zip(lines, line_levels(lines), strict=True), 1):
            if needle and needle not in line.casefold():
                continue
            if floor is not None and (named is None or rank(named) < floor):
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
