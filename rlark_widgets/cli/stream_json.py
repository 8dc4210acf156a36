"""``inspect --json`` written as it is produced: one line per process row, nothing held twice.

A 1,024-node config has 130,000 process rows; building them all as dicts and then one JSON
string held the plan three times over. Each row is formatted straight from its
:class:`ProcessPlacement` (its fields are ints, int tuples and a label), so the output is the
same JSON as ``json.dumps(report.to_json())`` with the row objects only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from ..rlinf import ConfigReport
from ..rlinf.strategies import ProcessPlacement

Write = Callable[[str], object]
BATCH = 4096  # rows per write: few calls, small buffers


class _Json:
    """Memoised JSON of the few distinct labels and rank tuples the rows repeat."""

    def __init__(self) -> None:
        self._cache: dict[object, str] = {}

    def __call__(self, value: str | tuple[int, ...]) -> str:
        text = self._cache.get(value)
        if text is None:
            text = self._cache[value] = json.dumps(
                list(value) if isinstance(value, tuple) else value
            )
        return text


def _rows(rows: Iterable[ProcessPlacement], dump: _Json) -> Iterable[str]:
    for p in rows:
        yield (
            f'{{"rank": {p.rank}, "node_rank": {p.node_rank}, "node_group": {dump(p.node_group)}, '
            f'"local_hardware_ranks": {dump(p.local_hardware_ranks)}, '
            f'"visible_accelerators": {dump(p.visible_accelerators)}, '
            f'"local_accelerator_rank": {p.local_accelerator_rank}, "local_rank": {p.local_rank}, '
            f'"local_world_size": {p.local_world_size}}}'
        )


def _lines(items: Iterable[str], write: Write, indent: str) -> None:
    """Comma-separated lines, written in batches."""
    batch: list[str] = []
    first = True
    for item in items:
        batch.append(("" if first else ",\n") + indent + item)
        first = False
        if len(batch) >= BATCH:
            write("".join(batch))
            batch.clear()
    write("".join(batch))


def write_report_json(report: ConfigReport, write: Write) -> None:
    """``report.to_json()`` as JSON, components and per-node figures streamed."""
    expansion = report.expansion
    head = report.to_json(components=False)
    write("{\n")
    for key, value in head.items():
        write(f"  {json.dumps(key)}: {json.dumps(value, default=str)},\n")
    write('  "per_node": {\n')
    _lines(
        (f'"{n}": {json.dumps(s.to_dict())}' for n, s in expansion.per_node.items()),
        write,
        "    ",
    )
    write('\n  },\n  "components": {')
    dump = _Json()
    for index, (name, component) in enumerate(sorted(expansion.components.items())):
        write(
            f'{"," if index else ""}\n    {json.dumps(name)}: {{"strategy": '
            f'{json.dumps(component.strategy)}, "world_size": {component.world_size}, '
            '"processes": [\n'
        )
        _lines(_rows(component.processes, dump), write, "      ")
        write("\n    ]}")
    write("\n  }\n}\n")
