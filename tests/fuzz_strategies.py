"""Hypothesis strategies for the fuzz targets: random and mutated YAML documents.

Two kinds of input reach the parsers: documents that are almost right (a real config, Job or
inventory with a few fields changed, removed, added or retyped) and documents that are wrong
in shape (random nested scalars, lists and mappings that use the right key names). Both are also
damaged as text (cut, spliced, re-indented) so the YAML parser itself sees garbage.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from rlark_widgets.examples import example_configs, example_inventories

GOLDEN_JOBS = sorted((Path(__file__).resolve().parent / "golden").glob("*.job.yaml"))

#: Key names the RLinf cluster section, node groups, robots and reasoning sizes use.
RLINF_KEYS = [
    "num_nodes",
    "component_placement",
    "node_groups",
    "label",
    "node_ranks",
    "env_configs",
    "env_vars",
    "python_interpreter_path",
    "hardware",
    "hardware_type",
    "ignore_hardware",
    "type",
    "configs",
    "node_rank",
    "robot_ip",
    "camera_serials",
    "placement",
    "node_group",
    "profiling",
    "backend",
    "actor",
    "rollout",
    "env",
    "reward",
    "actor,rollout",
    "actor,rollout,reward",
    "task_type",
    "tensor_parallel_size",
    "tensor_model_parallel_size",
    "auto_scheduler",
]
JOB_KEYS = [
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "annotations",
    "spec",
    "runScript",
    "tasks",
    "head",
    "replicas",
    "prepareScript",
    "template",
    "nodeSelector",
    "containers",
    "image",
    "env",
    "value",
    "resources",
    "limits",
    "nvidia.com/gpu",
    "rlinf.io/franka",
    "volumeMounts",
    "mountPath",
    "readOnly",
    "volumes",
    "hostPath",
    "path",
    "persistentVolumeClaim",
    "claimName",
    "storage",
    "storageClassName",
    "tensorboard",
    "logDir",
    "networkDomain",
    "sshKeys",
]
INVENTORY_KEYS = [
    "cluster",
    "nodes",
    "name",
    "labels",
    "allocatable",
    "nvidia.com/gpu",
    "rlinf.io/franka",
    "rlark.io/node-category",
    "rlark.io/cluster",
    "kubernetes.io/hostname",
    "ready",
    "unschedulable",
    "taints",
    "storageClasses",
]
#: Strings that mean something to one of the parsers (ranks, placements, labels, OmegaConf).
MEANINGFUL_STRINGS = [
    "all",
    "ALL",
    "0",
    "0-3",
    "0-3:0-7",
    "0:0",
    "0-1,2-3",
    "3-0",
    "1:2:3",
    "0:all",
    "-1",
    "0--1",
    " 0 - 1 ",
    "٣",
    "1_0",
    "",
    " ",
    "cluster",
    "node",
    "4090",
    "franka",
    "Franka",
    "Turtle2",
    "DOSW1",
    "Accelerator",
    "nsight",
    "rocprof_sys",
    "embodied",
    "reasoning",
    "reasoning_eval",
    "sft",
    "/path/to/python",
    "ROBOT_IP",
    "192.0.2.7",
    "${oc.env:NOT_SET}",
    "${cluster.num_nodes}",
    "${nope}",
    "${oc.env:HOME,/x}",
    "???",
    "1:30",
    "0x10",
    "1e3",
    "yes",
    "~",
    "cloud",
    "robot",
    "bogus",
    "gpu=broken:NoSchedule",
    "rlark.io/v1alpha1",
    "Job",
    "oss-rlinf",
    "/mnt/output",
    "main",
    "AKIAIOSFODNN7EXAMPLE",
]
#: Integers that probe bounds: negatives, zero, the usual small counts and absurd sizes.
HUGE_INTEGERS = [2**31, 10**12, 2**63, -(10**12), 10**40]

small_integers = st.integers(-3, 20)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    small_integers,
    st.sampled_from(HUGE_INTEGERS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(MEANINGFUL_STRINGS),
    st.text(max_size=8),
)
key_scalars = st.one_of(st.text(max_size=6), small_integers, st.booleans(), st.none())


def keys_from(names: list[str]) -> st.SearchStrategy[Any]:
    """Mapping keys: mostly the parser's own names, sometimes anything YAML allows."""
    return st.one_of(st.sampled_from(names), st.sampled_from(names), key_scalars)


def trees(names: list[str], max_leaves: int = 20) -> st.SearchStrategy[Any]:
    """Nested scalars, lists and mappings keyed with ``names``."""
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(keys_from(names), children, max_size=5),
        ),
        max_leaves=max_leaves,
    )


# --- mutation of a parsed document --------------------------------------------------------------
def _slots(tree: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) that holds a value, depth first; (None, None) is the root."""
    found: list[tuple[Any, Any]] = [(None, None)]
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            for key, child in node.items() if isinstance(node, dict) else enumerate(node):
                found.append((node, key))
                stack.append(child)
    return found


MUTATIONS = ("replace", "delete", "insert", "wrap", "stringify", "shift")


@st.composite
def mutated(draw: st.DrawFn, base: Any, names: list[str], max_mutations: int = 3) -> Any:
    """``base`` with 1..max_mutations random edits, each at a random place in the tree."""
    tree = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, max_mutations))):
        slots = _slots(tree)
        container, key = slots[draw(st.integers(0, len(slots) - 1))]
        value = tree if container is None else container[key]
        new = _edit(draw, draw(st.sampled_from(MUTATIONS)), value, names)
        if new is _DELETE:
            if container is not None:
                del container[key]
        elif container is None:
            tree = new
        else:
            container[key] = new
    return tree


_DELETE = object()


def _edit(draw: st.DrawFn, operation: str, value: Any, names: list[str]) -> Any:
    if operation == "replace":
        return draw(trees(names, max_leaves=6))
    if operation == "delete":
        return _DELETE
    if operation == "insert":
        if isinstance(value, dict):
            return {**value, draw(keys_from(names)): draw(trees(names, max_leaves=4))}
        if isinstance(value, list):
            index = draw(st.integers(0, len(value)))
            extra = draw(st.one_of(trees(names, 4), st.sampled_from(value or [None])))
            return [*value[:index], copy.deepcopy(extra), *value[index:]]
        return draw(trees(names, max_leaves=4))
    if operation == "wrap":
        return draw(st.sampled_from([[value], {draw(keys_from(names)): value}]))
    if operation == "stringify":
        return str(value)
    # shift: numbers move by a little or a lot; other values become a number
    if isinstance(value, int) and not isinstance(value, bool):
        return value + draw(st.sampled_from([-1, 1, -value - 1, 10**6, *HUGE_INTEGERS]))
    return draw(st.one_of(small_integers, st.sampled_from(HUGE_INTEGERS)))


# --- damage to YAML text ------------------------------------------------------------------------
SNIPPETS = [
    ":",
    ": ",
    "- ",
    "  ",
    "\t",
    "\n",
    "\n  ",
    "#",
    "&a ",
    "*a",
    "<<: *a\n",
    "{",
    "}",
    "[",
    "]",
    "'",
    '"',
    "${",
    "}}",
    "? ",
    "|",
    ">-\n",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "!!python/object/apply:os.system ['true']",
    "!!binary ",
    "!!int ",
    "\x00",
    "\ufeff",
    "\u2028",
    ",",
    "all",
    "0-3",
]


@st.composite
def damaged_text(draw: st.DrawFn, text: str, max_edits: int = 3) -> str:
    """``text`` with a few cuts, splices and duplicated or swapped lines."""
    for _ in range(draw(st.integers(1, max_edits))):
        operation = draw(st.sampled_from(["cut", "splice", "splice", "line", "swap"]))
        at = draw(st.integers(0, len(text)))
        if operation == "cut":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif operation == "splice":
            snippet = draw(st.one_of(st.sampled_from(SNIPPETS), st.text(max_size=4)))
            text = text[:at] + snippet + text[at:]
        else:
            lines = text.splitlines(keepends=True) or [""]
            i, j = (draw(st.integers(0, len(lines) - 1)) for _ in range(2))
            if operation == "line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
    return text


def dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def documents(
    texts: list[str], names: list[str], random_shape: st.SearchStrategy[Any]
) -> st.SearchStrategy[str]:
    """YAML text: a real document mutated as data or damaged as text, or a random shape."""
    parsed = [yaml.safe_load(t) for t in texts]
    return st.one_of(
        st.sampled_from(parsed).flatmap(lambda doc: mutated(doc, names)).map(dump),
        st.sampled_from(texts).flatmap(damaged_text),
        random_shape.map(dump),
    )


# --- the four targets ---------------------------------------------------------------------------
def _read(paths: list[Path]) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in paths]


CONFIG_TEXTS = _read([Path(p) for p in example_configs().values()])
JOB_TEXTS = _read(GOLDEN_JOBS)
INVENTORY_TEXTS = _read([Path(p) for p in example_inventories().values()])

random_configs = st.fixed_dictionaries(
    {"cluster": st.one_of(st.dictionaries(keys_from(RLINF_KEYS), trees(RLINF_KEYS)), scalars)},
    optional={
        "runner": st.fixed_dictionaries({"task_type": scalars}),
        "rollout": st.fixed_dictionaries({"tensor_parallel_size": scalars}),
        "actor": trees(RLINF_KEYS, max_leaves=4),
    },
)
config_documents = documents(CONFIG_TEXTS, RLINF_KEYS, random_configs)
job_documents = documents(
    JOB_TEXTS, JOB_KEYS, st.dictionaries(keys_from(JOB_KEYS), trees(JOB_KEYS))
)
inventory_documents = documents(
    INVENTORY_TEXTS,
    INVENTORY_KEYS,
    st.one_of(
        st.dictionaries(keys_from(INVENTORY_KEYS), trees(INVENTORY_KEYS)),
        st.fixed_dictionaries(
            {"nodes": st.lists(st.dictionaries(keys_from(INVENTORY_KEYS), trees(INVENTORY_KEYS)))}
        ),
    ),
)

# --- placement strings --------------------------------------------------------------------------
rank_numbers = st.one_of(  # mostly ranks a small cluster has, so that some placements fit
    st.integers(0, 7),
    st.integers(0, 7),
    st.integers(0, 20),
    st.integers(-3, -1),
    st.sampled_from([*HUGE_INTEGERS, 99, 100_000]),
)


@st.composite
def rank_lists(draw: st.DrawFn) -> str:
    """``a``, ``a-b`` or ``all`` joined by commas, with stray spaces and dashes."""
    pieces = []
    for _ in range(draw(st.sampled_from([1, 1, 2, 3]))):
        start = draw(rank_numbers)
        shape = draw(st.sampled_from(["one", "range", "range", "range", "all", "odd"]))
        if shape == "one":
            pieces.append(str(start))
        elif shape == "range":
            pieces.append(f"{start}{draw(st.sampled_from(['-', ' - ', '--']))}{draw(rank_numbers)}")
        elif shape == "all":
            pieces.append(draw(st.sampled_from(["all", "ALL", " all "])))
        else:
            pieces.append(draw(st.sampled_from(["", " ", "x", "1.5", "٣", "1_0", "+1", "0x1"])))
    return ",".join(pieces)


@st.composite
def placement_texts(draw: st.DrawFn) -> str:
    """``resources[:processes]`` parts separated by commas, or garbage."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.text(max_size=12), st.sampled_from(MEANINGFUL_STRINGS)))
    parts = []
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        part = draw(rank_lists())
        if draw(st.booleans()):
            part += ":" + draw(rank_lists())
        if draw(st.integers(0, 9)) == 0:
            part += ":" + draw(rank_lists())
        parts.append(part)
    return ",".join(parts)
