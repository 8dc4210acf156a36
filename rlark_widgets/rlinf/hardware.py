"""The robot hardware types RLinf registers, and the fields each per-robot config accepts."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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

#: Fields naming the global node rank where a robot controller actor runs.
CONTROLLER_FIELDS: dict[str, tuple[str, ...]] = {
    "Franka": ("controller_node_rank",),
    "GimArm": ("controller_node_rank",),
    "DualFranka": ("left_controller_node_rank", "right_controller_node_rank"),
}


def is_ip_address(value: object) -> bool:
    try:
        ipaddress.ip_address(str(value))
    except ValueError:
        return False
    return True


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
