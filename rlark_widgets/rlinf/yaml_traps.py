"""YAML 1.1 surprises that make RLinf read a config differently from what its author meant."""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from ..findings import Finding, Severity
from ..i18n import Text

SOURCE = "rlinf-cluster-spec §1.2: OmegaConf/PyYAML read unquoted H:M as a base-60 integer"


def _walk(node: yaml.Node, path: str) -> Iterator[tuple[str, yaml.ScalarNode]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = str(key.value)
            yield from _walk(value, f"{path}.{name}" if path else name)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _walk(item, f"{path}[{index}]")
    elif isinstance(node, yaml.ScalarNode):
        yield path, node


def sexagesimal_findings(text: str) -> list[Finding]:
    """Report every unquoted ``H:M`` scalar that YAML 1.1 turns into an integer (``1:5`` -> 65)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []  # syntax errors are reported by the loader itself
    if root is None:
        return []
    findings = []
    for path, node in _walk(root, ""):
        if node.style is None and ":" in node.value and node.tag == "tag:yaml.org,2002:int":
            number = yaml.safe_load(node.value)
            line = node.start_mark.line + 1
            findings.append(
                Finding(
                    "CFG-YAML-SEXAGESIMAL",
                    Severity.ERROR if path.startswith("cluster.") else Severity.WARNING,
                    path,
                    Text(
                        "Line {line}: the unquoted value {value} is read as the integer {number} "
                        "(YAML 1.1 base-60), so RLinf sees {number}, not '{value}'.",
                        line=line,
                        value=node.value,
                        number=number,
                    ),
                    Text('Quote it: "{value}".', value=node.value),
                    SOURCE,
                )
            )
    return findings
