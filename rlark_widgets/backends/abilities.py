"""What an opened backend can do beyond the port (:class:`.base.Backend`), found on the object.

Callers ask ``isinstance(backend, ListsJobs)``, never the backend's name: a backend added later
gains an ability by having its method, and nothing above ``backends/`` changes. Each ability is a
runtime-checkable Protocol (the check looks for the method; mypy checks its signature).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..monitor.snapshot import RunInfo, WorkerSnapshot

if TYPE_CHECKING:
    from ..rlark.kuberay import ExportOptions


@runtime_checkable
class ListsJobs(Protocol):
    """It can name every Job it holds (``rlark-migrate list``, the app's Runs panel)."""

    def list_jobs(self) -> list[str]: ...


@runtime_checkable
class KeepsEarlierRuns(Protocol):
    """A Job submitted again keeps its earlier runs' logs (``logs --run-id``)."""

    def earlier_runs(self, name: str) -> list[RunInfo]: ...

    def logs(
        self,
        name: str,
        worker: str,
        tail: int = 200,
        run_id: str | None = None,
        *,
        workers: list[WorkerSnapshot] | None = None,
    ) -> str: ...


@runtime_checkable
class StartsTensorBoard(Protocol):
    """It can start a TensorBoard over a Job's event files and give its URL."""

    def tensorboard(self, name: str) -> str: ...


@runtime_checkable
class HoldsSubmittedObject(Protocol):
    """What it holds is not the Job itself (a RayJob/RayCluster exported from it): the run
    record keeps that object beside the Job."""

    def submitted(self, name: str) -> dict[str, Any] | None: ...


@runtime_checkable
class SubmitsExport(Protocol):
    """It submits an export of the Job, so a submission weighs the export's findings."""

    def export_options(self) -> ExportOptions: ...
