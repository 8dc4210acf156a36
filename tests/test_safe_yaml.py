"""Alias bombs are refused by every YAML reader before anything expands."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlark_widgets.rlark.inventory import InventoryError, load_inventory
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import JobYamlError, parse_job_yaml
from rlark_widgets.rlinf import ConfigLoadError, load_config, load_text

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(24)
)


def test_config_file_bomb(tmp_path: Path) -> None:
    file = tmp_path / "bomb.yaml"
    file.write_text(BOMB)
    with pytest.raises(ConfigLoadError, match="alias bomb"):
        load_config(file)
    with pytest.raises(ConfigLoadError, match="alias bomb"):
        load_text(BOMB, "bomb.yaml")


def test_job_yaml_and_inventory_bombs(tmp_path: Path) -> None:
    with pytest.raises(JobYamlError, match="alias bomb"):
        parse_job_yaml(BOMB, site=example_site())
    file = tmp_path / "nodes.yaml"
    file.write_text(BOMB)
    with pytest.raises(InventoryError, match="alias bomb"):
        load_inventory(file, site=example_site())


def test_a_few_anchors_are_fine() -> None:
    config = load_text(
        "defaults_: &d {x: 1}\nother: *d\ncluster: {num_nodes: 1, component_placement: {actor: all}}\n"
    )
    assert config.resolved["other"] == {"x": 1}


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
def test_size_limit_is_5_mb_and_configurable(tmp_path: Path, monkeypatch) -> None:
    """Configs, uploads and inventories share one limit; $RLARK_MAX_INPUT_MB moves it."""
    padding = "# " + "x" * 1000 + "\n"
    big = "cluster: {num_nodes: 1, component_placement: {actor: all}}\n" + padding * 5200
    config, inventory = tmp_path / "big.yaml", tmp_path / "nodes.yaml"
    config.write_text(big)
    inventory.write_text("nodes: []\n" + padding * 5200)
    with pytest.raises(ConfigLoadError, match=r"big.yaml is 5.2 MB; inputs over 5.0 MB") as error:
        load_config(config)
    assert "RLARK_MAX_INPUT_MB" in error.value.fix
    with pytest.raises(ConfigLoadError, match=r"larger than 5.0 MB"):
        load_text(big, "upload.yaml")
    with pytest.raises(InventoryError, match=r"nodes.yaml is 5.2 MB; inputs over 5.0 MB") as error:
        load_inventory(inventory, site=example_site())
    assert "RLARK_MAX_INPUT_MB" in error.value.fix

    monkeypatch.setenv("RLARK_MAX_INPUT_MB", "6")
    assert load_text(big, "upload.yaml").composed.cluster.num_nodes == 1
    assert load_inventory(inventory, site=example_site()).nodes == ()
    monkeypatch.setenv("RLARK_MAX_INPUT_MB", "0.001")
    with pytest.raises(ConfigLoadError, match=r"larger than 0.0 MB"):
        load_text("cluster: {num_nodes: 1}\n" + padding * 2, "upload.yaml")


def test_multiply_bombs_are_unresolved_values_not_gigabytes() -> None:
    """RLinf's ``multiply`` resolver, bounded: a string repeated 10**9 times or digits doubled
    key after key are reported as unresolved values; ordinary products still resolve."""
    text = "\n".join(
        [
            "cluster: {num_nodes: 1, component_placement: {actor: all}}",
            "text: ${multiply:'x',1000000000}",
            "steps: ${multiply:2,3}",
            "c0: 100000000000",
            *(f"c{i}: ${{multiply:${{c{i - 1}}},${{c{i - 1}}}}}" for i in range(1, 12)),
        ]
    )
    config = load_text(text, "bomb.yaml")
    assert config.resolved["steps"] == 6 and config.resolved["c2"] == 10**44
    reasons = {u.path: u.reason for u in config.unresolved}
    assert "input limit" in reasons["text"]
    assert "more than 256 bits" in reasons["c3"] and "c11" in reasons
    assert {f.rule_id for f in config.findings} == {"CFG-UNRESOLVED"}
