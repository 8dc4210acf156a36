"""Safe YAML reading: no object construction, and no alias bombs ("billion laughs").

PyYAML keeps aliases as references, but turning a document into dicts and lists (as OmegaConf
and our loaders do) expands them, so a few hundred bytes can demand gigabytes. Real configs use
a handful of anchors; more than ``MAX_ALIASES`` aliases is refused before anything expands.
"""

from __future__ import annotations

from typing import Any

import yaml

from .i18n import Text, TextError

MAX_ALIASES = 200


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


def safe_load(text: str, limit: int = MAX_ALIASES) -> Any:
    """``yaml.safe_load`` after the alias check (syntax errors propagate as yaml.YAMLError)."""
    check_aliases(text, limit)
    return yaml.safe_load(text)
