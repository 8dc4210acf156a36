"""The robot hardware types RLinf registers, and the fields each per-robot config accepts."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..i18n import Text

#: Per-robot fields besides ``node_rank``, by registered type (rlinf/scheduler/hardware/robots).
ROBOT_FIELDS: dict[str, frozenset[str]] = {
    "DOSW1": frozenset(
        {
            "robot_url",
            "left_arm_port",
            "right_arm_port",
            "left_lead_port",
            "right_lead_port",
            "camera_serials",
        }
    ),
    "DualFranka": frozenset(
        {
            "left_robot_ip",
            "right_robot_ip",
            "left_camera_serials",
            "right_camera_serials",
            "base_camera_serials",
            "camera_type",
            "base_camera_type",
            "left_camera_type",
            "right_camera_type",
            "left_gripper_type",
            "right_gripper_type",
            "left_gripper_connection",
            "right_gripper_connection",
            "left_controller_node_rank",
            "right_controller_node_rank",
            "disable_validate",
        }
    ),
    "Franka": frozenset(
        {
            "robot_ip",
            "camera_serials",
            "camera_type",
            "gripper_type",
            "gripper_connection",
            "controller_node_rank",
            "disable_validate",
        }
    ),
    "GimArm": frozenset(
        {
            "can_interface",
            "arm_variant",
            "camera_serials",
            "camera_type",
            "enable_gripper",
            "gripper_type",
            "controller_node_rank",
            "disable_validate",
        }
    ),
    "Turtle2": frozenset(),
}

#: Fields RLinf validates as IP addresses when they are given.
IP_FIELDS: dict[str, tuple[str, ...]] = {
    "Franka": ("robot_ip",),
    "DualFranka": ("left_robot_ip", "right_robot_ip"),
}

#: How each config class names itself in its ``__post_init__`` messages.
CONFIG_NAMES: dict[str, str] = {
    "DOSW1": "DOSW1",
    "DualFranka": "DualFranka",
    "Franka": "franka",
    "GimArm": "GimArm",
    "Turtle2": "Turtle2",
}

#: Fields a config class asserts to be one of a few values (GimArmConfig.__post_init__).
CHOICE_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "GimArm": {"arm_variant": ("gim_arm", "gim_arm_xl")},
}

#: Camera serial lists the config classes turn into lists (``list(value)``) when truthy.
SERIAL_FIELDS = (
    "camera_serials",
    "left_camera_serials",
    "right_camera_serials",
    "base_camera_serials",
)

#: Fields naming the global node rank where a robot controller actor runs.
CONTROLLER_FIELDS: dict[str, tuple[str, ...]] = {
    "Franka": ("controller_node_rank",),
    "GimArm": ("controller_node_rank",),
    "DualFranka": ("left_controller_node_rank", "right_controller_node_rank"),
}


def is_ip_address(value: object) -> bool:
    """``ipaddress.ip_address(value)`` on the value as written, as the config classes call it."""
    try:
        ipaddress.ip_address(value)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def node_rank_message(hw_type: str, value: object) -> Text:
    """The config class's own message for a node_rank that is not an integer."""
    return Text(
        "'node_rank' in {config} config must be an integer. But got {type}.",
        config=CONFIG_NAMES.get(hw_type, hw_type),
        type=type(value),
    )


def config_class_error(hw_type: str, fields: Mapping[str, Any]) -> tuple[str, Text] | None:
    """The first assertion of the config class's ``__post_init__`` that ``fields`` fail.

    Returns (field, message); robot IPs are left to :meth:`RobotConfig.invalid_ips`, which
    reports them as start-up findings so that placeholder IPs still give a plan.
    """
    for name, choices in CHOICE_FIELDS.get(hw_type, {}).items():
        value = fields.get(name, choices[-1])
        if value not in choices:
            return name, Text(
                "'{field}' must be {choices}. But got '{value}'.",
                field=name,
                choices=" or ".join(f"'{c}'" for c in choices),
                value=value,
            )
    for name in SERIAL_FIELDS:
        value = fields.get(name)
        # DOSW1 converts any value that is not None; the others only a truthy one
        given = value is not None if hw_type == "DOSW1" else bool(value)
        if given and not isinstance(value, list | tuple | str):
            return name, Text(
                "'{field}' is {value}, not a list: RLinf's {config} config stops with "
                "TypeError ('{type_name}' object is not iterable).",
                field=name,
                value=value,
                config=CONFIG_NAMES.get(hw_type, hw_type),
                type_name=type(value).__name__,
            )
    return None


@dataclass(frozen=True)
class RobotConfig:
    """One robot of a node group's ``hardware.configs`` list."""

    hardware_type: str
    node_rank: int
    fields: Mapping[str, Any] = field(default_factory=dict)
    path: str = ""

    def controller_node_ranks(self) -> tuple[int, ...]:
        """Global node ranks that host this robot's controller actors (own node by default)."""
        ranks = []
        for name in CONTROLLER_FIELDS.get(self.hardware_type, ()):
            value = self.fields.get(name)
            ranks.append(value if isinstance(value, int) and value >= 0 else self.node_rank)
        return tuple(ranks) or (self.node_rank,)

    def invalid_ips(self) -> list[tuple[str, str]]:
        """(field, value) pairs RLinf will reject because they are not IP addresses."""
        return [
            (name, str(self.fields[name]))
            for name in IP_FIELDS.get(self.hardware_type, ())
            if self.fields.get(name) is not None and not is_ip_address(self.fields[name])
        ]
