"""Findings: every problem or lesson the assistant reports is data, not a print statement.

A finding points at a field of the RLinf config or of the RLark Job (``path``), says what is
wrong (``text``), how to fix it (``fix_text``), both :class:`~.i18n.Text` rendered in the reader's
language, and which seed passage or RLinf behaviour the
rule rests on (``source``). Views, the CLI and the run record all render the same objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from .i18n import Listing, Text, render
from .secret_text import redact

Scrub = Callable[[str], str]


class Severity(StrEnum):
    """How a finding gates submission: errors block, warnings need a yes, infos teach."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """One rule outcome, pointing at the field it concerns."""

    rule_id: str
    severity: Severity
    path: str
    text: Text
    fix_text: Text | str = ""  # "" when there is nothing to fix (an info that teaches)
    source: str = ""

    def __post_init__(self) -> None:
        # A plain string would exist in one language only (tests/test_i18n.py checks the rest).
        if not isinstance(self.text, Text) or not isinstance(self.fix_text, Text | str):
            raise TypeError(f"{self.rule_id}: a finding's message and fix must be Text")
        if isinstance(self.fix_text, str) and self.fix_text:
            raise TypeError(f"{self.rule_id}: a finding's fix must be Text")
        # One redaction for every finding, whoever made it: a value quoted into a message (a
        # hostPath, an image, jsonschema's detail) never carries a secret's shape to any output.
        self._scrub_with(redact)

    def _scrub_with(self, scrub: Scrub) -> None:
        object.__setattr__(self, "path", scrub(self.path))
        object.__setattr__(self, "text", scrubbed(self.text, scrub))
        object.__setattr__(self, "fix_text", scrubbed(self.fix_text, scrub))

    def redacted(self, scrub: Scrub) -> Finding:
        """This finding with ``scrub`` applied to its path and every value its texts quote."""
        copy = replace(self)
        copy._scrub_with(scrub)
        return copy

    @property
    def message(self) -> str:
        return render(self.text)

    @property
    def fix(self) -> str:
        return render(self.fix_text)

    def message_in(self, lang: str) -> str:
        return render(self.text, lang)

    def fix_in(self, lang: str) -> str:
        return render(self.fix_text, lang)

    def to_dict(self, lang: str = "en") -> dict[str, str]:
        return {
            "rule_id": self.rule_id,
            "severity": self.severity.value,
            "path": self.path,
            "message": self.message_in(lang),
            "fix": self.fix_in(lang),
            "source": self.source,
        }


def scrubbed(value: object, scrub: Scrub) -> object:
    """``value`` with ``scrub`` applied to every string it quotes, in a Text at any depth."""
    if isinstance(value, Listing):
        items: Iterable[object] = value.params["items"]  # type: ignore[assignment]
        return Listing([_as_message(scrubbed(item, scrub)) for item in items], value.template)
    if isinstance(value, Text):
        return value.with_values(
            {name: scrubbed(param, scrub) for name, param in value.params.items()}
        )
    if isinstance(value, str):
        return scrub(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    text = str(value)
    cleaned = scrub(text)
    return value if cleaned == text else cleaned


def _as_message(value: object) -> Text | str:
    return value if isinstance(value, Text | str) else str(value)


def has_errors(findings: list[Finding] | tuple[Finding, ...]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)
