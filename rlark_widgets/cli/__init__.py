"""``rlark-migrate``: the command-line face of the same core the app uses.

Exit codes: 0 done, 1 findings or failure (the config is rejected), 2 usage, 3 timeout.
Output is English or Chinese (``--lang``, default ``$RLARK_LANG``); JSON keys never change.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence

from .. import __version__
from ..failures import FAILURES, explain
from ..i18n import LANGUAGES, Text, default_language
from ..output_files import OutputError, redacted_terminal
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
from .config_args import UsageError, print_error
from .numbers import message_language
from .output_args import refuse_outputs_over_inputs
from .site_args import add_site_argument, site_from_args
from .terminal import Parser, say

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
    parser = Parser(
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


def _language(argv: Sequence[str] | None) -> str:
    """``--lang`` as given anywhere on the command line, before the full parse runs the types."""
    peek = argparse.ArgumentParser(add_help=False)
    peek.add_argument("--lang", choices=LANGUAGES, default=default_language())
    with contextlib.suppress(SystemExit):  # a bad --lang: the full parse says so
        return str(peek.parse_known_args(argv)[0].lang)
    return default_language()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it prints, argparse's errors too, leaves redacted."""
    with redacted_terminal():
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    """The one error boundary of ``rlark-migrate``: every failure ends in words and an exit code.

    A command words the failures it expects (findings, BackendError); what escapes it (an OS,
    network or API failure) is explained by :func:`..failures.explain`, exit code 1.
    """
    parser = build_parser()
    token = message_language.set(_language(argv))
    try:
        args = parser.parse_args(argv)
    finally:
        message_language.reset(token)
    try:
        refuse_outputs_over_inputs(args)
    except OutputError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return EXIT_USAGE
    try:
        site_from_args(args)  # a --site naming no readable profile is refused by every command
        return int(args.run(args))
    except UsageError as exc:
        say(parser.format_usage(), err=True, end="")
        message = Text("{prog}: error: {message}", prog=parser.prog, message=exc.text)
        say(message.render(args.lang), err=True)
        return EXIT_USAGE
    except KeyboardInterrupt:
        say(Text("Interrupted.").render(args.lang), err=True)
        return EXIT_FAILED
    except FAILURES as exc:
        explained = explain(exc)
        if explained is None:  # not reached: explain() has words for every class it lists
            raise
        print_error(explained.text, explained.fix_text, args.lang)
        return EXIT_FAILED
