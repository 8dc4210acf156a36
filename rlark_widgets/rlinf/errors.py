"""Typed errors for everything RLinf itself would reject, each carrying the config path."""

from __future__ import annotations

from ..findings import Finding, Severity


class RLinfConfigError(Exception):
    """A config RLinf rejects (or that we cannot read), with the field it points at and a fix."""

    rule_id = "CFG-INVALID"
    source = "RLinf rlinf/scheduler/cluster/config.py (ClusterConfig validation)"

    def __init__(self, message: str, path: str = "", fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.fix = fix

    def to_finding(self) -> Finding:
        return Finding(self.rule_id, Severity.ERROR, self.path, self.message, self.fix, self.source)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigLoadError(RLinfConfigError):
    """The config file cannot be read or composed (YAML syntax, Hydra composition, env vars)."""

    rule_id = "CFG-LOAD"
    source = "Hydra composition as done by RLinf entry points (@hydra.main, version_base=1.1)"


class ClusterConfigError(RLinfConfigError):
    """The ``cluster`` section fails one of RLinf's ClusterConfig checks."""

    rule_id = "CFG-CLUSTER"


class PlacementError(RLinfConfigError):
    """A ``component_placement`` entry fails RLinf's parser or placement strategies."""

    rule_id = "PLC-PLACEMENT"
    source = "RLinf rlinf/scheduler/placement/* and rlinf/utils/placement.py"
