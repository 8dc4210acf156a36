"""The RLinf config corpus, vendored as test data (``tests/data/rlinf-configs``)."""

from __future__ import annotations

from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent / "data" / "rlinf-configs"
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
