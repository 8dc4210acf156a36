"""Safe YAML reading: no object construction, and no alias bombs ("billion laughs").

PyYAML keeps aliases as references, but turning a document into dicts and lists (as OmegaConf
and our loaders do) expands them, so a few hundred bytes can demand gigabytes. Real configs use
a handful of anchors; more than ``MAX_ALIASES`` aliases is refused before anything expands.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from typing import Any

import yaml

from .i18n import Text, TextError

MAX_ALIASES = 200
#: Configs, inventories and uploads larger than this many MB are refused ($RLARK_MAX_INPUT_MB).
DEFAULT_INPUT_LIMIT_MB = 5.0
INPUT_LIMIT_FIX = Text(
    "Check that this is the right file (RLinf configs and inventories are a few kB); to read a"
    " larger one, raise the limit with RLARK_MAX_INPUT_MB."
)


def input_limit_bytes() -> int:
    """The largest config, inventory or upload read, from $RLARK_MAX_INPUT_MB (default 5 MB)."""
    try:
        megabytes = float(os.environ.get("RLARK_MAX_INPUT_MB", DEFAULT_INPUT_LIMIT_MB))
    except ValueError:
        megabytes = DEFAULT_INPUT_LIMIT_MB
    return int((megabytes if megabytes > 0 else DEFAULT_INPUT_LIMIT_MB) * 1_000_000)


class YamlStructureError(TextError, ValueError):
    """The document uses more aliases, or nests deeper, than any real config needs."""


#: Real configs nest a dozen levels; PyYAML and OmegaConf recurse per level (500 crashed).
MAX_DEPTH = 100


def check_structure(text: str, limit: int = MAX_ALIASES) -> None:
    """Refuse alias bombs and deep nesting from the event stream (which does not recurse)."""
    count = depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            count += 1
            if count > limit:
                raise YamlStructureError(
                    Text(
                        "The YAML uses more than {limit} aliases (*name); it looks like an alias "
                        "bomb and is refused.",
                        limit=limit,
                    ),
                    Text("Remove the repeated aliases; write the values out."),
                )
        elif isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark else 0
                raise YamlStructureError(
                    Text(
                        "The YAML nests more than {limit} levels deep (at line {line}); no config "
                        "needs that, and it is refused.",
                        limit=MAX_DEPTH,
                        line=line,
                    ),
                    Text("Flatten the nesting there; configs nest a dozen levels at most."),
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _SafeLoader(yaml.SafeLoader):
    """SafeLoader whose tag errors are YAML errors with a place (``!!int`` on a name raised a
    bare ValueError, ``!!bool`` a KeyError, ``!!timestamp`` an AttributeError)."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError) as exc:
            problem = f"{node.tag}: {exc}"
            raise yaml.constructor.ConstructorError(None, None, problem, node.start_mark) from None

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        """A key written twice is refused: PyYAML would keep the last value silently."""
        twice = _repeated_key(node)
        if twice is not None:
            raise yaml.constructor.ConstructorError(None, None, _twice_problem(*twice), twice[1])
        return super().construct_mapping(node, deep)


def _repeated_key(node: yaml.MappingNode) -> tuple[str, yaml.Mark, yaml.Mark] | None:
    """(key, where it is repeated, where it was first) for the first key of ``node`` written twice."""
    seen: dict[tuple[str, str], yaml.Mark] = {}
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
            key = (key_node.tag, key_node.value)
            if key in seen:
                return key_node.value, key_node.start_mark, seen[key]
            seen[key] = key_node.start_mark
    return None


def _twice_problem(key: str, _where: yaml.Mark, first: yaml.Mark) -> str:
    return (
        f"the key '{key}' appears twice (first at line {first.line + 1}); one value would be lost"
    )


def repeated_key_error(root: yaml.Node | None) -> yaml.MarkedYAMLError | None:
    """The first key written twice anywhere under ``root`` (walked without recursion)."""
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            twice = _repeated_key(node)
            if twice is not None:
                return yaml.constructor.ConstructorError(
                    None, None, _twice_problem(*twice), twice[1]
                )
            stack.extend(value for pair in node.value for value in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return None


def safe_load(text: str, limit: int = MAX_ALIASES) -> Any:
    """``yaml.safe_load`` after the alias check (every failure is a yaml.YAMLError)."""
    check_structure(text, limit)
    return yaml.load(text, Loader=_SafeLoader)
