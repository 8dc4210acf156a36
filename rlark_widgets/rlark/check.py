"""One call that checks a Job: schema, what a Job keeps, the rule catalogue and the secret scan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..findings import Finding, Severity
from .planned import PlannedJob
from .rules import RuleContext, evaluate
from .schema import schema_findings
from .secrets import comment_secret_findings, document_secret_findings, redact_findings
from .written import dropped_findings, written_findings


def check_job(
    planned: PlannedJob,
    *,
    unknown_as_info: bool = False,
    document: Mapping[str, Any] | None = None,
    text: str | None = None,
) -> list[Finding]:
    """Every finding for ``planned``: its own findings, then the Job's; with a report the PLN
    rules compare the Job with the RLinf config.

    The planned Job's site gives the labels, reserved names, device prefix and Job API the rules
    and the schema check against. ``document`` is what the user wrote (default: the Job's own
    manifest): the schema, what a Job keeps and the secret scan read all of it, unknown fields
    included (and ``text``'s comments); a field the Job would not submit as written is an error
    (JOB-NOT-KEPT) even where the schema only notes it (``unknown_as_info``). No finding (the
    planned ones too) repeats a value the scan flags. The Job is None when the document cannot
    be read as one: the document checks still run.
    """
    job, site = planned.job, planned.site
    if document is None:
        if job is None:
            raise ValueError("check_job needs a Job or a document")
        document = job.to_manifest()
    schema = schema_findings(document, site, unknown_as_info=unknown_as_info)
    dropped: list[Finding] = []
    ruled: list[Finding] = []
    if job is not None:
        context = RuleContext(
            job, planned.report, planned.inventory, planned.target_cluster, planned.facts, site=site
        )
        dropped, ruled = dropped_findings(document, job.to_manifest()), evaluate(context)
    findings = [
        *planned.findings,
        *_not_ruled(schema, ruled),
        *written_findings(document),
        *dropped,
        *ruled,
    ]
    findings += document_secret_findings(document)
    if text is not None:  # the file as written: its comments are shared with it
        findings += comment_secret_findings(text)
    return redact_findings(findings, document)


def _not_ruled(schema: list[Finding], ruled: list[Finding]) -> list[Finding]:
    """The schema's findings but its errors at a field a catalogue rule reports as an error: the
    rule names the cause and its fix (an empty image is JOB-IMAGE, not also jsonschema's "should be
    non-empty"), so one cause gives one finding."""
    errors = {f.path for f in ruled if f.severity is Severity.ERROR}
    return [f for f in schema if f.severity is not Severity.ERROR or f.path not in errors]
