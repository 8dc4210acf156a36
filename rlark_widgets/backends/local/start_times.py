"""How long a Worker takes to join Ray on this machine, from the runs the workspace kept.

The submit message said "roughly 15-45 s each on a small machine" while a busy 2-core machine
took over 110 s. The expected time now comes from what this workspace measured: each Worker's
launch to its node ALIVE (``started`` and ``joined`` in ``state.json``, the supervisor's record)
over the most recent runs; with none yet, the benchmark's idle figure, said as such.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from ...i18n import Text
from .layout import EARLIER_RUNS

#: The run records read, newest first: enough to follow the machine's load, few to read.
RECENT_RUNS = 10
#: A Worker record's launch and ALIVE times (seconds since the epoch).
TIMES = ("started", "joined")


def join_seconds(workspace: Path) -> list[float]:
    """Launch-to-ALIVE seconds of every Worker that joined in the newest recorded runs."""
    records = [*workspace.glob("*/state.json"), *workspace.glob(f"*/{EARLIER_RUNS}/*/state.json")]
    newest = sorted(records, key=_mtime, reverse=True)[:RECENT_RUNS]
    found: list[float] = []
    for path in newest:
        try:
            workers = json.loads(path.read_text(encoding="utf-8")).get("workers", {})
        except (OSError, ValueError, AttributeError):
            continue  # being replaced, or not ours: nothing measured there
        for record in workers.values() if isinstance(workers, dict) else ():
            started, joined = (record.get(k) if isinstance(record, dict) else None for k in TIMES)
            if (
                isinstance(started, int | float)
                and isinstance(joined, int | float)
                and joined >= started
            ):
                found.append(float(joined - started))
    return found


def start_estimate(workspace: Path) -> Text:
    """How long each Worker is expected to take to join, as this machine measured it."""
    seconds = join_seconds(workspace)
    if not seconds:
        return Text(
            "about 12-16 s each on an idle 2-core machine (benchmarks/RESULTS.md), longer when "
            "it is busy; nothing measured here yet"
        )
    return Text(
        "{typical} s each in the recent runs here, up to {slowest} s",
        typical=f"{statistics.median(seconds):.0f}",
        slowest=f"{max(seconds):.0f}",
    )


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
