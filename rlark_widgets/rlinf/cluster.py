"""The typed model of RLinf's ``cluster`` section, validated exactly as RLinf validates it.

``parse_cluster`` raises :class:`ClusterConfigError` (with the config path) for everything
``ClusterConfig.from_dict_cfg`` and node discovery reject, and returns findings for what RLinf
only rejects at start-up on the real machines (robot IP and interpreter placeholders).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from ..findings import Finding, Severity
from ..i18n import Text
from .errors import ClusterConfigError
from .hardware import CONFIG_NAMES, ROBOT_FIELDS, RobotConfig, config_class_error, node_rank_message
from .overrides import override_key
from .ranks import RankRangeError, RankSyntaxError, format_ranks, parse_rank_config

RESERVED_LABELS = ("cluster", "node")
#: Kubernetes supports clusters of up to 5,000 nodes; a larger num_nodes is a typo, and
#: planning it would build per-node tables of that size.
MAX_NODES = 10_000
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


def _fail(message: Text, path: str, fix: Text) -> ClusterConfigError:
    error = ClusterConfigError(message, path, fix)
    error.source = SOURCE_CONFIG
    return error


def _is_mapping(value: object) -> TypeGuard[Mapping[Any, Any]]:
    return isinstance(value, Mapping)


def _check_fields(
    data: Mapping[str, Any],
    valid: Sequence[str],
    required: Sequence[str],
    where: Text,
    path: str,
    allow_unknown: bool = False,
) -> None:
    missing = [k for k in required if k not in data]
    if missing:
        raise _fail(
            Text(
                "Missing fields '{missing}' detected in {where}. Only got: {got}.",
                missing=missing,
                where=where,
                got=list(data.keys()),
            ),
            path,
            Text("Add {fields} under {path}.", fields=", ".join(missing), path=path)
            if path
            else Text("Add {fields} under the cluster section.", fields=", ".join(missing)),
        )
    unknown = sorted(str(k) for k in data if k not in valid)
    if unknown and not allow_unknown:
        raise _fail(
            Text(
                "Unknown fields '{unknown}' detected in {where}. Valid fields are: {valid}.",
                unknown=set(unknown),
                where=where,
                valid=set(valid),
            ),
            f"{path}.{unknown[0]}" if path else unknown[0],
            Text(
                "Remove or rename {unknown}; valid fields are {valid}.",
                unknown=", ".join(unknown),
                valid=", ".join(valid),
            ),
        )


def parse_cluster(cluster: object, path: str = "cluster") -> ClusterSpec:
    """Validate a resolved ``cluster`` mapping the way RLinf does and return the typed model."""
    if cluster is None:
        raise _fail(
            Text(
                "The config has no 'cluster' section; RLinf needs cluster.num_nodes and "
                "cluster.component_placement."
            ),
            path,
            Text("Add a cluster section with num_nodes and component_placement."),
        )
    if not _is_mapping(cluster):
        raise _fail(
            Text(
                "'cluster' must be a mapping, but got {type_name}.",
                type_name=type(cluster).__name__,
            ),
            path,
            Text("Write cluster: as a mapping with num_nodes and component_placement under it."),
        )
    # RLinf keeps only its dataclass fields and ignores other cluster keys (tracer, ...).
    _check_fields(
        cluster,
        CLUSTER_FIELDS,
        ("num_nodes", "component_placement"),
        Text("cluster yaml config"),
        path,
        allow_unknown=True,
    )

    num_nodes = cluster["num_nodes"]
    if type(num_nodes) is not int or num_nodes <= 0:
        raise _fail(
            Text(
                "'num_nodes' must be a positive integer. But got {value} of type {type}.",
                value=num_nodes,
                type=type(num_nodes),
            ),
            f"{path}.num_nodes",
            Text("Write num_nodes as an unquoted whole number such as 1 or 2."),
        )
    if num_nodes > MAX_NODES:
        raise _fail(
            Text(
                "'num_nodes' is {value}: more Ray nodes than any cluster has (at most {limit}).",
                value=num_nodes,
                limit=f"{MAX_NODES:,}",
            ),
            f"{path}.num_nodes",
            Text("Write the number of Ray nodes the job runs on, such as 1 or 2."),
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
            Text(
                "component_placement must be a mapping from component names to placements, "
                "but got {type_name}: {value}",
                type_name=type(value).__name__,
                value=value,
            ),
            path,
            Text("Write it as e.g. `actor,rollout: all` under cluster.component_placement."),
        )
    entries = []
    for key, spec in value.items():
        key_text = str(key)
        names = tuple(name.strip() for name in key_text.split(","))
        entry_path = f"{path}.{key_text}"
        if _is_mapping(spec):
            if "placement" not in spec:
                raise _fail(
                    Text(
                        "placement must be specified in component_placement config: {spec}",
                        spec=dict(spec),
                    ),
                    f"{entry_path}.placement",
                    Text("Add `placement: <resource ranks>[:<process ranks>]` next to node_group."),
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
            Text(
                "node_groups must be a list of node groups, but got {type_name}.",
                type_name=type(value).__name__,
            ),
            path,
            Text("Write each node group as a list item starting with '- label: ...'."),
        )
    for index, raw in enumerate(value):
        group_path = f"{path}[{index}]"
        if not _is_mapping(raw):
            raise _fail(
                Text(
                    "Each node yaml config must be a dictionary. But got {type}: {value}",
                    type=type(raw),
                    value=raw,
                ),
                group_path,
                Text("Give each node group a label and node_ranks."),
            )
        _check_fields(
            raw,
            NODE_GROUP_FIELDS,
            ("label", "node_ranks"),
            Text("cluster node_groups yaml config"),
            group_path,
        )
    # RLinf builds every group (hardware, robot config classes, reserved labels) before it
    # parses any group's node ranks; a robot IP its config class refuses stops it first.
    built: list[NodeGroupSpec] = []
    refused_ip: ClusterConfigError | None = None
    try:
        for index, raw in enumerate(value):
            built.append(_build_node_group(raw, f"{path}[{index}]"))
            refused_ip = refused_ip or next(iter(_ip_errors(built[-1].robots)), None)
        groups = [
            _place_node_group(group, raw, num_nodes)
            for group, raw in zip(built, value, strict=True)
        ]
        _check_robots(groups)
        _check_unique_groups(groups, path)  # NodeProbe checks labels, after ClusterConfig
    except ClusterConfigError:
        if refused_ip is not None:
            raise refused_ip from None
        raise
    return tuple(groups)


def _check_unique_groups(groups: list[NodeGroupSpec], path: str) -> None:
    labels = [g.label for g in groups]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        index = len(labels) - 1 - labels[::-1].index(duplicates[0])
        raise _fail(
            Text(
                "Node group labels must be unique, but '{label}' is used more than once.",
                label=duplicates[0],
            ),
            f"{path}[{index}].label",
            Text("Give every node group its own label."),
        )


def _build_node_group(raw: Mapping[str, Any], path: str) -> NodeGroupSpec:
    """NodeGroupConfig.__post_init__: hardware, the robots' config classes, reserved labels."""
    label = str(raw["label"])
    hardware = raw.get("hardware")
    hardware_type = raw.get("hardware_type")
    ignore_hardware = bool(raw.get("ignore_hardware", False))
    robots: tuple[RobotConfig, ...] = ()
    if hardware is not None:
        hardware_type, robots = _parse_hardware(hardware, label, f"{path}.hardware")
    try:
        _check_built_group(raw, label, path)
    except ClusterConfigError:
        refused = _ip_errors(robots)  # RLinf built the robots first: their IP error wins
        if refused:
            raise refused[0] from None
        raise
    return NodeGroupSpec(
        label=label,
        node_ranks=(),
        # An explicit hardware_type is used as written; ignore_hardware only stops detection.
        hardware_type=str(hardware_type) if hardware_type is not None else None,
        robots=robots,
        ignore_hardware=ignore_hardware,
        path=path,
    )


def _check_built_group(raw: Mapping[str, Any], label: str, path: str) -> None:
    """The rest of NodeGroupConfig.__post_init__, after the hardware."""
    if raw.get("hardware") is not None:
        if raw.get("hardware_type") is not None:
            raise _fail(
                Text("hardware_type should not be specified."),
                f"{path}.hardware_type",
                Text("Remove hardware_type; hardware.type already names the hardware."),
            )
        if bool(raw.get("ignore_hardware", False)):
            raise _fail(
                Text("Cannot specify hardware when ignore_hardware is set to True."),
                f"{path}.ignore_hardware",
                Text("Remove either hardware or ignore_hardware."),
            )
    if label in RESERVED_LABELS:
        raise _fail(
            Text(
                "Node group label '{label}' is reserved by the scheduler. "
                "Please choose another label.",
                label=label,
            ),
            f"{path}.label",
            Text("Rename the group (labels 'cluster' and 'node' belong to RLinf)."),
        )


def _place_node_group(
    group: NodeGroupSpec, raw: Mapping[str, Any], num_nodes: int
) -> NodeGroupSpec:
    """ClusterConfig.__post_init__ per group: node ranks, env configs, robots within the group."""
    path, label = group.path, group.label
    try:
        node_ranks = tuple(parse_rank_config(raw["node_ranks"], range(num_nodes), "node"))
    except RankSyntaxError as exc:
        raise _fail(exc.text, f"{path}.node_ranks", _RANK_FIX) from None
    except RankRangeError as exc:
        raise _fail(
            Text(
                "Error parsing node_ranks {ranks} in node group '{label}'. {reason}",
                ranks=raw["node_ranks"],
                label=label,
                reason=exc.text,
            ),
            f"{path}.node_ranks",
            Text(
                "Use node ranks between 0 and {last} (cluster.num_nodes is {num_nodes}).",
                last=num_nodes - 1,
                num_nodes=num_nodes,
            ),
        ) from None
    env_configs = _parse_env_configs(
        raw.get("env_configs"), label, node_ranks, f"{path}.env_configs"
    )
    return replace(group, node_ranks=node_ranks, env_configs=env_configs)


def _ip_errors(robots: tuple[RobotConfig, ...]) -> list[ClusterConfigError]:
    """The robot IPs the config classes refuse, as the error RLinf stops with."""
    return [
        _fail(
            _ip_message(robot, name, value),
            f"{robot.path}.{name}",
            _ip_fix(robot, name, value),
        )
        for robot in robots
        for name, value in robot.invalid_ips()
    ]


def _ip_message(robot: RobotConfig, name: str, value: str) -> Text:
    return Text(
        "'{name}' in {config} config must be a valid IP address. But got "
        "{value}. RLinf refuses the cluster section with this message.",
        name=name,
        value=value,
        config=CONFIG_NAMES[robot.hardware_type],
    )


def _ip_fix(robot: RobotConfig, name: str, value: str) -> Text:
    """The fix names the field as an override takes it (``node_groups.1``, not ``[1]``)."""
    return Text(
        "Replace '{value}' with the robot's IP address as seen from node {node_rank}: in the "
        "config, or with the override {key}=<IP>.",
        value=value,
        node_rank=robot.node_rank,
        key=override_key(f"{robot.path}.{name}"),
    )


_RANK_FIX = Text(
    'Write ranks as a string such as "0-3", "0,2,5-6" or all (a YAML list is not accepted).'
)


def _parse_env_configs(
    value: object, label: str, group_ranks: tuple[int, ...], path: str
) -> tuple[EnvConfig, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise _fail(
            Text(
                "env_configs must be a list of dicts. But got {type}: {value}. "
                "Perhaps missing '-' in yaml before node_ranks?",
                type=type(value),
                value=value,
            ),
            path,
            Text("Start each env_configs entry with '- node_ranks: ...'."),
        )
    configs: list[EnvConfig] = []
    seen_nodes: set[int] = set()
    seen_vars: set[str] = set()
    for index, raw in enumerate(value):
        entry_path = f"{path}[{index}]"
        if not _is_mapping(raw):
            raise _fail(
                Text(
                    "Each node env_configs yaml config must be a dictionary. "
                    "But got {type}: {value}",
                    type=type(raw),
                    value=raw,
                ),
                entry_path,
                Text(
                    "Write each entry as '- node_ranks: ...' with env_vars or "
                    "python_interpreter_path."
                ),
            )
        _check_fields(
            raw,
            ENV_CONFIG_FIELDS,
            ("node_ranks",),
            Text("cluster node_group env_configs yaml config"),
            entry_path,
        )
        env_vars = _parse_env_vars(raw.get("env_vars"), f"{entry_path}.env_vars")
        group_fix = Text(
            "Use ranks of the group ({ranks}) or all.", ranks=format_ranks(group_ranks)
        )
        try:
            ranks = tuple(parse_rank_config(raw["node_ranks"], group_ranks, "node"))
        except RankSyntaxError as exc:
            raise _fail(exc.text, f"{entry_path}.node_ranks", _RANK_FIX) from None
        except RankRangeError as exc:
            raise _fail(
                Text(
                    "Error parsing node_ranks {ranks} in env_config of node group '{label}'. "
                    "{reason}",
                    ranks=raw["node_ranks"],
                    label=label,
                    reason=exc.text,
                ),
                f"{entry_path}.node_ranks",
                group_fix,
            ) from None
        stray = [r for r in ranks if r not in group_ranks]
        if stray:
            raise _fail(
                Text(
                    "node_ranks {ranks} in env_config must be a subset of node_ranks "
                    "{group_ranks} in node group '{label}'.",
                    ranks=list(ranks),
                    group_ranks=list(group_ranks),
                    label=label,
                ),
                f"{entry_path}.node_ranks",
                group_fix,
            )
        for rank in ranks:
            if rank in seen_nodes:
                raise _fail(
                    Text(
                        "Node rank {rank} in env_config is duplicated in node group '{label}'.",
                        rank=rank,
                        label=label,
                    ),
                    f"{entry_path}.node_ranks",
                    Text("Give every node of the group at most one env_configs entry."),
                )
            seen_nodes.add(rank)
        for name, _ in env_vars:
            if name in seen_vars:
                raise _fail(
                    Text(
                        "Environment variable '{name}' in env_config is duplicated in node "
                        "group '{label}'.",
                        name=name,
                        label=label,
                    ),
                    f"{entry_path}.env_vars",
                    Text("Set each variable once per node group."),
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
            Text(
                "env_vars must be a list of dicts. But got {type}: {value}. "
                "Perhaps missing '-' in yaml before each environment variable?",
                type=type(value),
                value=value,
            ),
            path,
            Text("Write each variable as a list item: '- OMP_NUM_THREADS: 32'."),
        )
    pairs = []
    for index, item in enumerate(value):
        if not _is_mapping(item):
            raise _fail(
                Text(
                    "Each node env_var must be a dict in config. But got {type}: {value}",
                    type=type(item),
                    value=item,
                ),
                f"{path}[{index}]",
                Text("Write each variable as '- NAME: value'."),
            )
        if len(item) != 1:
            raise _fail(
                Text(
                    "Each node env_var dict must contain exactly one key-value pair. "
                    "But got: {value}",
                    value=dict(item),
                ),
                f"{path}[{index}]",
                Text("Put each variable in its own list item."),
            )
        ((name, val),) = item.items()
        pairs.append((str(name), str(val)))
    return tuple(pairs)


def _parse_hardware(value: object, label: str, path: str) -> tuple[str, tuple[RobotConfig, ...]]:
    if not _is_mapping(value):
        raise _fail(
            Text(
                "Each hardware yaml config must be a dictionary. But got {type}: {value}",
                type=type(value),
                value=value,
            ),
            path,
            Text("Write hardware as a mapping with type and configs."),
        )
    _check_fields(
        value,
        ("type", "configs"),
        ("type", "configs"),
        Text("cluster node_group hardware yaml config"),
        path,
    )
    hw_type = str(value["type"])
    if hw_type not in ROBOT_FIELDS:
        raise _fail(
            Text(
                "Unsupported hardware type: {hw_type}. Currently supported types only include: "
                "{supported}",
                hw_type=hw_type,
                supported=sorted(ROBOT_FIELDS),
            ),
            f"{path}.type",
            Text("Use one of {supported}.", supported=", ".join(sorted(ROBOT_FIELDS))),
        )
    raw_configs = value.get("configs") or []
    if not isinstance(raw_configs, list | tuple):
        raise _fail(
            Text(
                "hardware.configs must be a list, but got {type_name}.",
                type_name=type(raw_configs).__name__,
            ),
            f"{path}.configs",
            Text("Start each robot entry with '- node_rank: N'."),
        )
    valid = ("node_rank", *sorted(ROBOT_FIELDS[hw_type]))
    # RLinf's order (NodeHardwareConfig.__post_init__): every entry's fields, then duplicates,
    # then each config class's own __post_init__; the group's node ranks come last.
    for index, raw in enumerate(raw_configs):
        entry_path = f"{path}.configs[{index}]"
        if not _is_mapping(raw):
            raise _fail(
                Text(
                    "Each hardware config must be a dictionary. But got {type}: {value}",
                    type=type(raw),
                    value=raw,
                ),
                entry_path,
                Text("Write each robot as a mapping starting with node_rank."),
            )
        where = Text("cluster node_group hardware yaml config")
        _check_fields(raw, valid, ("node_rank",), where, entry_path)
    seen: list[tuple[Any, ...]] = []
    for index, raw in enumerate(raw_configs):
        key = _duplicate_key(raw)
        if key is not None and key in seen:
            raise _fail(
                Text(
                    "Duplicate hardware configs found in node hardware config: {config} "
                    "(node group '{label}').",
                    label=label,
                    config=dict(raw),
                ),
                f"{path}.configs[{index}]",
                Text("Remove the repeated robot entry."),
            )
        if key is not None:
            seen.append(key)
    robots: list[RobotConfig] = []
    for index, raw in enumerate(raw_configs):
        entry_path = f"{path}.configs[{index}]"
        node_rank = raw["node_rank"]
        refused = _ip_errors(tuple(robots))  # configs are built in order: an IP error stops it
        if refused and not isinstance(node_rank, int):
            raise refused[0]
        if not isinstance(node_rank, int):
            raise _fail(
                node_rank_message(hw_type, node_rank),
                f"{entry_path}.node_rank",
                Text("Write node_rank as an unquoted whole number."),
            )
        fields = {str(k): v for k, v in raw.items() if k != "node_rank"}
        robot = RobotConfig(hw_type, int(node_rank), fields, entry_path)
        failed = config_class_error(hw_type, fields)
        if failed is not None:
            refused = _ip_errors((*robots, robot))  # the class checks its IP first
            if refused:
                raise refused[0]
            raise _fail(
                failed[1],
                f"{entry_path}.{failed[0]}",
                Text(
                    "Correct {field} as RLinf's {hw_type} config class requires.",
                    field=failed[0],
                    hw_type=hw_type,
                ),
            )
        robots.append(robot)
    return hw_type, tuple(robots)


def _duplicate_key(raw: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """What RLinf compares to find repeated robot configs: their YAML dumps. A list or mapping
    value dumps as an OmegaConf object with its position, so such configs never compare equal."""
    if any(isinstance(v, Mapping | list | tuple) for v in raw.values()):
        return None
    return tuple(sorted((str(k), type(v).__name__, repr(v)) for k, v in raw.items()))


def _check_robots(groups: list[NodeGroupSpec]) -> None:
    """RLinf's pass over every group's robots in config order, once all node ranks are parsed:
    each robot's node within its group, and no (node, type) in two groups."""
    owner: dict[tuple[int, str], str] = {}
    for group in groups:
        for robot in group.robots:
            if robot.node_rank not in group.node_ranks:
                raise _fail(
                    Text(
                        "node_rank {node_rank} in hardware config must be within node_ranks "
                        "{group_ranks} in node group '{label}'.",
                        node_rank=robot.node_rank,
                        group_ranks=list(group.node_ranks),
                        label=group.label,
                    ),
                    f"{robot.path}.node_rank",
                    Text(
                        "Use one of the group's node ranks {group_ranks}, or add {node_rank} to "
                        "the group's node_ranks.",
                        group_ranks=format_ranks(group.node_ranks),
                        node_rank=robot.node_rank,
                    ),
                )
            key = (robot.node_rank, robot.hardware_type)
            if owner.setdefault(key, group.label) != group.label:
                raise _fail(
                    Text(
                        "Cannot have multiple hardware configs of the same type '{hw_type}' "
                        "for the same node_rank {node_rank} in different node groups "
                        "'{first}' and '{second}'.",
                        hw_type=robot.hardware_type,
                        node_rank=robot.node_rank,
                        first=owner[key],
                        second=group.label,
                    ),
                    robot.path,
                    Text("Declare each robot in one node group only."),
                )


def _check_profiling(value: object, path: str) -> None:
    if value is None:
        return
    fix = Text("Set backend to one of {backends}.", backends=", ".join(PROFILING_BACKENDS))
    if not _is_mapping(value) or not value.get("backend"):
        raise _fail(Text("cluster.profiling.backend must be specified."), f"{path}.backend", fix)
    if value["backend"] not in PROFILING_BACKENDS:
        raise _fail(
            Text("Unknown profiling backend: {backend}", backend=value["backend"]),
            f"{path}.backend",
            fix,
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
                        _ip_message(robot, name, value),
                        _ip_fix(robot, name, value),
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
                        Text(
                            "python_interpreter_path '{interpreter}' is a placeholder: at start "
                            "RLinf checks that it exists on node(s) {nodes} and stops.",
                            interpreter=interpreter,
                            nodes=list(env.node_ranks),
                        ),
                        Text(
                            "Set it to the interpreter inside the image "
                            "(e.g. /opt/venv/bin/python) or remove it."
                        ),
                        SOURCE_PROBE,
                    )
                )
    return findings
