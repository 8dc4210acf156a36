"""Re-placement used by RLinf's reasoning entry points (``rlinf/utils/placement.py``, 0.3.0).

``ModelParallelComponentPlacement`` first parses placements generically, then replaces the
strategies of the model-parallel components with packed GPU ranges whose shape depends on
tensor-parallel sizes from the rest of the config. ``ModelParallelEvalComponentPlacement``
does the same for evaluation (rollout and reward only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..i18n import Text
from .errors import PlacementError, RLinfCheckError
from .strategies import ProcessPlacement, StrategyError, check_packed, packed_placement
from .topology import Topology

ConfigLookup = Callable[[str, Any], Any]
COLLOCATED, DISAGGREGATED, AUTO = "COLLOCATED", "DISAGGREGATED", "AUTO"


class ModelParallelError(RLinfCheckError):
    """A check of RLinf's model-parallel placement failed (message as RLinf words it)."""


_ABSENT = object()


class ParallelSizes:
    """The parallel sizes RLinf's placement reads, read the way its properties read them.

    Values are returned as written (a string, float, null or 0 included): RLinf does its
    arithmetic on them as they are, so the placement below does the same and turns the
    TypeError or ZeroDivisionError RLinf would stop with into an error naming the field.
    A section RLinf reads but the config lacks is refused when it is first read, as
    Hydra's struct config refuses it in RLinf.
    """

    def __init__(self, get: ConfigLookup) -> None:
        self._get = get
        self.read: list[tuple[str, Any]] = []

    def _section(self, path: str) -> Any:
        value = self._get(path, _ABSENT)
        if value is _ABSENT or not isinstance(value, dict | Mapping):
            raise PlacementError(
                Text(
                    "The config has no {path} section, but RLinf's model-parallel placement "
                    "reads it and stops there (ConfigAttributeError: Key '{key}' is not in "
                    "struct).",
                    path=path,
                    key=path.rsplit(".", 1)[-1],
                ),
                path,
                Text("Add the {path} section RLinf's reasoning configs have.", path=path),
            )
        return value

    def _size(self, section: str, key: str, default: Any = 1) -> Any:
        node = self._section(section)
        value = node.get(key, default)
        self.read.append((f"{section}.{key}", value))
        return value

    def actor_tp(self) -> Any:
        return self._size("actor.model", "tensor_model_parallel_size")

    def critic_tp(self) -> Any:
        return self._size("critic.model", "tensor_model_parallel_size")

    def rollout_tp(self) -> Any:
        return self._size("rollout", "tensor_parallel_size")

    def rollout_pp(self) -> Any:
        return self._size("rollout", "pipeline_parallel_size")

    def inference_tp(self) -> Any:
        for name in ("inference", "actor_inference"):
            if self._top_level(name):
                return self._size(f"{name}.model", "tensor_model_parallel_size")
        return self.actor_tp()

    def critic_inference_tp(self) -> Any:
        model = self._get("critic_inference.model", None)
        if isinstance(model, Mapping) and "tensor_model_parallel_size" in model:
            return self._size("critic_inference.model", "tensor_model_parallel_size")
        return self.critic_tp()

    def recompute_logprobs(self) -> bool:
        algorithm = self._section("algorithm")
        if "recompute_logprobs" not in algorithm:
            raise PlacementError(
                Text(
                    "algorithm.recompute_logprobs is not set, but RLinf's disaggregated "
                    "placement reads it and stops there (ConfigAttributeError)."
                ),
                "algorithm.recompute_logprobs",
                Text("Set algorithm.recompute_logprobs to true or false."),
            )
        return bool(algorithm["recompute_logprobs"])

    def cluster_flag(self, key: str) -> bool:
        return bool(self._get(f"cluster.{key}", False))

    def _top_level(self, name: str) -> bool:
        """``hasattr(cfg, name)`` on RLinf's struct config: the key is present (even if null)."""
        return self._get(name, _ABSENT) is not _ABSENT

    def crash_error(self, exc: Exception) -> PlacementError:
        """The TypeError/ZeroDivisionError RLinf stops with, blamed on the size that caused it."""
        path, value = next(
            ((p, v) for p, v in self.read if type(v) is not int or v == 0),
            self.read[-1] if self.read else ("cluster.component_placement", None),
        )
        return PlacementError(
            Text(
                "{path} is {value}: RLinf's placement does arithmetic with it and stops with "
                "{error}.",
                path=path,
                value=repr(value),
                error=f"{type(exc).__name__}: {exc}",
            ),
            path,
            Text(
                "Set {path} to the model's parallel size, a whole number such as 1, 2 or 4.",
                path=path,
            ),
        )


def _continuous(name: str, gpus: list[int] | None) -> None:
    if gpus is not None and gpus != list(range(gpus[0], gpus[-1] + 1)):
        raise ModelParallelError(
            Text("{component} GPUs {gpus} must be continuous.", component=name, gpus=gpus)
        )


def _require(condition: bool, message: Text) -> None:
    if not condition:
        raise ModelParallelError(message)


def _specified(gpus: list[int] | None, component: str) -> list[int]:
    """The component's GPUs; RLinf's error when the placement does not give them."""
    _require(
        gpus is not None,
        Text(
            "{component} GPUs must be specified in the component_placement config.",
            component=component,
        ),
    )
    assert gpus is not None  # _require raised otherwise
    return gpus


def _not_collocated(absent: bool, component: str) -> None:
    _require(
        absent,
        Text("{component} GPUs must not be specified in collocated mode.", component=component),
    )


def _tp_fits(component: str, tp: Any, world: int) -> None:
    _require(
        tp <= world,
        Text(
            "{component} TP size {tp} must be less than or equal to {component} world size "
            "{world}.",
            component=component,
            tp=tp,
            world=world,
        ),
    )


@dataclass(frozen=True)
class PackedSpec:
    """One PackedPlacementStrategy RLinf constructs: its checks ran, its placement is lazy."""

    start: int
    end: int
    per_process: Any = 1
    stride: Any = 1

    @classmethod
    def build(cls, start: int, end: int, per_process: Any = 1, stride: Any = 1) -> PackedSpec:
        """PackedPlacementStrategy.__init__'s checks, in its order."""
        check_packed(start, end, per_process, stride)
        return cls(start, end, per_process, stride)

    def place(self, topo: Topology) -> list[ProcessPlacement]:
        group = topo.groups["cluster"]
        return packed_placement(self.start, self.end, group, topo, self.per_process, self.stride)


def model_parallel_placement(
    hardware: dict[str, list[int]], sizes: ParallelSizes, topo: Topology
) -> tuple[str, dict[str, PackedSpec]]:
    """ModelParallelComponentPlacement.__init__: the mode and the packed strategies it stores.

    The names are RLinf's, which may name no component of the config (an ``inference``
    strategy when the config says ``actor_inference``): the caller places only components.
    """
    actor = _specified(hardware.get("actor"), "Actor")
    rollout = _specified(hardware.get("rollout"), "Rollout")
    _specified(hardware.get("reward"), "Reward")  # required though only the rows above use GPUs
    inference = hardware.get("inference")
    if inference is None:
        inference = hardware.get("actor_inference")
    critic_inference, critic = hardware.get("critic_inference"), hardware.get("critic")
    for name, gpus in (
        ("Actor", actor),
        ("Rollout", rollout),
        ("Inference", inference),
        ("Critic inference", critic_inference),
        ("Critic", critic),
    ):
        _continuous(name, gpus)

    disaggregated = _disjoint(actor, rollout, inference, critic, critic_inference)
    if sizes.cluster_flag("auto_scheduler") and critic is None:
        _require(
            disaggregated,
            Text(
                "AUTO mode is a more advanced version of disaggregated mode, so it "
                "must satisfy the requirements of disaggregated mode."
            ),
        )
        order = Text(
            "AUTO mode requires components to be placed in the order of "
            "actor -> rollout -> inference."
        )
        _require(actor[0] == 0 and actor[-1] == rollout[0] - 1, order)
        tail = inference if inference is not None else rollout
        if inference is not None:
            _require(rollout[-1] == inference[0] - 1, order)
        _require(tail[-1] == topo.total_gpus - 1, order)
        mode = AUTO
    elif actor == rollout:
        _not_collocated(inference is None, "Inference")
        _not_collocated(critic_inference is None, "Critic inference")
        mode = COLLOCATED
    elif disaggregated:
        if inference is not None:
            _tp_fits("Inference", sizes.inference_tp(), len(inference))
            _require(
                sizes.recompute_logprobs(),
                Text(
                    "algorithm.recompute_logprobs has been set to false, which disables "
                    "inference. So inference GPUs {gpus} must not be specified.",
                    gpus=inference,
                ),
            )
        if critic_inference is not None:
            _tp_fits("Inference", sizes.critic_inference_tp(), len(critic_inference))
        mode = DISAGGREGATED
    else:
        raise ModelParallelError(
            Text(
                "The specified placement does not match either the collocated mode (all the "
                "components use the same GPUs) or the disaggregated mode (all the components use "
                "completely different GPUs), but got {hardware}",
                hardware=hardware,
            )
        )
    _tp_fits("Actor", sizes.actor_tp(), len(actor))
    _tp_fits("Rollout", sizes.rollout_tp(), len(rollout))
    try:
        specs = _packed_components(
            mode, hardware, actor, rollout, inference, critic_inference, sizes, topo
        )
    except StrategyError as exc:
        raise ModelParallelError(exc.text) from None
    return mode, specs


def _disjoint(*sets: list[int] | None) -> bool:
    actor, rollout, inference, critic, critic_inference = (set(s or ()) for s in sets)
    return (
        actor.isdisjoint(rollout)
        and actor.isdisjoint(inference)
        and rollout.isdisjoint(inference)
        and critic.isdisjoint(actor)
        and critic.isdisjoint(rollout)
        and critic.isdisjoint(critic_inference)
        and rollout.isdisjoint(critic_inference)
    )


def _rollout_dp(sizes: ParallelSizes, rollout_gpus: int) -> Any:
    return rollout_gpus // (sizes.rollout_tp() * sizes.rollout_pp())


def _packed_components(
    mode: str,
    hardware: dict[str, list[int]],
    actor: list[int],
    rollout: list[int],
    inference: list[int] | None,
    critic_inference: list[int] | None,
    sizes: ParallelSizes,
    topo: Topology,
) -> dict[str, PackedSpec]:
    """ModelParallelComponentPlacement._generate_placements, in its order."""
    specs: dict[str, PackedSpec] = {}
    reward, critic = hardware.get("reward"), hardware.get("critic")

    def packed(gpus: list[int], per_process: Any = 1, stride: Any = 1) -> PackedSpec:
        return PackedSpec.build(gpus[0], gpus[-1], per_process, stride)

    if mode == COLLOCATED:
        specs["actor"] = packed(actor)
        actor_tp, rollout_tp = sizes.actor_tp(), sizes.rollout_tp()
        if actor_tp > rollout_tp:
            _require(
                actor_tp % rollout_tp == 0,
                Text(
                    "Actor TP size ({actor_tp}) must be divisible by Rollout TP size ({rollout_tp})",
                    actor_tp=actor_tp,
                    rollout_tp=rollout_tp,
                ),
            )
        stride = actor_tp // rollout_tp if actor_tp > rollout_tp else 1
        specs["rollout"] = packed(rollout, rollout_tp, stride)
        if reward:
            specs["reward"] = packed(reward)
        if critic is not None:
            specs["critic"] = packed(critic)
    elif mode == DISAGGREGATED:
        specs["rollout"] = packed(rollout, len(rollout) // _rollout_dp(sizes, len(rollout)))
        if inference is not None:
            name = "inference" if critic_inference is None else "actor_inference"
            specs[name] = packed(inference)
        if critic_inference is not None:
            specs["critic_inference"] = packed(critic_inference)
        specs["actor"] = packed(actor)
        if reward:
            specs["reward"] = packed(reward)
        if critic is not None:
            specs["critic"] = packed(critic)
    else:  # AUTO: the actor takes every GPU, the rollout may take the actor's too
        specs["actor"] = packed(list(range(topo.total_gpus)))
        if sizes.cluster_flag("use_pre_process_policy"):
            _require(
                (actor[-1] - actor[0] + 1) % sizes.rollout_tp() == 0,
                Text(
                    "Actor GPUs {gpus} must be divisible by the rollout TP size {tp} "
                    "with use_pre_process_policy.",
                    gpus=actor,
                    tp=sizes.rollout_tp(),
                ),
            )
            rollout = list(range(actor[-1] + 1)) + rollout
        specs["rollout"] = packed(rollout, len(rollout) // _rollout_dp(sizes, len(rollout)))
        if inference is not None:
            specs["inference"] = packed(inference)
        if reward:
            specs["reward"] = packed(reward)
    return specs


def model_parallel_eval_placement(
    hardware: dict[str, list[int]], sizes: ParallelSizes, topo: Topology
) -> tuple[str, dict[str, PackedSpec]]:
    """ModelParallelEvalComponentPlacement: collocated rollout (TP per process) and reward."""
    rollout = _specified(hardware.get("rollout"), "Rollout")
    reward = _specified(hardware.get("reward"), "Reward")
    _continuous("Rollout", rollout)
    rollout_tp = sizes.rollout_tp()
    _tp_fits("Rollout", rollout_tp, len(rollout))
    try:
        specs = {"rollout": PackedSpec.build(rollout[0], rollout[-1], rollout_tp)}
        if reward:
            specs["reward"] = PackedSpec.build(reward[0], reward[-1])
    except StrategyError as exc:
        raise ModelParallelError(exc.text) from None
    return COLLOCATED, specs
