"""jsonschema's explanations in our words, so a schema finding reads in the reader's language.

jsonschema words each violation in English ("'image' is a required property"); a Chinese
report quoted that sentence as it was. :func:`schema_detail` says the violations our Job schema
can raise (``rlark/data/jobs.yaml``: type, required, additionalProperties, minimum,
minLength, maxLength, minItems, pattern (a key under propertyNames too), enum) as a :class:`Text`; any other keeps
jsonschema's sentence, marked as its words.
"""

from __future__ import annotations

import json
from typing import Any

from ..i18n import Listing, Text


def unknown_fields(error: Any) -> list[str]:
    """The keys an ``additionalProperties: false`` violation is about."""
    known = set(error.schema.get("properties") or {})
    return (
        [str(k) for k in error.instance if k not in known]
        if isinstance(error.instance, dict)
        else []
    )


def _shown(value: object) -> str:
    """A value as the YAML/JSON reader wrote it (strings quoted, not Python's repr)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def schema_detail(error: Any) -> Text:
    """One jsonschema ``ValidationError`` as a Text."""
    kind, limit, value = error.validator, error.validator_value, error.instance
    if kind == "type":
        kinds = limit if isinstance(limit, list) else [limit]
        return Text(
            "{value} is not of type {kind}", value=_shown(value), kind=" | ".join(map(str, kinds))
        )
    if kind == "required":
        missing = [name for name in limit if isinstance(value, dict) and name not in value]
        return Text("the required field {name} is missing", name=", ".join(missing) or limit)
    if kind == "additionalProperties":
        return Text("field(s) not in the schema: {names}", names=", ".join(unknown_fields(error)))
    if kind == "minimum":
        return Text("{value} is less than the minimum of {limit}", value=_shown(value), limit=limit)
    if kind == "minLength":
        return Text(
            "{value} is shorter than {limit} character(s)", value=_shown(value), limit=limit
        )
    if kind == "maxLength":
        return Text("{value} is longer than {limit} character(s)", value=_shown(value), limit=limit)
    if kind == "minItems":
        return Text("the list needs at least {limit} item(s)", limit=limit)
    if kind == "pattern":
        return Text(
            "{value} does not match the pattern {pattern}", value=_shown(value), pattern=limit
        )
    if kind == "enum":
        return Text(
            "{value} is not one of {choices}",
            value=_shown(value),
            choices=Listing([_shown(c) for c in limit], ", "),
        )
    return Text("jsonschema says: {detail}", detail=error.message)
