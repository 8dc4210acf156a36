"""``rlark-migrate admin-request``: the message to send the platform admin, in zh or en."""

from __future__ import annotations

import argparse

from ..rlark.admin_request import build_admin_request
from .config_args import write_or_say
from .job_source import add_job_source_arguments, planned_from_source
from .output_args import add_output_argument


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "admin-request",
        help="the message to the platform admin: Worker groups, GPUs, devices, data, open questions",
        description="Write the message the seeds tell you to send the platform admin: Worker "
        "groups and counts, GPUs and devices per Worker, node-local data, robots and cameras per "
        "node, storage needs, and the node-selection questions still open (with the planned "
        "selectors when an inventory is given, to be confirmed by a global match).",
    )
    add_job_source_arguments(parser)
    add_output_argument(
        parser, "FILE", "write the message here instead of stdout", aliases=("--out",)
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    planned = planned_from_source(args)
    if planned is None or planned.job is None:
        return 1
    request = build_admin_request(planned, args.cluster)
    text = request.render(args.lang)
    return write_or_say(args, text)
