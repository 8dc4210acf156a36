"""Alias bombs are refused by every YAML reader before anything expands."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlark_widgets.rlark.inventory import InventoryError, load_inventory
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
        parse_job_yaml(BOMB)
    file = tmp_path / "nodes.yaml"
    file.write_text(BOMB)
    with pytest.raises(InventoryError, match="alias bomb"):
        load_inventory(file)


def test_a_few_anchors_are_fine() -> None:
    config = load_text(
        "defaults_: &d {x: 1}\nother: *d\ncluster: {num_nodes: 1, component_placement: {actor: all}}\n"
    )
    assert config.resolved["other"] == {"x": 1}
