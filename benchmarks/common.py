"""Shared helpers for benchmarks: a result row, timing, peak memory and table printing."""

from __future__ import annotations

import gc
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@dataclass
class Result:
    """One measured figure against its target (``target`` is an upper bound)."""

    name: str
    value: float
    unit: str
    target: float | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        if self.target is None:
            return "-"
        return "ok" if self.value <= self.target else "MISSED"


def best_time(func: Callable[[], object], rounds: int = 5) -> tuple[float, float]:
    """(best, median) wall time in seconds over ``rounds`` calls, collecting garbage between."""
    times = []
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def peak_memory_mb(func: Callable[[], object]) -> float:
    """Peak Python heap allocated while ``func`` runs (tracemalloc), in MB."""
    gc.collect()
    tracemalloc.start()
    try:
        result = func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return peak / 1e6


def machine() -> str:
    """CPU model and count, memory, OS and Python: what a reader needs to compare figures."""
    import os

    cpu, memory = platform.processor() or platform.machine(), ""
    info = Path("/proc/cpuinfo")
    if info.is_file():
        models = [
            line.split(":", 1)[1].strip()
            for line in info.read_text().splitlines()
            if line.startswith("model name")
        ]
        cpu = models[0] if models else cpu
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        kib = int(meminfo.read_text().split("MemTotal:", 1)[1].split()[0])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    return (
        f"{cpu} ({platform.machine()}), {os.cpu_count()} CPUs{memory}, {platform.system()} "
        f"{platform.release()}, {platform.python_implementation()} {platform.python_version()}"
    )


def print_table(title: str, results: list[Result]) -> None:
    print(f"\n{title}  ({machine()})")
    rows = [("measure", "value", "target", "verdict", "note")]
    for r in results:
        target = f"<= {r.target:g} {r.unit}" if r.target is not None else "-"
        rows.append((r.name, f"{r.value:.3g} {r.unit}", target, r.verdict, r.note))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if index == 0:
            print("  ".join("-" * w for w in widths))
