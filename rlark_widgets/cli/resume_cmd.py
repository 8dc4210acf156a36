"""``resubmit NAME --resume latest|global_step_N``: a new run from a persisted checkpoint."""

from __future__ import annotations

import argparse
import json

from ..findings import Severity
from ..i18n import Text, TextError, render
from ..resume import LATEST, Resumption, resume, resumed_text
from .backend_args import add_backend_arguments, backend_flags, backend_from_args
from .config_args import print_error
from .render import findings_text
from .terminal import say

EXIT_OK, EXIT_FAILED = 0, 1


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "resubmit",
        help="start a new run of a Job from one of its checkpoints (runner.resume_dir)",
        description="Find the checkpoint (latest: the highest global_step_N of any run of the "
        "Job), check it is under a mount of the Job and that its actor/ was read (on a cluster, "
        "through the head Worker), then submit the Job again with ++runner.resume_dir=<path> "
        "appended to the RLinf launch line (or replacing the override there); that one change is "
        "printed. The new Job goes through the same "
        "checks as submit. A run still in progress is refused unless --stop-running; an ended "
        "run whose Workers still run is stopped first (on KubeRay the old RayJob/RayCluster is "
        "deleted, its PVCs stay). Exit codes: 0 submitted, 1 refused or blocked.",
    )
    parser.add_argument("name", help="the Job's name")
    parser.add_argument(
        "--resume",
        default=LATEST,
        metavar="latest|global_step_N",
        help="the checkpoint to resume from (default: latest)",
    )
    parser.add_argument(
        "--stop-running",
        action="store_true",
        help="stop the run if it is still in progress (it loses its steps after the checkpoint)",
    )
    parser.add_argument("--json", action="store_true", help="print what was done as JSON")
    add_backend_arguments(parser)
    parser.set_defaults(run=run_resubmit)


def run_resubmit(args: argparse.Namespace) -> int:
    lang = args.lang
    try:
        done = resume(
            backend_from_args(args), args.name, args.resume, stop_running=args.stop_running
        )
    except TextError as exc:  # a refusal, or the backend failing
        if args.json:
            refused = {"message": render(exc.text, lang), "fix": render(exc.fix_text, lang)}
            say(json.dumps({"refused": refused}))
        print_error(exc.text, exc.fix_text, lang)
        return EXIT_FAILED
    if args.json:
        say(json.dumps(_as_json(done, lang), indent=2))
        return EXIT_OK if done.submission.result is not None else EXIT_FAILED
    say(resumed_text(done).render(lang))
    shown = [f for f in done.submission.findings if f.severity is not Severity.INFO]
    if shown:
        say(Text("Preflight").render(lang) + "\n" + findings_text(shown, lang))
    result = done.submission.result
    if result is None:
        count = len(done.submission.blocking)
        not_submitted = Text("Not submitted: {count} error(s) above.", count=count)
        say("\n" + not_submitted.render(lang), err=True)
        return EXIT_FAILED
    if not result.created:  # something else holds the name now: nothing of ours was started
        again = Text(
            "Not submitted again: {name}. {message}", name=result.name, message=result.text
        )
        say(again.render(lang), err=True)
        return EXIT_FAILED
    say(Text("Submitted: {name}. {message}", name=result.name, message=result.text).render(lang))
    if result.where:
        say(Text("Where: {where}", where=result.where_text).render(lang))
    command = f"rlark-migrate status {result.name} {backend_flags(args)} --watch"
    say(Text("Next: {command}", command=command).render(lang))
    return EXIT_OK


def _as_json(done: Resumption, lang: str) -> dict[str, object]:
    result = done.submission.result
    return {
        "job": done.job,
        "checkpoint": {"step": done.checkpoint.step, "path": done.checkpoint.path},
        "resume_dir": done.resume_dir,
        "first_step": done.checkpoint.step + 1,
        "change": done.change.render(lang),
        "stopped": render(done.stopped, lang) if done.stopped is not None else None,
        "findings": [f.to_dict(lang) for f in done.submission.findings],
        "submitted": result is not None and result.created,
        "message": render(result.text, lang) if result is not None else None,
    }
