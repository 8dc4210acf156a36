"""Which RLinf entry script runs a config: taken from RLinf's own launch scripts and docs.

``launcher_data/launchers.tsv`` lists every ``bash examples/...sh CONFIG`` line of RLinf's
docs and examples; ``launch-defaults.tsv`` the config a script runs when given none (its
``CONFIG_NAME`` default); ``launch-scripts.tsv`` what each script runs. A config named there gets that
entry point; one named nowhere gets a default reasoned from its task type and name, marked as
inferred so the caller can say so.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import PurePosixPath

#: Entry points by runner.task_type when no RLinf doc launches the config (rlinf-cluster-spec
#: §4); None: no single script is known.
TASK_TYPE_ENTRY_POINTS = {
    "embodied": "examples/embodiment/train_embodied_agent.py",
    "embodied_eval": "evaluations/eval_embodied_agent.py",
    "reasoning": "examples/reasoning/main_grpo.py",
    "coding_online_rl": None,
    "reasoning_eval": None,
    "sft": None,
    "offline": None,
}
_VARIABLE = re.compile(r"^\$\{(\w+)\}/")
#: EMBODIED_PATH where the launch script exports no directory of its own (reasoning scripts):
#: the embodied configs' Hydra searchpath still reads it.
DEFAULT_DIRECTORY = "examples/embodiment"


@dataclass(frozen=True)
class Launcher:
    """How RLinf launches a config: the entry script and the variable naming its directory."""

    entry_point: str | None  # relative to the RLinf checkout
    launch_script: str | None = None
    source: str | None = None  # where RLinf's docs launch it (file:line); None: inferred
    path_variable: str = "EMBODIED_PATH"  # the launch script's exported directory variable
    directory: str = DEFAULT_DIRECTORY  # what ``path_variable`` points at (relative)
    alternatives: tuple[str, ...] = ()  # other entry points RLinf's docs also use for it

    @property
    def inferred(self) -> bool:
        return self.source is None


def _rows(name: str) -> list[dict[str, str]]:
    text = files(__package__).joinpath("launcher_data", name).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines(), delimiter="\t"))


@cache
def _entry_points() -> dict[str, tuple[str, str, str]]:
    """launch script -> (entry point, path variable, its directory), relative to the checkout.

    Each script exports its own directory (EMBODIED_PATH, REWARD_PATH, SCRIPT_DIR, ...) and
    names the entry script under it, or under REPO_PATH, or bare after ``cd``-ing there.
    """
    table = {}
    for row in _rows("launch-scripts.tsv"):
        script, entry = row["launch_script"], row["entry_point"]
        directory = str(PurePosixPath(script).parent)
        match = _VARIABLE.match(entry)
        if match and match.group(1) == "REPO_PATH":
            table[script] = (entry[match.end() :], "EMBODIED_PATH", DEFAULT_DIRECTORY)
            continue
        variable = (
            "EMBODIED_PATH" if not match or match.group(1) == "SCRIPT_DIR" else match.group(1)
        )
        name = entry[match.end() :] if match else entry
        table[script] = (f"{directory}/{name}", variable, directory)
    return table


@cache
def documented_launchers() -> dict[str, list[tuple[str, str]]]:
    """config name -> [(launch script, source line)] in the order RLinf's docs give them."""
    launchers: dict[str, list[tuple[str, str]]] = {}
    for row in _rows("launchers.tsv"):
        launchers.setdefault(row["config_name"], []).append((row["launch_script"], row["source"]))
    for found in launchers.values():
        found.sort(key=lambda launcher: _source_order(launcher[1]))
    return launchers


@cache
def default_launchers() -> dict[str, tuple[str, str]]:
    """config name -> (launch script, source) for the config a launch script runs when it is
    given no argument (``CONFIG_NAME`` defaults): running the script bare launches it too."""
    return {
        row["config_name"]: (row["launch_script"], row["source"])
        for row in _rows("launch-defaults.tsv")
    }


def _source_order(source: str) -> tuple[str, int]:
    """``docs/x.rst:360`` sorts before ``docs/x.rst:371`` (numerically, not as text)."""
    file, _, line = source.rpartition(":")
    return (file, int(line)) if line.isdigit() else (source, 0)


def launcher_for(config_name: str, task_type: str | None) -> Launcher:
    """RLinf's launcher for ``config_name``; the first one its docs give when there are several."""
    documented = documented_launchers().get(config_name) or (
        [default_launchers()[config_name]] if config_name in default_launchers() else None
    )
    if documented:
        scripts = _entry_points()
        script, source = documented[0]
        entry, variable, directory = scripts.get(script, (None, "EMBODIED_PATH", DEFAULT_DIRECTORY))
        others = tuple(
            dict.fromkeys(
                scripts[s][0] for s, _ in documented[1:] if s in scripts and scripts[s][0] != entry
            )
        )
        return Launcher(entry, script, source, variable, directory, others)
    return Launcher(_inferred_entry_point(config_name, task_type or "embodied"))


def _inferred_entry_point(name: str, task_type: str) -> str | None:
    """A reasoned default: RLinf's realworld/async and data-collection configs use their own
    scripts (run_realworld_async.sh, run_async.sh, collect_data.sh); the rest follow the task type."""
    if task_type in ("embodied", "embodied_eval") and "collect" in name:
        return "examples/embodiment/collect_real_data.py"
    if task_type == "embodied" and "async" in name:
        return "examples/embodiment/train_async.py"
    return TASK_TYPE_ENTRY_POINTS.get(task_type)
