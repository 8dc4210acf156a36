"""RLinf 0.3.0's own placement code, run offline: the reference of the differential tests.

Runs in the oracle's interpreter (``make oracle`` builds ``.oracle-venv`` with ``pip install
--no-deps rlinf==0.3.0`` from the package index, plus Ray, Hydra and OmegaConf); nothing of
rlark_widgets is imported here, so what it answers is RLinf's, not ours.

What runs is RLinf's own, unmodified:

- ``rlinf.scheduler.cluster.config.ClusterConfig``: the ``cluster`` section's schema checks;
- ``rlinf.scheduler.cluster.node.NodeProbe`` and the body of ``_RemoteNodeProbe.__init__``:
  ``RLINF_NODE_RANK`` parsing, sorting and truncation to ``num_nodes``, node groups (the reserved
  ``cluster`` and ``node`` groups included), the hardware enumeration over RLinf's registry;
- ``rlinf.scheduler.placement`` and ``rlinf.utils.placement``: the placement grammar, the
  Flexible, Node and Packed strategies and the Hybrid / ModelParallel placement classes.

What is faked, and why (no Ray cluster, no devices, no robots on a test machine):

- Ray: ``ray.is_initialized``, ``ray.get``, ``ray.get_runtime_context`` and
  ``Cluster.get_alive_nodes`` answer for fake nodes; each node's probe actor is built as a plain
  object with ``RLINF_NODE_RANK`` set in the environment while it runs, as a Ray node would.
- Devices: every accelerator manager reports the node's GPU count as NVIDIA GPUs.
- Robots: camera enumeration returns the serials the config lists, camera-SDK and CAN checks are
  skipped and ``disable_validate`` is set, so no IP is pinged; robot variables are unset.
- ``python_interpreter_path``: its existence check passes (the path is on a cluster node).
- torch: when it is not importable a small stand-in module lets RLinf's type aliases import.
- ``rlinf.scheduler``'s package ``__init__`` (channels, collectives, workers) is bypassed: only
  the cluster, hardware and placement sub-packages are imported.

The answer is one JSON object in the field names of ``tests/data/rlinf-configs/expected``:
``ok``, ``error`` (RLinf's exception, type and message, with its causes), ``task_type``,
``placement_class``, ``placement_mode``, ``num_nodes``, ``per_node`` and ``components``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import ipaddress
import json
import os
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: RLinf's placement class per ``runner.task_type``, as its entry points choose it.
PLACEMENT_CLASSES = {
    "base": ("rlinf.scheduler.placement", "ComponentPlacement"),
    "hybrid": ("rlinf.utils.placement", "HybridComponentPlacement"),
    "model_parallel": ("rlinf.utils.placement", "ModelParallelComponentPlacement"),
    "model_parallel_eval": ("rlinf.utils.placement", "ModelParallelEvalComponentPlacement"),
}
TASK_TYPE_CLASS = {
    "embodied": "hybrid",
    "embodied_eval": "hybrid",
    "sft": "hybrid",
    "offline": "hybrid",
    "reasoning": "model_parallel",
    "coding_online_rl": "model_parallel",
    "reasoning_eval": "model_parallel_eval",
}
#: Variables a robot node may export that RLinf reads in place of the config's values.
ROBOT_VARIABLES = (
    "ROBOT_IP",
    "LEFT_ROBOT_IP",
    "RIGHT_ROBOT_IP",
    "ROBOT_URL",
    "CAN_INTERFACE",
    "CAMERA_SERIALS",
    "RLINF_NODE_RANK",
)
CAMERA_FIELDS = (
    "camera_serials",
    "left_camera_serials",
    "right_camera_serials",
    "base_camera_serials",
)


@dataclass
class Rlinf:
    """The parts of RLinf the harness uses, imported once per process."""

    version: str
    stubbed_torch: bool
    modules: dict[str, types.ModuleType] = field(default_factory=dict)

    def __getitem__(self, name: str) -> types.ModuleType:
        return self.modules[name]


def _stand_in_torch() -> bool:
    """Install a torch module with just what RLinf's imports touch, when there is no torch."""
    try:
        import torch  # noqa: F401
    except Exception:
        torch = types.ModuleType("torch")
        torch.Tensor = type("Tensor", (), {})  # type: ignore[attr-defined]
        torch.cuda = types.ModuleType("torch.cuda")  # type: ignore[attr-defined]
        torch.cuda.device_count = lambda: 0  # type: ignore[attr-defined]
        torch.distributed = types.ModuleType("torch.distributed")  # type: ignore[attr-defined]
        torch.distributed.is_initialized = lambda: False  # type: ignore[attr-defined]
        sys.modules.update(
            {"torch": torch, "torch.cuda": torch.cuda, "torch.distributed": torch.distributed}
        )
        return True
    return False


def import_rlinf() -> Rlinf:
    """RLinf's cluster, hardware and placement code, without ``rlinf.scheduler.__init__``."""
    stubbed = _stand_in_torch()
    import rlinf  # registers RLinf's OmegaConf resolvers (multiply, int_div, ...)

    package_dir = os.path.join(os.path.dirname(rlinf.__file__), "scheduler")
    scheduler = sys.modules.get("rlinf.scheduler")
    if scheduler is None:
        scheduler = types.ModuleType("rlinf.scheduler")
        scheduler.__path__ = [package_dir]
        scheduler.__file__ = os.path.join(package_dir, "__init__.py")
        scheduler.__package__ = "rlinf.scheduler"
        sys.modules["rlinf.scheduler"] = scheduler
        rlinf.scheduler = scheduler  # type: ignore[attr-defined]
    names = {
        "cluster": "rlinf.scheduler.cluster",
        "hardware": "rlinf.scheduler.hardware",
        "placement": "rlinf.scheduler.placement",
    }
    found = {key: importlib.import_module(name) for key, name in names.items()}
    # What RLinf's code imports from ``rlinf.scheduler`` itself.
    for name in ("Cluster", "ClusterConfig"):
        setattr(scheduler, name, getattr(found["cluster"], name))
    for name in (
        "ComponentPlacement",
        "FlexiblePlacementStrategy",
        "NodePlacementStrategy",
        "PackedPlacementStrategy",
        "PlacementStrategy",
    ):
        setattr(scheduler, name, getattr(found["placement"], name))
    for name in ("AcceleratorType", "AcceleratorUtil", "HardwareInfo"):
        setattr(scheduler, name, getattr(found["hardware"], name))
    for key, name in {
        "utils_placement": "rlinf.utils.placement",
        "node": "rlinf.scheduler.cluster.node",
        "cluster_module": "rlinf.scheduler.cluster.cluster",
        "accelerator": "rlinf.scheduler.hardware.accelerators.accelerator",
        "franka": "rlinf.scheduler.hardware.robots.franka",
    }.items():
        found[key] = importlib.import_module(name)
    with contextlib.suppress(ImportError):
        found["gim_arm"] = importlib.import_module("rlinf.scheduler.hardware.robots.gim_arm")
    from importlib.metadata import version

    return Rlinf(version=version("rlinf"), stubbed_torch=stubbed, modules=found)


def load_config(path: str, *, compose: bool, env: list[str], overrides: list[str]) -> Any:
    """The config as RLinf's launchers read it: composed by Hydra, or loaded as one file."""
    from omegaconf import OmegaConf

    if not compose:
        config = OmegaConf.load(path)
        return OmegaConf.merge(config, OmegaConf.from_dotlist(overrides)) if overrides else config
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    for item in env:
        name, value = item.split("=", 1)
        os.environ[name] = value
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.splitext(os.path.basename(path))[0]
    # version_base="1.1": RLinf's entry scripts declare @hydra.main(version_base="1.1").
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with initialize_config_dir(config_dir=directory, version_base="1.1"):
            return hydra_compose(config_name=name, overrides=overrides)


def replace_placeholder_ips(config: Any, notes: list[str]) -> None:
    """Give robot configs whose ``*robot_ip`` is a placeholder a documentation address."""
    from omegaconf import open_dict

    count = 0
    for group in config.cluster.get("node_groups", None) or []:
        hardware = group.get("hardware", None)
        for item in (hardware.get("configs", []) or []) if hardware is not None else []:
            for key in list(item.keys()):
                if not key.endswith("robot_ip") or item[key] is None:
                    continue
                try:
                    ipaddress.ip_address(str(item[key]))
                except ValueError:
                    count += 1
                    notes.append(f"placeholder {key}={item[key]!r} replaced by 192.0.2.{count}")
                    with open_dict(item):
                        item[key] = f"192.0.2.{count}"


def _int_map(text: str | None) -> dict[int, int]:
    pairs = (part.split(":") for part in (text or "").split(",") if part)
    return {int(key): int(value) for key, value in pairs}


class _Ref:
    """What a fake ``.remote()`` returns: the value, for the fake ``ray.get``."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _ray_get(ref: Any) -> Any:
    if isinstance(ref, list):
        return [_ray_get(item) for item in ref]
    if isinstance(ref, _Ref):
        return ref.value
    raise RuntimeError("harness: ray.get of something no fake actor returned")


class _Handle:
    """An actor handle over a local object: ``handle.method.remote(...)`` calls it."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._target, name)
        return types.SimpleNamespace(remote=lambda *a, **k: _Ref(method(*a, **k)))


@contextlib.contextmanager
def _patched(target: Any, name: str, value: Any) -> Iterator[None]:
    saved = target.__dict__[name] if isinstance(target, type) else getattr(target, name)
    setattr(target, name, value)
    try:
        yield
    finally:
        setattr(target, name, saved)


@dataclass
class FakeNodes:
    """The Ray nodes a run pretends to have: GPUs, node ranks and the robots' cameras."""

    count: int | None  # None: as many as ``num_nodes``
    gpus: int
    gpu_map: dict[int, int]
    ranks: dict[int, int]
    current_gpus: int = 0
    current_cameras: set[str] = field(default_factory=set)

    def alive(self) -> list[dict[str, Any]]:
        return [
            {
                "NodeID": f"fake-node-{index:04d}",
                "NodeManagerAddress": f"10.255.{index // 250}.{index % 250 + 1}",
                "Resources": {"CPU": 32.0, "GPU": float(self.gpu_map.get(index, self.gpus))},
                "Alive": True,
            }
            for index in range(self.count or 0)
        ]


def _fake_devices(rlinf: Rlinf, nodes: FakeNodes, cluster_config: Any) -> None:
    """Accelerator counts from the fake node; robots that need no hardware to be probed."""
    managers = rlinf["accelerator"].AcceleratorManager.manager_register
    for kind, manager in list(managers.items()):
        nvidia = getattr(kind, "value", str(kind)) == "NV_GPU"
        manager.get_num_devices = staticmethod(
            (lambda: nodes.current_gpus) if nvidia else (lambda: 0)
        )
        manager.get_accelerator_model = staticmethod(lambda: "FAKE")
    franka = rlinf["franka"].FrankaRobot
    franka._validate_camera_sdk = staticmethod(lambda *a, **k: None)
    franka.enumerate_cameras = classmethod(
        lambda cls, camera_type="realsense": set(nodes.current_cameras) or {"FAKE"}
    )
    gim = getattr(rlinf.modules.get("gim_arm"), "GimArmRobot", None)
    if gim is not None:
        if hasattr(gim, "_validate_can_interface"):
            gim._validate_can_interface = staticmethod(lambda *a, **k: None)
        if hasattr(gim, "enumerate_cameras"):
            gim.enumerate_cameras = franka.enumerate_cameras
    for group in cluster_config.node_groups or []:
        for item in group.hardware.configs if group.hardware is not None else []:
            if hasattr(item, "disable_validate"):
                item.disable_validate = True
    for name in ROBOT_VARIABLES:
        os.environ.pop(name, None)


def _probe_factory(rlinf: Rlinf, nodes: FakeNodes) -> Any:
    """Stands in for ``_RemoteNodeProbe``: builds RLinf's probe locally, as on that node."""
    probe_class = rlinf["node"]._RemoteNodeProbe.__ray_metadata__.modified_class

    def options(**kwargs: Any) -> Any:
        index = int(kwargs["name"].split("NodeProbe_", 1)[1].rsplit("-", 1)[1])

        def remote(node_info: Any, alive: Any, cluster_config: Any, interpreter: Any) -> _Handle:
            if index in nodes.ranks:
                os.environ["RLINF_NODE_RANK"] = str(nodes.ranks[index])
            nodes.current_gpus = nodes.gpu_map.get(index, nodes.gpus)
            rank = nodes.ranks.get(index, -1)
            configs = cluster_config.get_node_hw_configs_by_rank(rank) if cluster_config else []
            nodes.current_cameras = {
                str(serial)
                for item in configs
                for name in CAMERA_FIELDS
                for serial in getattr(item, name, None) or []
            }
            try:
                return _Handle(probe_class(node_info, alive, cluster_config, interpreter))
            finally:
                os.environ.pop("RLINF_NODE_RANK", None)

        return types.SimpleNamespace(remote=remote)

    return types.SimpleNamespace(options=options)


class _ExistingPaths:
    """``os`` for RLinf's node module, where every interpreter path exists."""

    def __init__(self, real: types.ModuleType) -> None:
        self._real = real
        self.path = types.SimpleNamespace(
            **{
                name: getattr(real.path, name)
                for name in dir(real.path)
                if not name.startswith("__")
            }
        )
        self.path.exists = lambda _path: True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def build_cluster(rlinf: Rlinf, config: Any, nodes: FakeNodes, notes: list[str]) -> Any:
    """RLinf's ClusterConfig and NodeProbe over the fake nodes; None when RLinf would wait."""
    import ray

    node_module = rlinf["node"]
    cluster_class = rlinf["cluster_module"].Cluster
    cluster_config = rlinf["cluster"].ClusterConfig.from_dict_cfg(config.cluster)
    if nodes.count is None:
        nodes.count = cluster_config.num_nodes
    nodes.ranks = {index: index for index in range(nodes.count)}
    if nodes.count < cluster_config.num_nodes:
        notes.append(
            f"Ray has {nodes.count} alive nodes < num_nodes={cluster_config.num_nodes}: RLinf's "
            f"Cluster would loop forever logging 'Waiting for {cluster_config.num_nodes} nodes to "
            f"be ready, currently {nodes.count} nodes available.' (no timeout)."
        )
        return None, cluster_config
    _fake_devices(rlinf, nodes, cluster_config)
    alive = nodes.alive()
    context = types.SimpleNamespace(get_node_id=lambda: alive[0]["NodeID"])
    fakes: list[tuple[Any, str, Callable[..., Any] | Any]] = [
        (ray, "is_initialized", lambda: True),
        (ray, "get", _ray_get),
        (ray, "get_runtime_context", lambda: context),
        (cluster_class, "get_alive_nodes", staticmethod(lambda: list(alive))),
        (node_module, "_RemoteNodeProbe", _probe_factory(rlinf, nodes)),
        (node_module, "os", _ExistingPaths(node_module.os)),
    ]
    with contextlib.ExitStack() as stack, warnings.catch_warnings(record=True) as caught:
        for target, name, value in fakes:
            stack.enter_context(_patched(target, name, value))
        warnings.simplefilter("always")
        probe = node_module.NodeProbe(cluster_config.num_nodes, cluster_config)
    notes.extend(
        f"RLinf warning: {w.message}"
        for w in caught
        if "Python interpreter used to launch Ray" not in str(w.message)
    )
    cluster = object.__new__(cluster_class)
    cluster._has_initialized = True
    cluster._cluster_cfg = cluster_config
    cluster._nodes = probe.nodes
    cluster._node_groups = probe.node_groups
    cluster._num_nodes = len(probe.nodes)
    return cluster, cluster_config


def expand(config: Any, cluster: Any, placement_class: str) -> tuple[dict[str, Any], str | None]:
    """Every component's process rows, by RLinf's placement class for the task type."""
    module, name = PLACEMENT_CLASSES[placement_class]
    placement_type = getattr(importlib.import_module(module), name)
    with contextlib.redirect_stderr(io.StringIO()):
        placement = placement_type(config, cluster)
        components = {}
        for component in placement.components:
            strategy = placement.get_strategy(component)
            rows = strategy.get_placement(cluster, True)
            components[component] = {
                "strategy": type(strategy).__name__,
                "world_size": len(rows),
                "processes": [
                    {
                        "rank": row.rank,
                        "node_rank": row.cluster_node_rank,
                        "node_group": row.node_group_label,
                        "local_hardware_ranks": list(row.local_hardware_ranks),
                        "visible_accelerators": [int(x) for x in row.visible_accelerators],
                        "local_accelerator_rank": int(row.local_accelerator_rank),
                        "local_rank": row.local_rank,
                        "local_world_size": row.local_world_size,
                    }
                    for row in rows
                ],
            }
    mode = getattr(placement, "placement_mode", None)
    return components, (mode.name if mode is not None else None)


def per_node(cluster: Any, components: dict[str, Any]) -> dict[str, Any]:
    """Per node rank: components, processes, accelerators used and other hardware used."""
    seen: dict[int, dict[str, Any]] = {}
    for component, info in components.items():
        for row in info["processes"]:
            node = seen.setdefault(
                row["node_rank"],
                {"components": set(), "accelerators": set(), "other": set(), "processes": 0},
            )
            node["components"].add(component)
            node["processes"] += 1
            group = cluster.get_node_group(row["node_group"])
            kind = group.hardware_type if group is not None else None
            if kind == "Accelerator":
                node["accelerators"].update(row["local_hardware_ranks"])
            elif kind is not None:
                node["other"].update(f"{kind}:{rank}" for rank in row["local_hardware_ranks"])
    return {
        str(rank): {
            "labels": cluster.get_node_info(rank).node_labels,
            "accelerators_on_node": cluster.get_node_info(rank).num_accelerators,
            "components": sorted(node["components"]),
            "processes": node["processes"],
            "accelerators_used": sorted(node["accelerators"]),
            "min_accelerators_needed": max(node["accelerators"]) + 1 if node["accelerators"] else 0,
            "other_hardware_used": sorted(node["other"]),
        }
        for rank, node in sorted(seen.items())
    }


def rlinf_error(exc: BaseException) -> str:
    """RLinf's exception as the tests compare it: type, message and its causes."""
    message = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(message) < 2000:
        message += f" | caused by {type(cause).__name__}: {cause}"
        cause = cause.__cause__ or cause.__context__
    return message


def parser() -> argparse.ArgumentParser:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    arguments.add_argument("config", help="RLinf YAML file")
    arguments.add_argument("--gpus-per-node", type=int, required=True)
    arguments.add_argument("--gpus-per-node-map", help="per-node-rank GPU counts, e.g. 0:8,1:0")
    arguments.add_argument("--ray-nodes", type=int, help="alive Ray nodes (default num_nodes)")
    arguments.add_argument("--fix-placeholders", action="store_true")
    arguments.add_argument("--compose", action="store_true", help="compose with Hydra")
    arguments.add_argument("--env", action="append", default=[], help="NAME=VALUE for composing")
    arguments.add_argument("--override", dest="overrides", action="append", default=[])
    return arguments


def run(argv: list[str], rlinf: Rlinf) -> dict[str, Any]:
    """One expansion: RLinf's answer for one config on one GPU layout."""
    args = parser().parse_args(argv)
    notes: list[str] = []
    answer: dict[str, Any] = {
        "config": args.config,
        "rlinf": {"dist_version": rlinf.version, "torch_stubbed": rlinf.stubbed_torch},
    }
    try:
        config = load_config(
            args.config, compose=args.compose, env=args.env, overrides=args.overrides
        )
        if args.fix_placeholders:
            replace_placeholder_ips(config, notes)
        task_type = None
        with contextlib.suppress(Exception):
            task_type = config.runner.task_type
        placement_class = TASK_TYPE_CLASS.get(task_type, "base")
        answer.update(task_type=task_type, placement_class=placement_class)
        nodes = FakeNodes(
            count=args.ray_nodes,
            gpus=args.gpus_per_node,
            gpu_map=_int_map(args.gpus_per_node_map),
            ranks={},
        )
        cluster, cluster_config = build_cluster(rlinf, config, nodes, notes)
        answer["num_nodes"] = cluster_config.num_nodes
        if cluster is None:
            answer.update(ok=False, notes=notes)
            return answer
        components, mode = expand(config, cluster, placement_class)
        answer.update(
            placement_mode=mode,
            per_node=per_node(cluster, components),
            components=components,
            ok=True,
        )
    except Exception as exc:  # RLinf's refusal is the answer
        answer.update(ok=False, error=rlinf_error(exc))
    answer["notes"] = notes
    return answer


def main() -> None:
    """One JSON request line in (``{"argv": [...]}``), one JSON answer line out, until EOF."""
    rlinf = import_rlinf()
    for line in sys.stdin:
        request = json.loads(line)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                answer = run(request["argv"], rlinf)
            except BaseException as exc:  # a harness crash is an answer, not the server's end
                answer = {"ok": False, "oracle_crash": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
