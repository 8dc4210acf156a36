"""Bounds on resolving a config's interpolations: steps, size and time.

OmegaConf resolves ``${a}`` by resolving ``a`` again every time it is named, with no memory: a
1 KB config whose keys each name the previous one twice (``k2: ${k1}${k1}``) takes 2**20 steps
at the 20th key, and the values double in length too. Before a value is resolved, its cost is
computed from the config as written (memoised, so this is linear); a value over the bounds,
or any value once the whole resolution has used its time or size, is kept as written and
reported as CFG-UNRESOLVED with the reason. These bounds are ours, not RLinf's.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from omegaconf import DictConfig, ListConfig

from ..i18n import Text
from ..safe_yaml import input_limit_bytes

#: Resolution steps one value may take (real configs take a few dozen).
MAX_STEPS = 1_000
#: Resolution steps the whole config may take.
MAX_TOTAL_STEPS = 20_000
#: Seconds the whole config's resolution may take.
MAX_SECONDS = 10.0
# A reference to another node: ${a.b}, ${.sibling}, ${..up.x}, ${l[0]} (not ${resolver:...}).
REFERENCE = re.compile(r"\$\{\s*([^${}:\s]+)\s*\}")


def _too_large() -> Text:
    return Text(
        "the resolved config would exceed the {limit}-byte input limit",
        limit=f"{input_limit_bytes():,}",
    )


@dataclass
class _Cost:
    steps: int
    size: int


def raw_tree(node: Any) -> Any:
    """The config as written (interpolations unresolved), as plain dicts and lists."""
    if isinstance(node, DictConfig):
        if node._is_missing() or node._is_none():  # noqa: SLF001
            return None
        return {str(k): raw_tree(node._get_node(k)) for k in node}  # noqa: SLF001
    if isinstance(node, ListConfig):
        if node._is_missing() or node._is_none():  # noqa: SLF001
            return None
        return [raw_tree(node._get_node(i)) for i in range(len(node))]  # noqa: SLF001
    return node._value() if hasattr(node, "_value") else node  # noqa: SLF001


def _split(path: str) -> list[str]:
    return [p for p in re.split(r"[.\[\]]", path) if p]


def reference_target(parent: tuple[str, ...], reference: str) -> tuple[str, ...]:
    """The path a reference written in the section ``parent`` names (``.x`` and ``..x`` are
    relative, as OmegaConf reads them)."""
    if not reference.startswith("."):
        return tuple(_split(reference))
    ups = len(reference) - len(reference.lstrip("."))
    base = parent[: max(len(parent) - ups + 1, 0)]
    return (*base, *_split(reference[ups:]))


@dataclass
class InterpolationBudget:
    """Decides, value by value, whether resolving it stays within the bounds."""

    root: Any
    deadline: float = field(default_factory=lambda: time.monotonic() + MAX_SECONDS)
    size_left: int = field(default_factory=input_limit_bytes)
    steps_left: int = MAX_TOTAL_STEPS
    _tree: Any = None
    _memo: dict[tuple[str, ...], _Cost] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._tree = raw_tree(self.root)

    def _lookup(self, parts: list[str]) -> Any:
        node = self._tree
        for part in parts:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node

    def cost(self, where: tuple[str, ...]) -> _Cost:
        """Steps and characters resolving the value at ``where`` takes (iterative, memoised)."""
        stack: list[tuple[tuple[str, ...], bool]] = [(where, False)]
        visiting: set[tuple[str, ...]] = set()
        while stack:
            path, expanded = stack.pop()
            if path in self._memo:
                continue
            value = self._lookup(list(path))
            children = self._children(path, value)
            if not expanded:
                if path in visiting:  # a cycle: OmegaConf reports it, it costs nothing more
                    self._memo[path] = _Cost(1, 0)
                    continue
                visiting.add(path)
                stack.append((path, True))
                stack.extend((c, False) for c in children if c not in self._memo)
                continue
            visiting.discard(path)
            own = len(REFERENCE.sub("", value)) if isinstance(value, str) else 1
            parts = [self._memo.get(c, _Cost(1, 0)) for c in children]
            # A section is materialised whole where it is referenced: its children count.
            self._memo[path] = _Cost(
                min(1 + sum(p.steps for p in parts), 10**12),
                min(own + sum(p.size for p in parts), 10**12),
            )
        return self._memo[where]

    def _children(self, path: tuple[str, ...], value: Any) -> list[tuple[str, ...]]:
        if isinstance(value, dict):
            return [(*path, k) for k in value]
        if isinstance(value, list):
            return [(*path, str(i)) for i in range(len(value))]
        if isinstance(value, str):
            parent = path[:-1]
            return [reference_target(parent, r) for r in REFERENCE.findall(value)]
        return []

    def alias(self, where: tuple[str, ...], raw: Any) -> tuple[str, ...]:
        """Where a value that is exactly one reference (``${a.b}``) points, else ``where``:
        the children of a referenced section are costed where they are written."""
        match = REFERENCE.fullmatch(raw.strip()) if isinstance(raw, str) else None
        return reference_target(where[:-1], match.group(1)) if match else where

    def refusal(self, where: tuple[str, ...]) -> Text | None:
        """Why the value at ``where`` is not resolved, or None to resolve it."""
        if time.monotonic() > self.deadline:
            return Text(
                "resolving the config took longer than {seconds} s", seconds=f"{MAX_SECONDS:g}"
            )
        cost = self.cost(where)
        if cost.steps > MAX_STEPS:
            return Text(
                "it takes more than {steps} resolution steps (interpolations nest too deep)",
                steps=f"{MAX_STEPS:,}",
            )
        if cost.size > self.size_left:
            return _too_large()
        if cost.steps > self.steps_left:
            return Text(
                "the config's interpolations take more than {steps} resolution steps in all",
                steps=f"{MAX_TOTAL_STEPS:,}",
            )
        self.steps_left -= cost.steps
        return None

    def spend(self, value: Any, where: tuple[str, ...]) -> Text | None:
        """Count a resolved value's size (a section: all it holds); the reason when it
        overdraws the budget."""
        size = len(value) if isinstance(value, str) else self.cost(where).size
        self.size_left -= size
        if self.size_left < 0:
            return _too_large()
        return None
