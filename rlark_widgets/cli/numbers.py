"""The one argparse type for every numeric option: a finite number in the option's range.

``float("nan")`` and ``float("inf")`` parse, and then a wait never ends (``elapsed >= nan`` is
never true) or ``time.sleep`` overflows; a negative timeout or tail is nonsense. Every numeric
option of every command is declared with :func:`seconds` or :func:`count`
(``tests/test_fuzz.py`` fails when one is not), so the check and its message (the range; argparse
names the option) live here alone.

argparse calls a type before it knows ``--lang``; :func:`message_language` is set by ``main``
from a first look at the command line, so the message comes in the reader's language.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from ..i18n import Text, default_language

#: The language argparse's type errors are rendered in (``main`` sets it from ``--lang``).
message_language: ContextVar[str] = ContextVar("message_language", default="")

#: Kubernetes' int32 fields (ttlSecondsAfterFinished, activeDeadlineSeconds).
INT32_MAX = 2**31 - 1
#: A wait longer than 30 days is a typo, and ``time.sleep`` overflows long before ``1e308``.
MAX_WAIT_SECONDS = 30 * 24 * 3600.0


@dataclass(frozen=True)
class NumberType:
    """An argparse ``type``: parses ``kind`` and refuses NaN, infinities and values off range.

    ``low_open``: the lower bound itself is refused (a timeout of 0 s is no timeout).
    """

    kind: Callable[[str], int | float]
    what: Text
    low: float
    high: float
    low_open: bool = False

    @property
    def range_text(self) -> Text:
        low, high = _shown(self.low), _shown(self.high)
        if self.low_open:
            return Text("above {low} and at most {high}", low=low, high=high)
        return Text("from {low} to {high}", low=low, high=high)

    def __call__(self, value: str) -> int | float:
        try:
            number = self.kind(value.strip())
        except (TypeError, ValueError, OverflowError):
            number = None
        in_range = (
            number is not None
            and math.isfinite(number)
            and (self.low < number if self.low_open else self.low <= number)
            and number <= self.high
        )
        if number is None or not in_range:
            message = Text(  # argparse puts "argument OPTION: " before it
                "takes {what} {range}; got {value}",
                what=self.what,
                range=self.range_text,
                value=repr(value),
            )
            lang = message_language.get() or default_language()
            raise argparse.ArgumentTypeError(message.render(lang))
        return number


def seconds(high: float = MAX_WAIT_SECONDS) -> NumberType:
    """A duration in seconds, above 0."""
    return NumberType(float, Text("a number of seconds"), 0.0, high, low_open=True)


def count(low: int = 0, high: int = INT32_MAX) -> NumberType:
    """A whole number from ``low`` to ``high``."""
    return NumberType(int, Text("a whole number"), low, high)


def _shown(bound: float) -> str:
    """A bound as people write it: 3,600 and 2,147,483,647, not 3600.0 and 2.14748e+09."""
    return f"{int(bound):,}" if float(bound).is_integer() else f"{bound:g}"
