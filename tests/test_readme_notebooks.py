"""The README says how to open the notebooks, and the command it names works as root (#24 item
18: ``jupyter lab`` as root refuses to start without ``--allow-root``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("readme", ["README.md", "README.zh.md"])
def test_the_readme_says_how_to_open_the_notebooks(readme: str) -> None:
    text = (REPO / readme).read_text(encoding="utf-8")
    assert "`make lab`" in text and "`notebooks/`" in text and "--allow-root" in text
    assert "00-the-whole-chain.en.ipynb" in text or "00-the-whole-chain" in text


def _lab_command() -> str:
    """What ``make lab`` runs (``make -n`` prints it without running it)."""
    dry_run = subprocess.run(
        ["make", "-n", "lab"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    return next(line for line in dry_run.splitlines() if "jupyter lab notebooks" in line)


def test_make_lab_adds_allow_root_as_root_only() -> None:
    command = "echo " + _lab_command().split(" ", 1)[1]  # the jupyter binary echoed
    shown = subprocess.run(["bash", "-c", command], capture_output=True, text=True).stdout
    assert shown.split()[-1] == ("--allow-root" if os.getuid() == 0 else "notebooks")
