"""Run every ``bench_*.py`` here, write ``RESULTS.md`` and the table of the benchmarks page
(``docs/guide/benchmarks.md``; ``make bench``).

The table sits between the page's two BENCH markers, so it always shows the latest run and the
machine it ran on.
"""

from __future__ import annotations

import datetime
import importlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import machine, print_table  # noqa: E402

README = HERE.parent / "docs" / "guide" / "benchmarks.md"
START, END = "<!-- BENCH:START (make bench writes this table) -->", "<!-- BENCH:END -->"


def update_readme(table: list[str]) -> None:
    text = README.read_text(encoding="utf-8")
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    README.write_text(before + START + "\n" + "\n".join(table) + "\n" + END + after, "utf-8")


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
        try:
            results = importlib.import_module(path.stem).run()
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            lines.append(f"| {path.stem} | did not finish | - | - | FAILED | {exc!r} |")
            print(f"\n{path.stem} FAILED: {exc!r}")
            missed += 1
            continue
        print_table(path.stem, results)
        for r in results:
            target = f"<= {r.target:g} {r.unit}" if r.target is not None else "-"
            lines.append(
                f"| {path.stem} | {r.name} | {r.value:.3g} {r.unit} | {target} | {r.verdict} | {r.note} |"
            )
            missed += r.verdict == "MISSED"
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n")
    update_readme(lines[2:])
    print(f"\nwrote {HERE / 'RESULTS.md'} and the table in {README}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
