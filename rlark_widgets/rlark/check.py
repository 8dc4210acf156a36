"""One call that checks a Job: schema, what a Job keeps, the rule catalogue and the secret scan."""

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
from .site import SiteProfile, example_site
from .written import dropped_findings, written_findings


def check_job(
    job: Job | None,
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    facts: RecordFacts | None = None,
    site: SiteProfile | None = None,
    unknown_as_info: bool = False,
    document: Mapping[str, Any] | None = None,
    text: str | None = None,
    prior: Sequence[Finding] = (),
) -> list[Finding]:
    """Every finding for ``job``; with ``report`` the PLN rules compare it with the RLinf config.

    ``site`` (else the inventory's, else the example) gives the labels, reserved names, device
    prefix and Job API the rules and the schema check against. ``document`` is what the user
    wrote (default: the Job's own manifest): the schema, what a Job keeps and the secret scan
    read all of it, unknown fields included (and ``text``'s comments); a field the Job would
    not submit as written is an error (JOB-NOT-KEPT) even where the schema only notes it
    (``unknown_as_info``). No finding (``prior`` ones too) repeats a value the scan flags.
    ``job`` is None when the document cannot be read as a Job: the document checks still run.
    """
    site = site or (inventory.site if inventory is not None else None) or example_site()
    if document is None:
        if job is None:
            raise ValueError("check_job needs a Job or a document")
        document = job.to_manifest()
    findings = [
        *prior,
        *schema_findings(document, site, unknown_as_info=unknown_as_info),
        *written_findings(document),
    ]
    if job is not None:
        findings += dropped_findings(document, job.to_manifest())
        findings += evaluate(RuleContext(job, report, inventory, target_cluster, facts, site))
    findings += document_secret_findings(document)
    if text is not None:  # the file as written: its comments are shared with it
        findings += comment_secret_findings(text)
    return redact_findings(findings, document)
