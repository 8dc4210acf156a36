"""The one check every command's output option passes: it is none of the command's inputs.

``plan CFG -o CFG``, ``export J -o J``, ``sheet J -o J`` and ``inventory -o $KUBECONFIG``
overwrote what the command had just read. :func:`refuse_outputs_over_inputs` runs before any
command (``main``), so no output option can be forgotten: it lists every output the arguments
name and every file they read, ``$KUBECONFIG`` and ``$RLARK_SITE`` included.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..output_files import refuse_inputs
from ..rlark.site import SITE_ENV

#: argparse destination -> the option a message names; every output option of every command.
#: (Keyword form: these are argparse destinations, not the contract's ``output`` mount.)
OUTPUT_OPTIONS = dict(output="-o", record="--record", zip="--zip")
#: argparse destinations that name a file the command reads.
INPUT_OPTIONS = ("job", "config", "inventory", "site", "kubeconfig")


def command_inputs(args: argparse.Namespace) -> list[str]:
    """Every file the command may read: its file options, the composed config file, the site
    profile and the kubeconfig files (``--kubeconfig``, else ``$KUBECONFIG``, else the default)."""
    found = [str(value) for name in INPUT_OPTIONS if (value := getattr(args, name, None))]
    config_dir, config_name = getattr(args, "config_dir", None), getattr(args, "config_name", None)
    if config_dir and config_name:
        found += [str(Path(config_dir, config_name)), str(Path(config_dir, f"{config_name}.yaml"))]
    if os.environ.get(SITE_ENV):
        found.append(os.environ[SITE_ENV])
    found += [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    found.append(str(Path("~/.kube/config").expanduser()))
    return found


def refuse_outputs_over_inputs(args: argparse.Namespace) -> None:
    """Raise :class:`..output_files.OutputError` when an output option names an input."""
    inputs = command_inputs(args)
    for name, option in OUTPUT_OPTIONS.items():
        value = getattr(args, name, None)
        if value and str(value) != "-":
            refuse_inputs(value, inputs, option)


def add_output_argument(
    parser: argparse.ArgumentParser,
    metavar: str,
    help: str,
    *,
    aliases: tuple[str, ...] = (),
    required: bool = False,
) -> None:
    """``-o/--output``: the one spelling of a command's output file in every command (``-o`` is
    never anything else); :func:`refuse_outputs_over_inputs` checks it before the command runs."""
    parser.add_argument("-o", "--output", *aliases, metavar=metavar, help=help, required=required)


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """``--force``: a run record may overwrite the files of an earlier record."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite record files already there (without it, an existing file is refused)",
    )
