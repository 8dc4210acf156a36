"""Shared pytest configuration: data fixtures, Hypothesis profiles and browser setup."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# `kube`, `kuberay`: emulated Kubernetes API servers; `rlinf_oracle`: RLinf's own placement code.
pytest_plugins = ["kube_emulator", "kuberay_emulator", "oracle.client"]

CHROMIUM_PATH = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Playwright fixtures whose use makes a test a browser test even without the marker.
PLAYWRIGHT_FIXTURES = frozenset({"browser", "browser_type", "context", "page", "new_context"})

# --- Hypothesis -------------------------------------------------------------------------------
# Pick with HYPOTHESIS_PROFILE=ci|dev|fuzz (default: dev).
# make test runs the same examples every time (derandomize): a red suite is reproducible, and
# the random search belongs to make fuzz.
settings.register_profile("dev", max_examples=50, deadline=None, derandomize=True)
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True)
settings.register_profile("fuzz", max_examples=10_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# --- Data fixtures ----------------------------------------------------------------------------
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def rlinf_configs_dir() -> Path:
    """RLinf's example and test configs, vendored under ``tests/data/rlinf-configs``."""
    return DATA / "rlinf-configs"


# --- Browser (pytest-playwright with Debian's Chromium) ---------------------------------------
def browser_required() -> bool:
    """Whether a missing browser must fail browser tests instead of skipping them."""
    return os.environ.get("RLARK_REQUIRE_BROWSER") == "1"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch the system Chromium; never a Playwright-downloaded browser."""
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM_PATH),
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS],
    }


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark tests that use Playwright fixtures as ``browser`` tests."""
    for item in items:
        if PLAYWRIGHT_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip browser tests without Chromium, or fail them if RLARK_REQUIRE_BROWSER=1."""
    if item.get_closest_marker("browser") is None or CHROMIUM_PATH.exists():
        return
    message = f"{CHROMIUM_PATH} not found (install it with: apt-get install -y chromium)"
    if browser_required():
        pytest.fail(f"RLARK_REQUIRE_BROWSER=1 but {message}", pytrace=False)
    pytest.skip(message)


# --- RLinf corpus -----------------------------------------------------------------------------
@pytest.fixture(scope="session")
def corpus_config(rlinf_configs_dir: Path):
    """Load a corpus config by path relative to ``rlinf-configs`` (cached for the session).

    Hydra composes with the searchpath variables pointed at the corpus, as RLinf's launch
    scripts would point them at an RLinf checkout.
    """
    from rlark_widgets.rlinf import load_config, rlinf_repo_env

    env = rlinf_repo_env(rlinf_configs_dir)
    cache: dict[tuple[str, bool], Any] = {}

    def load(relative: str, compose: bool = True):
        key = (relative, compose)
        if key not in cache:
            cache[key] = load_config(rlinf_configs_dir / relative, env=env, compose=compose)
        return cache[key]

    return load
