"""RLinf's rank-list grammar (``0-3,5``, ``all``), shared by node_ranks and placements."""

from __future__ import annotations

from collections.abc import Sequence

from ..i18n import Text
from .errors import RLinfCheckError


class RankSyntaxError(RLinfCheckError, ValueError):
    """The text is not a rank list (RLinf raises ValueError here)."""


class RankRangeError(RLinfCheckError, ValueError):
    """A rank lies outside the available ranks or a range runs backwards (RLinf asserts)."""


class RankOutsideError(RankRangeError):
    """A rank beyond the available ones: the cause may be the assumed resource count, not the text."""


#: More ranks than any cluster has. RLinf sets no limit, but building the list for a typo such
#: as ``0:0-10000000000`` would take all memory, so it is refused before the list is built.
MAX_RANKS = 1_000_000


def format_ranks(ranks: Sequence[int], limit: int = 16) -> str:
    """Render a rank list like Python does, eliding the middle of long lists."""
    if len(ranks) <= limit:
        return str(list(ranks))
    head = ", ".join(str(r) for r in ranks[:3])
    return f"[{head}, ..., {ranks[-1]}]"


def parse_rank_config(
    value: object, available: Sequence[int] | None = None, rank_type: str | None = None
) -> list[int]:
    """Parse ``value`` into sorted unique ranks, as RLinf's ``parse_rank_config`` does.

    ``available`` bounds every range (each start and end must lie between its smallest and
    largest entry) and gives the meaning of ``all``.
    """
    text = str(value)
    if text.lower() == "all":
        if available is None:
            raise RankSyntaxError(Text("'all' is not allowed here: {text}", text=text))
        return sorted(set(available))
    bounds_of = sorted(available) if available is not None else None
    spans: list[range] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        ends = piece.split("-")
        try:
            if len(ends) == 1:
                start = end = int(ends[0])
            elif len(ends) == 2:
                start, end = int(ends[0]), int(ends[1])
            else:
                raise ValueError(piece)
        except ValueError:
            raise RankSyntaxError(
                Text(
                    'Invalid rank format {text} for {rank_type}, expected format: "a,b,c-d" or "all"',
                    text=text,
                    rank_type=rank_type,
                )
            ) from None
        if end < start:
            raise RankRangeError(
                Text(
                    "Start rank {start} must be less than or equal to end rank {end} "
                    "in rank config {text} for {rank_type}.",
                    start=start,
                    end=end,
                    text=text,
                    rank_type=rank_type,
                )
            )
        if bounds_of is not None:
            _check_within(start, True, text, bounds_of, rank_type)
            _check_within(end, False, text, bounds_of, rank_type)
        spans.append(range(start, end + 1))
    _check_size(spans, text, rank_type)
    if len(spans) == 1:  # the common case, kept cheap for 100k-process placements
        return list(spans[0])
    return sorted({rank for span in spans for rank in span})


def _check_size(spans: list[range], text: str, rank_type: str | None) -> None:
    if sum(span.stop - span.start for span in spans) > MAX_RANKS:
        raise RankRangeError(
            Text(
                "Rank config {text} for {rank_type} names more than {limit} ranks; "
                "no cluster has that many.",
                text=text,
                rank_type=rank_type,
                limit=f"{MAX_RANKS:,}",
            )
        )


def _check_within(
    rank: int, is_start: bool, text: str, available: list[int], rank_type: str | None
) -> None:
    kind = rank_type if rank_type is not None else ""
    if not available:
        raise RankOutsideError(_no_resources(rank, is_start, text, kind))
    if not available[0] <= rank <= available[-1]:
        raise RankOutsideError(_outside(rank, is_start, text, kind, format_ranks(available)))


def _no_resources(rank: int, is_start: bool, text: str, kind: str) -> Text:
    if is_start:
        return Text(
            'Start rank {rank} in rank config string "{text}" must be within the available '
            "{kind} ranks [], but there are no {kind} resources: RLinf stops here with "
            "IndexError: list index out of range.",
            rank=rank,
            text=text,
            kind=kind,
        )
    return Text(
        'End rank {rank} in rank config string "{text}" must be within the available '
        "{kind} ranks [], but there are no {kind} resources: RLinf stops here with "
        "IndexError: list index out of range.",
        rank=rank,
        text=text,
        kind=kind,
    )


def _outside(rank: int, is_start: bool, text: str, kind: str, available: str) -> Text:
    if is_start:
        return Text(
            'Start rank {rank} in rank config string "{text}" must be within the available '
            "{kind} ranks {available}.",
            rank=rank,
            text=text,
            kind=kind,
            available=available,
        )
    return Text(
        'End rank {rank} in rank config string "{text}" must be within the available '
        "{kind} ranks {available}.",
        rank=rank,
        text=text,
        kind=kind,
        available=available,
    )
