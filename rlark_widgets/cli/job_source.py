"""A Job from either source: a Job YAML (ours or the console's), or planned from --config.

``sheet`` and ``admin-request`` take the same inputs as ``submit`` without a backend: the Job
YAML (checked as ``check`` does) or the config plus the plan options.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..backends.base import BackendError
from ..i18n import Text, render
from ..pipeline import PlannedJob, given_job, inspect
from ..rlark.yaml_io import JobYamlError, parse_job_yaml
from .config_args import (
    UsageError,
    add_config_arguments,
    exc_text,
    gpu_layout,
    has_config,
    load_from_args,
    print_error,
)
from .plan_cmd import add_job_arguments, add_live_arguments, load_inventory_arg, plan_from_args
from .render import findings_text
from .site_args import site_from_args


def add_job_source_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("job", nargs="?", metavar="JOB.yaml", help="a Job YAML (or use --config)")
    add_config_arguments(parser, positional=False, override_short=False)
    add_job_arguments(parser)
    add_live_arguments(parser)


def planned_from_source(args: argparse.Namespace) -> PlannedJob | None:
    """The Job and its findings (None: the config failed to load or plan; already printed)."""
    site = site_from_args(args)
    try:
        inventory = load_inventory_arg(args)
    except BackendError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return None
    if args.job:
        try:
            job = parse_job_yaml(Path(args.job).read_text(encoding="utf-8"), site)
        except (OSError, UnicodeDecodeError, JobYamlError) as exc:
            raise UsageError(f"{args.job}: {render(exc_text(exc), args.lang)}") from None
        report = None
        if has_config(args):
            config = load_from_args(args)
            if config is None:
                return None
            report = inspect(config, gpu_layout(args))
        return given_job(
            job, report, inventory, target_cluster=args.cluster, site=site, unknown_as_info=True
        )
    if not has_config(args):
        raise UsageError(Text("give a Job YAML or --config CONFIG to plan one"))
    planned = plan_from_args(args, inventory)
    if planned is not None and planned.job is None:
        print(findings_text(planned.findings, args.lang))
        return None
    return planned
