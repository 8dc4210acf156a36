"""Inventory files: the nodes a Job can use, their categories, capacity and readiness."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlark_widgets.rlark.inventory import InventoryError, inventory_from_dict, load_inventory
from rlark_widgets.rlark.site import example_site

EXAMPLES = Path(__file__).resolve().parents[1] / "rlark_widgets" / "examples" / "inventories"


def test_gpu_cloud_example() -> None:
    inventory = load_inventory(EXAMPLES / "gpu-cloud.yaml", site=example_site())
    assert inventory.clusters == ["gpu-a", "gpu-b"]
    a800 = inventory.matching({"rlark.io/cluster": "gpu-a", "gpu.model": "a800"})
    assert len(a800) == 16 and all(n.gpus == 8 and n.category == "cloud" for n in a800)
    assert sum(not n.schedulable for n in inventory.nodes) == 2  # one NotReady, one tainted
    assert inventory.storage_classes == ("oss-rlinf", "nas-shared")


def test_mixed_example_has_edge_and_robot_nodes_with_devices() -> None:
    inventory = load_inventory(EXAMPLES / "mixed-robots.yaml", site=example_site())
    categories = {n.category for n in inventory.nodes}
    assert categories == {"cloud", "edge", "robot"}
    frankas = [n for n in inventory.nodes if n.devices.get("rlinf.io/device-franka")]
    assert [n.name for n in frankas] == ["franka-pc-0", "franka-pc-1"]
    assert "rlinf.io/device-dosw1" in inventory.device_names()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"nodes": "x"}, "a 'nodes' list"),
        ({"nodes": [{"labels": {}}]}, "needs at least a name"),
        ({"nodes": [{"name": "a"}, {"name": "a"}]}, "appears twice"),
        ({"nodes": [{"name": "a", "allocatable": {"nvidia.com/gpu": "eight"}}]}, "whole numbers"),
        ({"nodes": [{"name": "a", "taints": "x"}]}, "taints must be a list"),
    ],
)
def test_bad_inventories_are_refused_with_the_entry(data: dict, message: str) -> None:
    with pytest.raises(InventoryError, match=message):
        inventory_from_dict(data, site=example_site())


def test_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(InventoryError, match="No inventory file"):
        load_inventory(tmp_path / "nope.yaml", site=example_site())
    broken = tmp_path / "broken.yaml"
    broken.write_text("nodes: [\n")
    with pytest.raises(InventoryError, match="not valid YAML"):
        load_inventory(broken, site=example_site())


def test_the_bundled_inventory_names_the_app_offers_work_with_inventory(capsys) -> None:
    """Issue #24 item 18: `--inventory gpu-cloud` reads the bundled inventory the app lists."""
    from test_cli_jobs import cli

    from rlark_widgets.examples import example_configs, example_inventories

    config = str(example_configs()["local_rehearsal_2node"])
    for name in example_inventories():
        code, out, err = cli(capsys, "plan", config, "--inventory", name)
        assert "--inventory" not in err and "No inventory file" not in err, err
        assert "Roles" in out
    code, _, err = cli(capsys, "--lang", "zh", "plan", config, "--inventory", "no-such")
    assert code == 2 and "内置的节点清单：gpu-cloud, mixed-robots" in err, err
