"""The central value of the tool: a config's report, plan, Job and findings, and what they were
checked with. The checks, the console sheet, the admin request and the KubeRay export take it
whole, so what a Job was planned and checked with cannot be paired with another Job's."""

from __future__ import annotations

from dataclasses import dataclass

from ..findings import Finding
from ..rlinf import ConfigReport, RLinfConfig
from .facts import RecordFacts
from .inventory import Inventory
from .job import Job
from .planner import Plan
from .site import SiteProfile


@dataclass
class PlannedJob:
    """A config's report, plan, Job and findings, and the run-record facts they were checked with.

    ``plan`` and ``config`` are None for a Job read from YAML; ``job`` is None when no Job could
    be built (RLinf rejects the placement): ``findings`` then say why. ``facts`` is None when
    none were given (a Job YAML checked alone): the run-record rules then say nothing.
    """

    config: RLinfConfig | None
    report: ConfigReport | None
    plan: Plan | None
    job: Job | None
    findings: list[Finding]
    facts: RecordFacts | None
    inventory: Inventory | None
    target_cluster: str | None
    site: SiteProfile

    @property
    def planning_findings(self) -> list[Finding]:
        """What RLinf and the planner said before the Job was checked (the config's, the plan's)."""
        report = list(self.report.findings) if self.report is not None else []
        return [*report, *self.plan.findings] if self.plan is not None else report

    @property
    def built(self) -> Job:
        """The Job, for the views that need one (callers show the findings when there is none)."""
        if self.job is None:
            raise ValueError("no Job was built: the findings say why")
        return self.job
