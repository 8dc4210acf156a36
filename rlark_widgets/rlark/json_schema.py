"""JSON Schema for the Job CRD, KubeRay's CRDs and site profiles: one validator class, one path.

Every schema this package checks against goes through :data:`Draft202012Validator` imported
here, and every violation is shown at :func:`field_path`, so a Job, a RayJob and a site profile
name a wrong field the same way (``spec.tasks[1].replicas``, ``jobApi.group``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


def _import_jsonschema_without_iri_grammar() -> type[Validator]:
    """jsonschema, imported without the optional ``rfc3987_syntax`` format checker.

    Jupyter's extras install that package, and jsonschema imports it eagerly to check "iri"
    formats: building its grammar takes 2-5 s, a third of the app's time to first widget. The
    schemas here use no formats, so the checker is hidden during this one import and nothing
    else in the process loses it.
    """
    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        import jsonschema
    else:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # "not installed"
        try:
            import jsonschema
        finally:
            del sys.modules["rfc3987_syntax"]
    return jsonschema.Draft202012Validator


Draft202012Validator = _import_jsonschema_without_iri_grammar()


def field_path(parts: Iterable[str | int]) -> str:
    """A schema error's location as a dotted field path (``spec.tasks[0].image``)."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
