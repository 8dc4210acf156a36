"""The one chain from an RLinf config to a checked Job, and the one way to submit it.

config -> report (RLinf's placement on an assumed GPU layout) -> plan (roles) -> Job -> findings.
The CLI's ``plan``, ``check`` and ``submit`` and the app's Session all go through here, so the
two cannot drift: the same inputs give the same Job and the same findings, and one blocking
rule decides whether a Job may be submitted. A KubeRay export (``export --to kuberay``, the
app's Export choice) and ``check`` on KubeRay YAML start from the same :class:`PlannedJob`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from .backends import policy_of
from .backends.abilities import SubmitsExport
from .backends.base import NEEDS_YES, Backend, BackendError, SubmitResult
from .failures import interrupted_submit
from .findings import Finding
from .i18n import Text
from .rlark.build import JobSettings, build_job
from .rlark.check import check_job
from .rlark.facts import RecordFacts
from .rlark.inventory import Inventory, inventory_findings
from .rlark.job import Job, Role
from .rlark.kuberay import Export, ExportOptions, check_kuberay, export_checked
from .rlark.planned import PlannedJob
from .rlark.planner import Plan, plan_roles
from .rlark.secrets import redact_findings
from .rlark.site import SiteProfile
from .rlinf import ConfigReport, GpuLayout, RLinfConfig, inspect_config
from .rlinf.environment_values import findings_as_written


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
    #: The site profile (labels, categories, reserved names, Job API), resolved once by the
    #: caller (the CLI's ``--site``, the Session's profile): the inventory is read through it.
    site: SiteProfile = field(kw_only=True)


@dataclass
class Submission:
    """What :func:`submit_checked` did: the findings it weighed, what blocked, what it created."""

    findings: list[Finding]
    blocking: list[Finding]
    result: SubmitResult | None  # None when ``blocking`` stopped it, or a yes was not given
    #: The warnings a yes was asked for and not given (``confirm`` said no).
    declined: list[Finding] = field(default_factory=list)


def inspect(config: RLinfConfig, gpus: GpuLayout) -> ConfigReport:
    """RLinf's placement of ``config`` on ``gpus`` (no search for other GPU counts: that is slow)."""
    return inspect_config(config, gpus, search_gpus=False)


def plan_for(request: PlanRequest) -> Plan:
    """The roles for the request's config (the slow half; the Session keeps it across edits)."""
    report = inspect(request.config, request.gpus)
    inventory = request.inventory.through(request.site) if request.inventory else None
    return plan_roles(
        report, inventory, template=request.template, target_cluster=request.target_cluster
    )


def plan_job(request: PlanRequest, plan: Plan | None = None) -> PlannedJob:
    """Plan, build and check the Job for ``request``; ``plan``: a :func:`plan_for` result to reuse."""
    plan = plan if plan is not None else plan_for(request)
    site = request.site
    inventory = request.inventory.through(site) if request.inventory else None
    findings = [*plan.report.findings, *plan.findings]
    if inventory is not None:
        findings += inventory_findings(inventory)
    planned = PlannedJob(
        plan.report.config,
        plan.report,
        plan,
        None,
        findings,
        request.facts,
        inventory,
        plan.target_cluster,
        site,
    )
    if not plan.ok:
        return replace(planned, findings=findings_as_written(plan.report.config, findings))
    job = build_job(plan, request.settings, site=site)
    if request.roles is not None:
        job = replace(job, roles=list(request.roles))
    return _checked(replace(planned, job=job))


def given_job(
    job: Job | None,
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    facts: RecordFacts | None = None,
    site: SiteProfile,
    unknown_as_info: bool = False,
    document: Mapping[str, Any] | None = None,
    text: str | None = None,
) -> PlannedJob:
    """Check a Job the user wrote (a Job YAML), against its config's report when given.

    ``document`` is the YAML as parsed and ``text`` the file: the schema, what a Job keeps and
    the secret scan read them whole (``job`` is None when the document is no readable Job).
    ``facts`` None: none were given, so the run-record rules say nothing.
    """
    inventory = inventory.through(site) if inventory else None
    findings = list(report.findings) if report is not None else []
    if inventory is not None:
        findings += inventory_findings(inventory)
    config = report.config if report is not None else None
    planned = PlannedJob(
        config, report, None, job, findings, facts, inventory, target_cluster, site
    )
    return _checked(planned, unknown_as_info=unknown_as_info, document=document, text=text)


def _checked(
    planned: PlannedJob,
    *,
    unknown_as_info: bool = False,
    document: Mapping[str, Any] | None = None,
    text: str | None = None,
) -> PlannedJob:
    """The one place a :class:`PlannedJob` with a Job is checked: every check runs here, and
    its planning findings are redacted with the rest (no finding echoes a secret of the Job)."""
    findings = check_job(planned, unknown_as_info=unknown_as_info, document=document, text=text)
    config = planned.report.config if planned.report is not None else None
    if config is not None:  # a rule may quote a config value: never this machine's env value
        findings = findings_as_written(config, findings)
    return replace(planned, findings=findings)


def export_kuberay(planned: PlannedJob, options: ExportOptions | None = None) -> Export:
    """The planned Job as a KubeRay RayJob/RayCluster with every finding that applies to it.

    The findings are the planning's, then the mapping's and the rules' at KubeRay's field paths
    (they replace the RLark Job's check, whose paths name fields KubeRay does not have). The
    config's ``cluster.node_groups`` decides whether every rank gets a worker group of its own,
    as it does on ``submit --backend kuberay``.
    """
    if planned.job is None:
        return Export(None, planned.findings, [])
    exported = export_checked(planned, options)
    findings = [*planned.planning_findings, *exported.findings]
    if exported.manifest is None:  # the Job's own check says why in more words
        findings += [f for f in planned.findings if f.rule_id.startswith("PLN-")]
    if planned.config is not None:
        findings = findings_as_written(planned.config, findings)
    return Export(exported.manifest, findings, exported.groups)


def given_kuberay(
    manifest: dict[str, Any],
    report: ConfigReport | None = None,
    inventory: Inventory | None = None,
    *,
    target_cluster: str | None = None,
    site: SiteProfile,
) -> list[Finding]:
    """Check a RayJob/RayCluster the user wrote: KubeRay's schema, then the rules that apply."""
    inventory = inventory.through(site) if inventory else None
    found = check_kuberay(manifest, report, inventory, target_cluster=target_cluster, site=site)
    return [*(report.findings if report is not None else []), *found]


def weighed_findings(planned: PlannedJob, kuberay: ExportOptions | None = None) -> list[Finding]:
    """The findings a submission weighs before the backend's preflight.

    The RLark Job's findings, unless the backend submits a KubeRay export (``kuberay``: its
    kind and claims): then what is submitted is the export, so the findings are the ones
    ``export`` and ``check`` show for it, at KubeRay's paths and without the rules about
    RLark-only fields. An error only the RLark Job has cannot stop a KubeRay submission, nor
    can a KubeRay one pass unseen.
    """
    if kuberay is None or planned.job is None:
        return planned.findings
    return export_kuberay(planned, kuberay).findings


def submission_findings(backend: Backend, planned: PlannedJob) -> list[Finding]:
    """What a submission to ``backend`` is weighed on: :func:`weighed_findings` (of what it
    exports, when it submits an export) and the backend's preflight, redacted as the Job's own
    findings are."""
    exported = backend.export_options() if isinstance(backend, SubmitsExport) else None
    weighed = weighed_findings(planned, exported)
    if planned.job is None:  # RLinf rejected the plan: its errors say why
        return weighed
    config = planned.report.config if planned.report is not None else None
    return redact_findings(
        [*weighed, *backend.preflight(planned.job, config)], planned.job.to_manifest()
    )


T = TypeVar("T")


class StepRunner(Protocol):
    """Runs one named step of a submission (``key``: which deadline applies); the app's shows
    the step and ends it at its deadline, the CLI's runs it at once."""

    def __call__(self, what: Text, key: str, work: Callable[[], T]) -> T: ...


def at_once(what: Text, key: str, work: Callable[[], T]) -> T:
    """A :class:`StepRunner` that just runs the step."""
    return work()


def submit_checked(
    backend: Backend,
    planned: PlannedJob,
    confirm: Callable[[list[Finding]], bool] | None = None,
    step: StepRunner = at_once,
) -> Submission:
    """Preflight, then submit once unless an error blocks it on this backend.

    ``confirm`` is asked about the warnings in :data:`~.backends.base.NEEDS_YES` (the local
    backend running the Job's prepare scripts here) before anything starts; a no submits
    nothing. None: the caller has asked already (the app, once per Job) or asks nobody.

    The blocking rule is the backend's policy (:meth:`~.backends.policy.BackendPolicy.blocking`)
    over :func:`weighed_findings` and the backend's preflight; the local rehearsal ignores
    errors that only a cluster would hit.
    Raises :class:`~.backends.base.BackendError` when the backend fails.
    """
    findings = step(Text("Preflight…"), "preflight", lambda: submission_findings(backend, planned))
    stopping = policy_of(backend.name).blocking(findings)
    job = planned.job
    if stopping or job is None:
        return Submission(findings, stopping, None)
    asking = [f for f in findings if f.rule_id in NEEDS_YES]
    if asking and confirm is not None and not confirm(asking):
        return Submission(findings, [], None, asking)
    report = planned.report
    try:
        result = step(
            Text("Submitting: creating the Job on the backend…"),
            "submit",
            lambda: backend.submit(
                job,
                expansion=report.expansion if report is not None else None,
                config=report.config if report is not None else None,
            ),
        )
    except BackendError as exc:
        if not getattr(exc, "transient", False):
            raise
        # No answer came: the create may have reached the server all the same. Say which.
        status = f"rlark-migrate status {job.name} --backend {backend.name}"
        read_back = interrupted_submit(
            job.name, exc.text, lambda: backend.job(job.name) is not None, status
        )
        raise BackendError(read_back.text, read_back.fix_text) from None
    return Submission(findings, [], result)
