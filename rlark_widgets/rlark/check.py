"""One call that checks a Job: schema, the rule catalogue and the secret scanners."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..findings import Finding
from ..rlinf import ConfigReport
from .facts import RecordFacts
from .inventory import Inventory
from .job import Job
from .rules import RuleContext, evaluate
from .schema import schema_findings
from .secrets import comment_secret_findings, document_secret_findings, redact_findings
from .written import written_findings


def check_job(
    job: Job | None,
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    facts: RecordFacts | None = None,
    document: Mapping[str, Any] | None = None,
    text: str | None = None,
    prior: Sequence[Finding] = (),
) -> list[Finding]:
    """Every finding for ``job``; with ``report`` the PLN rules compare it with the RLinf config.

    ``document`` is what the user wrote (default: the Job's own manifest): the schema and the
    secret scan read all of it, unknown fields included (and ``text``'s comments), and no
    finding (``prior`` ones too) repeats a value the scan flags. ``job`` is None when the document cannot be read as a Job:
    the schema and the secret scan still run.
    """
    if document is None:
        if job is None:
            raise ValueError("check_job needs a Job or a document")
        document = job.to_manifest()
    findings = [*prior, *schema_findings(document), *written_findings(document)]
    if job is not None:
        findings += evaluate(RuleContext(job, report, inventory, target_cluster, facts))
    findings += document_secret_findings(document)
    if text is not None:  # the file as written: its comments are shared with it
        findings += comment_secret_findings(text)
    return redact_findings(findings, document)
