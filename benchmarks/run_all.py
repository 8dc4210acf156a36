"""Run every ``bench_*.py`` here and write ``RESULTS.md`` (``make bench``)."""

from __future__ import annotations

import datetime
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import machine, print_table  # noqa: E402


def main() -> int:
    lines = [
        "# Benchmark results",
        "",
        f"Measured {datetime.date.today()} on {machine()}. Rerun with `make bench`.",
        "",
        "| benchmark | measure | value | target | verdict | note |",
        "|---|---|---|---|---|---|",
    ]
    missed = 0
    for path in sorted(HERE.glob("bench_*.py")):
        module = importlib.import_module(path.stem)
        results = module.run()
        print_table(path.stem, results)
        for r in results:
            target = f"<= {r.target:g} {r.unit}" if r.target is not None else "-"
            lines.append(
                f"| {path.stem} | {r.name} | {r.value:.3g} {r.unit} | {target} | {r.verdict} | {r.note} |"
            )
            missed += r.verdict == "MISSED"
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n")
    print(f"\nwrote {HERE / 'RESULTS.md'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
