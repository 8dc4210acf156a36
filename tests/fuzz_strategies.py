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
    "labels",
    "status",
    "uid",
    "generateName",
    "x-unknown",
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


# --- Job manifests with every field the schema allows ---------------------------------------
#: A token of a shape the scanner knows, planted anywhere a user can write text.
PLANTED_TOKEN = "ghp_" + "Zq8rT4vW2yX6bN1mK3pL5sD7fG9hJ0aC2eR4"
_label_values = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?\Z")
_names = st.from_regex(r"\A[a-z]([-a-z0-9]{0,8}[a-z0-9])?\Z")
_paths = st.lists(_names, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))
_label_maps = st.dictionaries(
    st.sampled_from(["team", "app", "example.com/owner", "rlark.io/queue", "tier"]),
    _label_values,
    max_size=3,
)


@st.composite
def schema_jobs(draw: st.DrawFn, name: str | None = None) -> dict[str, Any]:
    """A Job manifest the schema allows, using every optional field it has: labels, template
    metadata, sidecars, volumes no mount uses, env without a value, explicit ``readOnly``,
    existing claims, storage entries with their own claim names, sshKeys, TensorBoard."""
    job_name = name or draw(_names)
    storage: list[dict[str, Any]] = []
    tasks = []
    for index in range(draw(st.integers(1, 3))):
        volumes: list[dict[str, Any]] = []
        mounts: list[dict[str, Any]] = []
        for m_index, kind in enumerate(
            draw(st.lists(st.sampled_from(["hostPath", "storage", "claim"]), max_size=3))
        ):
            volume = f"{kind[0]}{m_index}"  # storage names are Job-wide; kinds never share one
            if kind == "hostPath":
                source = {"hostPath": {"path": "/data" + draw(_paths)}}
            elif kind == "claim":  # an existing PVC: resumed from, never generated
                source = {"persistentVolumeClaim": {"claimName": draw(_names) + "-pvc"}}
            else:
                claim = draw(st.sampled_from([f"{job_name}-{volume}", f"{volume}-claim"]))
                source = {"persistentVolumeClaim": {"claimName": claim}}
                if not any(e["name"] == volume for e in storage):
                    storage.append(
                        {"name": volume, "storageClassName": "oss-rlinf", "claimName": claim}
                    )
                else:
                    source = {
                        "persistentVolumeClaim": {
                            "claimName": next(e for e in storage if e["name"] == volume)[
                                "claimName"
                            ]
                        }
                    }
            volumes.append({"name": volume, **source})
            mount = {"name": volume, "mountPath": f"/mnt/m{m_index}"}
            read_only = draw(st.sampled_from([None, True, False]))
            if read_only is not None:
                mount["readOnly"] = read_only
            mounts.append(mount)
        if draw(st.booleans()):
            volumes.append({"name": "side", "hostPath": {"path": "/var/log/side"}})
        env = [
            {"name": n, **({"value": v} if v is not None else {})}
            for n, v in draw(
                st.dictionaries(
                    st.from_regex(r"\A[A-Z][A-Z0-9_]{0,8}\Z").filter(
                        lambda n: not n.startswith(("RLARK", "RAY_", "RLINF_NODE"))
                    ),
                    st.one_of(st.none(), st.sampled_from(["", "1", "eth0", "$(HOME)/x"])),
                    max_size=3,
                )
            ).items()
        ]
        main: dict[str, Any] = {"name": "main", "image": "registry.example.com/rlinf:v0.3.0"}
        if env:
            main["env"] = env
        gpus = draw(st.integers(0, 8))
        if gpus or draw(st.booleans()):
            main["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
        if mounts:
            main["volumeMounts"] = mounts
        containers = [main]
        if draw(st.booleans()):
            sidecar = {"name": "log-shipper", "image": "registry.example.com/shipper:1.2"}
            if any(v["name"] == "side" for v in volumes):
                sidecar["volumeMounts"] = [{"name": "side", "mountPath": "/logs"}]
            containers.insert(draw(st.integers(0, 1)), sidecar)
        pod_spec: dict[str, Any] = {
            "nodeSelector": {"rlark.io/cluster": "gpu-a", "rlark.io/node-category": "cloud"},
            "containers": containers,
        }
        if volumes:
            pod_spec["volumes"] = volumes
        template: dict[str, Any] = {"spec": pod_spec}
        if draw(st.booleans()):
            template["metadata"] = {
                "labels": draw(_label_maps),
                "annotations": {"example.com/note": draw(st.text(max_size=10))},
            }
        task: dict[str, Any] = {
            "name": "header" if index == 0 else f"role{index}",
            "head": index == 0,
            "replicas": 1 if index == 0 else draw(st.integers(1, 3)),
        }
        if draw(st.booleans()):
            task["prepareScript"] = draw(st.sampled_from(["", "source /opt/venv/bin/activate\n"]))
        task["template"] = template
        tasks.append(task)
    metadata: dict[str, Any] = {"name": job_name, "namespace": "research"}
    if labels := draw(_label_maps):
        metadata["labels"] = labels
    if draw(st.booleans()):
        metadata["annotations"] = {"rlark.io/rlinf-num-nodes": "1", "example.com/x": "y"}
    spec: dict[str, Any] = {
        "runScript": "cd /workspace/RLinf && bash examples/embodiment/run_embodiment.sh demo\n",
        "tasks": tasks,
    }
    if draw(st.booleans()):
        spec["tensorboard"] = {"logDir": "/mnt/m0/tb"}
    if draw(st.booleans()):
        spec["networkDomain"] = "lab-net"
    if draw(st.booleans()):
        spec["sshKeys"] = draw(st.lists(_names, min_size=1, max_size=2))
    if storage:
        spec["storage"] = storage
    return {"apiVersion": "rlark.io/v1alpha1", "kind": "Job", "metadata": metadata, "spec": spec}


#: Fields a Job cannot keep: each must be refused by a finding that names it.
UNKEPT = [
    ("status", {"phase": "Running"}),
    ("x-extra", "kept?"),
    ("metadata.uid", "0b6f"),
    ("metadata.generateName", "demo-"),
    ("metadata.resourceVersion", "42"),
]


def _string_slots(node: Any, path: tuple = ()) -> list[tuple[tuple, str]]:
    """Every (path, 'key' | 'value') where a user writes text."""
    slots: list[tuple[tuple, str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            slots.append(((*path, key), "key"))
            slots += _string_slots(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            slots += _string_slots(value, (*path, index))
    elif isinstance(node, str):
        slots.append((path, "value"))
    return slots


@st.composite
def planted(draw: st.DrawFn, manifest: dict[str, Any], secret: str = PLANTED_TOKEN) -> tuple:
    """``manifest`` with ``secret`` written into one string or key anywhere (or a new unknown
    field, label, claim name or sshKey holding it); returns (manifest, where)."""
    doc = copy.deepcopy(manifest)
    where = draw(
        st.sampled_from(
            [
                *_string_slots(doc),
                (("metadata", "labels", "token"), "new"),
                (("spec", "sshKeys"), "append"),
                (("x-unknown",), "new"),
            ]
        )
    )
    path, how = where
    parent = doc
    for part in path[:-1]:
        parent = parent.setdefault(part, {}) if isinstance(parent, dict) else parent[part]
    last = path[-1]
    if how == "key":
        parent[f"{last}-{secret}"] = parent.pop(last)
    elif how == "new":
        parent[last] = secret
    elif how == "append":
        parent.setdefault(last, []).append(secret)
    else:
        parent[last] = draw(st.sampled_from([secret, f"x {secret} y", f"https://u:{secret}@h/"]))
    return doc, where


def _with_unkept(document: dict[str, Any], index: int) -> dict[str, Any]:
    path, value = UNKEPT[index]
    document = copy.deepcopy(document)
    *parents, last = path.split(".")
    target = document
    for part in parents:
        target = target[part]
    target[last] = value
    return document


#: Jobs of every shape the schema allows: as they are, with a field no Job keeps, with a
#: secret planted anywhere, or mutated like the golden Jobs.
schema_job_documents = st.one_of(
    schema_jobs().map(dump),
    st.tuples(schema_jobs(), st.integers(0, len(UNKEPT) - 1)).map(
        lambda pair: dump(_with_unkept(*pair))
    ),
    schema_jobs().flatmap(planted).map(lambda pair: dump(pair[0])),
    schema_jobs().flatmap(lambda doc: mutated(doc, JOB_KEYS)).map(dump),
)
all_job_documents = st.one_of(job_documents, schema_job_documents)
#: For the differential target: mostly Jobs that pass, so that many reach the cluster.
differential_job_documents = st.one_of(
    schema_jobs().map(dump), schema_jobs().map(dump), schema_job_documents
)
