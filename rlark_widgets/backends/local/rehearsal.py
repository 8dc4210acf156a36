"""The local backend's rehearsal: the planned layout on real Ray nodes, then a few steps. Not training.

Run as ``python -m rlark_widgets.backends.local.rehearsal <plan.json>`` (the local backend's default run script,
with ``RAY_ADDRESS`` set). In RLinf's order it:

1. waits up to ``member_timeout`` for ``num_nodes`` Ray members, and fails naming the missing
   Workers (RLinf itself would wait forever);
2. checks the ``rlinf.io/node-rank`` labels are unique and 0..N-1, and that a probe actor on
   each node reads the same ``RLINF_NODE_RANK`` from its environment (what RLinf reads);
3. starts one small actor per planned component process, pinned to its planned node like RLinf
   does (hard node affinity, no GPU request, ``CUDA_VISIBLE_DEVICES`` set from the plan), and
   checks each reports the planned node rank and GPUs within its Worker's logical GPUs;
4. saves the config where RLinf does (``<log_path>/tensorboard/config.yaml``), then runs a few
   steps: every node answers each step, metrics go to JSON lines (and TensorBoard events when
   ``tensorboard`` is installed) and ``checkpoints/global_step_N/actor/`` every save_interval.

Everything it prints and writes is labelled as a rehearsal.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from ...contract import RANK_ENV, RANK_LABEL, RAY_ADDRESS_ENV
from ...i18n import LANGUAGES, Listing, Rendered, Text
from ...monitor.snapshot import Verdict

TAG = "[rehearsal]"
#: Set by the supervisor on the run script: the Workers it gave up starting (their nodes will
#: never join), so the wait for members ends at once instead of at its timeout.
GIVEN_UP_ENV = "RLARK_LOCAL_GIVEN_UP"
PASSED = "REHEARSAL PASSED"
RAN = "REHEARSAL RAN"  # ran to its end, but the placement was not checked
FAILED = "REHEARSAL FAILED"
PLACEMENT = "placement verified"
NO_PLAN = "no plan was given"
#: A line the rehearsal printed: its tag, seconds since it started, the message.
SAID = re.compile(r"^\[rehearsal\]\s+[\d.]+s\s+(.*)$")
#: Placement actors alive at once (each is a Ray worker process of ~0.1 GiB).
PLACEMENT_BATCH = 8
STEP_DIR = re.compile(r"global_step_(\d+)$")
STEP_TIMEOUT = 60.0


class RehearsalFailure(Exception):
    """The layout or the run is not what the plan says; ``text`` names what and where.

    This runs out of process: the run log and rehearsal.json get the English, like every line
    the rehearsal prints.
    """

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text


STARTED = time.monotonic()
#: The paths the rehearsal writes (``resume_dir`` is only read).
WRITTEN = ("checkpoints", "config", "tensorboard", "metrics")


def say(message: str) -> None:
    print(f"{TAG} {time.monotonic() - STARTED:5.1f}s {message}", flush=True)


class Rehearsal:
    """One rehearsal run from ``plan.json`` (written by the local backend at submit)."""

    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan = plan
        self.paths = {k: Path(v["local"]) for k, v in plan["paths"].items() if v}
        self.report: dict[str, Any] = {"status": "running", "job": plan["job"]}

    def writable(self, key: str) -> Path:
        """The local path of ``key`` to write; a path on a readOnly mount fails here as a Pod's
        write fails there (EROFS), before anything is written."""
        given = self.plan["paths"].get(key) or {}
        mount = given.get("read_only_mount")
        if mount:
            raise RehearsalFailure(
                Text(
                    "cannot write {path}: Read-only file system. It is on the mount {mount}, which"
                    " is readOnly: true, and a Pod's write there fails the same way.",
                    path=given.get("container") or given["local"],
                    mount=mount,
                )
            )
        return self.paths[key]

    def run(self) -> None:
        import ray

        say("REHEARSAL, NOT TRAINING: checks the planned layout on real Ray nodes.")
        for key in WRITTEN:
            if key in self.paths:
                self.writable(key)
        first = self.first_step()
        address = os.environ.get(RAY_ADDRESS_ENV, "")
        try:
            ray.init(
                address=address,
                _node_ip_address=self.plan["node_ip"],
                logging_level=logging.ERROR,
                log_to_driver=False,
            )
        except (ConnectionError, ValueError) as exc:
            raise RehearsalFailure(
                Text(
                    "cannot reach the Ray head at '{address}': {error}",
                    address=address,
                    error=str(exc),
                )
            ) from None
        nodes = self.check_ranks(self.wait_for_members(ray))
        probes = self.start_probes(ray, nodes)
        unverified = self.check_placement(ray, nodes)
        self.save_config()
        self.run_steps(ray, probes, first)
        if unverified is None:
            self.report["status"] = "passed"
            say(f"{PASSED}: the layout matches the plan. Nothing was trained.")
        else:  # a verdict says only what was checked
            self.report["status"] = "ran"
            say(f"{RAN}; placement not verified: {unverified}. Nothing was trained.")

    # --- 1. members ---------------------------------------------------------------------------
    def wait_for_members(self, ray: ModuleType) -> list[dict[str, Any]]:
        """The alive Ray nodes, once ``num_nodes`` are alive."""
        expected, timeout = self.plan["num_nodes"], self.plan["member_timeout"]
        deadline, next_note = time.monotonic() + timeout, 0.0
        while True:
            alive = [n for n in ray.nodes() if n["Alive"]]
            if len(alive) >= expected:
                break
            given_up = os.environ.get(GIVEN_UP_ENV)
            if given_up:
                raise RehearsalFailure(
                    Text(
                        "only {alive} of {expected} Ray nodes joined, and no more will: {given_up}"
                        " could not start and was given up. RLinf would wait forever here; read"
                        " that Worker's log.",
                        alive=len(alive),
                        expected=expected,
                        given_up=given_up,
                    )
                )
            if time.monotonic() > deadline:
                raise RehearsalFailure(
                    Text(
                        "only {alive} of {expected} Ray nodes joined within {timeout} s; missing:"
                        " {missing}. RLinf would wait forever here; read the missing Workers'"
                        " logs.",
                        alive=len(alive),
                        expected=expected,
                        timeout=f"{timeout:g}",
                        missing=self._missing(alive),
                    )
                )
            if time.monotonic() >= next_note:
                say(f"waiting for Ray members: {len(alive)}/{expected} alive")
                next_note = time.monotonic() + 10
            time.sleep(1)
        self.report["members"] = [
            {"node_id": n["NodeID"], "labels": n.get("Labels", {}), "gpus": _gpus(n)} for n in alive
        ]
        say(f"Ray members: {len(alive)}/{expected} alive")
        return alive

    def _missing(self, alive: list[dict[str, Any]]) -> str:
        present = {_rank(n) for n in alive}
        missing = [w for w in self.plan["workers"] if w["rank"] not in present]
        return ", ".join(f"{RANK_ENV} {w['rank']} (Worker {w['key']})" for w in missing)

    # --- 2. ranks -----------------------------------------------------------------------------
    def check_ranks(self, alive: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """The alive nodes by node rank, once their labels are unique and 0..N-1."""
        expected = self.plan["num_nodes"]
        ranks = [_rank(n) for n in alive]
        if None in ranks or len(set(ranks)) != len(ranks):
            raise RehearsalFailure(
                Text(
                    "RLINF_NODE_RANK should be unique and set on every node, but the {count} alive"
                    " nodes carry {ranks}.",
                    count=len(alive),
                    ranks=str(sorted(ranks, key=lambda r: (r is None, r or 0))),
                )
            )
        labelled = sorted(r for r in ranks if r is not None)  # none is None: checked above
        if labelled[:expected] != list(range(expected)):
            raise RehearsalFailure(
                Text(
                    "RLINF_NODE_RANK should be unique and continuous from 0 to {last}, but got:"
                    " {ranks}.",
                    last=expected - 1,
                    ranks=str(labelled),
                )
            )
        extra = labelled[expected:]
        if extra:
            say(f"{len(extra)} extra node(s) {extra}: RLinf keeps ranks 0..{expected - 1}")
        self.report["ranks"] = labelled
        say(f"node ranks {labelled[:expected]}: unique and continuous")
        return {rank: n for n in alive if (rank := _rank(n)) is not None}

    def start_probes(self, ray: ModuleType, nodes: dict[int, dict[str, Any]]) -> dict[int, Any]:
        """One probe actor per node; each must read its node's rank from RLINF_NODE_RANK."""
        probe = ray.remote(num_cpus=0)(NodeProbe)
        probes = {
            rank: probe.options(scheduling_strategy=_pin(node["NodeID"])).remote()
            for rank, node in nodes.items()
            if rank < self.plan["num_nodes"]
        }
        seen = dict(
            zip(probes, ray.get([p.rank_env.remote() for p in probes.values()]), strict=True)
        )
        wrong = {r: env for r, env in seen.items() if env != str(r)}
        if wrong:
            detail = Listing(
                (
                    Text("label {rank} but RLINF_NODE_RANK={env}", rank=r, env=repr(env))
                    for r, env in wrong.items()
                ),
                ", ",
            )
            raise RehearsalFailure(
                Text("node rank labels and environments disagree: {detail}.", detail=detail)
            )
        say(f"every node's {RANK_ENV} matches its label")
        return probes

    # --- 3. placement -------------------------------------------------------------------------
    def check_placement(self, ray: ModuleType, nodes: dict[int, dict[str, Any]]) -> str | None:
        """Every planned process on its node and GPUs; returns why it was not verified, if so."""
        expansion = self.plan.get("expansion")
        if not expansion or expansion.get("error"):
            self.report["placement"] = None
            why = str((expansion or {}).get("error") or NO_PLAN)
            say(f"placement NOT verified: {why}")
            return why
        rows = [
            (name, row)
            for name, comp in sorted(expansion["components"].items())
            for row in comp["processes"]
        ]
        placed = ray.remote(num_cpus=0)(PlacedProcess)
        results = []
        for start in range(0, len(rows), PLACEMENT_BATCH):
            batch = rows[start : start + PLACEMENT_BATCH]
            actors = []
            for name, row in batch:
                node = nodes.get(row["node_rank"])
                if node is None:
                    raise RehearsalFailure(
                        Text(
                            "{component} rank {rank} is planned on node rank {node}, which is not"
                            " a Ray member.",
                            component=name,
                            rank=row["rank"],
                            node=row["node_rank"],
                        )
                    )
                options = {"scheduling_strategy": _pin(node["NodeID"])}
                actors.append(placed.options(**options).remote(row["visible_accelerators"]))
            reports = ray.get([a.report.remote() for a in actors])
            for actor in actors:
                ray.kill(actor)
            results += [
                self._compare(name, row, got, nodes)
                for (name, row), got in zip(batch, reports, strict=True)
            ]
        self.report["placement"] = results
        for line in results:
            say(
                f"{line['component']} rank {line['rank']}: node rank {line['node_rank']}, "
                f"GPUs {line['gpus']} (as planned)"
            )
        say(f"{PLACEMENT}: {len(results)} processes on {len(nodes)} nodes as planned")
        return None

    @staticmethod
    def _compare(
        name: str, row: dict[str, Any], got: dict[str, Any], nodes: dict[int, dict[str, Any]]
    ) -> dict[str, Any]:
        planned_node, planned_gpus = row["node_rank"], list(row["visible_accelerators"])
        if got["node_id"] != nodes[planned_node]["NodeID"] or got["rank_env"] != str(planned_node):
            raise RehearsalFailure(
                Text(
                    "{component} rank {rank} should run on node rank {node} but runs where"
                    " RLINF_NODE_RANK={env}.",
                    component=name,
                    rank=row["rank"],
                    node=planned_node,
                    env=repr(got["rank_env"]),
                )
            )
        if got["gpus"] != planned_gpus:
            raise RehearsalFailure(
                Text(
                    "{component} rank {rank} sees GPUs {gpus}, planned {planned}.",
                    component=name,
                    rank=row["rank"],
                    gpus=str(got["gpus"]),
                    planned=str(planned_gpus),
                )
            )
        declared = _gpus(nodes[planned_node])
        if planned_gpus and max(planned_gpus) >= declared:
            raise RehearsalFailure(
                Text(
                    "{component} rank {rank} is planned on GPU {gpu} of node rank {node}, but that"
                    " Worker declares {declared} GPU(s): raise the role's GPU count.",
                    component=name,
                    rank=row["rank"],
                    gpu=max(planned_gpus),
                    node=planned_node,
                    declared=f"{declared:g}",
                )
            )
        return {
            "component": name,
            "rank": row["rank"],
            "node_rank": int(got["rank_env"]),
            "gpus": got["gpus"],
            "planned_node_rank": planned_node,
            "planned_gpus": planned_gpus,
        }

    # --- 4. outputs and steps -----------------------------------------------------------------
    def first_step(self) -> int:
        """1, or the step after ``runner.resume_dir`` when it names a readable checkpoint."""
        resume = self.paths.get("resume_dir")
        self.report["resumed_from"] = None
        if resume is None:
            return 1
        actor = resume / "actor"
        match = STEP_DIR.search(resume.name)
        if match is None or not actor.is_dir() or not os.access(actor, os.R_OK | os.X_OK):
            raise RehearsalFailure(
                Text(
                    "runner.resume_dir ({container}, here {local}) is not a global_step_N"
                    " directory with a readable actor/: RLinf asserts it and would not start.",
                    container=self.plan["paths"]["resume_dir"]["container"],
                    local=str(resume),
                )
            )
        step = int(match[1])
        shards = self.load_checkpoint(actor, step)
        self.report["resumed_from"] = step
        say(
            f"resuming after global_step_{step} (runner.resume_dir): read {shards} file(s) of actor/"
        )
        return step + 1

    def load_checkpoint(self, actor: Path, step: int) -> int:
        """Read ``actor/`` as a resume would: it must hold files, and the rehearsal's own shards
        must say they are of ``step`` (a directory renamed or copied over another step is not)."""
        files = sorted(f for f in actor.iterdir() if f.is_file())
        if not files:
            raise RehearsalFailure(
                Text(
                    "runner.resume_dir {container} has an empty actor/: there is nothing to load.",
                    container=self.plan["paths"]["resume_dir"]["container"],
                )
            )
        for shard in (f for f in files if f.name.startswith("rehearsal_rank_")):
            try:
                saved = json.loads(shard.read_text(encoding="utf-8")).get("step")
            except (OSError, ValueError, AttributeError):
                saved = None
            if saved != step:
                raise RehearsalFailure(
                    Text(
                        "{shard} in runner.resume_dir is not a shard of global_step_{step} (it says"
                        " step {saved}).",
                        shard=shard.name,
                        step=step,
                        saved=str(saved),
                    )
                )
        return len(files)

    def save_config(self) -> None:
        path = self.writable("config")
        path.parent.mkdir(parents=True, exist_ok=True)
        config = self.plan.get("config") or {"rehearsal": {"job": self.plan["job"]}}
        header = "# Saved by the rlark-widgets rehearsal (not training): the resolved config.\n"
        path.write_text(header + yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        say(f"config saved: {path}")

    def run_steps(self, ray: ModuleType, probes: dict[int, Any], first: int) -> None:
        steps, interval = self.plan["steps"], self.plan.get("save_interval")
        planned = self.plan.get("planned_steps")
        say(
            f"{steps} steps (the config plans {planned or 'an unknown number'}), save_interval {interval}"
        )
        metrics = self.writable("metrics")
        metrics.parent.mkdir(parents=True, exist_ok=True)
        # as many steps as a fresh rehearsal runs, after the resumed one, within the budget
        last = first - 1 + steps
        if planned is not None and planned > 0:
            last = min(last, planned)
        if first > last:
            raise RehearsalFailure(
                Text(
                    "runner.resume_dir is global_step_{step} and runner.max_steps is {max_steps}:"
                    " nothing is left to train, so RLinf would end at once.",
                    step=first - 1,
                    max_steps=planned,
                )
            )
        steps = last
        board = _tensorboard(self.writable("tensorboard"))
        done, saved = [], []
        for step in range(first, steps + 1):
            began = time.monotonic()
            try:
                ray.get([p.step.remote(step) for p in probes.values()], timeout=STEP_TIMEOUT)
            except ray.exceptions.RayError as exc:
                raise RehearsalFailure(
                    Text(
                        "step {step}: a node stopped answering ({error}); its Worker may have"
                        " died, and RLinf would stall the same way.",
                        step=step,
                        error=type(exc).__name__,
                    )
                ) from None
            time.sleep(max(0.0, self.plan["step_seconds"] - (time.monotonic() - began)))
            row = {
                "step": step,
                "time": time.time(),
                "rehearsal": True,
                "nodes_answering": len(probes),
                "step_seconds": round(time.monotonic() - began, 3),
            }
            with open(metrics, "a", encoding="utf-8") as out:
                out.write(json.dumps(row) + "\n")
            if board is not None:
                board(row)
            note = ""
            if interval and interval > 0 and (step % interval == 0 or step == steps):
                saved.append(str(self.save_checkpoint(step)))
                note = f", checkpoint {saved[-1]}"
            done.append(step)
            say(f"step {step}/{steps}{note}")
        self.report.update(steps=done, checkpoints=saved)

    def save_checkpoint(self, step: int) -> Path:
        """``global_step_N/actor/`` with one small shard per planned actor rank."""
        actor = self.writable("checkpoints") / f"global_step_{step}" / "actor"
        actor.mkdir(parents=True, exist_ok=True)
        expansion = self.plan.get("expansion") or {}
        ranks = [
            p["rank"] for p in expansion.get("components", {}).get("actor", {}).get("processes", [])
        ]
        for rank in ranks or [0]:
            shard = {"step": step, "rank": rank, "rehearsal": True}
            (actor / f"rehearsal_rank_{rank}.json").write_text(json.dumps(shard))
        return actor.parent


class NodeProbe:
    """One per node: reads the node's RLINF_NODE_RANK and answers every step."""

    def rank_env(self) -> str | None:
        return os.environ.get(RANK_ENV)

    def step(self, step: int) -> int:
        return step


class PlacedProcess:
    """Stands for one component process: sees the planned GPUs, as RLinf sets them."""

    def __init__(self, visible: list[int]) -> None:
        os.environ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] = "1"
        os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, visible))

    def report(self) -> dict[str, Any]:
        import ray

        seen = os.environ["CUDA_VISIBLE_DEVICES"]
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "rank_env": os.environ.get(RANK_ENV),
            "gpus": [int(g) for g in seen.split(",") if g],
        }


def _pin(node_id: str) -> Any:
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id, soft=False)


def _rank(node: dict[str, Any]) -> int | None:
    value = (node.get("Labels") or {}).get(RANK_LABEL, "")
    return int(value) if value.isdigit() else None


def _gpus(node: dict[str, Any]) -> float:
    return float((node.get("Resources") or {}).get("GPU", 0))


def _tensorboard(directory: Path) -> Callable[[dict[str, Any]], None] | None:
    """A function writing a metrics row as TensorBoard scalars, or None without tensorboard."""
    try:
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        return None
    writer = EventFileWriter(str(directory))

    def write(row: dict[str, Any]) -> None:
        values = [
            Summary.Value(tag=f"rehearsal/{key}", simple_value=float(value))
            for key, value in row.items()
            if key not in ("step", "time", "rehearsal")
        ]
        writer.add_event(
            Event(wall_time=row["time"], step=row["step"], summary=Summary(value=values))
        )
        writer.flush()

    return write


def verdict(lines: list[str], report: dict[str, Any] | None = None) -> Verdict | None:
    """The rehearsal's verdict from its run log (None while it has not given one), with its
    words in the reader's language (the log itself is English: it is written out of process;
    a failure's reason in every language comes from its ``report``)."""
    said = [m[1] for m in map(SAID.match, lines) if m]
    final = next((line for line in reversed(said) if line.startswith((PASSED, RAN, FAILED))), None)
    if final is None:
        return None
    placement = next((line for line in said if line.startswith(PLACEMENT)), None)
    return Verdict(
        final.startswith((PASSED, RAN)),
        final,
        placement,
        _verdict_text(final, report or {}),
        _placement_text(placement),
    )


def _verdict_text(line: str, report: dict[str, Any]) -> Text:
    if line.startswith(PASSED):
        return Text("REHEARSAL PASSED: the layout matches the plan. Nothing was trained.")
    if line.startswith(RAN):
        why = line.removeprefix(f"{RAN}; placement not verified: ")
        why = why.removesuffix(". Nothing was trained.")
        return Text(
            "REHEARSAL RAN; placement not verified: {why}. Nothing was trained.",
            why=Text("no plan was given") if why == NO_PLAN else why,
        )
    reason: Text | str = line.removeprefix(f"{FAILED}: ")
    said = report.get("said")
    if report.get("message") == reason and isinstance(said, dict):
        reason = Rendered(said)
    return Text("REHEARSAL FAILED: {reason}", reason=reason)


def _placement_text(line: str | None) -> Text | None:
    match = re.fullmatch(rf"{PLACEMENT}: (\d+) processes on (\d+) nodes as planned", line or "")
    if match is None:
        return None
    return Text(
        "placement verified: {processes} processes on {nodes} nodes as planned",
        processes=int(match[1]),
        nodes=int(match[2]),
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m rlark_widgets.backends.local.rehearsal PLAN.json", file=sys.stderr)
        return 2
    plan = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    rehearsal = Rehearsal(plan)
    code = 0
    try:
        rehearsal.run()
    except RehearsalFailure as exc:
        said = {lang: exc.text.render(lang) for lang in LANGUAGES}  # read back by status
        rehearsal.report.update(status="failed", message=str(exc), said=said)
        say(f"{FAILED}: {exc}")
        code = 1
    Path(plan["report"]).write_text(json.dumps(rehearsal.report, indent=1), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
