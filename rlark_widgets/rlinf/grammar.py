"""The placement-string grammar: ``resources[:processes]`` parts separated by commas.

Parsing follows RLinf's ``ComponentPlacement._parse_rank_map`` check for check, in the same
order, so a string RLinf rejects is rejected here with a message of the same meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import Text
from .errors import RLinfCheckError
from .ranks import RankOutsideError, RankRangeError, RankSyntaxError, parse_rank_config


class GrammarError(RLinfCheckError, ValueError):
    """A placement string RLinf's parser rejects (message as RLinf words it)."""


class ResourcesOutsideError(GrammarError):
    """Resource ranks beyond the resources there are: well written, maybe too few assumed."""


@dataclass(frozen=True)
class RankPart:
    """One comma-separated part: these resources are shared or split among these processes."""

    resources: list[int]
    processes: list[int]


def parse_rank_map(text: str, resource_count: int, resource_type: str) -> list[RankPart]:
    """Split ``text`` into parts over resources ``0 .. resource_count-1``."""
    available = range(resource_count)
    parts: list[RankPart] = []
    last_resource = -1
    next_process: int | None = None
    first_process = 0
    for raw_part in text.strip().split(","):
        part = raw_part.strip()
        if not part:
            continue
        pieces = part.split(":")
        if len(pieces) > 2:
            raise GrammarError(
                Text(
                    "Invalid rank map string: {part} in placement config: {text}. "
                    "Expected format: resource_ranks:process_ranks",
                    part=part,
                    text=text,
                )
            )
        try:
            resources = parse_rank_config(pieces[0].strip(), available, resource_type)
        except RankRangeError as exc:
            kind = ResourcesOutsideError if isinstance(exc, RankOutsideError) else GrammarError
            raise kind(
                Text(
                    "Error parsing resource ranks in placement string: {part} of placement "
                    "config: {text}. {reason}",
                    part=part,
                    text=text,
                    reason=exc.text,
                )
            ) from None
        except RankSyntaxError as exc:
            raise GrammarError(exc.text) from None
        if not resources:
            raise GrammarError(
                Text("No valid resource ranks found in placement string: {part}.", part=part)
            )
        if resources[0] <= last_resource:
            if not _used(parts).isdisjoint(resources):
                raise GrammarError(
                    Text(
                        "Duplicate resource ranks found in placement string: {text}. "
                        "Resource ranks must be unique.",
                        text=text,
                    )
                )
            raise GrammarError(
                Text(
                    "Resource ranks must be in ascending order in placement string: {text}.",
                    text=text,
                )
            )
        last_resource = resources[-1]

        if len(pieces) == 2:
            process_text = pieces[1].strip()
            if process_text == "all":
                raise GrammarError(
                    Text(
                        "The latter part of a ':' separated placement string (i.e., the process "
                        "ranks) cannot be 'all': {text}.",
                        text=text,
                    )
                )
            try:
                processes = parse_rank_config(process_text, None, "process")
            except (RankRangeError, RankSyntaxError) as exc:
                raise GrammarError(exc.text) from None
        else:
            first = next_process if next_process is not None else 0
            processes = list(range(first, first + len(resources)))
        if not processes:
            raise GrammarError(
                Text("No valid process ranks found in placement string: {part}.", part=part)
            )
        if next_process is None:
            first_process = processes[0]
        else:
            if processes[0] < next_process and processes[-1] >= first_process:
                raise GrammarError(
                    Text(
                        "Duplicate process ranks found in placement string: {text}. "
                        "Process ranks must be unique.",
                        text=text,
                    )
                )
            if processes[0] != next_process:
                raise GrammarError(
                    Text(
                        "Process ranks must be in ascending order and continuous in placement "
                        "string: {text}.",
                        text=text,
                    )
                )
        if processes[-1] - processes[0] + 1 != len(processes):
            raise GrammarError(
                Text("Process ranks must be continuous in placement string: {text}.", text=text)
            )
        next_process = processes[-1] + 1

        n_proc, n_res = len(processes), len(resources)
        if n_proc % n_res and n_res % n_proc:
            raise GrammarError(
                Text(
                    "The number of process ranks {n_proc} must be divisible by the number of "
                    "resource ranks {n_res} in placement string: {part} or the number of resource "
                    "ranks must be divisible by the number of process ranks.",
                    n_proc=n_proc,
                    n_res=n_res,
                    part=part,
                )
            )
        parts.append(RankPart(resources, processes))
    return parts


def _used(parts: list[RankPart]) -> set[int]:
    return {r for p in parts for r in p.resources}


def process_resources(parts: list[RankPart]) -> list[list[int]]:
    """Resources of each process, in process order (RLinf's ``_rank_map_to_process_resources_map``)."""
    result: list[list[int]] = []
    for part in parts:
        resources, n_proc = part.resources, len(part.processes)
        if len(resources) == n_proc:
            result.extend(map(list, zip(resources)))  # one resource each: [[r0], [r1], ...]
        elif len(resources) > n_proc:
            step = len(resources) // n_proc
            result.extend(resources[i * step : (i + 1) * step] for i in range(n_proc))
        else:  # processes share a resource; they may share its (never mutated) list too
            share = n_proc // len(resources)
            for r in resources:
                result.extend([[r]] * share)
    return result
