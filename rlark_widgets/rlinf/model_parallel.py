"""Re-placement used by RLinf's reasoning entry points (``rlinf/utils/placement.py``, 0.3.0).

``ModelParallelComponentPlacement`` first parses placements generically, then replaces the
strategies of the model-parallel components with packed GPU ranges whose shape depends on
tensor-parallel sizes from the rest of the config. ``ModelParallelEvalComponentPlacement``
does the same for evaluation (rollout and reward only).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import Text
from .errors import PlacementError, RLinfCheckError
from .strategies import ProcessPlacement, StrategyError, packed_placement
from .topology import Topology

ConfigLookup = Callable[[str, Any], Any]
COLLOCATED, DISAGGREGATED, AUTO = "COLLOCATED", "DISAGGREGATED", "AUTO"


class ModelParallelError(RLinfCheckError):
    """A check of RLinf's model-parallel placement failed (message as RLinf words it)."""


@dataclass(frozen=True)
class ParallelSizes:
    """The tensor/pipeline sizes the placement reads from the actor, rollout and inference."""

    actor_tp: int
    rollout_tp: int
    rollout_pp: int
    inference_tp: int
    critic_inference_tp: int
    recompute_logprobs: bool
    auto_scheduler: bool
    use_pre_process_policy: bool

    @classmethod
    def from_config(cls, get: ConfigLookup) -> ParallelSizes:
        actor_tp = _size(get, "actor.model.tensor_model_parallel_size")
        critic_tp = _size(get, "critic.model.tensor_model_parallel_size")
        if get("inference", None) is not None:
            inference_tp = _size(get, "inference.model.tensor_model_parallel_size")
        elif get("actor_inference", None) is not None:
            inference_tp = _size(get, "actor_inference.model.tensor_model_parallel_size")
        else:
            inference_tp = actor_tp
        return cls(
            actor_tp=actor_tp,
            rollout_tp=_size(get, "rollout.tensor_parallel_size"),
            rollout_pp=_size(get, "rollout.pipeline_parallel_size"),
            inference_tp=inference_tp,
            critic_inference_tp=_size(
                get, "critic_inference.model.tensor_model_parallel_size", critic_tp
            ),
            recompute_logprobs=bool(get("algorithm.recompute_logprobs", False)),
            auto_scheduler=bool(get("cluster.auto_scheduler", False)),
            use_pre_process_policy=bool(get("cluster.use_pre_process_policy", False)),
        )


def _size(get: ConfigLookup, path: str, default: int = 1) -> int:
    """A parallel size (unset or 0 means 1); a value that is no size is the config's error."""
    value = get(path, default) or 1
    try:
        size = int(value)
    except (TypeError, ValueError, OverflowError):
        size = 0
    if size < 1 or isinstance(value, bool) or (isinstance(value, float) and size != value):
        raise PlacementError(
            Text(
                "{path} is {value}, but a parallel size is a whole number of at least 1.",
                path=path,
                value=value,
            ),
            path,
            Text("Set {path} to the model's parallel size, such as 1, 2 or 4.", path=path),
        )
    return size


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


def _tp_fits(component: str, tp: int, world: int) -> None:
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


def model_parallel_placement(
    hardware: dict[str, list[int]], sizes: ParallelSizes, topo: Topology
) -> tuple[str, dict[str, list[ProcessPlacement]]]:
    """Return the mode and the replaced components' rows; ``hardware`` maps component -> GPUs."""
    actor = _specified(hardware.get("actor"), "Actor")
    rollout = _specified(hardware.get("rollout"), "Rollout")
    _specified(hardware.get("reward"), "Reward")  # required though only the rows above use GPUs
    inference = hardware.get("inference", hardware.get("actor_inference"))
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
    if sizes.auto_scheduler and critic is None:
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
            _tp_fits("Inference", sizes.inference_tp, len(inference))
            _require(
                sizes.recompute_logprobs,
                Text(
                    "algorithm.recompute_logprobs has been set to false, which disables "
                    "inference. So inference GPUs {gpus} must not be specified.",
                    gpus=inference,
                ),
            )
        if critic_inference is not None:
            _tp_fits("Inference", sizes.critic_inference_tp, len(critic_inference))
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
    _tp_fits("Actor", sizes.actor_tp, len(actor))
    _tp_fits("Rollout", sizes.rollout_tp, len(rollout))
    try:
        return mode, _packed_components(
            mode, hardware, actor, rollout, inference, critic_inference, sizes, topo
        )
    except StrategyError as exc:
        raise ModelParallelError(exc.text) from None


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


def _packed_components(
    mode: str,
    hardware: dict[str, list[int]],
    actor: list[int],
    rollout: list[int],
    inference: list[int] | None,
    critic_inference: list[int] | None,
    sizes: ParallelSizes,
    topo: Topology,
) -> dict[str, list[ProcessPlacement]]:
    group = topo.groups["cluster"]

    def packed(gpus: list[int], per_process: int = 1, stride: int = 1) -> list[ProcessPlacement]:
        return packed_placement(gpus[0], gpus[-1], group, topo, per_process, stride)

    rows: dict[str, list[ProcessPlacement]] = {}
    dp_chunk = sizes.rollout_tp * sizes.rollout_pp
    if mode == COLLOCATED:
        rows["actor"] = packed(actor)
        stride = 1
        if sizes.actor_tp > sizes.rollout_tp:
            _require(
                sizes.actor_tp % sizes.rollout_tp == 0,
                Text(
                    "Actor TP size ({actor_tp}) must be divisible by Rollout TP size ({rollout_tp})",
                    actor_tp=sizes.actor_tp,
                    rollout_tp=sizes.rollout_tp,
                ),
            )
            stride = sizes.actor_tp // sizes.rollout_tp
        rows["rollout"] = packed(rollout, sizes.rollout_tp, stride)
    else:
        if mode == AUTO:
            rows["actor"] = packed(list(range(topo.total_gpus)))
            if sizes.use_pre_process_policy:
                _require(
                    (actor[-1] - actor[0] + 1) % sizes.rollout_tp == 0,
                    Text(
                        "Actor GPUs {gpus} must be divisible by the rollout TP size {tp} "
                        "with use_pre_process_policy.",
                        gpus=actor,
                        tp=sizes.rollout_tp,
                    ),
                )
                rollout = list(range(actor[-1] + 1)) + rollout
        else:
            rows["actor"] = packed(actor)
        dp_size = len(rollout) // dp_chunk
        _require(
            dp_size > 0,
            Text(
                "Rollout GPUs {gpus} are fewer than TP x PP ({chunk}).",
                gpus=rollout,
                chunk=dp_chunk,
            ),
        )
        rows["rollout"] = packed(rollout, len(rollout) // dp_size)
        if inference is not None:
            split = mode == DISAGGREGATED and critic_inference is not None
            rows["actor_inference" if split else "inference"] = packed(inference)
        if critic_inference is not None and mode == DISAGGREGATED:
            rows["critic_inference"] = packed(critic_inference)
    for name in ("reward", "critic"):
        gpus = hardware.get(name)
        if gpus:
            rows[name] = packed(gpus)
    return rows


def model_parallel_eval_placement(
    hardware: dict[str, list[int]], sizes: ParallelSizes, topo: Topology
) -> tuple[str, dict[str, list[ProcessPlacement]]]:
    """ModelParallelEvalComponentPlacement: collocated rollout (TP per process) and reward."""
    rollout = _specified(hardware.get("rollout"), "Rollout")
    reward = _specified(hardware.get("reward"), "Reward")
    _continuous("Rollout", rollout)
    _tp_fits("Rollout", sizes.rollout_tp, len(rollout))
    group = topo.groups["cluster"]
    try:
        rows = {"rollout": packed_placement(rollout[0], rollout[-1], group, topo, sizes.rollout_tp)}
        if reward:
            rows["reward"] = packed_placement(reward[0], reward[-1], group, topo)
    except StrategyError as exc:
        raise ModelParallelError(exc.text) from None
    return COLLOCATED, rows
