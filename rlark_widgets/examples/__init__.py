"""Bundled example configs (trimmed from RLinf, Apache-2.0) and example inventories."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEFAULT_EXAMPLE = "maniskill_ppo_openvlaoft"


def _folder(name: str) -> Path:
    return Path(str(resources.files(__package__).joinpath(name)))


def example_configs() -> dict[str, Path]:
    """Example name -> YAML path, sorted by name."""
    return {p.stem: p for p in sorted(_folder("configs").glob("*.yaml"))}


def example_inventories() -> dict[str, Path]:
    return {p.stem: p for p in sorted(_folder("inventories").glob("*.yaml"))}
