"""The detached process that runs one local Job: ``python -m rlark_widgets.backends.local.supervisor <job dir>``.

It plays RLark's part: it starts the Workers one after another (the head first; each next one
once the previous node is ALIVE, because nodes started together race their dashboard agents
on a small machine), then the run script on the Header's Worker, and watches them. A Worker
whose main process ends takes the rest of its processes with it, as a container does. It is
the only writer of ``state.json``. On SIGTERM (``stop``), or ``linger`` seconds after the run
script ended, it ends every process of the run and exits.

It daemonises at start (fork + setsid), so it is no process's child and leaves no zombie.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...contract import RANK_ENV, RANK_LABEL, RAY_ADDRESS_ENV
from .layout import JobDir, tail_lines
from .procs import ProcessRef, RunLeaders, end_run, session_processes, signal_all
from .ray_nodes import (
    HEAD_PORTS,
    NODE_PORTS,
    START_MARK,
    MembersUnavailable,
    fetch_members,
    free_ports,
    prepare_failed,
    ray_start_argv,
    worker_script,
)
from .rehearsal import GIVEN_UP_ENV
from .spec import Spec, WorkerSpec

POLL = 0.25
#: Starts of a Worker whose Ray exits before joining. Ray 2.60's raylet gives its dashboard
#: agent a fixed 15 s to report its port (RAY_agent_register_timeout_ms does not change it),
#: which a busy 2-core machine can miss; Kubernetes would restart such a container too.
START_ATTEMPTS = 3
TIMEOUT_MARK = "[rlark-local] timeout:"


class Supervisor:
    """Starts, watches and ends the processes of one run; records everything in state.json."""

    def __init__(self, where: JobDir, spec: Spec) -> None:
        self.where, self.spec = where, spec
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.stopping: str | None = None  # why the run ends: "stop", "completed" or "error"
        self.pending_kills: list[tuple[float, ProcessRef]] = []  # (deadline, session leader)
        self.given_up: list[WorkerSpec] = []  # Workers whose node never joined
        self.state: dict[str, Any] = {
            "run_id": spec.run_id,
            "phase": "starting",
            "head": None,
            "workers": {},
            "run": None,
        }

    # --- main flow -----------------------------------------------------------------------------
    def run(self) -> None:
        signal.signal(signal.SIGTERM, self._on_sigterm)
        self.save()
        try:
            if not self.start_workers():
                self.state["gave_up"] = time.time()
                self.log("the Ray head is not up: the run script is not started")
            elif self.given_up and self.spec.run.mode != "rehearsal":
                # RLinf waits for every node without end; the rehearsal names them and stops
                self.state["gave_up"] = time.time()
                self.log("a Worker was given up: the run script is not started")
            elif not self.stopping:
                self.start_run_script()
            self.state["phase"] = "running"
            self.save()
            self.watch()
        except Exception:  # a bug here must not leave the run's processes behind
            self.log(f"supervisor error, ending the run:\n{traceback.format_exc()}")
            self.stopping = "error"
        self.teardown(self.stopping or "completed")

    def start_workers(self) -> bool:
        """Start each Worker once the previous one joined; False when the head is not up."""
        head = self.spec.head
        for worker in self.spec.workers:
            if self.stopping:
                break
            joined = self.start_worker(worker)
            if (worker.head and not joined) or self.state["workers"][head.key].get("ended"):
                return False
            if not joined and not self.stopping:
                self.given_up.append(worker)
                self.state["workers"][worker.key]["gave_up"] = time.time()
                self.log(f"gave up Worker {worker.key}: its Ray node did not join")
        return True

    def start_worker(self, worker: WorkerSpec) -> bool:
        """Launch ``worker`` until its node joins; restart it when Ray exits before joining."""
        for attempt in range(1, START_ATTEMPTS + 1):
            self.launch(worker, attempt - 1)
            if self.wait_joined(worker):
                return True
            record = self.state["workers"][worker.key]
            lines = tail_lines(Path(worker.log), 400)
            if self.stopping or record.get("ended") is None or prepare_failed(lines):
                return False
            if attempt < START_ATTEMPTS:
                why = next((line for line in reversed(lines) if line.strip()), "")
                message = f"Ray exited with {record['returncode']} before joining: {why.strip()}"
                record.setdefault("events", []).append(
                    {"reason": "Restarted", "message": message, "time": time.time()}
                )
                self.log(f"restarting Worker {worker.key} ({message})")
        return False

    def launch(self, worker: WorkerSpec, restarts: int) -> None:
        ip = self.spec.options.node_ip
        ports = free_ports(ip, HEAD_PORTS + NODE_PORTS if worker.head else NODE_PORTS)
        head = self.state["head"]
        argv = ray_start_argv(
            node_ip=ip,
            temp_dir=worker.temp_dir,
            ports=ports,
            head_address=None if worker.head else head["address"],
            num_gpus=worker.gpus,
            resources=worker.resources,
            labels=worker.labels,
        )
        Path(worker.dir).mkdir(parents=True, exist_ok=True)
        Path(worker.temp_dir).mkdir(parents=True, exist_ok=True)
        proc = self.spawn(
            ["bash", "-c", worker_script(worker.prepare_script), "rlark-worker", *argv],
            worker.env,
            worker.dir,
            Path(worker.log),
            f"Worker {worker.key} ({RANK_ENV} {worker.rank}): {' '.join(argv)}",
        )
        self.children[worker.key] = proc
        events = self.state["workers"].get(worker.key, {}).get("events", [])
        self.state["workers"][worker.key] = {
            **ProcessRef.of(proc.pid).to_json(),
            "ports": ports,
            "started": time.time(),
            "restarts": restarts,
            "events": events,
        }
        if worker.head:
            self.state["head"] = {
                "address": f"{ip}:{ports['gcs']}",
                "dashboard_port": ports["dashboard"],
            }
        self.log(f"started Worker {worker.key} (pid {proc.pid})")
        self.save()

    def wait_joined(self, worker: WorkerSpec) -> bool:
        """Wait until the Worker's Ray node is ALIVE; False if it ended, timed out or we stop."""
        record = self.state["workers"][worker.key]
        deadline = time.monotonic() + self.spec.options.join_timeout
        while time.monotonic() < deadline and not self.stopping:
            self.reap()
            if record.get("returncode") is not None:
                return False
            if self._alive_rank(worker.rank):
                record["joined"] = time.time()
                self.log(f"Worker {worker.key} joined Ray")
                self.save()
                return True
            time.sleep(POLL)
        if not self.stopping:
            record["note"] = (
                f"its Ray node was not ALIVE after {self.spec.options.join_timeout:g} s"
            )
            self.log(f"Worker {worker.key}: {record['note']}")
            self.save()
        return False

    def _alive_rank(self, rank: int) -> bool:
        head = self.state["head"]
        try:
            members = fetch_members(self.spec.options.node_ip, head["dashboard_port"], timeout=2)
        except MembersUnavailable:
            return False
        return any(m.alive and m.labels.get(RANK_LABEL) == str(rank) for m in members)

    def start_run_script(self) -> None:
        run = self.spec.run
        env = {**run.env, RAY_ADDRESS_ENV: self.state["head"]["address"]}
        if self.given_up:  # the rehearsal stops waiting for them (RLinf itself would wait on)
            env[GIVEN_UP_ENV] = ", ".join(
                f"{RANK_ENV} {w.rank} (Worker {w.key})" for w in self.given_up
            )
        proc = self.spawn(run.argv, env, run.cwd, Path(run.log), run.banner)
        self.children["run"] = proc
        self.state["run"] = {**ProcessRef.of(proc.pid).to_json(), "started": time.time()}
        self.log(f"started the run script (pid {proc.pid}, {run.mode} mode)")
        self.save()

    def watch(self) -> None:
        """Reap and record until a stop, or ``linger`` after the run script ended (or could not start)."""
        linger = self.spec.options.linger
        while not self.stopping:
            self.reap()
            self.end_overdue_run()
            run = self.state["run"]
            finished = run.get("ended") if run else self.state.get("gave_up")
            if finished and time.time() >= finished + linger:
                self.log(f"the run ended {linger:g} s ago: stopping the Workers")
                return
            if run is None and all(w.get("ended") for w in self.state["workers"].values()):
                return
            time.sleep(POLL)

    def end_overdue_run(self) -> None:
        """End a run script that outlived ``run_timeout`` (SIGTERM to its session, SIGKILL
        after the grace period); :meth:`reap` then records its exit and says why in its log."""
        run, limit = self.state["run"], self.spec.options.run_timeout
        if limit is None or run is None or run.get("ended") or run.get("timed_out"):
            return
        if time.time() < run["started"] + limit:
            return
        run["timed_out"] = time.time()
        self.log(f"the run script ran longer than run_timeout ({limit:g} s): ending it")
        leader = ProcessRef.from_json(run)
        if leader is not None:
            signal_all(session_processes(leader), signal.SIGTERM)
            self.pending_kills.append((time.monotonic() + self.spec.options.grace, leader))
        self.save()

    def teardown(self, why: str) -> None:
        """End every process of the run (SIGTERM, SIGKILL after the grace period)."""
        self.reap()
        self.state["phase"] = "stopping"
        for key, record in self._records():
            if key in self.children and record.get("ended") is None:
                record["stopped_by"] = why
        self.save()
        leaders = RunLeaders.read(self.where, self.spec.head.key)
        end_run(self.spec.run_id, leaders, self.spec.options.grace)
        for proc in self.children.values():
            proc.wait()
        self.reap()
        self.state["phase"] = "ended"
        self.log(f"all processes ended ({why})")
        self.save()

    # --- helpers -----------------------------------------------------------------------------
    def reap(self) -> None:
        """Record the exit of any child; a Worker that died takes its leftovers with it."""
        for key, proc in self.children.items():
            record = self.state["run"] if key == "run" else self.state["workers"][key]
            returncode = proc.poll()
            if returncode is None or record.get("ended") is not None:
                continue
            record.update(ended=time.time(), returncode=returncode)
            self.log(f"{key} exited with {returncode}")
            if key == "run" and record.get("timed_out"):
                self.note_timeout()
            leader = ProcessRef.from_json(record)
            if key != "run" and not self.stopping and leader is not None:
                signal_all(session_processes(leader), signal.SIGTERM)
                self.pending_kills.append((time.monotonic() + self.spec.options.grace, leader))
            self.save()
        now = time.monotonic()
        for deadline, leader in [k for k in self.pending_kills if k[0] <= now]:
            signal_all(session_processes(leader), signal.SIGKILL)
            self.pending_kills.remove((deadline, leader))

    def note_timeout(self) -> None:
        """The run log's last line says why the script ended (the diagnosis quotes it)."""
        limit = self.spec.options.run_timeout
        with open(self.spec.run.log, "a", encoding="utf-8") as out:
            out.write(
                f"{TIMEOUT_MARK} the run script did not finish within run_timeout ({limit:g} s) "
                "and was ended: it may hang (waiting for Ray members, a lock or input).\n"
            )

    def spawn(
        self, argv: list[str], env: dict[str, str], cwd: str, log: Path, banner: str
    ) -> subprocess.Popen[bytes]:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            out.write(f"{START_MARK} {time.strftime('%H:%M:%S')} {banner}\n".encode())
            out.flush()
            return subprocess.Popen(
                argv,
                cwd=cwd,
                env={**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def _records(self) -> Iterator[tuple[str, dict[str, Any]]]:
        yield from self.state["workers"].items()
        if self.state["run"] is not None:
            yield "run", self.state["run"]

    def _on_sigterm(self, signum: int, frame: object) -> None:
        self.stopping = "stop"

    def save(self) -> None:
        self.where.write("state.json", self.state)

    def log(self, message: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {message}", flush=True)


def daemonise(where: JobDir) -> None:
    """Fork into a new session; the parent records the daemon's PID and exits."""
    pid = os.fork()
    if pid > 0:
        where.write("supervisor.json", ProcessRef.of(pid).to_json())
        os._exit(0)
    os.setsid()


def main(argv: list[str]) -> int:
    where = JobDir(Path(argv[1]))
    spec = Spec.from_json(where.read("spec.json") or {})
    daemonise(where)
    Supervisor(where, spec).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
