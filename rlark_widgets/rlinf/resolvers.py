"""OmegaConf resolvers RLinf registers on import, so configs resolve without RLinf installed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omegaconf import OmegaConf

from ..safe_yaml import input_limit_bytes

#: Our bound, not RLinf's: products beyond it are typos or bombs (a config's chain of
#: ``${multiply:${a},${a}}`` doubles the digits at each key).
MAX_PRODUCT_BITS = 256


def _multiply(x: Any, y: Any) -> Any:
    """RLinf's ``x * y``, refusing results no config means: ``'x' * 10**9`` is a gigabyte."""
    if isinstance(x, int) and isinstance(y, int):
        if x.bit_length() + y.bit_length() > MAX_PRODUCT_BITS:
            raise ValueError(f"the product has more than {MAX_PRODUCT_BITS} bits")
        return x * y
    sequence, times = (x, y) if isinstance(y, int) else (y, x)
    repeats = isinstance(sequence, str | list | tuple) and isinstance(times, int)
    limit = input_limit_bytes()
    if repeats and len(sequence) * times > limit:
        raise ValueError(f"the repeated value is longer than the {limit:,}-byte input limit")
    return x * y


def _torch_dtype(name: str) -> str:
    # RLinf returns getattr(torch, name); the planner only needs a stable, readable value.
    return f"torch.{name}"


RESOLVERS: dict[str, Callable[..., Any]] = {
    "multiply": _multiply,
    "int_div": lambda x, y: x // y,
    "subtract": lambda x, y: x - y,
    "not": lambda x: not bool(x),
    "torch.dtype": _torch_dtype,
}


def register_rlinf_resolvers() -> None:
    """Register RLinf's resolvers (idempotent; safe to call before every load)."""
    for name, func in RESOLVERS.items():
        if not OmegaConf.has_resolver(name):
            OmegaConf.register_new_resolver(name, func)
