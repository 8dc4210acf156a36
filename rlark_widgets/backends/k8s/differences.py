"""Where the object a server holds differs from the one we would submit (submit-once checks)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def spec_differences(
    ours: Any, theirs: Any, path: str = "spec", *, server_may_add: bool = False
) -> Iterator[str]:
    """Paths where two specs differ (lists element by element); ``server_may_add``: keys only
    the server's object has do not count (an operator's defaults)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        keys = ours.keys() if server_may_add else ours.keys() | theirs.keys()
        for key in sorted(keys):
            yield from spec_differences(
                ours.get(key), theirs.get(key), f"{path}.{key}", server_may_add=server_may_add
            )
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            yield from spec_differences(a, b, f"{path}[{index}]", server_may_add=server_may_add)
    elif ours != theirs:
        yield path
