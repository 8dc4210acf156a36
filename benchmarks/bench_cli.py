"""The CLI as a whole process on 1,024 nodes x 8 GPUs, beside RLinf's own code on the same config.

``inspect --json``, ``inspect`` and ``plan`` each run as a fresh ``python -m rlark_widgets.cli``
process (imports, composition, expansion, the GPU-count search and all output to /dev/null);
wall time and peak RSS come from the kernel's accounting of that child. RLinf's own placement
code (the shared rlinf-oracle, built by ``make oracle``) expands the same file in the same run.
Targets: at most 2 s and 300 MB each, and at least 20x faster than RLinf (a time share of at
most 0.05).

Run: ``.venv/bin/python benchmarks/bench_cli.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_expansion import SYNTHETIC_CLUSTER  # noqa: E402
from common import REPO, SHARED, Result, print_table  # noqa: E402

from rlark_widgets.rlark.yaml_io import dump_yaml  # noqa: E402

COMMANDS = {
    "inspect --json": ["inspect", "--json"],
    "inspect": ["inspect"],
    "plan": ["plan"],
}
ORACLE_SCRIPT = SHARED / "tools" / "rlinf-oracle" / "oracle_expand.py"
ORACLE_PYTHON = Path(os.environ.get("RLARK_ORACLE_PYTHON") or REPO / ".oracle-venv/bin/python")
ROUNDS = int(os.environ.get("BENCH_CLI_ROUNDS", "3"))


def measure(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one child process, output discarded."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    stderr = child.stderr.read().decode() if child.stderr else ""
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):  # 1: findings with errors, still a full run
        raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}: {stderr[-500:]}")
    return wall, usage.ru_maxrss / 1024


def best(argv: list[str], rounds: int) -> tuple[float, float]:
    runs = [measure(argv) for _ in range(rounds)]
    return min(t for t, _ in runs), max(m for _, m in runs)


def run() -> list[Result]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "synthetic-1024.yaml"
        config.write_text(
            dump_yaml({"cluster": SYNTHETIC_CLUSTER, "runner": {"task_type": "embodied"}})
        )
        ours = {}
        for name, args in COMMANDS.items():
            argv = [sys.executable, "-m", "rlark_widgets.cli", args[0], str(config), *args[1:]]
            ours[name] = best([*argv, "--gpus-per-node", "8"], ROUNDS)
        rlinf = None
        if ORACLE_SCRIPT.is_file() and ORACLE_PYTHON.is_file():
            rlinf = measure(
                [str(ORACLE_PYTHON), str(ORACLE_SCRIPT), str(config), "--gpus-per-node", "8"]
            )
    for name, (seconds, megabytes) in ours.items():
        results.append(
            Result(
                f"{name}, whole process, 1,024 nodes x 8 GPUs",
                seconds,
                "s",
                2.0,
                f"best of {ROUNDS}",
            )
        )
        results.append(Result(f"{name}, peak RSS", megabytes, "MB", 300.0, "max of the rounds"))
        if rlinf is None:
            results.append(
                Result(
                    f"{name}, time share of RLinf's",
                    float("nan"),
                    "",
                    0.05,
                    "RLinf oracle not built (make oracle)",
                )
            )
            continue
        results.append(
            Result(
                f"{name}, time share of RLinf's own code",
                seconds / rlinf[0],
                "x",
                0.05,
                f"{rlinf[0] / seconds:.0f}x faster; RLinf 0.3.0 (oracle, whole process): "
                f"{rlinf[0]:.1f} s, {rlinf[1]:.0f} MB",
            )
        )
    return results


if __name__ == "__main__":
    print_table("CLI benchmark", run())
