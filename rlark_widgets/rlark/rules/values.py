"""Values every script may carry: what bash cannot hold is refused, naming the field."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings import Severity
from ...i18n import Text
from ...shell import NUL, unsafe_fields
from .context import Hit, RuleContext, rule

SOURCE = "rlark-widgets: rlark_widgets/shell.py (bash cannot carry a NUL byte)"


@rule(
    "VALUE-NUL",
    Severity.ERROR,
    Text("No config or Job value holds a NUL byte (bash cannot carry one)"),
    SOURCE,
)
def _nul(ctx: RuleContext) -> Iterator[Hit]:
    fields = list(unsafe_fields(ctx.manifest))
    if ctx.report is not None:
        config = ctx.report.config
        fields += unsafe_fields(config.resolved)
        fields += (f"overrides[{i}]" for i, o in enumerate(config.overrides) if NUL in o)
    for path in dict.fromkeys(fields):
        yield (
            path or "metadata",
            Text(
                "{field} holds a NUL byte (\\0): the scripts that carry it would run on bash, which"
                " cannot pass one, so the value would arrive cut short.",
                field=path or "metadata",
            ),
            Text(
                "Remove the NUL byte from {field} (it is often a stray \\0 escape in YAML).",
                field=path or "metadata",
            ),
        )
