"""``rlark-migrate inspect``: the config as RLinf will place it, with every finding."""

from __future__ import annotations

import argparse
import json

from ..findings import has_errors
from ..rlinf import inspect_config
from .config_args import add_config_arguments
from .plan_request import plan_request
from .render import report_lines, write_lines
from .stream_json import write_report_json
from .terminal import say, write


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "inspect",
        help="show an RLinf config's nodes, GPUs and component processes",
        description="Compose an RLinf config like RLinf does and expand its component_placement "
        "on assumed GPUs per node: nodes, node groups, components, a per-node table, the "
        "execution mode and findings. Exit code 1 when RLinf would reject the config, when it is "
        "parsed or when the cluster starts (e.g. placeholder robot IPs).",
    )
    add_config_arguments(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the expansion as JSON (the fields of rlinf-configs/expected/*.json)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    request = plan_request(args)
    if request is None:
        if args.json:
            say(json.dumps({"ok": False, "error": "config could not be loaded"}))
        return 1
    report = inspect_config(request.config, request.gpus)
    if args.json:
        write_report_json(report, write)
    else:
        write_lines(report_lines(report, args.lang), write)
    return 0 if report.ok and not has_errors(report.findings) else 1
