"""Hydra overrides in words: the key form they take, and why one was refused.

Findings name fields as ``cluster.node_groups[1].hardware.configs[0].robot_ip``; typed as an
override that gave Hydra's raw ``LexerNoViableAltException``, because Hydra's override grammar
names a list item with a dot (``node_groups.1``). :func:`override_key` turns a finding's path
into the key an override takes; :func:`check_overrides` explains a refused override before
Hydra composes, so the reader sees which override, what is wrong and how to write it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..i18n import Text
from .errors import ConfigLoadError

_INDEX = re.compile(r"\[(\d+)\]")


def override_key(path: str) -> str:
    """``a.b[1].c[0].d`` -> ``a.b.1.c.0.d``: a config path in the form Hydra overrides take."""
    return _INDEX.sub(r".\1", path)


def check_overrides(overrides: Sequence[str]) -> None:
    """Raise ConfigLoadError (field ``overrides``) for the first override Hydra would refuse."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    parser = OverridesParser.create()
    for override in overrides:
        try:
            parser.parse_override(override)
        except HydraException as exc:
            raise _refused(override, str(exc)) from None


def _refused(override: str, reason: str) -> ConfigLoadError:
    key, equals, value = override.partition("=")
    if _INDEX.search(key):
        written = f"{override_key(key)}={value}" if equals else override_key(key)
        return ConfigLoadError(
            Text(
                "The override '{override}' names a list item with [n]; Hydra's overrides name "
                "it with a dot.",
                override=override,
            ),
            "overrides",
            Text("Write it as {written}.", written=written),
        )
    if not equals and not key.startswith("~"):
        return ConfigLoadError(
            Text("The override '{override}' has no '=' and no value.", override=override),
            "overrides",
            Text(
                "Write overrides as key=value (e.g. cluster.num_nodes=4); use +key=value to add "
                "a key, ~key to remove one."
            ),
        )
    return ConfigLoadError(
        Text(
            "Hydra's override grammar does not accept '{override}' (Hydra says: {reason}).",
            override=override,
            reason=reason.strip().splitlines()[0] if reason.strip() else "-",
        ),
        "overrides",
        Text(
            "Quote a value that holds spaces or any of ( ) [ ] {{ }} , : = ' \" with single "
            "quotes, e.g. key='a value'."
        ),
    )
