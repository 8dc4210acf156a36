"""Findings: every problem or lesson the assistant reports is data, not a print statement.

A finding points at a field of the RLinf config or of the RLark Job (``path``), says what is
wrong (``message``), how to fix it (``fix``) and which seed passage or RLinf behaviour the
rule rests on (``source``). Views, the CLI and the run record all render the same objects.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum


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
    message: str
    fix: str = ""
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data


def has_errors(findings: list[Finding] | tuple[Finding, ...]) -> bool:
    return any(f.severity is Severity.ERROR for f in findings)
