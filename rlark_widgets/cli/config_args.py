"""Arguments shared by every command that reads an RLinf config (``plan_request`` parses them)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..i18n import Text, default_language, render
from ..output_files import OutputError, write_output
from .numbers import count, message_language
from .output_args import command_inputs
from .terminal import say


class UsageError(Exception):
    """The command line is wrong (exit code 2, like argparse's own errors); ``text`` in any language."""

    def __init__(self, text: Text | str) -> None:
        super().__init__(render(text))
        self.text = text


class _ConfigFile(argparse.Action):
    """``CONFIG`` or ``--config FILE``: one config, given either way.

    ``plan --config F`` works as ``submit --config F`` does; a positional that was not given
    (argparse calls it with None) leaves a ``--config`` value alone, and two different files
    are refused rather than one silently dropped.
    """

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        if values is None:
            return
        earlier = getattr(namespace, self.dest, None)
        if earlier is not None and earlier != values:
            message = Text(
                "two configs given ({first} and {second}): give CONFIG or --config FILE, once",
                first=earlier,
                second=values,
            )
            raise argparse.ArgumentError(
                self, message.render(message_language.get() or default_language())
            )
        setattr(namespace, self.dest, values)


def add_config_arguments(parser: argparse.ArgumentParser, *, positional: bool = True) -> None:
    """Config source, overrides, searchpath variables and GPU assumptions.

    Every command takes ``--config FILE``; ``positional=True`` also takes it as ``CONFIG`` (for
    commands whose positional argument is not a Job YAML). ``--override`` has no short form:
    ``-o`` is the output file in every command that writes one.
    """
    source = parser.add_argument_group("RLinf config")
    if positional:
        source.add_argument(
            "config",
            nargs="?",
            action=_ConfigFile,
            metavar="CONFIG",
            help="an RLinf YAML config file",
        )
    source.add_argument(
        "--config",
        dest="config",
        action=_ConfigFile,
        metavar="FILE",
        help="the RLinf YAML config"
        + (" (the same as CONFIG)" if positional else " (the Job's, to plan it or check against)"),
    )
    source.add_argument(
        "--config-dir", metavar="DIR", help="Hydra config directory (with --config-name)"
    )
    source.add_argument(
        "--config-name", metavar="NAME", help="config name in --config-dir (file stem)"
    )
    source.add_argument(
        "--override",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Hydra override, as RLinf launchers pass them (e.g. cluster.num_nodes=4); repeatable",
    )
    source.add_argument(
        "--env",
        dest="env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment variable for the config's searchpaths (e.g. EMBODIED_PATH=...); repeatable",
    )
    source.add_argument(
        "--rlinf-repo",
        metavar="DIR",
        help="an RLinf checkout: sets REPO_PATH, EMBODIED_PATH, ... as RLinf's launch scripts do",
    )
    source.add_argument(
        "--no-compose",
        action="store_true",
        help="read the file alone with OmegaConf instead of composing its defaults list with Hydra",
    )
    gpus = parser.add_argument_group("GPUs per node (RLinf discovers them at start; we assume)")
    exclusive = gpus.add_mutually_exclusive_group()
    exclusive.add_argument(
        "--gpus-per-node",
        type=count(),  # GpuLayout.parse checks its range
        default=8,
        metavar="N",
        help="the GPU count of every GPU node, 0 to 1,024 (default 8); nodes only in robot or "
        "CPU-only node groups get 0 unless --gpus-per-node-map names them",
    )
    exclusive.add_argument(
        "--gpus-per-node-map",
        metavar="RANK:N,...",
        help="GPUs per node rank, e.g. 0:8,1:4 (unlisted ranks get the largest)",
    )


def exc_text(exc: Exception) -> Text | str:
    """An exception's message as it carries it: its ``text`` (any language) or its English."""
    text = getattr(exc, "text", None)
    return text if isinstance(text, Text | str) and text else str(exc)


def print_error(message: Text | str, fix: Text | str, lang: str, path: str = "") -> None:
    """``error: [path: ]...`` and its ``fix: ...`` on stderr, in ``lang``."""
    error = (
        Text("error: {path}: {message}", path=path, message=message)
        if path
        else Text("error: {message}", message=message)
    )
    say(error.render(lang), err=True)
    if fix:
        say("  " + Text("fix: {fix}", fix=fix).render(lang), err=True)


def wrote_output(args: argparse.Namespace, text: str) -> bool:
    """``text`` written (redacted, atomically) to the file ``-o`` names, never over one of the
    command's inputs; else the answer why not on stderr (a missing folder, a directory, a full
    disk, an input) and False."""
    try:
        write_output(args.output, text, inputs=command_inputs(args), option="-o")
    except OutputError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return False
    return True


def write_or_say(args: argparse.Namespace, text: str) -> int:
    """A document command's ending: ``text`` to ``-o`` (saying so) or to stdout; its exit code."""
    if not args.output:
        say(text, end="")
        return 0
    if not wrote_output(args, text):
        return 1
    say(Text("Wrote {file}.", file=args.output).render(args.lang))
    return 0
