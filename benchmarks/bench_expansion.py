"""Expansion speed and memory: the 1,024-node x 8-GPU synthetic cluster, and config composition.

Run: ``.venv/bin/python benchmarks/bench_expansion.py`` (no arguments; prints a table).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import SHARED, Result, best_time, peak_memory_mb, print_table  # noqa: E402

from rlark_widgets.rlinf import (
    expand_placement,
    inspect_config,
    load_config,
    parse_cluster,
    rlinf_repo_env,
)  # noqa: E402

SYNTHETIC_CLUSTER = {
    "num_nodes": 1024,
    "component_placement": {
        "actor": "all",
        "rollout": "0-4095",
        "env": "0-4095:0-16383",
        "agent": {"node_group": "node", "placement": "0-1023:0-102399"},
    },
}
TYPICAL_EMBODIED = "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml"


def synthetic_expansion():
    expansion = expand_placement(parse_cluster(SYNTHETIC_CLUSTER), 8)
    if expansion.error is not None:
        raise expansion.error
    _ = expansion.per_node  # the per-node summary is part of what a user sees
    return expansion


def run() -> list[Result]:
    rows = synthetic_expansion().total_processes
    best, median = best_time(synthetic_expansion, rounds=5)
    results = [
        Result(
            "expand 1,024 nodes x 8 GPUs",
            best,
            "s",
            1.0,
            f"{rows:,} process rows; median {median:.2f} s",
        ),
        Result(
            "expand 1,024 nodes x 8 GPUs, peak memory",
            peak_memory_mb(synthetic_expansion),
            "MB",
            300.0,
            "tracemalloc peak",
        ),
    ]
    corpus = SHARED / "rlinf-configs"
    if corpus.is_dir():
        env = rlinf_repo_env(corpus)

        def compose_and_parse():
            report = inspect_config(
                load_config(corpus / TYPICAL_EMBODIED, env=env), 8, search_gpus=False
            )
            if report.expansion.error is not None:
                raise report.expansion.error

        compose_and_parse()  # first call imports Hydra; a session pays that once
        best, median = best_time(compose_and_parse, rounds=5)
        results.append(
            Result(
                "compose + parse + expand a typical embodied config",
                best * 1000,
                "ms",
                300.0,
                f"{TYPICAL_EMBODIED.rsplit('/', 1)[-1]}; median {median * 1000:.0f} ms",
            )
        )
    return results


if __name__ == "__main__":
    print_table("Expansion benchmark", run())
