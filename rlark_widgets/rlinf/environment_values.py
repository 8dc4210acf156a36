"""Values a config takes from the planning machine's environment, for the run record.

``${oc.env:DB_PASSWORD}`` resolves to the password and ``home: ${oc.env:HOME}`` to ``/root``
on the machine that planned the run; neither belongs in a record others read. The record keeps
each such value's reference (the expression as written) and says where it came from; a value
built from one (``url: http://${host}/``, ``host: ${oc.env:HOST}``) is one of them too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from ..findings import Finding, Severity
from ..i18n import Text
from .cluster import ClusterSpec
from .interpolation_budget import REFERENCE, raw_tree, reference_target
from .loader import RLinfConfig

# Resolvers that read the process environment (OmegaConf's, and the legacy ``env``).
_FROM_ENVIRONMENT = re.compile(r"\$\{\s*(?:oc\.env|env)\s*:\s*([^,}\s]+)")


def _walk(node: Any, where: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, (*where, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, (*where, str(index)))
    else:
        yield where, node


def environment_values(config: RLinfConfig) -> dict[tuple[str, ...], dict[str, Any]]:
    """Path -> {expression, variables} of every value that depends on an environment variable."""
    tree = raw_tree(config.composed)
    leaves = dict(_walk(tree))
    direct: dict[tuple[str, ...], set[str]] = {}
    refs: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for where, raw in leaves.items():
        if isinstance(raw, str):
            direct[where] = set(_FROM_ENVIRONMENT.findall(raw))
            refs[where] = [reference_target(where[:-1], r) for r in REFERENCE.findall(raw)]
    found: dict[tuple[str, ...], set[str]] = {}
    changed = True
    while changed:  # a fixed point: references of references, cycles included
        changed = False
        for where in refs:
            names = set(direct[where])
            for target in refs[where]:
                names |= set().union(*(v for k, v in found.items() if k[: len(target)] == target))
            if names and found.get(where) != names:
                found[where], changed = names, True
    return {
        where: {"expression": leaves[where], "variables": sorted(names)}
        for where, names in found.items()
    }


def job_value(config: RLinfConfig, path: str) -> Any:
    """``config.get(path)`` as the Job carries it: a value read from this machine's environment
    stays the reference as written (``${oc.env:LOG_ROOT}/logs``), never its value here.

    Why keep the reference rather than refuse: RLinf composes the config with Hydra inside the
    pod, where OmegaConf resolves ``oc.env`` against the Worker's own environment, so the
    reference is exactly what RLinf reads at run time. The literal would be the planning
    machine's value (its secret, its home directory) stored in the cluster, and wrong there.
    """
    found = environment_values(config).get(tuple(path.split(".")))
    return found["expression"] if found else config.get(path)


def _dotted(where: tuple[str, ...]) -> str:
    return ".".join(where)


def without_environment_values(config: RLinfConfig) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The resolved config with environment-derived values replaced by their references, and
    the list of those values' paths, references and variables (never the values)."""
    values = environment_values(config)
    resolved = _replace(config.resolved, (), values)
    listed = [
        {
            "path": _dotted(where),
            "reference": found["expression"],
            "variables": found["variables"],
            "from": "the environment of the machine that planned the run (value not recorded)",
        }
        for where, found in sorted(values.items())
    ]
    return resolved, listed


#: Shorter values are left where they stand in prose ("/" or "1" would replace too much).
MIN_SWAPPED = 4


def reference_swapper(config: RLinfConfig) -> Callable[[str], str]:
    """A function that writes, in any text, each environment-derived value as its reference."""
    values = environment_values(config)
    pairs: dict[str, str] = {}
    for where, found in values.items():
        value = _lookup(config.resolved, where)
        if isinstance(value, str) and len(value) >= MIN_SWAPPED:
            pairs.setdefault(value, found["expression"])
    if not pairs:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(v) for v in sorted(pairs, key=len, reverse=True)))
    return lambda text: pattern.sub(lambda m: pairs[m.group()], text)


def _lookup(node: Any, where: tuple[str, ...]) -> Any:
    for part in where:
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _replace(
    node: Any, where: tuple[str, ...], values: dict[tuple[str, ...], dict[str, Any]]
) -> Any:
    if where in values:
        return values[where]["expression"]
    if isinstance(node, dict):
        return {k: _replace(v, (*where, str(k)), values) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace(v, (*where, str(i)), values) for i, v in enumerate(node)]
    return node


def findings_as_written(config: RLinfConfig, findings: list[Finding]) -> list[Finding]:
    """``findings`` with every environment-derived value they quote written as its reference.

    A finding about ``num_nodes: ${oc.env:N}`` quotes the value OmegaConf resolved here (RLinf's
    own message says "But got <value>"): that is this machine's environment, and it is shown,
    recorded and sent to the admin. The report and the pipeline pass their findings through
    this before anyone reads them.
    """
    swap = reference_swapper(config)
    return [f.redacted(swap) for f in findings]


def _parts(path: str) -> tuple[str, ...]:
    """``cluster.node_groups[1].env_configs[0]`` as :func:`environment_values` keys it."""
    return tuple(re.findall(r"[^.\[\]]+", path))


def _node_value_finding(path: str, expression: str) -> Finding:
    return Finding(
        "CFG-ENV-NODE-VALUE",
        Severity.ERROR,
        path,
        Text(
            "{path} takes its value from this machine's environment ({expression}). The Job "
            "would set it on the Worker (its env, or the prepare script's interpreter check), "
            "and this machine's value is neither right there nor allowed to leave it, so the "
            "Job carries the reference, which nothing in the Pod resolves.",
            path=path,
            expression=expression,
        ),
        Text(
            "Write the value the Workers need in the config (it is a path or setting of the "
            "image), or set the variable in the prepare script."
        ),
        "rlark-widgets: no value of the planning machine's environment goes into a Job",
    )


def cluster_as_written(
    config: RLinfConfig, cluster: ClusterSpec
) -> tuple[ClusterSpec, list[Finding]]:
    """``cluster`` with every env_configs value taken from this machine's environment written as
    its reference, and an error naming each such field.

    The node groups' variables and interpreter are the one part of the cluster section the Job
    carries as values (the Worker's env, the prepare script's interpreter check); placement
    never reads them, so the reference changes no rank or GPU.
    """
    values = environment_values(config)
    if not values:
        return cluster, []
    findings: list[Finding] = []

    def written(where: tuple[str, ...], path: str, value: str) -> str:
        found = values.get(where)
        if found is None:
            return value
        findings.append(_node_value_finding(path, found["expression"]))
        return str(found["expression"])

    groups = []
    for group in cluster.node_groups:
        entries = []
        for entry in group.env_configs:
            base = _parts(entry.path)
            env_vars = tuple(
                (name, _env_var_as_written(values, base, name, value, written, entry.path))
                for name, value in entry.env_vars
            )
            interpreter = entry.python_interpreter_path
            if interpreter is not None:
                interpreter = written(
                    (*base, "python_interpreter_path"),
                    f"{entry.path}.python_interpreter_path",
                    interpreter,
                )
            entries.append(replace(entry, env_vars=env_vars, python_interpreter_path=interpreter))
        groups.append(replace(group, env_configs=tuple(entries)))
    return replace(cluster, node_groups=tuple(groups)), findings


def _env_var_as_written(
    values: dict[tuple[str, ...], dict[str, Any]],
    base: tuple[str, ...],
    name: str,
    value: str,
    written: Callable[[tuple[str, ...], str, str], str],
    entry_path: str,
) -> str:
    """An env_vars item is a one-key mapping in a list: its index is found by its name."""
    where = next(
        (w for w in values if w[: len(base) + 1] == (*base, "env_vars") and w[-1] == name), None
    )
    if where is None:
        return value
    return written(where, f"{entry_path}.env_vars[{where[len(base) + 1]}].{name}", value)
