"""The RLinf config corpus in ../shared (absent in a user's checkout: tests then skip)."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

SHARED = Path(os.environ.get("RLARK_SHARED_DIR") or Path(__file__).resolve().parents[2] / "shared")
CORPUS = SHARED / "rlinf-configs"
EXPECTED = sorted((CORPUS / "expected").glob("**/*.json"))


def primary_configs() -> list[str]:
    """Configs with a top-level cluster section (group files such as env/*.yaml have none)."""
    found = []
    for file in sorted([*CORPUS.glob("examples/**/*.yaml"), *CORPUS.glob("tests/**/*.yaml")]):
        document = yaml.safe_load(file.read_text())
        if isinstance(document, dict) and "cluster" in document:
            found.append(str(file.relative_to(CORPUS)))
    return found


PRIMARY = primary_configs()
