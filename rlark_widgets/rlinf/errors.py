"""Typed errors for everything RLinf itself would reject, each carrying the config path."""

from __future__ import annotations

from ..findings import Finding, Severity
from ..i18n import Text, TextError


class RLinfCheckError(TextError):
    """One of RLinf's checks failed deep in the engine, worded as RLinf words it.

    ``str()`` is RLinf's exact English (tests compare it with RLinf's output); ``.text`` keeps
    the :class:`Text`, so the caller that adds the field and fix can quote it in any language.
    """


class RLinfConfigError(TextError):
    """A config RLinf rejects (or that we cannot read), with the field it points at and a fix."""

    rule_id = "CFG-INVALID"
    source = "RLinf rlinf/scheduler/cluster/config.py (ClusterConfig validation)"

    def __init__(self, text: Text, path: str = "", fix_text: Text | str = "") -> None:
        super().__init__(text, fix_text)
        self.path = path

    def to_finding(self) -> Finding:
        return Finding(
            self.rule_id, Severity.ERROR, self.path, self.text, self.fix_text, self.source
        )

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ConfigLoadError(RLinfConfigError):
    """The config file cannot be read or composed (YAML syntax, Hydra composition, env vars)."""

    rule_id = "CFG-LOAD"
    source = "Hydra composition as done by RLinf entry points (@hydra.main, version_base=1.1)"


class MissingVariableError(ConfigLoadError):
    """The config's hydra.searchpath reads an environment variable that is not set.

    ``variable`` and ``guess`` (a likely value, or None) let a caller word its own fix: the CLI
    speaks of --env, the app of its Search paths box.
    """

    def __init__(
        self, text: Text, path: str, fix_text: Text, variable: str, guess: str | None
    ) -> None:
        super().__init__(text, path, fix_text)
        self.variable, self.guess = variable, guess


class ClusterConfigError(RLinfConfigError):
    """The ``cluster`` section fails one of RLinf's ClusterConfig checks."""

    rule_id = "CFG-CLUSTER"


class PlacementError(RLinfConfigError):
    """A ``component_placement`` entry fails RLinf's parser or placement strategies."""

    rule_id = "PLC-PLACEMENT"
    source = "RLinf rlinf/scheduler/placement/* and rlinf/utils/placement.py"


class TaskTypeError(PlacementError):
    """``runner.task_type`` is none RLinf supports: its config validation stops before placing."""

    rule_id = "CFG-TASK-TYPE"
    source = "RLinf rlinf/config.py validate_cfg (SUPPORTED_TASK_TYPE)"
