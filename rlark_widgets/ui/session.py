"""The one state object of the app: what the user typed, and everything derived from it.

Views observe these traits and call one method per click; nothing here imports ipywidgets, so
every handler is testable without a browser. Derived state is recomputed along the chain
config -> report -> plan -> roles -> Job -> findings -> YAML. What the user typed is never
overwritten by a failure: an error only sets ``error`` (message and fix), never a traceback.
``error`` and ``status`` are shown in ``lang``; the session keeps their messages, so the
language toggle re-renders them too.
"""

from __future__ import annotations

import logging
import re
import shlex
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from traitlets import Any as AnyTrait
from traitlets import Bool, Dict, Enum, HasTraits, Int, List, Unicode, default

from ..backends.base import BackendError, blocking, default_workspace
from ..examples import DEFAULT_EXAMPLE, example_configs, example_inventories
from ..findings import Finding, Severity
from ..i18n import LANGUAGES, Listing, Text, default_language, normalize_language, render
from ..monitor.diagnosis import diagnose
from ..monitor.history import extend
from ..monitor.logs import clean_log
from ..monitor.snapshot import RUNNING, JobSnapshot
from ..rlark.build import JobSettings, build_job, reseed_prepare
from ..rlark.check import check_job
from ..rlark.inventory import InventoryError, load_inventory
from ..rlark.job import Job, Mount, Role
from ..rlark.planner import plan_roles
from ..rlark.record import build_record
from ..rlark.secrets import redact
from ..rlark.yaml_io import render_job_yaml
from ..rlinf import GpuLayout, RLinfConfigError, inspect_config, load_config, load_text
from ..rlinf.errors import ConfigLoadError, MissingVariableError

log = logging.getLogger(__name__)


ENDED = ("Succeeded", "Failed", "Stopped")
ROLE, JOB, MOUNTS = Text("Role"), Text("Job"), Text("Mounts")  # what failed, in the error banner
SUBMITTING = Text("Submitting…")
OUTPUT_MOUNT = "output"  # the mount the Job step's StorageClass and Output mount define
VOLUME_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")  # a Kubernetes volume name
MOUNT_KINDS = {"storage": "storage", "hostpath": "hostPath"}
MOUNTS_FIX = Text(
    "One mount per line: NAME storage STORAGECLASS /container/path, or NAME hostPath "
    "/node/dir /container/path; add ro for read-only."
)


def _settled(snap: JobSnapshot) -> bool:
    """The Job has ended and holds no running Worker: nothing more will change by itself."""
    return snap.phase in ENDED and not any(w.phase == RUNNING for w in snap.workers)


def finding_key(finding: Finding) -> str:
    return f"{finding.rule_id}@{finding.path}"


class MountsError(ValueError):
    """A line of a role's mounts that cannot be read: the role, the line, why, and the format."""

    def __init__(self, role: str, number: int, line: str, problem: Text) -> None:
        self.text = Text(
            "role '{role}', line {number} ({line}): {problem}",
            role=role,
            number=number,
            line=line.strip(),
            problem=problem,
        )
        self.fix_text = MOUNTS_FIX
        super().__init__(str(self.text))


def format_mounts(mounts: list[Mount]) -> str:
    """A role's mounts as the editor shows them, one ``NAME KIND SOURCE PATH [ro]`` per line."""
    return "\n".join(
        shlex.join([m.name, m.kind, m.source, m.mount_path, *(["ro"] if m.read_only else [])])
        for m in mounts
    )


def parse_mounts(
    text: str, role: str, storage: Mapping[str, tuple[str, str]] | None = None
) -> list[Mount]:
    """The inverse of :func:`format_mounts`; blank lines and ``#`` comments are skipped.

    Only the shape is checked here. What a mount means (absolute paths, a StorageClass and not a
    bucket, checkpoints on it) is for the rule catalogue, whose findings the Job step shows.
    ``storage``: StorageClass and role of other roles' storage mounts by name, since the Job's
    ``spec.storage`` has one StorageClass per name.
    """
    mounts: list[Mount] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            raise MountsError(role, number, line, Text("a quote is not closed")) from None
        if words:
            mount = _mount(words, mounts, storage or {})
            if isinstance(mount, Text):
                raise MountsError(role, number, line, mount)
            mounts.append(mount)
    return mounts


def _mount(
    words: list[str], earlier: list[Mount], storage: Mapping[str, tuple[str, str]]
) -> Mount | Text:
    """One line's mount, or what is wrong with it."""
    if len(words) not in (4, 5):
        return Text(
            "expected NAME KIND SOURCE MOUNT_PATH and optionally ro, found {count} word(s)",
            count=len(words),
        )
    name, kind, source, path, *mode = words
    if not VOLUME_NAME.fullmatch(name):
        return Text(
            "'{name}' is not a volume name (lower-case letters, digits and '-', at most 63)",
            name=name,
        )
    if any(m.name == name for m in earlier):
        return Text("the name '{name}' is used by an earlier line", name=name)
    if kind.lower() not in MOUNT_KINDS:
        return Text("the kind '{kind}' is neither storage nor hostPath", kind=kind)
    if mode and mode[0] not in ("ro", "rw"):
        return Text("the last word '{word}' is neither ro nor rw", word=mode[0])
    kind = MOUNT_KINDS[kind.lower()]
    other_class, other_role = storage.get(name, (source, ""))
    if kind == "storage" and other_class != source:
        return Text(
            "'{name}' is StorageClass {other} in role '{role}': one storage name has one "
            "StorageClass in the Job",
            name=name,
            other=other_class,
            role=other_role,
        )
    return Mount(name, kind, source, path, read_only=mode == ["ro"])


def reseed(mounts: list[Mount], old: list[Mount], new: list[Mount]) -> list[Mount]:
    """One role's mounts after the Job step's mounts (``output``) change from ``old`` to ``new``.

    The Job step owns the mounts it seeds: every role gets them as it now says (one storage
    name has one StorageClass in the Job). The role's other mounts stay as edited.
    """
    seeded = {m.name for m in [*old, *new]}
    return [*(replace(m) for m in new), *(m for m in mounts if m.name not in seeded)]


def _search_path_fix(exc: MissingVariableError) -> Text:
    if exc.guess:
        return Text(
            "Add the line {name}=DIR to the Search paths box and import again. This file sits in"
            " an RLinf checkout, so {name}={guess} is likely right.",
            name=exc.variable,
            guess=exc.guess,
        )
    return Text(
        "Add the line {name}=DIR to the Search paths box and import again.", name=exc.variable
    )


def _problem(exc: Exception) -> tuple[Text | str, Text | str]:
    """What a user-fixable error says and its fix, as messages (rendered when shown)."""
    text = getattr(exc, "text", None)  # the project's errors carry their message as Text
    if text is None:
        text = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Text) else str(exc)
    return text, getattr(exc, "fix_text", "")


class Session(HasTraits):
    """Inputs (traits the views write), derived results (traits the views show), actions."""

    # --- inputs ---------------------------------------------------------------------------------
    example = Unicode(DEFAULT_EXAMPLE)
    config_path = Unicode("")
    overrides_text = Unicode("")  # one Hydra override per line
    env_text = Unicode("")  # NAME=VALUE per line, for searchpath variables
    gpus_per_node = Int(8)
    gpu_map_text = Unicode("")  # "0:8,1:4" overrides gpus_per_node
    backend_name = Unicode("local")
    k8s_context = Unicode("")
    k8s_namespace = Unicode("default")
    inventory_name = Unicode("")  # a bundled inventory, or a path
    target_cluster = Unicode("")
    template = Unicode("")
    job_fields = Dict()  # name, namespace, image, prepare_script, output_dir, tensorboard, ...
    acknowledged = List(Unicode())
    lang = Enum(LANGUAGES)  # every view renders its texts in it; set_language is the toggle

    # --- derived ---------------------------------------------------------------------------------
    config = AnyTrait(None)
    report = AnyTrait(None)
    plan = AnyTrait(None)
    inventory = AnyTrait(None)
    roles = List()  # list[Role], edited in the Roles step
    mount_drafts = Dict()  # role name -> (typed mounts text, why it was not applied)
    job = AnyTrait(None)
    job_yaml = Unicode("")
    findings = List()
    error = Unicode("")  # in ``lang``
    status = Unicode("")  # in ``lang``
    notice = Unicode("")  # in ``lang``: what loading a config cleared or left running
    busy = Bool(False)
    submitted = Unicode("")
    snapshot = AnyTrait(None)
    history = List()
    diagnosis = AnyTrait(None)
    submitted_at = AnyTrait(None)
    delete_pending = Unicode("")  # what Delete would remove, while it waits for confirmation
    revision = Int(0)  # bumps whenever the Job changes (views redraw once per bump)

    def __init__(self, workspace: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.workspace = workspace or default_workspace()
        self._backend = None
        self._monitor: threading.Thread | None = None
        self._stop_monitor = threading.Event()
        self._submit_lock = threading.Lock()
        self._messages: dict[str, Text | str] = {}  # error/status as messages, for the toggle

    @default("lang")
    def _default_lang(self) -> str:
        return default_language()

    # --- language ----------------------------------------------------------------------------------
    def set_language(self, lang: str) -> None:
        """The toggle: texts re-render in ``lang``; inputs, plans and figures are kept."""
        self.lang = normalize_language(lang)
        for trait, message in self._messages.items():
            setattr(self, trait, render(message, self.lang))

    def _say(self, trait: str, message: Text | str) -> None:
        """Show ``message`` as ``error`` or ``status``, in the current language."""
        self._messages[trait] = message
        setattr(self, trait, render(message, self.lang))

    # --- guarded actions -------------------------------------------------------------------------
    def _guard(self, action: Callable[[], None], what: Text) -> bool:
        """Run ``action``; a failure becomes ``error`` (with its fix), never a traceback."""
        try:
            action()
        except (RLinfConfigError, BackendError, InventoryError, OSError, ValueError) as exc:
            message, fix = _problem(exc)
            self._say(
                "error",
                Text("{what}: {message} Fix: {fix}", what=what, message=message, fix=fix)
                if render(fix)
                else Text("{what}: {message}", what=what, message=message),
            )
            return False
        except Exception as exc:  # the app must never show a traceback
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
        self._say("error", "")
        return True

    # --- import ------------------------------------------------------------------------------------
    def _overrides(self) -> list[str]:
        return [line.strip() for line in self.overrides_text.splitlines() if line.strip()]

    def _env(self) -> dict[str, str]:
        pairs = (line.split("=", 1) for line in self.env_text.splitlines() if "=" in line)
        return {k.strip(): v.strip() for k, v in pairs}

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

    def _set_config(self, config) -> None:
        """A config replaces everything derived from the previous one: its Job's monitor state
        (the Job itself keeps running, and the status says so), acknowledgements, and the
        per-node GPU map typed for it (cleared, with a note)."""
        notes = self._forget_previous()
        self.config = config
        self.replan()
        self._say("notice", Listing(notes, " ") if notes else "")

    def _forget_previous(self) -> list[Text]:
        """Clear what the previous config left; the notes say what the user should know."""
        notes: list[Text] = []
        if self.submitted:
            snap = self.snapshot
            if snap is None or (snap.exists and not _settled(snap)):
                notes.append(
                    Text(
                        "Job '{name}' of the previous config is no longer watched here; it keeps"
                        " running until you stop it (rlark-migrate stop {name}).",
                        name=self.submitted,
                    )
                )
        self._stop_monitor.set()
        with self.hold_trait_notifications():
            self.submitted, self.submitted_at, self.delete_pending = "", None, ""
            self.snapshot, self.diagnosis, self.history = None, None, []
            self.acknowledged = []
        if self.gpu_map_text.strip() and self.config is not None:
            notes.append(
                Text(
                    "The per-node GPU map ({map}) was typed for the previous config and is"
                    " cleared: every node now has {count} GPUs.",
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
        return self._guard(self._plan, Text("GPUs per node"))

    def set_inventory(self, name: str) -> bool:
        def action() -> None:
            self.inventory_name = name
            bundled = example_inventories()
            self.inventory = (
                None if not name else load_inventory(bundled.get(name, Path(name).expanduser()))
            )
            self._plan()

        return self._guard(action, Text("Inventory"))

    def replan(self) -> bool:
        """Re-plan roles from the config (the Re-plan button; discards role edits)."""
        return self._guard(self._plan, Text("Plan"))

    def _plan(self) -> None:
        if self.config is None:
            return
        report = inspect_config(self.config, self.gpu_layout(), search_gpus=False)
        plan = plan_roles(
            report,
            self.inventory,
            template=self.template or None,
            target_cluster=self.target_cluster or None,
        )
        self.report, self.plan = report, plan
        self.roles = list(build_job(plan, self._settings()).roles) if plan.ok else []
        self.mount_drafts = {}
        self._rebuild()

    def _settings(self) -> JobSettings:
        f = self.job_fields
        mounts = (
            [Mount(OUTPUT_MOUNT, "storage", f["storage_class"], f["output_dir"])]
            if f.get("storage_class") and f.get("output_dir")
            else []
        )
        return JobSettings(
            name=f.get("name") or None,
            namespace=f.get("namespace") or "default",
            image=f.get("image", ""),
            rlinf_dir=f.get("rlinf_dir") or "/workspace/RLinf",
            prepare_script=f.get("prepare_script", ""),
            mounts=mounts,
            output_mount=f.get("output_dir") or None,
            tensorboard_log_dir=f.get("tensorboard") or None,
            network_domain=f.get("network_domain") or None,
            ssh_keys=[k.strip() for k in f.get("ssh_keys", "").splitlines() if k.strip()],
            run_script=f.get("run_script") or None,
        )

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

    def set_role_mounts(self, index: int, text: str) -> bool:
        """The role's mounts from the editor (see :func:`parse_mounts`).

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
        mounts = [replace(m) for m in self._settings().mounts]
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
        return self.roles[self._role_index(index)]

    def matched_nodes(self, selector: dict[str, str]) -> list[str] | None:
        """Live 'selected node count' for a selector (None without an inventory)."""
        return (
            None if self.inventory is None else [n.name for n in self.inventory.matching(selector)]
        )

    # --- job ------------------------------------------------------------------------------------------
    def set_job_field(self, name: str, value: Any) -> bool:
        """A Job form field. The image seeds every role still on the previous one (a role's own
        image stays); the output mount is set on every role (see :func:`reseed`); the prepare
        script replaces the Job-wide lines of every role's (see :func:`reseed_prepare`)."""
        before = self._settings()
        self.job_fields = {**self.job_fields, name: value}
        if name == "image":
            self.roles = [
                replace(r, image=value) if r.image == before.image else r for r in self.roles
            ]
        elif name == "prepare_script":
            self.roles = [
                replace(
                    r, prepare_script=reseed_prepare(r.prepare_script, before.prepare_script, value)
                )
                for r in self.roles
            ]
        elif name in ("storage_class", "output_dir"):
            seeds = before.mounts, self._settings().mounts
            self.roles = [replace(r, mounts=reseed(r.mounts, *seeds)) for r in self.roles]
        return self._guard(self._rebuild, JOB)

    def _rebuild(self) -> None:
        if self.plan is None or not self.plan.ok:
            self.job, self.job_yaml = None, ""
            self.findings = [
                *(self.report.findings if self.report else []),
                *(self.plan.findings if self.plan else []),
            ]
            self.revision += 1
            return
        base = build_job(self.plan, self._settings())
        job = Job(
            name=base.name,
            roles=list(self.roles),
            run_script=base.run_script,
            namespace=base.namespace,
            annotations=base.annotations,
            tensorboard_log_dir=base.tensorboard_log_dir,
            network_domain=base.network_domain,
            ssh_keys=base.ssh_keys,
        )
        findings = [*self.report.findings, *self.plan.findings]
        findings += check_job(
            job, self.report, self.inventory, target_cluster=self.plan.target_cluster
        )
        self.job, self.findings = job, findings
        self.job_yaml = redact(render_job_yaml(job))
        self.revision += 1

    def acknowledge(self, keys: list[str]) -> None:
        self.acknowledged = sorted(set(self.acknowledged) | set(keys))

    def blocking(self) -> list[Finding]:
        """Errors that stop a submission to the chosen backend (fewer for the local rehearsal)."""
        return blocking(self.findings, self.backend_name)

    def unacknowledged(self) -> list[Finding]:
        return [
            f
            for f in self.findings
            if f.severity is Severity.WARNING and finding_key(f) not in self.acknowledged
        ]

    def can_stop(self) -> bool:
        """Stop acts on a submitted Job that runs or still holds Workers."""
        snap = self.snapshot
        return (
            bool(self.submitted)
            and not self.busy
            and (snap is None or (snap.exists and not _settled(snap)))
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
        if self.job is None:
            return None
        result: list[Path] = []
        self._guard(
            lambda: result.append(build_record(self.plan, self.job, self.findings).write(path)),
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
    def backend(self):
        if self._backend is None or self._backend.name != self.backend_name:
            if self.backend_name == "kubernetes":
                from ..backends.kube.backend import KubernetesBackend

                self._backend = KubernetesBackend.from_kubeconfig(
                    context=self.k8s_context or None, namespace=self.k8s_namespace or None
                )
            else:
                from ..backends.local.backend import LocalBackend

                self._backend = LocalBackend(self.workspace)
        return self._backend

    def submit(self, wait: bool = False) -> bool:
        """Submit in the background (the kernel stays responsive); a second click does nothing."""
        if not self._submit_lock.acquire(blocking=False):
            return False
        if not self.can_submit():
            self._submit_lock.release()
            self._say(
                "error",
                Text("Submit is disabled: fix the errors and acknowledge the warnings first."),
            )
            return False
        self.busy = True
        self._say("status", SUBMITTING)
        worker = threading.Thread(
            target=self._submit_in_background, name="rlark-submit", daemon=True
        )
        worker.start()
        if wait:
            worker.join()
        return True

    def _submit_in_background(self) -> None:
        try:

            def action() -> None:
                backend = self.backend()
                self._say("status", Text("Preflight…"))
                problems = [f for f in backend.preflight(self.job) if f.severity is Severity.ERROR]
                if problems:
                    raise BackendError(
                        Text(
                            "Preflight failed: {problems}",
                            problems=Listing(f.text for f in problems),
                        ),
                        problems[0].fix_text,
                    )
                self._say("status", SUBMITTING)
                result = backend.submit(
                    self.job, expansion=self.report.expansion, config=self.config
                )
                self.submitted, self.submitted_at = result.name, time.time()
                self.history = []
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

            if self._guard(action, Text("Submit")):
                self.start_monitor()
        finally:
            self.busy = False
            self._submit_lock.release()

    def refresh(self) -> bool:
        def action() -> None:
            if not self.submitted:
                return
            snap = self.backend().snapshot(self.submitted)
            # A different run (submitted again elsewhere) starts its charts afresh.
            before = self.snapshot.run if self.snapshot is not None else None
            history = [] if before is not None and snap.run != before else self.history
            # One notification once all three are set: views observing ``snapshot`` draw the
            # banner and charts from the same refresh (they had drawn the previous one's).
            with self.hold_trait_notifications():
                self.snapshot, self.diagnosis = snap, diagnose(snap)
                self.history = extend(history, snap)

        return self._guard(action, Text("Refresh"))

    def start_monitor(self, interval: float = 3.0) -> None:
        """Refresh now, then in the background until the Job has ended and its Workers are
        gone (a finished Job whose Workers still run keeps being watched). A new start ends
        the loop before it."""
        self._stop_monitor.set()
        stop = self._stop_monitor = threading.Event()

        def loop() -> None:
            while not stop.is_set():
                self.refresh()
                snap = self.snapshot
                if snap is None or not snap.exists or _settled(snap):
                    return
                stop.wait(interval)

        self._monitor = threading.Thread(target=loop, name="rlark-monitor", daemon=True)
        self._monitor.start()

    def stop(self) -> bool:
        """Stop the Job, then watch it at once until its Workers are gone."""
        if not self.can_stop():
            self._say("error", Text("Stop is disabled: no running Job was submitted from here."))
            return False
        self._stop_monitor.set()
        done = self._guard(
            lambda: self._say("status", self.backend().stop(self.submitted)), Text("Stop")
        )
        self.start_monitor()
        return done

    def request_delete(self) -> bool:
        """The Delete button: name exactly what delete removes and wait for a confirmation."""
        if not self.can_delete():
            self._say("error", Text("Delete is disabled: no Job was submitted from here."))
            return False

        def action() -> None:
            removes = self.backend().removes(self.submitted)
            self._messages["delete_pending"] = Text(
                "Delete removes {what} This cannot be undone.", what=removes
            )
            self.delete_pending = render(self._messages["delete_pending"], self.lang)

        return self._guard(action, Text("Delete"))

    def cancel_delete(self) -> None:
        self._messages.pop("delete_pending", None)
        self.delete_pending = ""

    def delete(self) -> bool:
        """Delete, once confirmed (:meth:`request_delete` first); then watch it at once."""
        if not self.delete_pending:
            self.request_delete()
            return False
        self.cancel_delete()
        self._stop_monitor.set()
        done = self._guard(
            lambda: self._say("status", self.backend().delete(self.submitted)), Text("Delete")
        )
        self.start_monitor()
        return done

    def logs(self, worker: str, tail: int = 200) -> str:
        out: list[str] = []
        self._guard(
            lambda: out.append(clean_log(self.backend().logs(self.submitted, worker, tail))),
            Text("Logs"),
        )
        return out[0] if out else ""
