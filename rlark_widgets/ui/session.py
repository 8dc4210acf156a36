"""The one state object of the app: what the user typed, and everything derived from it.

Views observe these traits and call one method per click; nothing here imports ipywidgets, so
every handler is testable without a browser. Derived state is recomputed along the chain
config -> report -> plan -> roles -> Job -> findings -> YAML. What the user typed is never
overwritten by a failure: an error only sets ``error`` (message and fix), never a traceback.
``error`` and ``status`` are shown in ``lang``; the session keeps their messages, so the
language toggle re-renders them too.

State is split by lifetime: the loaded config's (its :class:`~.draft.Draft`, replaced on
import), the watched run's (one :class:`~.watched_run.WatchedRun`, created on Submit, Resume or
Watch and replaced as a whole; ``submitted``, ``snapshot``, ``history``, ``diagnosis``,
``notices`` and ``submitted_at`` are published from it in one place, :meth:`Session._publish_run`)
and the long actions' (two :class:`~.background.Background` helpers: the actions, and the
monitor's watch loop).
"""

from __future__ import annotations

import logging
import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from traitlets import (
    Bool,
    Dict,
    Enum,
    Float,
    HasTraits,
    Instance,
    Int,
    List,
    Unicode,
    default,
    observe,
)

from ..backends import open_backend, policy_of
from ..backends.abilities import StartsTensorBoard
from ..backends.all_logs import all_logs
from ..backends.base import Backend, BackendError, default_workspace, job_names
from ..backends.policy import BackendKind, BackendPolicy, Connection
from ..backends.prepare_here import prepare_here_finding
from ..examples import DEFAULT_EXAMPLE, example_configs
from ..failures import FAILURES, explain
from ..findings import Finding, Severity
from ..i18n import LANGUAGES, Listing, Text, default_language, normalize_language, render
from ..monitor.diagnosis import Diagnosis
from ..monitor.history import HistoryPoint
from ..monitor.job_list import JobRow, job_row
from ..monitor.notices import Notice
from ..monitor.snapshot import JobSnapshot
from ..pipeline import (
    PlanRequest,
    export_kuberay,
    plan_for,
    plan_job,
    submit_checked,
    weighed_findings,
)
from ..resume import LATEST, in_progress, resume, resume_choices, resumed_text
from ..rlark.admin_request import build_admin_request
from ..rlark.build import JobSettings, job_mounts, reseed_prepare
from ..rlark.facts import RecordFacts
from ..rlark.inventory import Inventory, InventoryError, load_inventory
from ..rlark.job import Job, Role
from ..rlark.kuberay import KINDS, ExportOptions
from ..rlark.logs import clean_log
from ..rlark.planned import PlannedJob
from ..rlark.planner import Plan
from ..rlark.record import build_record
from ..rlark.secrets import redact
from ..rlark.sheet import build_sheet
from ..rlark.sheet_render import to_html
from ..rlark.site import SiteError, SiteProfile, example_site, load_site, resolve_site
from ..rlark.text_fields import (
    MountsError,
    format_pairs,
    parse_counts,
    parse_mounts,
    parse_pairs,
    reseed_mounts,
    role_field,
)
from ..rlark.yaml_io import dump_yaml, render_job_yaml
from ..rlinf import ConfigReport, GpuLayout, RLinfConfig, load_config, load_text
from ..rlinf.errors import ConfigLoadError, MissingVariableError
from .background import Background, Steps, Token
from .draft import Draft, carry_edits
from .watched_run import WatchedRun

log = logging.getLogger(__name__)

ROLE, JOB, MOUNTS = Text("Role"), Text("Job"), Text("Mounts")  # what failed, in the error banner
SUBMITTING = Text("Submitting…")
REFRESH = Text("Refresh")
#: The Job form's text fields: JobSettings fields, then the run-record facts.
SETTINGS_FIELDS = tuple(f.name for f in fields(JobSettings) if f.name != "mounts")
FACT_FIELDS = ("rlinf_commit", "image_digest")
#: Seconds each step of a long action may take before it ends with a message naming the step.
STEP_TIMEOUTS = {"backend": 60.0, "plan": 60.0, "preflight": 90.0, "submit": 180.0}
STEP_TIMEOUT = 180.0  # stop, delete, resume: one step each
#: A role's fields typed as text, their grammar and how errors name them.
ROLE_TEXT_FIELDS: dict[str, tuple[Text, Callable[[str, Text], dict[str, Any]]]] = {
    "node_selector": (Text("nodes"), parse_pairs),
    "devices": (Text("devices"), parse_counts),
    "env": (Text("env"), lambda text, where: parse_pairs(text, where, "\n")),
}


def finding_key(finding: Finding) -> str:
    return f"{finding.rule_id}@{finding.path}"


def role_text(role: Role, field: str) -> str:
    """A role's text field as its editor shows it (the inverse of :meth:`Session.set_role_text`)."""
    return format_pairs(getattr(role, field), "\n" if field == "env" else ", ")


def _search_path_fix(exc: MissingVariableError) -> Text:
    """Where the app takes the variable (a file in an RLinf checkout never gets here: its likely
    value is used, and a finding says so)."""
    return Text(
        "Add the line {name}=DIR to the Search paths box and import again.", name=exc.variable
    )


def _problem(exc: Exception) -> tuple[Text | str, Text | str]:
    """What a user-fixable error says and its fix, as messages (rendered when shown)."""
    explained = explain(exc)  # the CLI's words for OS, network and API failures
    if explained is not None:
        return explained.text, explained.fix_text
    text = getattr(exc, "text", None)  # the project's errors carry their message as Text
    if text is None:
        text = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Text) else str(exc)
    return text, getattr(exc, "fix_text", "")


#: What an action may fail with that a user can act on (the rest is a bug, logged).
_USER_FAILURES: tuple[type[Exception], ...] = (InventoryError, ValueError, *FAILURES)


class Session(HasTraits):
    """Inputs (traits the views write), derived results (traits the views show), actions."""

    # --- inputs ---------------------------------------------------------------------------------
    example = Unicode(DEFAULT_EXAMPLE)
    config_path = Unicode("")
    overrides_text = Unicode("")  # one Hydra override per line
    env_text = Unicode("")  # NAME=VALUE per line, for searchpath variables
    gpus_per_node = Int(8)
    gpu_map_text = Unicode("")  # "0:8,1:4" overrides gpus_per_node
    backend_name = Unicode(BackendKind.LOCAL.value)  # a registered kind (its policy decides)
    export_format = Unicode("rlark")  # the Job step's Export choice: rlark, RayJob, RayCluster
    k8s_context = Unicode("")
    k8s_namespace = Unicode("default")
    run_timeout = Float(None, allow_none=True)  # local backend: end the run script after this
    inventory_name = Unicode("")  # a bundled inventory, or a path
    site_path = Unicode("")  # the site profile file ("": $RLARK_SITE, else the example)
    site = Instance(SiteProfile)
    target_cluster = Unicode("")
    template = Unicode("")
    settings = Instance(JobSettings, args=())  # the Job form
    facts = Instance(RecordFacts, args=())  # the run-record facts the Job form asks for
    acknowledged = List(Unicode())
    lang = Enum(LANGUAGES)  # every view renders its texts in it; set_language is the toggle

    # --- derived ---------------------------------------------------------------------------------
    config = Instance(RLinfConfig, allow_none=True)
    report = Instance(ConfigReport, allow_none=True)
    plan = Instance(Plan, allow_none=True)
    inventory = Instance(Inventory, allow_none=True)
    roles = List(Instance(Role))  # edited in the Roles step
    mount_drafts = Dict()  # role name -> (typed mounts text, why it was not applied)
    job = Instance(Job, allow_none=True)
    job_yaml = Unicode("")
    findings = List(Instance(Finding))
    export_yaml = Unicode("")  # the Job as KubeRay YAML when the Export choice names a kind
    export_findings = List(Instance(Finding))  # the mapping's and the rules' at KubeRay paths
    error = Unicode("")  # in ``lang``
    status = Unicode("")  # in ``lang``
    notice = Unicode("")  # in ``lang``: what loading a config cleared or left running
    busy = Bool(False)  # an action (submit, resume, stop, delete) runs in the background
    draft = Instance(Draft, args=())  # the loaded config's identity and planned roles
    run = Instance(WatchedRun, allow_none=True)  # the watched run; replaced, never reset
    # --- the watched run, as published from ``run`` (views observe these) -----------------------
    submitted = Unicode("")
    snapshot = Instance(JobSnapshot, allow_none=True)
    history = List(Instance(HistoryPoint))
    diagnosis = Instance(Diagnosis, allow_none=True)
    notices = List(Instance(Notice))  # the watched run's latest events, newest last
    submitted_at = Float(None, allow_none=True)
    delete_pending = Unicode("")  # what Delete would remove, while it waits for confirmation
    deleted = Unicode("")  # the Job Delete removed last: the Runs panel drops it
    resume_from = Unicode(LATEST)  # the Resume picker: latest or global_step_N (kept as chosen)
    revision = Int(0)  # bumps whenever the Job changes (views redraw once per bump)

    def __init__(self, workspace: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.workspace = workspace or default_workspace()
        self._backend: Backend | None = None
        self._backend_kuberay: ExportOptions | None = None  # what the open backend exports
        self._actions = Background("rlark-action", on_busy=self._set_busy)
        self._monitor = Background("rlark-monitor")
        #: Jobs of earlier configs left running: named at each import until watched again or
        #: seen ended (List runs)
        self._left: dict[str, Text] = {}
        self._messages: dict[str, Text | str] = {}  # error/status as messages, for the toggle
        self._failed: Text | str | None = None  # the action the shown error is from
        #: the last pipeline result (the Export choice, the sheet, the admin request)
        self.planned: PlannedJob | None = None

    @default("lang")
    def _default_lang(self) -> str:
        return default_language()

    # --- language ----------------------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """The toggle: texts re-render in ``lang``; inputs, plans and figures are kept."""
        self.lang = normalize_language(lang)
        for trait, message in self._messages.items():
            setattr(self, trait, self._shown(message))

    def _shown(self, message: Text | str) -> str:
        """``message`` in the current language, redacted: the one way a message is published
        (an error may quote what was typed, and a secret in it must not reach the page)."""
        return redact(render(message, self.lang))

    def _say(self, trait: str, message: Text | str) -> None:
        """Show ``message`` as ``error``, ``status``, ``notice`` or ``delete_pending``."""
        self._messages[trait] = message
        setattr(self, trait, self._shown(message))

    # --- guarded actions -------------------------------------------------------------------------
    def _guard(self, action: Callable[[], None], what: Text | str, *, clears: bool = True) -> bool:
        """Run ``action``; a failure becomes ``error`` (with its fix), never a traceback.

        On success the error is cleared; ``clears`` False: only an error of this same action
        (the background refresh must not wipe what a click was refused for).
        """
        try:
            action()
        except _USER_FAILURES as exc:
            self._failed = what
            message, fix = _problem(exc)
            self._say(
                "error",
                Text("{what}: {message} Fix: {fix}", what=what, message=message, fix=fix)
                if render(fix)
                else Text("{what}: {message}", what=what, message=message),
            )
            return False
        except Exception as exc:  # the app must never show a traceback
            self._failed = what
            log.exception("unexpected error during %s", what)
            self._say(
                "error",
                Text(
                    "{what} failed unexpectedly ({error}). What you typed is kept.",
                    what=what,
                    error=f"{type(exc).__name__}: {exc}",
                ),
            )
            return False
        if clears or self._failed == what:
            self._say("error", "")
        return True

    # --- import ------------------------------------------------------------------------------------
    def _overrides(self) -> list[str]:
        return [line.strip() for line in self.overrides_text.splitlines() if line.strip()]

    def _env(self) -> dict[str, str]:
        return parse_pairs(self.env_text.splitlines(), Text("searchpath variables"))

    def load_example(self, name: str | None = None) -> bool:
        """Import a bundled example config (the app starts with one)."""
        name = name or self.example
        examples = example_configs()

        def action() -> None:
            if name not in examples:
                raise ValueError(
                    Text(
                        "No bundled example named {name}; choose one of {choices}",
                        name=name,
                        choices=", ".join(examples),
                    )
                )
            self.example = name
            self._set_config(load_config(examples[name], self._overrides(), self._env()))

        return self._guard(action, Text("Import"))

    def load_path(self, path: str | None = None) -> bool:
        """Import a config file (composed with Hydra from its directory, as RLinf does)."""
        path = path if path is not None else self.config_path
        self.config_path = path

        def action() -> None:
            try:
                config = load_config(Path(path).expanduser(), self._overrides(), self._env())
            except MissingVariableError as exc:  # the fix speaks of the app's box, not the CLI
                raise ConfigLoadError(exc.text, exc.path, _search_path_fix(exc)) from None
            self._set_config(config)

        return self._guard(action, Text("Import"))

    def load_upload(self, name: str, content: bytes) -> bool:
        """Import an uploaded file (read on its own: its config directory is not available)."""

        def action() -> None:
            self._set_config(load_text(content.decode("utf-8"), name, self._overrides()))

        return self._guard(action, Text("Upload"))

    def _set_config(self, config: RLinfConfig) -> None:
        """A config replaces everything that belonged to the previous one (a new
        :class:`Draft`, no watched run); what the user typed for it alone (the per-node GPU
        map, the Job name) is cleared with a note, and a Job it left running is named at every
        import until it is watched again or seen ended."""
        previous = self.config
        notes = self._forget_previous()
        self.draft = Draft.new()
        self.config = config
        self.replan()
        named = self.settings.name
        if named is not None and previous is not None:  # typed for the previous config
            self.settings = replace(self.settings, name=None)
            self._rebuild()
            notes.append(
                Text(
                    "The Job name '{old}' was typed for the previous config and is cleared:"
                    " this config's Job is named '{new}'.",
                    old=named,
                    new=self.job.name if self.job is not None else "",
                )
            )
        notes = [*self._left.values(), *notes]
        self._say("notice", Listing(notes, " ") if notes else "")

    def _forget_previous(self) -> list[Text]:
        """End watching the previous config's run; the notes say what the user should know."""
        notes: list[Text] = []
        run = self.run
        if run is not None:
            snap = run.snapshot
            if snap is None or (snap.exists and not snap.settled):
                self._left[run.name] = Text(
                    "Job '{name}' of the previous config is no longer watched here; it keeps"
                    " running until you stop it (rlark-migrate stop {name}).",
                    name=run.name,
                )
        self._watch(None)
        self.acknowledged = []
        if self.gpu_map_text.strip() and self.config is not None:
            notes.append(
                Text(
                    "The per-node GPU map ({map}) was typed for the previous config and is"
                    " cleared: every GPU node now has {count} GPUs.",
                    map=self.gpu_map_text.strip(),
                    count=self.gpus_per_node,
                )
            )
            self.gpu_map_text = ""
        self._say("status", "")
        return notes

    # --- cluster and plan --------------------------------------------------------------------------
    def gpu_layout(self) -> GpuLayout:
        return (
            GpuLayout.parse(self.gpu_map_text)
            if self.gpu_map_text.strip()
            else GpuLayout.uniform(self.gpus_per_node)
        )

    def set_gpus(self, per_node: int | None = None, per_node_map: str | None = None) -> bool:
        if per_node is not None:
            self.gpus_per_node = per_node
        if per_node_map is not None:
            self.gpu_map_text = per_node_map
        return self._guard(self._replan_keeping_edits, Text("GPUs per node"))

    @default("site")
    def _default_site(self) -> SiteProfile:
        """$RLARK_SITE when it reads, else the example (a broken file is reported, not fatal)."""
        try:
            return resolve_site()
        except SiteError as exc:
            self._say("error", Text("Site profile: {problem}", problem=exc.text))
            return example_site()

    def set_site(self, path: str) -> bool:
        """Use the site profile at ``path`` ("" : the example); the inventory is read through it."""

        def action() -> None:
            site = load_site(path.strip()) if path.strip() else example_site()
            self.site_path = path
            self.site = site
            self._backend = None  # opened again with the new profile
            if self.inventory is not None:
                self.inventory = self.inventory.through(site)
            self._replan_keeping_edits()

        return self._guard(action, Text("Site profile"))

    def set_inventory(self, name: str) -> bool:
        def action() -> None:
            self.inventory_name = name
            self.inventory = None if not name else load_inventory(name, self.site)
            self._replan_keeping_edits()

        return self._guard(action, Text("Inventory"))

    def load_live_inventory(self) -> bool:
        """The chosen backend's live nodes and StorageClasses as the inventory (a backend
        whose policy has a live inventory: a cluster's)."""

        def action() -> None:
            if not self.policy().live_inventory:
                raise BackendError(
                    Text(
                        "The {backend} backend has no live nodes to read.",
                        backend=self.backend_name,
                    ),
                    Text("Choose a cluster backend first, or choose an inventory file."),
                )
            self.inventory = self.backend().inventory()
            self.inventory_name = ""
            self._replan_keeping_edits()

        return self._guard(action, Text("Inventory"))

    def replan(self) -> bool:
        """Re-plan roles from the config (the Re-plan button; discards role edits)."""
        return self._guard(self._plan, Text("Plan"))

    def request(self, roles: list[Role] | None = None) -> PlanRequest | None:
        """What the pipeline plans from: the config and everything typed (None before import)."""
        if self.config is None:
            return None
        return PlanRequest(
            self.config,
            self.gpu_layout(),
            self.inventory,
            template=self.template or None,
            target_cluster=self.target_cluster or None,
            settings=self.settings,
            facts=self.facts,
            roles=roles,
            site=self.site,
        )

    def _plan(self) -> None:
        """Plan the roles afresh from the config (they become the draft's planned roles)."""
        request = self.request()
        if request is None:
            return
        plan = plan_for(request)
        planned = plan_job(request, plan)
        self.report, self.plan = plan.report, plan
        self.roles = list(planned.job.roles) if planned.job is not None else []
        self.draft = replace(self.draft, planned=tuple(self.roles))
        self.mount_drafts = {}
        self._show(planned)

    def _replan_keeping_edits(self) -> None:
        """Plan again under a changed cluster (GPUs per node, inventory, site profile), keeping
        the role edits the new plan leaves valid; the notice names those it dropped."""
        edited, planned = list(self.roles), list(self.draft.planned)
        self._plan()
        if edited == planned or not self.roles:
            return
        carried = carry_edits(planned, edited, list(self.roles))
        self.roles = carried.roles
        self._rebuild()
        self._say("notice", carried.note())

    # --- roles ---------------------------------------------------------------------------------------
    def update_role(self, index: int, **changes: Any) -> bool:
        return self._guard(lambda: self._replace_role(index, **changes), ROLE)

    def _replace_role(self, index: int, **changes: Any) -> None:
        roles = list(self.roles)
        old = self._role_at(index)
        roles[index] = replace(old, **changes)
        if old.name in self.mount_drafts and roles[index].name != old.name:
            drafts = dict(self.mount_drafts)  # the unapplied text follows the role
            drafts[roles[index].name] = drafts.pop(old.name)
            self.mount_drafts = drafts
        self.roles = roles
        self._rebuild()

    def set_role_text(self, index: int, field: str, text: str) -> bool:
        """A role's node selector, devices or env as typed (``key=value`` items).

        A bad item (no ``=``, a device count that is not a whole number) applies nothing: the
        error names the role, the field and the item, and the editor keeps the text.
        """

        def action() -> None:
            label, parse = ROLE_TEXT_FIELDS[field]
            role = self._role_at(index)
            self._replace_role(index, **{field: parse(text, role_field(role.name, label))})

        return self._guard(action, ROLE)

    def set_role_mounts(self, index: int, text: str) -> bool:
        """The role's mounts from the editor (see :func:`~..rlark.text_fields.parse_mounts`).

        A line that cannot be read applies nothing: the error names the role and the line, and
        the typed text stays in ``mount_drafts`` (the editor shows it) until it reads.
        """

        def action() -> None:
            role = self._role_at(index)
            storage = {
                m.name: (m.source, other.name)
                for other in self.roles
                if other is not role
                for m in other.mounts
                if m.kind == "storage"
            }
            drafts = {k: v for k, v in self.mount_drafts.items() if k != role.name}
            try:
                mounts = parse_mounts(text, role.name, storage)
            except MountsError as exc:
                self.mount_drafts = {**drafts, role.name: (text, exc.text)}
                raise
            self.mount_drafts = drafts
            self._replace_role(index, mounts=mounts)

        return self._guard(action, MOUNTS)

    def add_role(self) -> bool:
        """A new last role: one Worker with the first role's image and the Job-level mounts."""
        image = self.roles[0].image if self.roles else ""
        taken = {r.name.lower() for r in self.roles}
        name = next(f"role-{i}" for i in range(1, 100) if f"role-{i}" not in taken)
        mounts = job_mounts(self.settings)
        self.roles = [*self.roles, Role(name=name, replicas=1, image=image, mounts=mounts)]
        return self._guard(self._rebuild, ROLE)

    def remove_role(self, index: int) -> bool:
        def action() -> None:
            name = self._role_at(index).name
            self.roles = [r for i, r in enumerate(self.roles) if i != index]
            self.mount_drafts = {k: v for k, v in self.mount_drafts.items() if k != name}
            self._rebuild()

        return self._guard(action, ROLE)

    def move_role(self, index: int, delta: int) -> bool:
        def action() -> None:
            roles = list(self.roles)
            target = max(0, min(len(roles) - 1, index + delta))
            roles.insert(target, roles.pop(self._role_index(index)))
            self.roles = roles
            self._rebuild()

        return self._guard(action, ROLE)

    def _role_index(self, index: int) -> int:
        if not 0 <= index < len(self.roles):
            raise ValueError(
                Text(
                    "There is no role {number}; the Job has {count} role(s).",
                    number=index + 1,
                    count=len(self.roles),
                )
            )
        return index

    def _role_at(self, index: int) -> Role:
        role: Role = self.roles[self._role_index(index)]
        return role

    def matched_nodes(self, selector: dict[str, str]) -> list[str] | None:
        """Live 'selected node count' for a selector (None without an inventory)."""
        return (
            None if self.inventory is None else [n.name for n in self.inventory.matching(selector)]
        )

    # --- job ------------------------------------------------------------------------------------------
    def job_field_text(self, name: str) -> str:
        """A Job form field as its editor shows it (SSH keys one per line; unset: empty)."""
        source = self.facts if name in FACT_FIELDS else self.settings
        value = getattr(source, name)
        return "\n".join(value) if isinstance(value, list) else value or ""

    def set_job_field(self, name: str, value: str) -> bool:
        """A Job form field as typed (a :class:`JobSettings` field or a run-record fact).

        The image seeds every role still on the previous one (a role's own image stays); the
        output mount is set on every role (see :func:`reseed_mounts`); the prepare script
        replaces the Job-wide lines of every role's (see :func:`reseed_prepare`).
        """

        def action() -> None:
            if name in FACT_FIELDS:
                self.facts = replace(self.facts, **{name: value.strip() or None})
                self._rebuild()
                return
            if name not in SETTINGS_FIELDS:
                raise ValueError(Text("There is no Job field {name}.", name=name))
            before = self.settings
            change: dict[str, Any] = {name: _setting(name, value)}
            self.settings = replace(before, **change)
            if name == "image":
                self.roles = [
                    replace(r, image=value) if r.image == before.image else r for r in self.roles
                ]
            elif name == "prepare_script":
                self.roles = [
                    replace(
                        r,
                        prepare_script=reseed_prepare(
                            r.prepare_script, before.prepare_script, value
                        ),
                    )
                    for r in self.roles
                ]
            elif name in ("output_storage", "output_mount"):
                seeds = job_mounts(before), job_mounts(self.settings)
                self.roles = [
                    replace(r, mounts=reseed_mounts(r.mounts, *seeds)) for r in self.roles
                ]
            self._rebuild()

        return self._guard(action, JOB)

    def _rebuild(self) -> None:
        request = self.request(list(self.roles))
        if request is None or self.plan is None:
            self.job, self.job_yaml, self.findings = None, "", []
            self.planned = None
            self._export()
            self.revision += 1
            return
        self._show(plan_job(request, self.plan))

    def _show(self, planned: PlannedJob) -> None:
        self.planned = planned
        self.job, self.findings = planned.job, planned.findings
        self.job_yaml = redact(render_job_yaml(planned.job)) if planned.job is not None else ""
        self._export()
        self.revision += 1

    def set_export_format(self, export_format: str) -> bool:
        """The Job step's Export choice: the RLark Job, or KubeRay's RayJob or RayCluster."""

        def action() -> None:
            if export_format != "rlark" and export_format not in KINDS:
                raise ValueError(f"export format must be rlark or one of {', '.join(KINDS)}")
            self.export_format = export_format
            self._export()
            self.revision += 1

        return self._guard(action, Text("Export"))

    def _export(self) -> None:
        """The KubeRay manifest and its findings for the chosen kind (nothing for rlark)."""
        planned = self.planned
        if self.export_format not in KINDS or planned is None or planned.job is None:
            self.export_yaml, self.export_findings = "", []
            return
        exported = export_kuberay(planned, ExportOptions(kind=self.export_format))
        self.export_findings = exported.findings
        self.export_yaml = redact(dump_yaml(exported.manifest)) if exported.manifest else ""

    def console_sheet_html(self) -> str:
        """The console sheet of the current Job (the Job step's view), in ``lang``."""
        planned = self.planned
        if planned is None or planned.job is None:
            return ""
        sheet = build_sheet(planned)
        return redact(to_html(sheet, self.lang, page=False))

    def admin_request_text(self) -> str:
        """The message to the platform admin for the current Job, in ``lang``."""
        planned = self.planned
        if planned is None or planned.job is None:
            return ""
        request = build_admin_request(planned)
        return redact(request.render(self.lang))

    def acknowledge(self, keys: list[str]) -> None:
        self.acknowledged = sorted(set(self.acknowledged) | set(keys))

    def weighed(self) -> list[Finding]:
        """The findings a submission to the chosen backend weighs, as the pipeline weighs them
        (on KubeRay the export's, at KubeRay's paths)."""
        if self.planned is None:
            return list(self.findings)
        return weighed_findings(self.planned, self._kuberay_options())

    def blocking(self) -> list[Finding]:
        """Errors that stop a submission to the chosen backend (its policy: fewer for the local
        rehearsal)."""
        return self.policy().blocking(self.weighed())

    def warnings(self) -> list[Finding]:
        """Warnings a submission to the chosen backend needs a yes for; on a backend that runs
        on this machine also that it runs the Job's prepare scripts here (asked once per Job)."""
        found = [f for f in self.weighed() if f.severity is Severity.WARNING]
        here = (
            prepare_here_finding(self.job)
            if self.policy().runs_here and self.job is not None
            else None
        )
        return [*found, here] if here is not None else found

    def unacknowledged(self) -> list[Finding]:
        return [f for f in self.warnings() if finding_key(f) not in self.acknowledged]

    def can_stop(self) -> bool:
        """Stop acts on a submitted Job that runs or still holds Workers."""
        snap = self.snapshot
        return (
            bool(self.submitted)
            and not self.busy
            and (snap is None or (snap.exists and not snap.settled))
        )

    def can_delete(self) -> bool:
        """Delete acts on a submitted Job that is still there."""
        snap = self.snapshot
        return bool(self.submitted) and not self.busy and (snap is None or snap.exists)

    def can_submit(self) -> bool:
        return (
            self.job is not None
            and not self.busy
            and not self.blocking()
            and not self.unacknowledged()
        )

    def record_zip(self, path: Path) -> Path | None:
        """Write the run record (zip) for the current plan and Job; None when there is no Job."""
        plan, job = self.plan, self.job
        if plan is None or job is None:
            return None
        result: list[Path] = []
        self._guard(
            lambda: result.append(
                build_record(plan, job, self.findings, self.facts, site=self.site).write(path)
            ),
            Text("Record"),
        )
        return result[0] if result else None

    def record_bytes(self) -> bytes | None:
        """The run record as zip bytes, written in a directory removed at once (nothing is left
        in the temp dir after the kernel exits); None when there is no Job or it failed."""
        with tempfile.TemporaryDirectory(prefix="rlark-record-") as folder:
            path = self.record_zip(Path(folder) / "run-record.zip")
            return path.read_bytes() if path is not None else None

    # --- backend ----------------------------------------------------------------------------------------
    def set_run_timeout(self, text: str) -> bool:
        """The local backend's limit on the run script, in seconds (empty: no limit)."""

        def action() -> None:
            try:
                seconds = float(text) if text.strip() else None
            except ValueError:
                seconds = math.nan
            if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
                raise ValueError(  # NaN never ends a wait; 0 or less ends it before it starts
                    Text("'{value}' is not a number of seconds above 0.", value=text.strip())
                )
            self.run_timeout = seconds
            self._backend = None  # opened again with the new limit

        return self._guard(action, Text("Run timeout (s)"))

    def policy(self) -> BackendPolicy:
        """The chosen backend's policy (known before it is opened)."""
        return policy_of(self.backend_name)

    def _kuberay_options(self) -> ExportOptions | None:
        """What a backend that submits a KubeRay export submits: the Export choice's kind (else
        a RayJob); None for the others."""
        if not self.policy().takes(Connection.EXPORT):
            return None
        return ExportOptions(kind=self.export_format if self.export_format in KINDS else "RayJob")

    def backend(self) -> Backend:
        """The chosen backend; the KubeRay one submits the Export choice's kind (else a RayJob)."""
        kuberay = self._kuberay_options()
        stale = self._backend is None or self._backend.name != self.backend_name
        if stale or kuberay != self._backend_kuberay:
            self._backend = open_backend(
                self.backend_name,
                workspace=self.workspace,
                run_timeout=self.run_timeout,
                context=self.k8s_context or None,
                namespace=self.k8s_namespace or None,
                kuberay=kuberay,
                site=self.site,
            )
            self._backend_kuberay = kuberay
        assert self._backend is not None
        return self._backend

    @observe("k8s_context", "k8s_namespace")
    def _reconnect(self, change: dict[str, Any]) -> None:
        """A changed connection field reaches the backend: it is opened again when next used."""
        self._backend = None

    # --- the watched run ------------------------------------------------------------------------
    def _set_busy(self, busy: bool) -> None:
        self.busy = busy

    def _watch(self, run: WatchedRun | None) -> None:
        """Watch ``run`` (None: nothing) instead of the run before: the old run's monitor is
        cancelled (nothing it read is shown after this) and every run-scoped choice resets."""
        self._monitor.cancel()
        self.cancel_delete()
        self.resume_from = LATEST
        self.run = run

    @observe("run")
    def _publish_run(self, change: dict[str, Any]) -> None:
        """The one place the watched run's traits are written: all at once, from ``run``
        (views observing ``snapshot`` draw the banner and charts from the same refresh)."""
        run: WatchedRun | None = change["new"]
        with self.hold_trait_notifications():
            self.submitted = run.name if run is not None else ""
            self.submitted_at = run.submitted_at if run is not None else None
            self.history = list(run.history) if run is not None else []
            self.notices = list(run.notices) if run is not None else []
            self.snapshot = run.snapshot if run is not None else None
            self.diagnosis = run.diagnosis if run is not None else None

    def drawn_on_topology(self) -> bool:
        """Whether the watched run's Worker states belong on this config's Topology."""
        run = self.run
        return run is not None and run.drawn_on(self.draft.generation, self.job)

    def _action(
        self, what: Text, starting: Text, work: Callable[[Token], None], wait: bool
    ) -> bool:
        """Run ``work`` as the one long action (a second click while one runs does nothing);
        ``starting`` shows at once. A failure becomes ``error`` through :meth:`_guard`."""

        def body(token: Token) -> None:
            if not self._guard(lambda: work(token), what):
                self._say("status", "")  # "Submitting…" would stay beside the reason

        if self._actions.busy:
            return False
        self._say("status", starting)
        if not self._actions.start(body):
            return False
        if wait:
            self._actions.join()
        return True

    def _steps(self, token: Token) -> Steps:
        """The running action's steps: each shown as it starts, ended at its deadline."""
        return Steps(
            self._actions, token, STEP_TIMEOUTS, STEP_TIMEOUT, lambda w: self._say("status", w)
        )

    def submit(self, wait: bool = False) -> bool:
        """Submit in the background (the kernel stays responsive); a second click does nothing.
        Each step (open the backend, plan, preflight, create the Job) shows as it starts and
        has a deadline (:data:`STEP_TIMEOUTS`)."""
        if self.busy:
            return False
        if not self.can_submit():
            self._say(
                "error",
                Text("Submit is disabled: fix the errors and acknowledge the warnings first."),
            )
            return False
        generation = self.draft.generation

        def work(token: Token) -> None:
            step = self._steps(token)
            backend = step(Text("Submitting: opening the backend…"), "backend", self.backend)
            request = self.request(list(self.roles))
            plan = self.plan
            if request is None or plan is None:
                return
            planned = step(
                Text("Submitting: planning the Job…"), "plan", lambda: plan_job(request, plan)
            )
            submission = submit_checked(backend, planned, step=step)
            if submission.result is None:
                raise _preflight_failed(submission.blocking)
            result = submission.result
            run = WatchedRun(result.name, planned.job, generation, time.time())
            self._actions.deliver(token, lambda: self._watch(run))
            self._say(
                "status",
                Text("Submitted: {name}. {message}", name=result.name, message=result.text)
                if result.created
                else Text(
                    "Already submitted: {name}. {message}",
                    name=result.name,
                    message=result.text,
                ),
            )
            self.start_monitor()

        return self._action(Text("Submit"), SUBMITTING, work, wait)

    def resume_choices(self) -> list[str]:
        """The Resume picker: latest and each checkpoint of any run of the watched Job."""
        return resume_choices(self.snapshot) if self.submitted else []

    def can_resume(self) -> bool:
        """Resume needs a checkpoint of the watched Job and no run of it in progress."""
        snap = self.snapshot
        return (
            bool(self.submitted)
            and not self.busy
            and snap is not None
            and not in_progress(snap)
            and bool(self.resume_choices())
        )

    def resume(self, which: str | None = None, wait: bool = False) -> bool:
        """A new run of the watched Job from checkpoint ``which`` (None: the picker's choice),
        in the background like Submit; a refusal shows as ``error`` with its fix."""
        if which is not None:
            self.resume_from = which
        if self.busy:
            return False
        if not self.can_resume() or self.run is None:
            self._say(
                "error",
                Text(
                    "Resume is disabled: it needs a watched Job with a checkpoint and no run in"
                    " progress (Stop it first)."
                ),
            )
            return False
        before, chosen = self.run, self.resume_from

        def work(token: Token) -> None:
            done = self._steps(token)(
                Text("Resuming…"),
                "resume",
                lambda: resume(self.backend(), before.name, chosen),
            )
            result, problems = done.submission.result, done.submission.blocking
            if result is not None and not result.created:  # the name is held elsewhere
                raise BackendError(result.text)
            if result is None:
                raise _preflight_failed(problems)
            run = WatchedRun(before.name, before.job, before.draft, time.time())

            def watch_resumed() -> None:
                self._watch(run)
                self.resume_from = chosen  # the same Job: the choice it resumed from is kept

            self._actions.deliver(token, watch_resumed)
            self._say("status", resumed_text(done))
            self.start_monitor()

        return self._action(Text("Resume"), Text("Resuming…"), work, wait)

    def _read(self, run: WatchedRun) -> tuple[JobSnapshot, Job | None]:
        """What a refresh of ``run`` reads from the backend (its Job too, while not known)."""
        backend = self.backend()
        snap = backend.snapshot(run.name)
        return snap, (backend.job(run.name) if run.job is None and snap.exists else None)

    def _refreshed(self, key: int, snap: JobSnapshot, job: Job | None) -> None:
        """Show a refresh of the run ``key``, unless another run is watched by now."""
        run = self.run
        if run is None or run.key != key:
            return
        self.run = run.refreshed(snap, job)
        if self._failed == REFRESH:  # the new view never sits beside the failed refresh's message
            self._say("error", "")

    def refresh(self) -> bool:
        """Read the watched run now (the Refresh button)."""
        run = self.run

        def action() -> None:
            if run is not None:
                self._refreshed(run.key, *self._read(run))

        return self._guard(action, REFRESH, clears=False)

    def start_monitor(self, interval: float = 3.0) -> None:
        """Refresh now, then in the background until the Job has ended and its Workers are
        gone (a finished Job whose Workers still run keeps being watched). A new start ends
        the loop before it; a cancelled loop never shows what it read."""
        run = self.run
        if run is None:
            return
        key = run.key

        def loop(token: Token) -> None:
            while not token.cancelled and self._watch_once(token, key):
                run = self.run
                if run is None or not run.watched_on(time.time()) or token.wait(interval):
                    return

        self._monitor.start(loop, replace=True)

    def _watch_once(self, token: Token, key: int) -> bool:
        """One refresh of the watch loop of run ``key``; False once another run is watched."""
        run = self.run
        if run is None or run.key != key:
            return False
        read: list[tuple[JobSnapshot, Job | None]] = []
        if self._guard(lambda: read.append(self._read(run)), REFRESH, clears=False):
            self._monitor.deliver(token, lambda: self._refreshed(key, *read[0]))
        return True

    def stop(self, wait: bool = False) -> bool:
        """Stop the Job in the background ("Stopping…" shows at once), then watch it at once
        until its Workers are gone."""
        if not self.can_stop() or self.run is None:
            self._say("error", Text("Stop is disabled: no running Job was submitted from here."))
            return False
        name = self.run.name
        self._monitor.cancel()

        def work(token: Token) -> None:
            try:
                said = self._steps(token)(
                    Text("Stopping Job '{name}'…", name=name),
                    "stop",
                    lambda: self.backend().stop(name),
                )
                self._say("status", said)
            finally:
                self.start_monitor()

        return self._action(Text("Stop"), Text("Stopping Job '{name}'…", name=name), work, wait)

    def request_delete(self) -> bool:
        """The Delete button: name exactly what delete removes and wait for a confirmation."""
        if not self.can_delete():
            self._say("error", Text("Delete is disabled: no Job was submitted from here."))
            return False

        def action() -> None:
            removes = self.backend().removes(self.submitted)
            self._say(
                "delete_pending",
                Text("Delete removes {what} This cannot be undone.", what=removes),
            )

        return self._guard(action, Text("Delete"))

    def cancel_delete(self) -> None:
        self._messages.pop("delete_pending", None)
        self.delete_pending = ""

    def delete(self, wait: bool = False) -> bool:
        """Delete, once confirmed (:meth:`request_delete` first), in the background like Stop.
        A deleted Job is no longer watched (a run that does not exist is no warning) and leaves
        the Runs list; a failed delete goes on watching it."""
        if not self.delete_pending or self.run is None:
            self.request_delete()
            return False
        self.cancel_delete()
        name = self.run.name
        self._monitor.cancel()

        def work(token: Token) -> None:
            try:
                said = self._steps(token)(
                    Text("Deleting Job '{name}'…", name=name),
                    "delete",
                    lambda: self.backend().delete(name),
                )
            except BaseException:
                self.start_monitor()
                raise
            self._left.pop(name, None)
            self._actions.deliver(token, lambda: self._forget_deleted(name))
            self._say("status", said)

        return self._action(Text("Delete"), Text("Deleting Job '{name}'…", name=name), work, wait)

    def _forget_deleted(self, name: str) -> None:
        if self.run is not None and self.run.name == name:
            self._watch(None)
        self.deleted = ""  # a second delete of the same name is news too
        self.deleted = name

    def logs(self, worker: str, tail: int = 200) -> str:
        """A log of the watched Job, found among the Workers of its latest snapshot (read again
        at every refresh: listing a 1,000-Worker Job's pods once more cost as much again)."""
        out: list[str] = []
        snap = self.snapshot
        listed = (snap.workers or None) if snap is not None and snap.job == self.submitted else None

        def action() -> None:
            out.append(clean_log(self.backend().logs(self.submitted, worker, tail, workers=listed)))

        self._guard(action, Text("Logs"))
        return out[0] if out else ""

    def all_logs(self) -> dict[str, str]:
        """Every Worker's log and the run log of the watched Job, redacted ({} on failure)."""
        found: dict[str, str] = {}
        self._guard(lambda: found.update(all_logs(self.backend(), self.submitted)), "Logs")
        return found

    def job_rows(self) -> list[JobRow]:
        """Every Job of the chosen backend, for the Runs panel (empty, with an error, on failure).
        A Job an earlier config left running is no longer named once it is seen ended."""
        rows: list[JobRow] = []

        def action() -> None:
            backend = self.backend()
            snaps = [backend.snapshot(name) for name in job_names(backend)]
            rows.extend(job_row(snap) for snap in snaps)
            running = {snap.job for snap in snaps if snap.exists and not snap.settled}
            if any(name not in running for name in self._left):
                self._left = {k: v for k, v in self._left.items() if k in running}
                self._say("notice", Listing(list(self._left.values()), " ") if self._left else "")

        self._guard(action, Text("List runs"))
        return rows

    def attach(self, name: str) -> bool:
        """Watch the Job ``name`` (one of :meth:`job_rows`), after a kernel restart too: a new
        run with its own Job (read from the backend), shown from its first refresh on."""
        self._watch(WatchedRun(name))
        if self._left.pop(name, None) is not None:
            self._say("notice", Listing(list(self._left.values()), " ") if self._left else "")
        self._say("status", Text("Watching {job}.", job=name))
        self.start_monitor()
        return True

    def open_tensorboard(self) -> bool:
        """Start TensorBoard for the watched local run (loopback); its link shows at refresh.
        Backends without one say how to reach it in their links instead."""

        def action() -> None:
            backend = self.backend()
            if not isinstance(backend, StartsTensorBoard):
                why = Text(
                    "The {backend} backend starts no TensorBoard: use the commands under"
                    " 'Continue elsewhere'.",
                    backend=backend.name,
                )
                self._say("status", why)
                return
            url = backend.tensorboard(self.submitted)
            self._say("status", Text("TensorBoard runs at {url}", url=url))

        return self._guard(action, Text("Open TensorBoard")) and self.refresh()


def _preflight_failed(problems: list[Finding]) -> BackendError:
    """What blocked a submission (or a resume), with the first one's fix."""
    return BackendError(
        Text("Preflight failed: {problems}", problems=Listing(f.text for f in problems)),
        problems[0].fix_text if problems else "",
    )


def _setting(name: str, value: str) -> object:
    """A Job form field's text as its :class:`JobSettings` value (empty: the default)."""
    if name == "ssh_keys":
        return [line.strip() for line in value.splitlines() if line.strip()]
    if name in ("image", "prepare_script"):
        return value
    if name == "run_script":  # a script keeps its own whitespace
        return value if value.strip() else None
    defaults = {"namespace": "default"}  # rlinf_dir None: the site profile's
    return value.strip() or defaults.get(name)
