"""``rlark-migrate``: the command-line face of the same core the app uses.

Exit codes: 0 done, 1 findings or failure (the config is rejected), 2 usage, 3 timeout.
Output is English or Chinese (``--lang``, default ``$RLARK_LANG``); JSON keys never change.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__
from ..i18n import LANGUAGES, Text, default_language
from ..output_files import redacted_terminal
from . import (
    admin_cmd,
    catalogue_cmd,
    check_cmd,
    export_cmd,
    inspect_cmd,
    inventory_cmd,
    job_cmds,
    plan_cmd,
    resume_cmd,
    sheet_cmd,
)
from .config_args import UsageError
from .site_args import add_site_argument

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT = 0, 1, 2, 3
COMMANDS = (
    inspect_cmd,
    plan_cmd,
    check_cmd,
    export_cmd,
    sheet_cmd,
    admin_cmd,
    inventory_cmd,
    job_cmds,
    resume_cmd,
    catalogue_cmd,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rlark-migrate",
        description="Move RLinf (Ray) workloads onto RLark (Kubernetes): read an RLinf config "
        "and see its nodes, GPUs and component processes exactly as RLinf will place them.",
        epilog="Exit codes: 0 done, 1 findings or failure (e.g. RLinf rejects the config), "
        "2 usage error, 3 timeout.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_lang_argument(parser, default_language())
    add_site_argument(parser, None)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(commands)
    for command in {id(p): p for p in commands.choices.values()}.values():
        add_lang_argument(command, argparse.SUPPRESS)  # absent after COMMAND: keep the global
        add_site_argument(command, argparse.SUPPRESS)
    return parser


def add_lang_argument(parser: argparse.ArgumentParser, default: str) -> None:
    """``--lang`` before or after the command: a subcommand only sets it when it is given."""
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=default,
        help="language of the output: en or zh (default: $RLARK_LANG, else en); "
        "JSON keys stay the same",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it prints, argparse's errors too, leaves redacted."""
    with redacted_terminal():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        message = Text("{prog}: error: {message}", prog=parser.prog, message=exc.text)
        print(message.render(args.lang), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(Text("Interrupted.").render(args.lang), file=sys.stderr)
        return EXIT_FAILED
