"""The typed model of RLinf's ``cluster`` section, validated exactly as RLinf validates it.

``parse_cluster`` raises :class:`ClusterConfigError` (with the config path) for everything
``ClusterConfig.from_dict_cfg`` and node discovery reject, and returns findings for what RLinf
only rejects at start-up on the real machines (robot IP and interpreter placeholders).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..findings import Finding, Severity
from .errors import ClusterConfigError
from .hardware import ROBOT_FIELDS, RobotConfig
from .ranks import RankRangeError, RankSyntaxError, format_ranks, parse_rank_config

RESERVED_LABELS = ("cluster", "node")
CLUSTER_FIELDS = ("num_nodes", "component_placement", "node_groups")
NODE_GROUP_FIELDS = (
    "label",
    "node_ranks",
    "env_configs",
    "hardware",
    "hardware_type",
    "ignore_hardware",
)
ENV_CONFIG_FIELDS = ("node_ranks", "env_vars", "python_interpreter_path")
PROFILING_BACKENDS = ("nsight", "rocprof_sys")
PLACEHOLDER_INTERPRETER_MARK = "/path/to"
SOURCE_CONFIG = "RLinf rlinf/scheduler/cluster/config.py (ClusterConfig.from_dict_cfg)"
SOURCE_PROBE = "RLinf rlinf/scheduler/cluster/node.py (node probe at cluster start)"


@dataclass(frozen=True)
class EnvConfig:
    """One ``env_configs`` entry: variables and interpreter for some nodes of a group."""

    node_ranks: tuple[int, ...]
    env_vars: tuple[tuple[str, str], ...] = ()
    python_interpreter_path: str | None = None
    path: str = ""


@dataclass(frozen=True)
class NodeGroupSpec:
    """A user node group; the reserved ``cluster`` and ``node`` groups are implied."""

    label: str
    node_ranks: tuple[int, ...]
    env_configs: tuple[EnvConfig, ...] = ()
    hardware_type: str | None = None
    robots: tuple[RobotConfig, ...] = ()
    ignore_hardware: bool = False
    path: str = ""

    def env_for_node(self, node_rank: int) -> EnvConfig | None:
        return next((e for e in self.env_configs if node_rank in e.node_ranks), None)


@dataclass(frozen=True)
class PlacementEntry:
    """One ``component_placement`` key: the components it names and where they go."""

    key: str
    components: tuple[str, ...]
    placement: str
    node_groups: tuple[str, ...] | None = None  # None: the short form (group ``cluster``)
    path: str = ""


@dataclass(frozen=True)
class ClusterSpec:
    """The validated ``cluster`` section."""

    num_nodes: int
    placements: tuple[PlacementEntry, ...]
    node_groups: tuple[NodeGroupSpec, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)
    findings: tuple[Finding, ...] = ()

    def group(self, label: str) -> NodeGroupSpec | None:
        return next((g for g in self.node_groups if g.label == label), None)

    def labels_of_node(self, node_rank: int) -> list[str]:
        return [g.label for g in self.node_groups if node_rank in g.node_ranks]

    @property
    def robots(self) -> tuple[RobotConfig, ...]:
        return tuple(r for g in self.node_groups for r in g.robots)

    @property
    def controller_node_ranks(self) -> tuple[int, ...]:
        """Node ranks that host a robot controller, whether or not a component runs there."""
        return tuple(sorted({n for r in self.robots for n in r.controller_node_ranks()}))


def _fail(message: str, path: str, fix: str = "") -> ClusterConfigError:
    error = ClusterConfigError(message, path, fix)
    error.source = SOURCE_CONFIG
    return error


def _is_mapping(value: object) -> bool:
    return isinstance(value, Mapping)


def _check_fields(
    data: Mapping,
    valid: Sequence[str],
    required: Sequence[str],
    where: str,
    path: str,
    allow_unknown: bool = False,
) -> None:
    missing = [k for k in required if k not in data]
    if missing:
        raise _fail(
            f"Missing fields '{missing}' detected in {where}. Only got: {list(data.keys())}.",
            path,
            f"Add {', '.join(missing)} under {path or 'the cluster section'}.",
        )
    unknown = sorted(str(k) for k in data if k not in valid)
    if unknown and not allow_unknown:
        raise _fail(
            f"Unknown fields '{set(unknown)}' detected in {where}. Valid fields are: {set(valid)}.",
            f"{path}.{unknown[0]}" if path else unknown[0],
            f"Remove or rename {', '.join(unknown)}; valid fields are {', '.join(valid)}.",
        )


def parse_cluster(cluster: object, path: str = "cluster") -> ClusterSpec:
    """Validate a resolved ``cluster`` mapping the way RLinf does and return the typed model."""
    if cluster is None:
        raise _fail(
            "The config has no 'cluster' section; RLinf needs cluster.num_nodes and "
            "cluster.component_placement.",
            path,
            "Add a cluster section with num_nodes and component_placement.",
        )
    if not _is_mapping(cluster):
        raise _fail(
            f"'cluster' must be a mapping, but got {type(cluster).__name__}.",
            path,
            "Write cluster: as a mapping with num_nodes and component_placement under it.",
        )
    # RLinf keeps only its dataclass fields and ignores other cluster keys (tracer, ...).
    _check_fields(
        cluster,
        CLUSTER_FIELDS,
        ("num_nodes", "component_placement"),
        "cluster yaml config",
        path,
        allow_unknown=True,
    )

    num_nodes = cluster["num_nodes"]
    if type(num_nodes) is not int or num_nodes <= 0:
        raise _fail(
            f"'num_nodes' must be a positive integer. But got {num_nodes} of type {type(num_nodes)}.",
            f"{path}.num_nodes",
            "Write num_nodes as an unquoted whole number such as 1 or 2.",
        )
    node_groups = _parse_node_groups(cluster.get("node_groups"), num_nodes, f"{path}.node_groups")
    placements = _parse_placements(cluster["component_placement"], f"{path}.component_placement")
    _check_profiling(cluster.get("profiling"), f"{path}.profiling")
    extras = {k: v for k, v in cluster.items() if k not in CLUSTER_FIELDS}
    return ClusterSpec(
        num_nodes=num_nodes,
        placements=placements,
        node_groups=node_groups,
        extras=extras,
        findings=tuple(_startup_findings(node_groups)),
    )


def _parse_placements(value: object, path: str) -> tuple[PlacementEntry, ...]:
    if not _is_mapping(value):
        raise _fail(
            f"component_placement must be a mapping from component names to placements, "
            f"but got {type(value).__name__}: {value}",
            path,
            "Write it as e.g. `actor,rollout: all` under cluster.component_placement.",
        )
    entries = []
    for key, spec in value.items():
        key_text = str(key)
        names = tuple(name.strip() for name in key_text.split(","))
        entry_path = f"{path}.{key_text}"
        if _is_mapping(spec):
            if "placement" not in spec:
                raise _fail(
                    f"placement must be specified in component_placement config: {dict(spec)}",
                    f"{entry_path}.placement",
                    "Add `placement: <resource ranks>[:<process ranks>]` next to node_group.",
                )
            groups = _node_group_labels(spec["node_group"]) if "node_group" in spec else None
            entries.append(
                PlacementEntry(key_text, names, str(spec["placement"]), groups, entry_path)
            )
        else:
            entries.append(PlacementEntry(key_text, names, str(spec), None, entry_path))
    return tuple(entries)


def _node_group_labels(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",")) if "," in value else (value,)
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    return (str(value),)


def _parse_node_groups(value: object, num_nodes: int, path: str) -> tuple[NodeGroupSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise _fail(
            f"node_groups must be a list of node groups, but got {type(value).__name__}.",
            path,
            "Write each node group as a list item starting with '- label: ...'.",
        )
    groups: list[NodeGroupSpec] = []
    for index, raw in enumerate(value):
        group_path = f"{path}[{index}]"
        if not _is_mapping(raw):
            raise _fail(
                f"Each node yaml config must be a dictionary. But got {type(raw)}: {raw}",
                group_path,
                "Give each node group a label and node_ranks.",
            )
        _check_fields(
            raw,
            NODE_GROUP_FIELDS,
            ("label", "node_ranks"),
            "cluster node_groups yaml config",
            group_path,
        )
        groups.append(_parse_node_group(raw, num_nodes, group_path))
    labels = [g.label for g in groups]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        index = len(labels) - 1 - labels[::-1].index(duplicates[0])
        raise _fail(
            f"Node group labels must be unique, but '{duplicates[0]}' is used more than once.",
            f"{path}[{index}].label",
            "Give every node group its own label.",
        )
    _check_robot_uniqueness(groups)
    return tuple(groups)


def _parse_node_group(raw: Mapping, num_nodes: int, path: str) -> NodeGroupSpec:
    label = str(raw["label"])
    hardware = raw.get("hardware")
    hardware_type = raw.get("hardware_type")
    ignore_hardware = bool(raw.get("ignore_hardware", False))
    robots: tuple[RobotConfig, ...] = ()
    if hardware is not None:
        if hardware_type is not None:
            raise _fail(
                "hardware_type should not be specified.",
                f"{path}.hardware_type",
                "Remove hardware_type; hardware.type already names the hardware.",
            )
        if ignore_hardware:
            raise _fail(
                "Cannot specify hardware when ignore_hardware is set to True.",
                f"{path}.ignore_hardware",
                "Remove either hardware or ignore_hardware.",
            )
    if label in RESERVED_LABELS:
        raise _fail(
            f"Node group label '{label}' is reserved by the scheduler. Please choose another label.",
            f"{path}.label",
            "Rename the group (labels 'cluster' and 'node' belong to RLinf).",
        )
    try:
        node_ranks = tuple(parse_rank_config(raw["node_ranks"], range(num_nodes), "node"))
    except RankSyntaxError as exc:
        raise _fail(f"{exc}", f"{path}.node_ranks", _RANK_FIX) from None
    except RankRangeError as exc:
        raise _fail(
            f"Error parsing node_ranks {raw['node_ranks']} in node group '{label}'. {exc}",
            f"{path}.node_ranks",
            f"Use node ranks between 0 and {num_nodes - 1} (cluster.num_nodes is {num_nodes}).",
        ) from None
    env_configs = _parse_env_configs(
        raw.get("env_configs"), label, node_ranks, f"{path}.env_configs"
    )
    if hardware is not None:
        hardware_type, robots = _parse_hardware(hardware, label, node_ranks, f"{path}.hardware")
    return NodeGroupSpec(
        label=label,
        node_ranks=node_ranks,
        env_configs=env_configs,
        hardware_type=str(hardware_type) if hardware_type is not None else None,
        robots=robots,
        ignore_hardware=ignore_hardware,
        path=path,
    )


_RANK_FIX = 'Write ranks as a string such as "0-3", "0,2,5-6" or all (a YAML list is not accepted).'


def _parse_env_configs(
    value: object, label: str, group_ranks: tuple[int, ...], path: str
) -> tuple[EnvConfig, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise _fail(
            f"env_configs must be a list of dicts. But got {type(value)}: {value}. "
            "Perhaps missing '-' in yaml before node_ranks?",
            path,
            "Start each env_configs entry with '- node_ranks: ...'.",
        )
    configs: list[EnvConfig] = []
    seen_nodes: set[int] = set()
    seen_vars: set[str] = set()
    for index, raw in enumerate(value):
        entry_path = f"{path}[{index}]"
        if not _is_mapping(raw):
            raise _fail(
                f"Each node env_configs yaml config must be a dictionary. But got {type(raw)}: {raw}",
                entry_path,
                "Write each entry as '- node_ranks: ...' with env_vars or python_interpreter_path.",
            )
        _check_fields(
            raw,
            ENV_CONFIG_FIELDS,
            ("node_ranks",),
            "cluster node_group env_configs yaml config",
            entry_path,
        )
        env_vars = _parse_env_vars(raw.get("env_vars"), f"{entry_path}.env_vars")
        try:
            ranks = tuple(parse_rank_config(raw["node_ranks"], group_ranks, "node"))
        except RankSyntaxError as exc:
            raise _fail(str(exc), f"{entry_path}.node_ranks", _RANK_FIX) from None
        except RankRangeError as exc:
            raise _fail(
                f"Error parsing node_ranks {raw['node_ranks']} in env_config of node group '{label}'. {exc}",
                f"{entry_path}.node_ranks",
                f"Use ranks of the group ({format_ranks(group_ranks)}) or all.",
            ) from None
        stray = [r for r in ranks if r not in group_ranks]
        if stray:
            raise _fail(
                f"node_ranks {list(ranks)} in env_config must be a subset of node_ranks "
                f"{list(group_ranks)} in node group '{label}'.",
                f"{entry_path}.node_ranks",
                f"Use ranks of the group ({format_ranks(group_ranks)}) or all.",
            )
        for rank in ranks:
            if rank in seen_nodes:
                raise _fail(
                    f"Node rank {rank} in env_config is duplicated in node group '{label}'.",
                    f"{entry_path}.node_ranks",
                    "Give every node of the group at most one env_configs entry.",
                )
            seen_nodes.add(rank)
        for name, _ in env_vars:
            if name in seen_vars:
                raise _fail(
                    f"Environment variable '{name}' in env_config is duplicated in node group '{label}'.",
                    f"{entry_path}.env_vars",
                    "Set each variable once per node group.",
                )
            seen_vars.add(name)
        interpreter = raw.get("python_interpreter_path")
        configs.append(
            EnvConfig(
                ranks, env_vars, str(interpreter) if interpreter is not None else None, entry_path
            )
        )
    return tuple(configs)


def _parse_env_vars(value: object, path: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise _fail(
            f"env_vars must be a list of dicts. But got {type(value)}: {value}. "
            "Perhaps missing '-' in yaml before each environment variable?",
            path,
            "Write each variable as a list item: '- OMP_NUM_THREADS: 32'.",
        )
    pairs = []
    for index, item in enumerate(value):
        if not _is_mapping(item):
            raise _fail(
                f"Each node env_var must be a dict in config. But got {type(item)}: {item}",
                f"{path}[{index}]",
                "Write each variable as '- NAME: value'.",
            )
        if len(item) != 1:
            raise _fail(
                f"Each node env_var dict must contain exactly one key-value pair. But got: {dict(item)}",
                f"{path}[{index}]",
                "Put each variable in its own list item.",
            )
        ((name, val),) = item.items()
        pairs.append((str(name), str(val)))
    return tuple(pairs)


def _parse_hardware(
    value: object, label: str, group_ranks: tuple[int, ...], path: str
) -> tuple[str, tuple[RobotConfig, ...]]:
    if not _is_mapping(value):
        raise _fail(
            f"Each hardware yaml config must be a dictionary. But got {type(value)}: {value}",
            path,
            "Write hardware as a mapping with type and configs.",
        )
    _check_fields(
        value,
        ("type", "configs"),
        ("type", "configs"),
        "cluster node_group hardware yaml config",
        path,
    )
    hw_type = str(value["type"])
    if hw_type not in ROBOT_FIELDS:
        raise _fail(
            f"Unsupported hardware type: {hw_type}. Currently supported types only include: "
            f"{sorted(ROBOT_FIELDS)}",
            f"{path}.type",
            f"Use one of {', '.join(sorted(ROBOT_FIELDS))}.",
        )
    raw_configs = value.get("configs") or []
    if not isinstance(raw_configs, list | tuple):
        raise _fail(
            f"hardware.configs must be a list, but got {type(raw_configs).__name__}.",
            f"{path}.configs",
            "Start each robot entry with '- node_rank: N'.",
        )
    robots: list[RobotConfig] = []
    seen: list[dict] = []
    valid = ("node_rank", *sorted(ROBOT_FIELDS[hw_type]))
    for index, raw in enumerate(raw_configs):
        entry_path = f"{path}.configs[{index}]"
        if not _is_mapping(raw):
            raise _fail(
                f"Each {hw_type} config must be a dictionary. But got {type(raw)}: {raw}",
                entry_path,
                "Write each robot as a mapping starting with node_rank.",
            )
        _check_fields(raw, valid, ("node_rank",), f"{hw_type} hardware config", entry_path)
        node_rank = raw["node_rank"]
        if type(node_rank) is not int:
            raise _fail(
                f"'node_rank' in {hw_type.lower()} config must be an integer. But got {node_rank} "
                f"of type {type(node_rank)}.",
                f"{entry_path}.node_rank",
                "Write node_rank as an unquoted whole number.",
            )
        if dict(raw) in seen:
            raise _fail(
                f"Duplicate hardware configs found in node group '{label}': {dict(raw)}",
                entry_path,
                "Remove the repeated robot entry.",
            )
        seen.append(dict(raw))
        if node_rank not in group_ranks:
            raise _fail(
                f"node_rank {node_rank} in hardware config must be within node_ranks "
                f"{list(group_ranks)} in node group '{label}'.",
                f"{entry_path}.node_rank",
                f"Use one of the group's node ranks {format_ranks(group_ranks)}, or add "
                f"{node_rank} to the group's node_ranks.",
            )
        fields = {str(k): v for k, v in raw.items() if k != "node_rank"}
        robots.append(RobotConfig(hw_type, node_rank, fields, entry_path))
    robots.sort(key=lambda r: r.node_rank)  # stable: config order within a node
    return hw_type, tuple(robots)


def _check_robot_uniqueness(groups: list[NodeGroupSpec]) -> None:
    owner: dict[tuple[int, str], str] = {}
    for group in groups:
        for robot in group.robots:
            key = (robot.node_rank, robot.hardware_type)
            if owner.setdefault(key, group.label) != group.label:
                raise _fail(
                    f"Cannot have multiple hardware configs of the same type '{robot.hardware_type}' "
                    f"for the same node_rank {robot.node_rank} in different node groups "
                    f"'{owner[key]}' and '{group.label}'.",
                    robot.path,
                    "Declare each robot in one node group only.",
                )


def _check_profiling(value: object, path: str) -> None:
    if value is None:
        return
    if not _is_mapping(value) or not value.get("backend"):
        raise _fail(
            "cluster.profiling.backend must be specified.",
            f"{path}.backend",
            f"Set backend to one of {', '.join(PROFILING_BACKENDS)}.",
        )
    if value["backend"] not in PROFILING_BACKENDS:
        raise _fail(
            f"Unknown profiling backend: {value['backend']}",
            f"{path}.backend",
            f"Set backend to one of {', '.join(PROFILING_BACKENDS)}.",
        )


def _startup_findings(groups: tuple[NodeGroupSpec, ...]) -> list[Finding]:
    """What RLinf accepts in the YAML but rejects when the cluster starts on real nodes."""
    findings = []
    for group in groups:
        for robot in group.robots:
            for name, value in robot.invalid_ips():
                findings.append(
                    Finding(
                        "CFG-ROBOT-IP",
                        Severity.ERROR,
                        f"{robot.path}.{name}",
                        f"'{name}' is '{value}', not an IP address: RLinf rejects it at start "
                        f"('{name}' in {robot.hardware_type.lower()} config must be a valid IP address).",
                        f"Replace '{value}' with the robot's IP address as seen from node {robot.node_rank}.",
                        "RLinf rlinf/scheduler/hardware/robots (robot_ip validation)",
                    )
                )
        for env in group.env_configs:
            interpreter = env.python_interpreter_path
            if interpreter and PLACEHOLDER_INTERPRETER_MARK in interpreter:
                findings.append(
                    Finding(
                        "CFG-INTERPRETER-PLACEHOLDER",
                        Severity.ERROR,
                        f"{env.path}.python_interpreter_path",
                        f"python_interpreter_path '{interpreter}' is a placeholder: at start RLinf "
                        f"checks that it exists on node(s) {list(env.node_ranks)} and stops.",
                        "Set it to the interpreter inside the image (e.g. /opt/venv/bin/python) or remove it.",
                        SOURCE_PROBE,
                    )
                )
    return findings
