"""A Job from either source: a Job YAML (ours or the console's), or planned from --config.

``sheet`` and ``admin-request`` take the same inputs as ``submit`` without a backend: the Job
YAML (checked as ``check`` does) or the config plus the plan options.
"""

from __future__ import annotations

import argparse

from ..backends.base import BackendError
from ..pipeline import PlannedJob
from .config_args import add_config_arguments, print_error
from .plan_cmd import add_job_arguments, add_live_arguments, load_inventory_arg, planned_from_args
from .render import findings_text
from .terminal import say


def add_job_source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", nargs="?", metavar="JOB.yaml", help="a Job YAML (or use --config)")
    add_config_arguments(parser, positional=False)
    add_job_arguments(parser)
    add_live_arguments(parser)


def planned_from_source(args: argparse.Namespace) -> PlannedJob | None:
    """The Job and its findings (None: the config failed to load or plan; already printed)."""
    try:
        inventory = load_inventory_arg(args)
    except BackendError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return None
    planned = planned_from_args(args, inventory, console=True)
    if planned is not None and planned.job is None:
        say(findings_text(planned.findings, args.lang))
        return None
    return planned
