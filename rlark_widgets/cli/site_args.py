"""``--site FILE`` on every command: the site profile, else ``$RLARK_SITE``, else the example."""

from __future__ import annotations

import argparse

from ..i18n import Text, render
from ..rlark.site import SITE_ENV, SiteError, SiteProfile, resolve_site
from .config_args import UsageError


def add_site_argument(parser: argparse.ArgumentParser, default: str | None) -> None:
    """``--site`` before or after the command (a subcommand only sets it when given)."""
    parser.add_argument(
        "--site",
        metavar="FILE",
        default=default,
        help=f"site profile YAML from your platform admin: cluster and node-category labels, "
        f"device prefix, StorageClasses, reserved env names, Job API (default: ${SITE_ENV}, "
        f"else the shipped EXAMPLE, labelled as one in every output)",
    )


def read_site_arg(args: argparse.Namespace) -> None:
    """Read the profile the arguments name, once per command, before the command runs (the
    command and everything below it take it from :func:`site_of`); a usage error (exit 2) when
    it cannot be read."""
    try:
        args.site_profile = resolve_site(getattr(args, "site", None))
    except SiteError as exc:
        raise UsageError(Text("--site: {problem}", problem=render(exc.text, args.lang))) from None


def site_of(args: argparse.Namespace) -> SiteProfile:
    """The profile :func:`read_site_arg` read for this command."""
    site = args.site_profile
    assert isinstance(site, SiteProfile), "read_site_arg runs before every command"
    return site


def provenance_line(site: SiteProfile, lang: str) -> str:
    """The line every output that uses the profile prints (which values are examples)."""
    return render(site.provenance(), lang)
