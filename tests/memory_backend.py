"""A fourth backend that lives in the tests only: Jobs kept in a dict, Workers always running.

It is registered with :func:`rlark_widgets.backends.register_backend` and nothing else: the
CLI and the Session must work with it unchanged (``tests/test_backend_port.py``). It has one
ability beyond the port (it lists its Jobs) and takes one connection option (a namespace),
which it records so the tests can see what reached it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rlark_widgets.backends import Connect
from rlark_widgets.backends.base import SubmitResult
from rlark_widgets.backends.policy import BackendPolicy, Connection
from rlark_widgets.findings import Finding
from rlark_widgets.i18n import Text
from rlark_widgets.monitor.snapshot import JobPhase, JobSnapshot, WorkerPhase, WorkerSnapshot
from rlark_widgets.rlark.inventory import Inventory
from rlark_widgets.rlark.job import Job
from rlark_widgets.rlark.site import SiteProfile, example_site
from rlark_widgets.rlinf import Expansion, RLinfConfig

KIND = "memory"
POLICY = BackendPolicy(
    kind=KIND,
    summary=Text("Jobs kept in memory (the tests' fourth backend)"),
    connection=(Connection.NAMESPACE,),
    live_inventory=False,
    stopped_run_keeps_name=False,
    runs_here=False,
    runs_images=True,
)


@dataclass
class Memory:
    """What every opened memory backend shares (one "cluster"), and what reached it."""

    jobs: dict[str, Job] = field(default_factory=dict)
    stopped: set[str] = field(default_factory=set)
    opened: list[Connect] = field(default_factory=list)


class MemoryBackend:
    name = KIND

    def __init__(self, memory: Memory, site: SiteProfile | None) -> None:
        self.memory = memory
        self.site = site or example_site()

    def inventory(self) -> Inventory:
        raise AssertionError("its policy says it has no live inventory: never asked")

    def preflight(self, job: Job, config: RLinfConfig | None = None) -> list[Finding]:
        return []

    def submit(
        self, job: Job, expansion: Expansion | None = None, config: RLinfConfig | None = None
    ) -> SubmitResult:
        if job.name in self.memory.jobs:
            return SubmitResult(job.name, False, Text("It is there already."))
        self.memory.jobs[job.name] = job
        return SubmitResult(job.name, True, Text("Kept in memory."))

    def list_jobs(self) -> list[str]:
        return list(self.memory.jobs)

    def job(self, name: str) -> Job | None:
        return self.memory.jobs.get(name)

    def snapshot(self, name: str) -> JobSnapshot:
        job = self.memory.jobs.get(name)
        snap = JobSnapshot(job=name, backend=KIND, time=time.time(), exists=job is not None)
        if job is None:
            return snap
        stopped = name in self.memory.stopped
        snap.phase = JobPhase.STOPPED if stopped else JobPhase.RUNNING
        snap.expected_workers = job.total_workers
        snap.workers = [
            WorkerSnapshot(
                role.name, index, None, f"{name}-{role.name}-{index}", WorkerPhase.RUNNING
            )
            for role in job.roles
            for index in range(role.replicas)
            if not stopped
        ]
        return snap

    def logs(
        self,
        name: str,
        worker: str,
        tail: int = 200,
        *,
        workers: list[WorkerSnapshot] | None = None,
    ) -> str:
        return f"log of {worker}"

    def stop(self, name: str) -> Text:
        self.memory.stopped.add(name)
        return Text("Stopped {name} in memory.", name=name)

    def delete(self, name: str) -> Text:
        self.memory.jobs.pop(name, None)
        return Text("Deleted {name} from memory.", name=name)

    def removes(self, name: str) -> Text:
        return Text("{name} in memory.", name=name)
