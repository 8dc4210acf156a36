"""The backend protocol every implementation follows, and the results it returns."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..contract import (
    CHECKPOINT_DIR_ANNOTATION,
    MAX_STEPS_ANNOTATION,
    NUM_NODES_ANNOTATION,
    RESUME_DIR_ANNOTATION,
    SAVE_INTERVAL_ANNOTATION,
)
from ..findings import Finding
from ..i18n import Text, TextError, render
from ..monitor.snapshot import JobSnapshot, WorkerSnapshot
from ..rlark.inventory import Inventory
from ..rlark.job import Job
from ..rlark.site import SiteProfile
from .abilities import ListsJobs

if TYPE_CHECKING:  # the supervisor and rehearsal processes do not load Hydra
    from ..rlinf import Expansion, RLinfConfig

#: Warnings a submission asks a yes for before it starts anything (``submit_checked``'s
#: ``confirm``): the local backend would run the Job's prepare scripts on this machine.
NEEDS_YES = ("LOC-PREPARE-HERE",)


def default_workspace() -> Path:
    """Where local rehearsals run: $RLARK_WORKSPACE, else ~/.rlark-widgets/runs."""
    return Path(os.environ.get("RLARK_WORKSPACE") or Path.home() / ".rlark-widgets" / "runs")


class BackendError(TextError):
    """A failure a user can act on; ``fix`` says how (no traceback is ever shown for these)."""


@dataclass
class SubmitResult:
    """What a submission did: created the Job, or found it already there (never a duplicate).

    ``text`` and ``where_text`` are rendered in the reader's language when shown;
    ``message`` and ``where`` give the English.
    """

    name: str
    created: bool
    text: Text
    where_text: Text | str = ""  # how to look at it next (a namespace, a workspace directory)
    #: A different Job holds the name: nothing was submitted, and that is a failure (exit 1).
    conflict: bool = False

    @property
    def message(self) -> str:
        return render(self.text)

    @property
    def where(self) -> str:
        return render(self.where_text)


@dataclass
class Expectations:
    """What the monitor compares against, read from the Job's annotations."""

    num_nodes: int
    checkpoint_dir: str | None = None
    save_interval: int | None = None
    max_steps: int | None = None
    resume_dir: str | None = None  # runner.resume_dir: the checkpoint a run resumes from
    extra: dict[str, str] = field(default_factory=dict)


#: ``runner.resume_dir=PATH`` on the run script's RLinf command line (a Hydra override).
RESUME_OVERRIDE = re.compile(r"runner\.resume_dir=(\S+)")


def expectations(job: Job) -> Expectations:
    """Read what the monitor expects from the Job the planner annotated (or count Workers);
    the resumed checkpoint from the run script's ``runner.resume_dir=`` (a command-line
    override beats the config file, as in Hydra), else the annotation the config set."""
    notes = job.annotations

    def number(key: str) -> int | None:
        value = notes.get(key)
        return int(value) if value is not None and value.lstrip("-").isdigit() else None

    return Expectations(
        num_nodes=number(NUM_NODES_ANNOTATION) or job.total_workers,
        checkpoint_dir=notes.get(CHECKPOINT_DIR_ANNOTATION),
        save_interval=number(SAVE_INTERVAL_ANNOTATION),
        max_steps=number(MAX_STEPS_ANNOTATION),
        resume_dir=_resume_override(job.run_script) or notes.get(RESUME_DIR_ANNOTATION),
    )


def _resume_override(script: str) -> str | None:
    found = RESUME_OVERRIDE.findall(script or "")
    value = found[-1].strip("'\"") if found else None  # Hydra keeps the last override
    return value if value and value not in ("null", "auto") else None


class Backend(Protocol):
    name: str
    site: SiteProfile  # whose labels and Job API it reads and writes

    def inventory(self) -> Inventory: ...

    def preflight(self, job: Job, config: RLinfConfig | None = None) -> list[Finding]:
        """What would stop ``job`` here; ``config``: the RLinf config it was planned from, which
        decides layouts the Job alone does not (KubeRay's worker groups per node rank)."""
        ...

    def submit(
        self, job: Job, expansion: Expansion | None = None, config: RLinfConfig | None = None
    ) -> SubmitResult:
        """Submit once; ``expansion`` / ``config`` let the local rehearsal verify the placement."""
        ...

    def job(self, name: str) -> Job | None:
        """The submitted Job as the backend holds it (None when there is none)."""
        ...

    def snapshot(self, name: str) -> JobSnapshot: ...

    def logs(
        self,
        name: str,
        worker: str,
        tail: int = 200,
        *,
        workers: list[WorkerSnapshot] | None = None,
    ) -> str:
        """A Worker's log tail; ``workers``: the Job's Workers as a snapshot just listed them,
        so reading many logs lists them once, not once per log (None: listed here)."""
        ...

    def stop(self, name: str) -> Text:
        """What stopping did, as a message (rendered when shown)."""
        ...

    def delete(self, name: str) -> Text: ...

    def removes(self, name: str) -> Text:
        """What ``delete`` would remove, named exactly (the app asks before deleting)."""
        ...


def job_names(backend: Backend) -> list[str]:
    """The Jobs ``backend`` holds, oldest first (``rlark-migrate list``, the Runs panel)."""
    if not isinstance(backend, ListsJobs):
        raise BackendError(
            Text("The {backend} backend cannot list its Jobs.", backend=backend.name),
            Text("Give the Job's name to status, logs or the monitor instead."),
        )
    return list(backend.list_jobs())
