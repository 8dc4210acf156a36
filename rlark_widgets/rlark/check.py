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
from .site import SiteProfile, example_site


def check_job(
    job: Job,
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    facts: RecordFacts | None = None,
    site: SiteProfile | None = None,
    unknown_as_info: bool = False,
) -> list[Finding]:
    """Every finding for ``job``; with ``report`` the PLN rules compare it with the RLinf config.

    ``site`` (else the inventory's, else the example) gives the labels, reserved names, device
    prefix and Job API the rules and the schema check against.
    """
    site = site or (inventory.site if inventory is not None else None) or example_site()
    manifest = job.to_manifest()
    context = RuleContext(job, report, inventory, target_cluster, facts, site)
    secrets = [f for f in secret_findings(manifest) if not f.path.startswith("spec.sshKeys")]
    return [
        *schema_findings(manifest, site, unknown_as_info=unknown_as_info),
        *evaluate(context),
        *secrets,
        *ssh_key_findings(job.ssh_keys),  # the SSH-specific message for keys
    ]
