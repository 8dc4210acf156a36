"""OmegaConf resolvers RLinf registers on import, so configs resolve without RLinf installed."""

from __future__ import annotations

from omegaconf import OmegaConf


def _torch_dtype(name: str) -> str:
    # RLinf returns getattr(torch, name); the planner only needs a stable, readable value.
    return f"torch.{name}"


RESOLVERS = {
    "multiply": lambda x, y: x * y,
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
