"""The corpus agrees with RLinf's own placement code at 8, 4, 2 and 1 GPUs per node.

Every config of the vendored corpus (``tests/data/rlinf-configs``) that has a cluster section is composed as RLinf's
launch scripts compose it (Hydra, with EMBODIED_PATH / REPO_PATH set) and expanded both by us
and by RLinf 0.3.0's own classes (``tests/oracle``). Verdicts, messages, every process row and
every per-node figure must agree. A config whose robot IPs are placeholders is compared twice:
RLinf's refusal must be one of our error findings, and with test IPs the placements must agree.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import CORPUS, PRIMARY
from oracle.compare import disagreement, with_test_ips

from rlark_widgets.rlinf import ConfigLoadError, inspect_config, load_config, rlinf_repo_env

GPUS_PER_NODE = (8, 4, 2, 1)


@pytest.fixture(scope="module")
def launcher_env(rlinf_configs_dir: Path) -> dict[str, str]:
    return rlinf_repo_env(rlinf_configs_dir)


@pytest.mark.parametrize("relative", PRIMARY)
def test_corpus_agrees_with_rlinf(relative: str, rlinf_oracle, launcher_env) -> None:
    file = CORPUS / relative
    try:
        config = load_config(file, env=launcher_env)
    except ConfigLoadError as error:
        theirs = rlinf_oracle.expand(file, 8, env=launcher_env)
        assert not theirs["ok"], f"RLinf composes it; we do not: {error.message}"
        return
    for gpus in GPUS_PER_NODE:
        ours = inspect_config(config, gpus, search_gpus=False, follow_config=False)
        theirs = rlinf_oracle.expand(file, gpus, env=launcher_env)
        problem = disagreement(ours, theirs)
        assert problem is None, f"{gpus} GPUs per node: {problem}"
        if not theirs["ok"] and "must be a valid IP address" in theirs["error"]:
            theirs = rlinf_oracle.expand(file, gpus, env=launcher_env, extra=["--fix-placeholders"])
            ours = inspect_config(
                with_test_ips(config), gpus, search_gpus=False, follow_config=False
            )
            problem = disagreement(ours, theirs)
            assert problem is None, f"{gpus} GPUs per node, test IPs: {problem}"


def test_corpus_is_all_there() -> None:
    """Guard: the parametrised test must not pass over an empty corpus."""
    assert len(PRIMARY) == 195
