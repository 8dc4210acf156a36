"""The rules in catalogue order (families as listed here) and :func:`evaluate`."""

from __future__ import annotations

from collections.abc import Iterable

from ...findings import Finding
from . import (
    environment,
    image_scripts,
    names,
    placement,
    record,
    resume,
    selectors,
    storage,
    values,
)
from .context import REGISTERED, Rule, RuleContext

#: The order findings and ``rlark-migrate rules`` list the families in.
FAMILIES = (
    placement,
    names,
    selectors,
    image_scripts,
    values,
    storage,
    environment,
    resume,
    record,
)
_ORDER = {family.__name__: index for index, family in enumerate(FAMILIES)}
#: Sorted by family, then as registered; a rule in a module missing from FAMILIES fails here.
RULES: list[Rule] = sorted(REGISTERED, key=lambda r: _ORDER[r.check.__module__])


def evaluate(ctx: RuleContext, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """The findings of ``rules`` (all of them by default) on ``ctx``, in catalogue order."""
    findings = []
    for r in rules if rules is not None else RULES:
        for path, message, fix in r.check(ctx):
            findings.append(Finding(r.id, r.severity, path, message, fix, r.source))
    return findings
