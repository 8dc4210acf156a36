"""Bundled example configs (trimmed from RLinf, Apache-2.0) and example inventories."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEFAULT_EXAMPLE = "maniskill_ppo_openvlaoft"
#: The RLinf path each bundled example was trimmed from (what a Job or record should cite).
ORIGINS = {
    "maniskill_ppo_openvlaoft": "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml",
    "realworld_peginsertion_rlpd_cnn_async_2arms": "examples/embodiment/config/realworld_peginsertion_rlpd_cnn_async_2arms.yaml",
    "isaaclab_franka_stack_cube_ppo_gr00t": "examples/embodiment/config/isaaclab_franka_stack_cube_ppo_gr00t.yaml",
    "qwen3_vl_moe_megatron_sft_vlm": "examples/sft/config/qwen3_vl_moe_megatron_sft_vlm.yaml",
    "qwen2.5-7b-grpo-megatron": "examples/reasoning/config/math/qwen2.5-7b-grpo-megatron.yaml",
    "maniskill_sac_mlp_async_decoupled": "tests/e2e_tests/embodied/maniskill_sac_mlp_async_decoupled.yaml",
}


def _folder(name: str) -> Path:
    return Path(str(resources.files(__package__).joinpath(name)))


def origin_of(path: str | Path) -> str | None:
    """The RLinf path of a bundled example config, or None for any other file."""
    file = Path(path)
    if file.parent.resolve() != _folder("configs").resolve():
        return None
    return ORIGINS.get(file.stem)


def example_configs() -> dict[str, Path]:
    """Example name -> YAML path, sorted by name."""
    return {p.stem: p for p in sorted(_folder("configs").glob("*.yaml"))}


def example_inventories() -> dict[str, Path]:
    return {p.stem: p for p in sorted(_folder("inventories").glob("*.yaml"))}
