"""One call that checks a Job: schema, the rule catalogue and the secret scanners."""

from __future__ import annotations

from ..findings import Finding
from ..rlinf import ConfigReport
from .facts import RecordFacts
from .inventory import Inventory
from .job import Job
from .rules import RuleContext, evaluate
from .schema import schema_findings
from .secrets import secret_findings, ssh_key_findings


def check_job(
    job: Job,
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    facts: RecordFacts | None = None,
) -> list[Finding]:
    """Every finding for ``job``; with ``report`` the PLN rules compare it with the RLinf config."""
    manifest = job.to_manifest()
    context = RuleContext(job, report, inventory, target_cluster, facts)
    secrets = [f for f in secret_findings(manifest) if not f.path.startswith("spec.sshKeys")]
    return [
        *schema_findings(manifest),
        *evaluate(context),
        *secrets,
        *ssh_key_findings(job.ssh_keys),  # the SSH-specific message for keys
    ]
