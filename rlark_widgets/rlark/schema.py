"""The ``jobs.rlark.io`` CRD shipped with the package, and schema validation of Job manifests."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import yaml

from ..contract import JOB_RESOURCE
from ..findings import Finding, Severity
from ..i18n import Text

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


def _import_jsonschema_without_iri_grammar() -> type[Validator]:
    """jsonschema, imported without the optional ``rfc3987_syntax`` format checker.

    Jupyter's extras install that package, and jsonschema imports it eagerly to check "iri"
    formats: building its grammar takes 2-5 s, a third of the app's time to first widget. The
    CRD schema uses no formats, so the checker is hidden during this one import and nothing
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

CRD_RESOURCE = f"{JOB_RESOURCE}.yaml"


def crd_text() -> str:
    return (
        resources.files(__package__)
        .joinpath("data")
        .joinpath(CRD_RESOURCE)
        .read_text(encoding="utf-8")
    )


@cache
def crd() -> dict[str, Any]:
    return yaml.safe_load(crd_text())


def job_schema() -> dict[str, Any]:
    return crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


@cache
def _validator() -> Validator:
    return Draft202012Validator(job_schema())


def _path(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def wrongly_typed(manifest: Any) -> list[str]:
    """Fields whose value has the wrong type (a list where a name goes): no Job can be read."""
    return [
        _path(error.absolute_path) or "(document)"
        for error in _validator().iter_errors(manifest)
        if error.validator == "type"
    ]


def schema_findings(manifest: Any) -> list[Finding]:
    """One SCHEMA finding per violation, pointing at the Job field (``spec.tasks[1].replicas``)."""
    findings = []
    for error in sorted(
        _validator().iter_errors(manifest), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        findings.append(
            Finding(
                "JOB-SCHEMA",
                Severity.ERROR,
                _path(error.absolute_path) or "(document)",
                # jsonschema's own explanation stays as it says it (English), quoted in ours
                Text("Does not match the RLark Job schema: {detail}.", detail=error.message),
                Text(
                    "Correct the field as the CRD describes it (`rlark-migrate crd` prints the "
                    "schema)."
                ),
                f"rlark-widgets CRD {JOB_RESOURCE} (DESIGN.md §3)",
            )
        )
    return findings
