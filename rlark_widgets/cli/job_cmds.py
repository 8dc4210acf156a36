"""``submit``, ``status``, ``logs``, ``stop``, ``delete`` and ``record`` on any backend."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..backends import policy_of
from ..backends.abilities import HoldsSubmittedObject, KeepsEarlierRuns
from ..backends.all_logs import all_logs, logs_zip
from ..backends.base import Backend, BackendError, job_names
from ..findings import Finding, Severity
from ..i18n import Text, render
from ..monitor.diagnosis import diagnose
from ..monitor.job_list import job_row, row_text
from ..monitor.log_levels import LEVELS, at_level
from ..monitor.log_search import appended, search
from ..monitor.notices import notices
from ..monitor.snapshot import RUNNING, JobPhase, JobSnapshot
from ..monitor.summary import age, summary_lines
from ..output_files import OutputError
from ..pipeline import submit_checked
from ..rlark.job import Job
from ..rlark.logs import RUN_LOG, clean_log
from ..rlark.planned import PlannedJob
from ..rlark.record import RecordError, snapshot_record
from ..rlark.secrets import redact
from .backend_args import add_backend_arguments, backend_flags, backend_from_args
from .config_args import (
    UsageError,
    add_config_arguments,
    print_error,
)
from .kuberay_args import add_kuberay_arguments
from .numbers import INT32_MAX, count, seconds
from .output_args import add_force_argument, add_output_argument, command_inputs
from .plan_cmd import add_job_arguments, load_inventory_arg, planned_from_args
from .render import findings_text
from .site_args import provenance_line
from .terminal import clear_screen, is_terminal, log_text, say
from .waiting import WAIT_TARGETS, wait_for

EXIT_OK, EXIT_FAILED, EXIT_TIMEOUT = 0, 1, 3
#: Records are artefacts to compare and attach to issues: always English, whatever --lang says.
RECORD_LANG = "en"
#: Notices (checkpoint, end, failure, stall) kept below the report while watching.
NOTICES_SHOWN = 10
#: Lines of a log read at most (a tail beyond it is a typo, and the server would refuse it).
MAX_TAIL = 1_000_000
#: The highest RLINF_NODE_RANK asked for (RLinf numbers its nodes from 0).
MAX_RANK = 65_535


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    submit = commands.add_parser(
        "submit",
        help="submit a Job (a Job YAML, or plan one from --config) to a backend",
        description="Preflight first (errors stop it), then submit the Job exactly once: a second "
        "submit of the same Job never creates another. Prints the Job's name and where to look next. "
        "--wait shows a live progress line until the Job reaches the target. Exit codes: 0 done, "
        "1 findings or failure, 2 usage, 3 timeout. Ctrl-C leaves the Job running.",
    )
    submit.add_argument("job", nargs="?", metavar="JOB.yaml", help="a Job YAML (or use --config)")
    add_config_arguments(submit, positional=False)
    add_job_arguments(submit, namespace=False)
    add_backend_arguments(submit)
    add_kuberay_arguments(submit.add_argument_group("KubeRay (with --backend kuberay)"))
    submit.add_argument(
        "--wait",
        choices=WAIT_TARGETS,
        help="wait until Ray members are all alive, all Workers run, or a checkpoint is written",
    )
    submit.add_argument(
        "--timeout", type=seconds(), default=900.0, help="seconds to wait (default 900)"
    )
    submit.add_argument(
        "--yes",
        action="store_true",
        help="local backend, a Job YAML: run its prepare scripts on this machine without asking "
        "(read them first: they run as you, not in a container)",
    )
    submit.add_argument(
        "--run-timeout",
        type=seconds(high=float(INT32_MAX)),
        metavar="SECONDS",
        help="local backend: end the run script after this long and fail the Job (default: "
        "no limit, since a real run may train for days)",
    )
    submit.set_defaults(run=run_submit)

    status = commands.add_parser(
        "status",
        help="a Job's Workers, Ray members, checkpoints and diagnosis",
        description="Per role the desired vs actual Workers and their phases, Ray members alive vs "
        "expected, the latest checkpoint and its age, and the diagnosis in plain words. --json gives "
        "the full snapshot; --watch refreshes in place until the Job has ended and its Workers are "
        "gone (a finished Job whose Workers still run is watched on, with a line saying that Stop "
        "releases them), printing each checkpoint, end, failure or stall on its own line.",
    )
    _name_and_backend(status)
    status.add_argument(
        "--json", action="store_true", help="print the full snapshot and diagnosis as JSON"
    )
    status.add_argument(
        "--watch",
        action="store_true",
        help="refresh until the Job has ended and its Workers are gone",
    )
    status.add_argument(
        "--interval",
        type=seconds(high=3600.0),
        default=5.0,
        help="seconds between refreshes (--watch)",
    )
    status.add_argument(
        "--timeout",
        type=seconds(),
        metavar="SECONDS",
        help="--watch: stop watching after this long, exit code 3 (default: until the Job ends)",
    )
    status.set_defaults(run=run_status)

    listing = commands.add_parser(
        "list",
        help="every Job the backend holds, with its phase, Workers, step and latest checkpoint",
        description="One line per Job (oldest first): phase, Workers running/expected, the "
        "latest step, the latest checkpoint and when it started. --json gives the rows as JSON.",
    )
    add_backend_arguments(listing)
    listing.add_argument("--json", action="store_true", help="print the rows as JSON")
    listing.set_defaults(run=run_list)

    logs = commands.add_parser(
        "logs",
        help="a Worker's log (default: the Header's), or the run script's (--run)",
        description="Print the tail of one of this run's Worker logs, or of the run script's "
        "output (--run), without terminal escapes and with secrets redacted; --level keeps the "
        "lines at a level or above; --run-id reads an earlier run's (local backend: each run's "
        "logs are kept).",
    )
    _name_and_backend(logs)
    which = logs.add_mutually_exclusive_group()
    which.add_argument("--worker", metavar="ROLE/INDEX", help="e.g. header/0 or franka/1")
    which.add_argument(
        "--rank", type=count(high=MAX_RANK), metavar="R", help="the Worker with RLINF_NODE_RANK R"
    )
    which.add_argument(
        "--run",
        action="store_true",
        dest="run_log",
        help="the run script's output (on the Header's Worker; for the rehearsal, its verdict)",
    )
    logs.add_argument(
        "--tail", type=count(high=MAX_TAIL), default=200, help="lines from the end (default 200)"
    )
    logs.add_argument(
        "--run-id",
        metavar="ID",
        help="local backend: an earlier run's log (its id, or the first 8 characters that a new "
        "submit prints); each run's logs are kept under <job>/runs/<run id>/",
    )
    logs.add_argument(
        "--level",
        choices=LEVELS,
        help="only lines at this level or above, read from each line's Ray, RLinf or Python "
        "logging header (a traceback keeps the level of the line that logged it)",
    )
    logs.set_defaults(run=run_logs)

    every = commands.add_parser(
        "logs-all",
        help="search every Worker's log and the run log at once, follow them, or zip them",
        description="Lines of every Worker's log (and the run log) that contain --grep, of the "
        "--worker(s) given, at --level or above, each prefixed by its Worker; --follow keeps "
        "printing new matching lines; --zip writes every log to one zip instead. Secrets are "
        "redacted as in run records.",
    )
    _name_and_backend(every)
    every.add_argument("--grep", default="", metavar="TEXT", help="case-insensitive text")
    every.add_argument(
        "--worker", action="append", metavar="ROLE/INDEX", help="only these Workers (or 'run')"
    )
    every.add_argument(
        "--level", choices=LEVELS, help="this level or above (read from each line's header)"
    )
    every.add_argument(
        "--tail", type=count(high=MAX_TAIL), default=2000, help="lines read per log (default 2000)"
    )
    every.add_argument("--follow", action="store_true", help="keep printing new matching lines")
    every.add_argument(
        "--interval",
        type=seconds(high=3600.0),
        default=2.0,
        help="seconds between reads (--follow)",
    )
    every.add_argument("--zip", type=Path, metavar="FILE.zip", help="write every log to a zip")
    every.set_defaults(run=run_logs_all)

    for verb, help_text in (
        ("stop", "stop a Job's Workers (a later start does not resume by itself)"),
        ("delete", "delete a Job and what the backend created for it"),
    ):
        parser = commands.add_parser(
            verb, help=help_text, description=help_text[0].upper() + help_text[1:] + "."
        )
        _name_and_backend(parser)
        if verb == "delete":
            parser.add_argument(
                "--yes",
                action="store_true",
                help="delete without asking (needed where there is no terminal to ask on)",
            )
        parser.set_defaults(run=run_stop if verb == "stop" else run_delete)

    record = commands.add_parser(
        "record",
        help="export a submitted Job's record (YAML, snapshot, logs)",
        description="Write the Job YAML, the latest snapshot, the diagnosis and "
        "every Worker's log tail (secrets redacted) to a directory or .zip.",
    )
    _name_and_backend(record)
    add_output_argument(
        record, "DIR|FILE.zip", "write the record to this directory or .zip", required=True
    )
    add_force_argument(record)
    record.set_defaults(run=run_record)


def _name_and_backend(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the Job's name")
    add_backend_arguments(parser)


def _backend(args: argparse.Namespace) -> Backend:
    return backend_from_args(args)


def _fail(exc: BackendError, lang: str) -> int:
    print_error(exc.text, exc.fix_text, lang)
    return EXIT_FAILED


def _say(message: Text | str, lang: str, *, flush: bool = False) -> None:
    say(render(message, lang), flush=flush)


def _planned(args: argparse.Namespace, backend: Backend) -> PlannedJob | None:
    """The Job to submit (from YAML, or planned from --config) and its findings; None: failed.

    Without --inventory, a backend's live nodes are the inventory (the plan's selectors and
    JOB-GPU-CAPACITY use what it read) when its policy says it has them (not the local one).
    """
    if args.inventory:
        inventory = load_inventory_arg(args)
    else:
        inventory = backend.inventory() if policy_of(backend.name).live_inventory else None
    planned = planned_from_args(args, inventory)
    if planned is not None and planned.job is None:
        say(findings_text(planned.findings, args.lang))
        return None
    return planned


NOT_CONFIRMED = Text(
    "Not submitted: the local backend would run this Job's prepare scripts on this machine."
    " Read them (the warning above names the roles), then submit again with --yes."
)


def _asker(lang: str) -> Callable[[list[Finding]], bool]:
    """Ask on a terminal whether to run the Job's prepare scripts here; elsewhere, say no."""

    def ask(findings: list[Finding]) -> bool:
        if not sys.stdin.isatty():
            return False
        say(findings_text(findings, lang))
        question = Text("Run these prepare scripts on this machine? [y/N] ").render(lang)
        try:
            return input(question).strip().lower() in ("y", "yes", "是")
        except EOFError:
            return False

    return ask


def run_submit(args: argparse.Namespace) -> int:
    lang = args.lang
    try:
        backend = _backend(args)
        planned = _planned(args, backend)
    except BackendError as exc:
        return _fail(exc, lang)
    if planned is None or planned.job is None:
        return EXIT_FAILED
    job = planned.job
    if args.namespace:
        job.namespace = args.namespace
    say(provenance_line(planned.site, lang))
    try:
        asks = bool(args.job) and not args.yes  # a Job YAML may be someone else's
        submission = submit_checked(backend, planned, _asker(lang) if asks else None)
        shown = [f for f in submission.findings if f.severity is not Severity.INFO]
        if shown:
            say(Text("Preflight").render(lang) + "\n" + findings_text(shown, lang))
        errors = [f for f in shown if f.severity is Severity.ERROR]
        not_blocking = [f for f in errors if f not in policy_of(backend.name).blocking(errors)]
        if not_blocking and submission.result is not None:
            note = Text(
                "{count} error(s) do not block a submission to the {backend} backend: {rules}",
                count=len(not_blocking),
                backend=backend.name,
                rules=", ".join(sorted({f.rule_id for f in not_blocking})),
            )
            say(note.render(lang))
        if submission.declined:
            say("\n" + NOT_CONFIRMED.render(lang), err=True)
            return EXIT_FAILED
        if submission.result is None:
            count = len(submission.blocking)
            not_submitted = Text("Not submitted: {count} error(s) above.", count=count)
            say("\n" + not_submitted.render(lang), err=True)
            return EXIT_FAILED
        result = submission.result
    except BackendError as exc:  # an interrupted submit says whether the Job exists
        return _fail(exc, lang)
    _say(
        Text("Submitted: {name}. {message}", name=result.name, message=result.text)
        if result.created
        else Text("Not submitted again: {name}. {message}", name=result.name, message=result.text),
        lang,
    )
    if result.conflict:  # a different Job holds the name: nothing of ours is there
        return EXIT_FAILED
    if result.where:
        _say(Text("Where: {where}", where=result.where_text), lang)
    flags = backend_flags(args)
    command = f"rlark-migrate status {result.name} {flags} --watch"
    _say(Text("Next: {command}", command=command), lang)
    if not args.wait:
        return EXIT_OK
    try:
        outcome = wait_for(lambda: backend.snapshot(job.name), args.wait, args.timeout, lang=lang)
    except KeyboardInterrupt:
        stop = f"rlark-migrate stop {job.name} {flags}"
        interrupted = Text(
            "Interrupted: the Job {job} keeps running. Stop it with: {command}",
            job=job.name,
            command=stop,
        )
        say("\n" + interrupted.render(lang))
        return EXIT_FAILED
    except BackendError as exc:
        return _fail(exc, lang)
    say(outcome.message)
    if outcome.reached:
        return EXIT_OK
    return EXIT_TIMEOUT if outcome.timed_out else EXIT_FAILED


def _desired(backend: Backend, name: str) -> dict[str, int]:
    job = backend.job(name)
    return {r.name: r.replicas for r in job.roles} if job else {}


def _pause(interval: float, deadline: float | None) -> None:
    """Sleep until the next refresh, never past ``--timeout``'s deadline."""
    left = interval if deadline is None else min(interval, deadline - time.monotonic())
    time.sleep(max(0.0, left))


def run_status(args: argparse.Namespace) -> int:
    try:
        backend = _backend(args)
        desired = _desired(backend, args.name)
        previous: JobSnapshot | None = None
        told: list[str] = []  # every notice of this watch, kept below the refreshed report
        # Without a terminal (a pipe, a log file) nothing is redrawn: the report is printed
        # once, then only its lines that changed and each notice once.
        redrawn = is_terminal()
        shown: list[str] = []
        said: set[str] = set()
        deadline = time.monotonic() + args.timeout if args.timeout else None
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                stopped = Text(
                    "Stopped watching after {seconds} s (--timeout); the Job keeps running.",
                    seconds=f"{args.timeout:g}",
                )
                say(stopped.render(args.lang), err=True)
                return EXIT_TIMEOUT
            try:
                snap = backend.snapshot(args.name)
            except BackendError as exc:  # a dropped or busy server: say so, keep watching
                if not (args.watch and getattr(exc, "transient", False)):
                    raise
                _fail(exc, args.lang)
                shown = []  # the report after a failed refresh is printed whole again
                _pause(args.interval, deadline)
                continue
            result = diagnose(snap)
            if args.json:
                data = snap.to_dict()
                say(
                    json.dumps(
                        {
                            "run": data["run"],
                            "snapshot": data,
                            "diagnosis": result.to_dict(args.lang),
                        },
                        indent=2,
                        default=str,
                    )
                )
            else:
                if args.watch and redrawn:
                    clear_screen()
                lines = summary_lines(snap, desired, result, args.lang)
                changed = lines if redrawn or not args.watch else _changed(lines, shown)
                if changed:
                    say("\n".join(changed))
                shown = lines
            if args.watch:
                new = [f"» {render(n.text, args.lang)}" for n in notices(previous, snap)]
                told = (told + new)[-NOTICES_SHOWN:]
                listed = told if redrawn else new
                if listed and not args.json:
                    say("\n".join(listed))
                previous = snap
            if not args.watch or snap.settled:
                return EXIT_OK if snap.exists and snap.phase != JobPhase.FAILED else EXIT_FAILED
            refreshing = Text(
                "(refreshing every {seconds} s; Ctrl-C stops watching, the Job keeps running)",
                seconds=f"{args.interval:g}",
            )
            # the Job is over while its Workers still hold their nodes; then how it refreshes
            for line in [render(_held(snap, args), args.lang)] * snap.ended + [
                render(refreshing, args.lang)
            ]:
                if redrawn or line not in said:
                    say(line, flush=True)
                    said.add(line)
            _pause(args.interval, deadline)
    except KeyboardInterrupt:
        say("\n" + Text("Stopped watching; the Job keeps running.").render(args.lang))
        return EXIT_OK
    except BackendError as exc:
        return _fail(exc, args.lang)


def _changed(lines: list[str], before: list[str]) -> list[str]:
    """The report's lines a log has not seen in the previous report (all of them the first time)."""
    seen = set(before)
    return [line for line in lines if line not in seen]


def _held(snap: JobSnapshot, args: argparse.Namespace) -> Text:
    """The line a watch prints while a finished Job still holds Workers (as the app says)."""
    return Text(
        "{job} has ended but still holds {count} Workers; Stop releases them: {command}",
        job=snap.job,
        count=sum(w.phase == RUNNING for w in snap.workers),
        command=f"rlark-migrate stop {snap.job} {backend_flags(args)}",
    )


def run_list(args: argparse.Namespace) -> int:
    try:
        backend = _backend(args)
        rows = [job_row(backend.snapshot(name)) for name in job_names(backend)]
    except BackendError as exc:
        return _fail(exc, args.lang)
    if args.json:
        say(json.dumps([row.to_dict() for row in rows], indent=2))
    elif not rows:
        _say(Text("No Jobs on the {backend} backend.", backend=backend.name), args.lang)
    now = time.time()
    for row in rows if not args.json else []:
        when = age(now - row.started) if row.started is not None else "-"
        _say(row_text(row, when), args.lang)
    return EXIT_OK


def _no_job(name: str, backend: Backend) -> BackendError:
    return BackendError(
        Text("No Job named {job} on {backend}.", job=name, backend=backend.name),
        Text("Check the name (and --namespace / --workspace)."),
    )


def run_logs(args: argparse.Namespace) -> int:
    try:
        backend = _backend(args)
        job = backend.job(args.name)
        if job is None:
            raise _no_job(args.name, backend)
        worker = args.worker or "header/0"
        if args.run_id is not None and not isinstance(backend, KeepsEarlierRuns):
            raise UsageError(
                Text(
                    "--run-id reads an earlier run's logs, which the {backend} backend does not"
                    " keep (on a cluster, a stopped run's pods and their logs are gone)",
                    backend=backend.name,
                )
            )
        if args.run_id is not None and args.rank is not None:
            raise UsageError(Text("--rank names a Worker of this run; use --worker with --run-id"))
        if args.run_log:
            worker = RUN_LOG
        elif args.rank is not None:
            snap = backend.snapshot(args.name)
            match = next((w for w in snap.workers if w.rank == args.rank), None)
            if match is None:
                raise UsageError(
                    Text(
                        "no Worker of {job} has RLINF_NODE_RANK {rank}",
                        job=args.name,
                        rank=args.rank,
                    )
                )
            worker = match.key
        elif args.worker is None:
            header = job.header
            worker = f"{header.name}/0" if header else worker
        # A log is the Worker's own output: secrets it printed are redacted as in records, and
        # terminal control sequences are shown, never obeyed.
        text = (
            backend.logs(args.name, worker, tail=args.tail, run_id=args.run_id)
            if isinstance(backend, KeepsEarlierRuns)
            else backend.logs(args.name, worker, tail=args.tail)
        )
        if args.level:  # levels are read as a person reads the lines: escapes stripped
            text = at_level(clean_log(text), args.level)
        say(log_text(redact(text)), end="")
    except BackendError as exc:
        return _fail(exc, args.lang)
    return EXIT_OK


def run_logs_all(args: argparse.Namespace) -> int:
    try:
        backend = _backend(args)
        if backend.job(args.name) is None:  # else --follow would wait forever for no Job
            raise _no_job(args.name, backend)
        logs = all_logs(backend, args.name, args.tail)
        if args.zip is not None:
            _say(
                Text(
                    "Wrote {count} logs to {path}",
                    count=len(logs),
                    path=str(logs_zip(logs, args.zip, inputs=command_inputs(args))),
                ),
                args.lang,
            )
            return EXIT_OK
        for line in search(logs, args.grep, args.worker, args.level):
            say(str(line), flush=True)
        while args.follow:
            time.sleep(args.interval)
            newer = all_logs(backend, args.name, args.tail)
            fresh = {
                worker: "\n".join(appended(logs.get(worker, "").splitlines(), text.splitlines()))
                for worker, text in newer.items()
            }
            for line in search(fresh, args.grep, args.worker, args.level):
                say(str(line), flush=True)
            logs = newer
    except KeyboardInterrupt:
        return EXIT_OK
    except BackendError as exc:
        return _fail(exc, args.lang)
    except OutputError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return EXIT_FAILED
    return EXIT_OK


def run_stop(args: argparse.Namespace) -> int:
    try:
        _say(_backend(args).stop(args.name), args.lang)
    except BackendError as exc:
        return _fail(exc, args.lang)
    return EXIT_OK


def run_delete(args: argparse.Namespace) -> int:
    """Delete after a yes: on a terminal it asks; elsewhere only ``--yes`` deletes (nothing
    can answer a question there, and a deleted Job's logs and outputs do not come back)."""
    if not args.yes:
        question = Text(
            "Delete Job '{name}' and what the backend created for it (its logs and outputs"
            " too)? [y/N] ",
            name=args.name,
        )
        if not sys.stdin.isatty():
            raise UsageError(
                Text(
                    "delete asks before it deletes Job '{name}', but there is no terminal to ask"
                    " on: add --yes to delete it.",
                    name=args.name,
                )
            )
        if input(question.render(args.lang)).strip().lower() not in ("y", "yes", "是"):
            _say(Text("Not deleted: {name}.", name=args.name), args.lang)
            return EXIT_OK
    try:
        _say(_backend(args).delete(args.name), args.lang)
    except BackendError as exc:
        return _fail(exc, args.lang)
    return EXIT_OK


def _submitted(backend: Backend, job: Job) -> dict[str, Any] | None:
    """What the backend holds when it is not the Job itself (KubeRay's RayJob/RayCluster)."""
    return backend.submitted(job.name) if isinstance(backend, HoldsSubmittedObject) else None


def run_record(args: argparse.Namespace) -> int:
    try:
        backend = _backend(args)
        job = backend.job(args.name)
        if job is None:
            raise _no_job(args.name, backend)
        snap = backend.snapshot(args.name)
        logs = {}
        for worker in snap.workers:
            try:
                logs[worker.key] = backend.logs(args.name, worker.key, 500, workers=snap.workers)
            except BackendError as exc:
                missing = Text("(log not available: {message})", message=exc.text)
                logs[worker.key] = missing.render(RECORD_LANG) + "\n"
        diagnosis = diagnose(snap).to_dict(RECORD_LANG)
        record = snapshot_record(job, snap.to_dict(), diagnosis, logs, _submitted(backend, job))
        _say(
            Text(
                "Record written to {path}",
                path=record.write(args.output, force=args.force, inputs=command_inputs(args)),
            ),
            args.lang,
        )
    except BackendError as exc:
        return _fail(exc, args.lang)
    except RecordError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return EXIT_FAILED
    return EXIT_OK
