"""Safe YAML reading: no object construction, and no alias bombs ("billion laughs").

PyYAML keeps aliases as references, but turning a document into dicts and lists (as OmegaConf
and our loaders do) expands them, so a few hundred bytes can demand gigabytes. Real configs use
a handful of anchors; more than ``MAX_ALIASES`` aliases is refused before anything expands.
"""

from __future__ import annotations

import os
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


class YamlAliasError(TextError, ValueError):
    """The document uses more aliases than any real config needs."""


def check_aliases(text: str, limit: int = MAX_ALIASES) -> None:
    count = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            count += 1
            if count > limit:
                raise YamlAliasError(
                    Text(
                        "The YAML uses more than {limit} aliases (*name); it looks like an alias "
                        "bomb and is refused.",
                        limit=limit,
                    )
                )


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

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        """A key written twice is refused: PyYAML would keep the last value silently."""
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"the key '{key_node.value}' appears twice (first at line "
                        f"{seen[key].line + 1}); one of its values would be lost",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep)


def safe_load(text: str, limit: int = MAX_ALIASES) -> Any:
    """``yaml.safe_load`` after the alias check (every failure is a yaml.YAMLError)."""
    check_aliases(text, limit)
    return yaml.load(text, Loader=_SafeLoader)
