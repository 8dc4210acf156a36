"""plotly and anywidget are used through their internals: the installed versions must be the
ones pyproject.toml bounds them to (the versions ui/plotly_bundle.py was written for)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
BOUNDED = ("plotly", "anywidget")


def _requirements() -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    parsed = (Requirement(text) for text in project["dependencies"])
    return {r.name: r for r in parsed if r.name in BOUNDED}


def test_both_are_bounded_above_and_below() -> None:
    requirements = _requirements()
    assert sorted(requirements) == sorted(BOUNDED)
    for requirement in requirements.values():
        operators = {spec.operator for spec in requirement.specifier}
        assert {">=", "<"} <= operators, f"{requirement}: give a lower and an upper bound"


@pytest.mark.parametrize("name", BOUNDED)
def test_the_installed_version_is_within_the_bounds(name: str) -> None:
    requirement = _requirements()[name]
    installed = metadata.version(name)
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"{name} {installed} is installed, but pyproject.toml allows only {requirement}. "
        f"ui/plotly_bundle.py and ui/figures.py use {name}'s internals: check the figures "
        "still draw (tests/test_figures_browser.py), then move the bound."
    )
