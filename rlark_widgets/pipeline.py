"""The one chain from an RLinf config to a checked Job, and the one way to submit it.

config -> report (RLinf's placement on an assumed GPU layout) -> plan (roles) -> Job -> findings.
The CLI's ``plan``, ``check`` and ``submit`` and the app's Session all go through here, so the
two cannot drift: the same inputs give the same Job and the same findings, and one blocking
rule decides whether a Job may be submitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .backends.base import Backend, SubmitResult, blocking
from .findings import Finding
from .rlark.build import JobSettings, build_job
from .rlark.check import check_job
from .rlark.facts import RecordFacts
from .rlark.inventory import Inventory, inventory_findings
from .rlark.job import Job, Role
from .rlark.planner import Plan, plan_roles
from .rlark.site import SiteProfile, example_site
from .rlinf import ConfigReport, GpuLayout, RLinfConfig, inspect_config


@dataclass(frozen=True)
class PlanRequest:
    """Everything a plan depends on, as the user gave it (CLI options or the app's fields)."""

    config: RLinfConfig
    gpus: GpuLayout
    inventory: Inventory | None = None
    template: str | None = None
    target_cluster: str | None = None
    settings: JobSettings = field(default_factory=JobSettings)
    facts: RecordFacts = field(default_factory=RecordFacts)
    #: Roles as the user edited them (the app's Roles step); None: the planned roles.
    roles: Sequence[Role] | None = None
    #: The site profile (labels, categories, reserved names, Job API); None: the inventory's,
    #: else the shipped example.
    site: SiteProfile | None = None

    @property
    def the_site(self) -> SiteProfile:
        if self.site is not None:
            return self.site
        return self.inventory.site if self.inventory is not None else example_site()


@dataclass
class PlannedJob:
    """A config's report, plan, Job and findings, and the run-record facts they were checked with.

    ``plan`` and ``config`` are None for a Job read from YAML; ``job`` is None when no Job could
    be built (RLinf rejects the placement): ``findings`` then say why.
    """

    config: RLinfConfig | None
    report: ConfigReport | None
    plan: Plan | None
    job: Job | None
    findings: list[Finding]
    facts: RecordFacts
    inventory: Inventory | None = None
    site: SiteProfile = field(default_factory=example_site)


@dataclass
class Submission:
    """What :func:`submit_checked` did: the findings it weighed, what blocked, what it created."""

    findings: list[Finding]
    blocking: list[Finding]
    result: SubmitResult | None  # None when ``blocking`` stopped it


def inspect(config: RLinfConfig, gpus: GpuLayout) -> ConfigReport:
    """RLinf's placement of ``config`` on ``gpus`` (no search for other GPU counts: that is slow)."""
    return inspect_config(config, gpus, search_gpus=False)


def plan_for(request: PlanRequest) -> Plan:
    """The roles for the request's config (the slow half; the Session keeps it across edits)."""
    report = inspect(request.config, request.gpus)
    inventory = request.inventory.through(request.the_site) if request.inventory else None
    return plan_roles(
        report, inventory, template=request.template, target_cluster=request.target_cluster
    )


def plan_job(request: PlanRequest, plan: Plan | None = None) -> PlannedJob:
    """Plan, build and check the Job for ``request``; ``plan``: a :func:`plan_for` result to reuse."""
    plan = plan if plan is not None else plan_for(request)
    site = request.the_site
    inventory = request.inventory.through(site) if request.inventory else None
    findings = [*plan.report.findings, *plan.findings]
    if inventory is not None:
        findings += inventory_findings(inventory)
    if not plan.ok:
        return PlannedJob(
            plan.report.config, plan.report, plan, None, findings, request.facts, inventory, site
        )
    job = build_job(plan, request.settings, site)
    if request.roles is not None:
        job = replace(job, roles=list(request.roles))
    return _checked(job, plan.report, plan, findings, request.facts, inventory, site=site)


def given_job(
    job: Job,
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    facts: RecordFacts | None = None,
    site: SiteProfile | None = None,
    unknown_as_info: bool = False,
) -> PlannedJob:
    """Check a Job the user wrote (a Job YAML), against its config's report when given."""
    site = site or (inventory.site if inventory is not None else example_site())
    inventory = inventory.through(site) if inventory else None
    findings = list(report.findings) if report is not None else []
    if inventory is not None:
        findings += inventory_findings(inventory)
    return _checked(
        job,
        report,
        None,
        findings,
        facts,
        inventory,
        target_cluster,
        site=site,
        unknown_as_info=unknown_as_info,
    )


def _checked(
    job: Job,
    report: ConfigReport | None,
    plan: Plan | None,
    findings: list[Finding],
    facts: RecordFacts | None,
    inventory: Inventory | None,
    target_cluster: str | None = None,
    *,
    site: SiteProfile,
    unknown_as_info: bool = False,
) -> PlannedJob:
    """The one place a :class:`PlannedJob` with a Job is made: every check runs here."""
    target = plan.target_cluster if plan is not None else target_cluster
    findings = [
        *findings,
        *check_job(
            job,
            report,
            inventory,
            target_cluster=target,
            facts=facts,
            site=site,
            unknown_as_info=unknown_as_info,
        ),
    ]
    config = report.config if report is not None else None
    return PlannedJob(config, report, plan, job, findings, facts or RecordFacts(), inventory, site)


def submit_checked(backend: Backend, planned: PlannedJob) -> Submission:
    """Preflight, then submit once unless an error blocks it on this backend.

    The blocking rule is :func:`~.backends.base.blocking` over the planned findings and the
    backend's preflight; the local rehearsal ignores errors that only a cluster would hit.
    Raises :class:`~.backends.base.BackendError` when the backend fails.
    """
    if planned.job is None:  # RLinf rejected the plan: its errors say why
        return Submission(planned.findings, blocking(planned.findings, backend.name), None)
    findings = [*planned.findings, *backend.preflight(planned.job)]
    stopping = blocking(findings, backend.name)
    if stopping:
        return Submission(findings, stopping, None)
    report = planned.report
    result = backend.submit(
        planned.job,
        expansion=report.expansion if report is not None else None,
        config=report.config if report is not None else None,
    )
    return Submission(findings, [], result)
