"""The run script launches what RLinf's own launch scripts and docs launch for the config.

``tests/data/rlinf-configs/launchers.tsv`` (every ``bash examples/...sh CONFIG`` line of RLinf's
docs and examples) and ``launch-scripts.tsv`` (what each script runs) are the reference; the
package ships a copy, which must stay equal to them.
"""

from __future__ import annotations

import csv
from pathlib import PurePosixPath

import pytest
from corpus import CORPUS, PRIMARY

from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import inspect_config, load_text
from rlark_widgets.rlinf.launchers import documented_launchers, launcher_for
from rlark_widgets.rlinf.launchers import files as package_files

SHARED_TABLES = ("launchers.tsv", "launch-scripts.tsv", "launch-defaults.tsv")


def _table(name: str) -> list[dict[str, str]]:
    return list(csv.DictReader((CORPUS / name).read_text().splitlines(), delimiter="\t"))


def _reference_entry_points() -> dict[str, set[str]]:
    """config name -> the entry points (relative to RLinf) its documented launchers run."""
    scripts = {}
    for row in _table("launch-scripts.tsv"):
        directory = str(PurePosixPath(row["launch_script"]).parent)
        entry = row["entry_point"]
        if entry.startswith("${REPO_PATH}/"):
            entry = entry.removeprefix("${REPO_PATH}/")
        elif entry.startswith("${"):
            entry = directory + entry[entry.index("}") :].removeprefix("}")
        else:
            entry = f"{directory}/{entry}"
        scripts[row["launch_script"]] = entry
    found: dict[str, set[str]] = {}
    for row in _table("launchers.tsv"):
        found.setdefault(row["config_name"], set()).add(scripts[row["launch_script"]])
    return found


@pytest.fixture(scope="module")
def reference(rlinf_configs_dir) -> dict[str, set[str]]:
    return _reference_entry_points()


@pytest.mark.parametrize("name", SHARED_TABLES)
def test_packaged_tables_are_rlinfs(name: str, rlinf_configs_dir) -> None:
    packaged = package_files("rlark_widgets.rlinf").joinpath("launcher_data", name).read_text()
    assert packaged == (rlinf_configs_dir / name).read_text()


def test_every_documented_corpus_config_gets_rlinfs_entry_point(reference, corpus_config) -> None:
    names = {PurePosixPath(p).stem: p for p in PRIMARY}
    documented = sorted(set(names) & set(reference))
    assert len(documented) >= 60  # guard: the corpus and the docs overlap this much
    for name in documented:
        task_type = corpus_config(names[name], compose=False).task_type
        launcher = launcher_for(name, task_type)
        assert not launcher.inferred, name
        assert launcher.entry_point in reference[name], (name, launcher.entry_point)
        assert {launcher.entry_point, *launcher.alternatives} == reference[name], name


@pytest.mark.parametrize(
    ("name", "entry", "variable", "directory"),
    [
        (
            "realworld_pnp_dagger_openpi",
            "examples/embodiment/train_async.py",
            "EMBODIED_PATH",
            "examples/embodiment",
        ),
        ("behavior_pi05_vla", "examples/sft/train_vla_sft.py", "EMBODIED_PATH", "examples/sft"),
        (
            "cfg_rl_openpi",
            "examples/offline_rl/policy_optimization/cfg_rl/train_cfg.py",
            "EMBODIED_PATH",
            "examples/offline_rl/policy_optimization/cfg_rl",
        ),
        (
            "dosw1_collect_data",
            "examples/embodiment/collect_real_data.py",
            "EMBODIED_PATH",
            "examples/embodiment",
        ),
    ],
)
def test_launcher_examples(name: str, entry: str, variable: str, directory: str) -> None:
    launcher = launcher_for(name, "embodied")
    assert (launcher.entry_point, launcher.path_variable, launcher.directory) == (
        entry,
        variable,
        directory,
    )


def test_several_documented_launchers_are_named(reference) -> None:
    launcher = launcher_for("maniskill_dagger_mlp", "embodied")
    assert launcher.entry_point == "examples/embodiment/train_embodied_agent.py"
    assert launcher.alternatives == ("examples/embodiment/train_async.py",)
    assert documented_launchers()["maniskill_dagger_mlp"][0][1].startswith("docs/")


def test_run_script_launches_the_documented_entry_point(corpus_config) -> None:
    config = corpus_config("examples/embodiment/config/realworld_pnp_dagger_openpi.yaml")
    report = inspect_config(config, 8, search_gpus=False)
    assert not [f for f in report.findings if f.rule_id == "CFG-LAUNCHER"]
    job = build_job(
        plan_roles(report), JobSettings(image="registry.example.com/rlinf:1"), site=example_site()
    )
    assert "python examples/embodiment/train_async.py --config-path" in job.run_script
    assert "train_embodied_agent.py" not in job.run_script


def test_sft_run_script_exports_the_scripts_own_directory(corpus_config) -> None:
    """run_vla_sft.sh exports EMBODIED_PATH as examples/sft, where its configs live."""
    config = corpus_config("examples/sft/config/behavior_pi05_vla.yaml")
    report = inspect_config(config, 8, search_gpus=False)
    job = build_job(
        plan_roles(report), JobSettings(image="registry.example.com/rlinf:1"), site=example_site()
    )
    assert "EMBODIED_PATH=/workspace/RLinf/examples/sft" in job.run_script
    assert "python examples/sft/train_vla_sft.py --config-path" in job.run_script


def test_an_undocumented_config_gets_an_inferred_entry_point_and_says_so() -> None:
    config = load_text(
        "cluster: {num_nodes: 1, component_placement: {actor: all}}\n"
        "runner: {task_type: embodied}\n",
        source="my_new_async_config.yaml",
    )
    report = inspect_config(config, 8, search_gpus=False)
    [finding] = [f for f in report.findings if f.rule_id == "CFG-LAUNCHER"]
    assert finding.severity.value == "info"
    assert "examples/embodiment/train_async.py" in str(finding.message)
    assert "inferred" in str(finding.message)


def test_a_launch_scripts_default_config_is_launched_by_it(corpus_config) -> None:
    """Issue #24 item 6: run_embodiment.sh runs maniskill_ppo_openvlaoft when given no
    argument, so CFG-LAUNCHER does not say that nothing launches it."""
    launcher = launcher_for("maniskill_ppo_openvlaoft", "embodied")
    assert not launcher.inferred
    assert (launcher.launch_script, launcher.entry_point) == (
        "examples/embodiment/run_embodiment.sh",
        "examples/embodiment/train_embodied_agent.py",
    )
    config = corpus_config("examples/embodiment/config/maniskill_ppo_openvlaoft.yaml")
    findings = inspect_config(config, 8, search_gpus=False).findings
    said = [f for f in findings if f.rule_id == "CFG-LAUNCHER"]
    assert not any("No RLinf doc or example launches" in f.message for f in said), said
    assert not any("没有启动" in f.message_in("zh") for f in said)
