"""Our expansion equals RLinf's own (rlinf 0.3.0) on every file in rlinf-configs/expected/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from corpus import EXPECTED
from oracle.compare import with_test_ips

from rlark_widgets.rlinf import ConfigLoadError, inspect_config
from rlark_widgets.rlinf.ranks import format_ranks


def _rlinf_sentences(error: str) -> list[str]:
    """The sentences of RLinf's message (without the exception type and the 'caused by' tail)."""
    message = error.split(" | caused by")[0].split(": ", 1)[1]
    # We elide long rank lists ([0, 1, 2, ..., 31]); the meaning is the same.
    message = re.sub(
        r"\[(\d+(?:, \d+)*)\]",
        lambda m: format_ranks([int(x) for x in m.group(1).split(", ")]),
        message,
    )
    return [s.strip() for s in re.split(r"(?<=\.) ", message) if s.strip()]


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.stem)
def test_expansion_matches_rlinf(expected_file: Path, corpus_config) -> None:
    expected = json.loads(expected_file.read_text())
    try:
        config = corpus_config(expected["config"])
    except ConfigLoadError:
        # RLinf's oracle read configs Hydra cannot compose (a missing group) from the file alone.
        config = corpus_config(expected["config"], compose=False)
    # The golden files were made with the oracle's --fix-placeholders (test robot IPs).
    got = inspect_config(
        with_test_ips(config), expected["gpus_per_node"], search_gpus=False, follow_config=False
    )
    got = got.to_json()

    assert got["ok"] == expected["ok"], got["error"]
    assert got["task_type"] == expected["task_type"]
    assert got["placement_class"] == expected["placement_class"]
    if not expected["ok"]:
        for sentence in _rlinf_sentences(expected["error"]):
            assert sentence in got["error"]
        assert got["error_path"].startswith("cluster")
        return
    assert got["placement_mode"] == expected["placement_mode"]
    assert got["num_nodes"] == expected["num_nodes"]
    assert got["per_node"] == expected["per_node"]
    assert got["components"] == expected["components"]


def test_golden_corpus_present_or_skipped(rlinf_configs_dir: Path) -> None:
    """Guard: the parametrised test above must not silently run over an empty list."""
    assert len(EXPECTED) == 100
