"""RLinf's rank-list grammar (``0-3,5``, ``all``), shared by node_ranks and placements."""

from __future__ import annotations

from collections.abc import Sequence


class RankSyntaxError(ValueError):
    """The text is not a rank list (RLinf raises ValueError here)."""


class RankRangeError(ValueError):
    """A rank lies outside the available ranks or a range runs backwards (RLinf asserts)."""


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
            raise RankSyntaxError(f"'all' is not allowed here: {text}")
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
                f'Invalid rank format {text} for {rank_type}, expected format: "a,b,c-d" or "all"'
            ) from None
        if end < start:
            raise RankRangeError(
                f"Start rank {start} must be less than or equal to end rank {end} "
                f"in rank config {text} for {rank_type}."
            )
        if bounds_of is not None:
            _check_within(start, "Start", text, bounds_of, rank_type)
            _check_within(end, "End", text, bounds_of, rank_type)
        spans.append(range(start, end + 1))
    if len(spans) == 1:  # the common case, kept cheap for 100k-process placements
        return list(spans[0])
    return sorted({rank for span in spans for rank in span})


def _check_within(
    rank: int, which: str, text: str, available: list[int], rank_type: str | None
) -> None:
    kind = rank_type if rank_type is not None else ""
    if not available:
        raise RankRangeError(
            f'{which} rank {rank} in rank config string "{text}" must be within the available '
            f"{kind} ranks [], but there are no {kind} resources."
        )
    if not available[0] <= rank <= available[-1]:
        raise RankRangeError(
            f'{which} rank {rank} in rank config string "{text}" must be within the available '
            f"{kind} ranks {format_ranks(available)}."
        )
