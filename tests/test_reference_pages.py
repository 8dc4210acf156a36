"""The reference pages (docs/reference) are what the code says now: they cannot drift."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
sys.path.insert(0, str(DOCS))

import reference  # noqa: E402


def test_every_reference_page_is_what_the_code_says() -> None:
    assert reference.stale() == [], "run: python docs/reference.py"


def test_the_cli_page_has_every_command_and_its_options() -> None:
    from rlark_widgets.cli import build_parser

    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    for name, command in reference._parsers(build_parser()):
        assert f"## `{name}`" in page
        for action in command._actions:
            for flag in action.option_strings:
                assert flag in page, (name, flag)
