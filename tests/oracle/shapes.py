"""Hypothesis strategies for RLinf configs the corpus does not contain.

Cluster shapes (node groups with explicit or detected hardware types, ignore_hardware, robots
with controller ranks and valid or placeholder IPs), placements (short and node-group forms,
``all``, ranges with processes; packed/flexible/node strategies), reasoning configs with TP/PP
sizes (odd, zero, strings, floats, null, missing sections) in collocated, disaggregated and
AUTO modes, and per-node GPU maps including odd and zero counts.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

LABELS = ("a", "b", "gpu", "bots")
ROBOT_TYPES = ("Franka", "Turtle2", "GimArm", "DualFranka", "DOSW1")
EXPLICIT_TYPES = ("Accelerator", "Franka", "Turtle2", "Robot9")
EMBODIED_COMPONENTS = ("actor", "rollout", "env", "reward")
#: Parallel sizes: mostly valid, sometimes what RLinf trips over (never negative: RLinf's
#: packed placement loops forever on those, which a unit test covers instead).
SIZES = st.one_of(
    st.sampled_from([1, 1, 2, 2, 4, 3]),
    st.sampled_from([0, "2", 2.0, None]),
)


@st.composite
def rank_text(draw, limit: int) -> str:
    """A resource-rank range within (or a little past) ``limit`` resources."""
    if draw(st.booleans()) and limit:
        return "all"
    start = draw(st.integers(0, max(limit, 1)))
    end = draw(st.integers(start, max(start, limit + 1)))
    return str(start) if start == end else f"{start}-{end}"


@st.composite
def placement_text(draw, limit: int) -> str:
    """``resources[:processes]`` parts, as users write them."""
    first = draw(rank_text(limit))
    if first == "all" or draw(st.integers(0, 3)):
        return first
    processes = draw(st.sampled_from(["0", "0-1", "0-3", "0-7"]))
    return f"{first}:{processes}"


@st.composite
def gpu_layouts(draw, num_nodes: int) -> int | dict[int, int]:
    if draw(st.booleans()):
        return draw(st.sampled_from([8, 4, 2, 1, 3, 5, 0]))
    return {rank: draw(st.sampled_from([8, 4, 3, 2, 1, 0, 6])) for rank in range(num_nodes)}


@st.composite
def robot(draw, node_rank: int, kind: str, num_nodes: int) -> dict[str, Any]:
    config: dict[str, Any] = {"node_rank": node_rank}
    if kind == "Franka":
        config["robot_ip"] = draw(st.sampled_from(["10.0.0.2", "10.0.0.3", "ROBOT_IP"]))
        if draw(st.booleans()):
            config["controller_node_rank"] = draw(st.integers(0, num_nodes - 1))
    elif kind == "DualFranka":
        config["left_robot_ip"] = draw(st.sampled_from(["10.0.1.2", "LEFT_ROBOT_IP"]))
        config["right_robot_ip"] = "10.0.1.3"
        if draw(st.booleans()):
            config["left_controller_node_rank"] = draw(st.integers(0, num_nodes - 1))
    elif kind == "GimArm":
        config["arm_variant"] = draw(st.sampled_from(["gim_arm", "gim_arm_xl", "gim_arm_s"]))
    if kind in ("Franka", "DOSW1") and draw(st.integers(0, 3)) == 0:
        config["camera_serials"] = draw(st.sampled_from([["111"], 0, 7]))
    return config


@st.composite
def node_group(draw, label: str, num_nodes: int) -> dict[str, Any]:
    ranks = sorted(draw(st.sets(st.integers(0, num_nodes - 1), min_size=1)))
    group: dict[str, Any] = {
        "label": label,
        "node_ranks": "all"
        if len(ranks) == num_nodes and draw(st.booleans())
        else ",".join(map(str, ranks)),
    }
    kind = draw(st.sampled_from(["plain", "ignore", "typed", "typed", "robots", "robots"]))
    if kind == "ignore":
        group["ignore_hardware"] = True
    elif kind == "typed":
        group["hardware_type"] = draw(st.sampled_from(EXPLICIT_TYPES))
        if draw(st.booleans()):
            group["ignore_hardware"] = True
    elif kind == "robots":
        hardware = draw(st.sampled_from(ROBOT_TYPES))
        on = draw(st.lists(st.sampled_from(ranks), min_size=1, max_size=3))
        configs = [draw(robot(r, hardware, num_nodes)) for r in on]
        group["hardware"] = {"type": hardware, "configs": configs}
    return group


@st.composite
def embodied_config(draw) -> tuple[dict[str, Any], Any]:
    num_nodes = draw(st.integers(1, 3))
    labels = draw(st.lists(st.sampled_from(LABELS), unique=True, max_size=3))
    groups = [draw(node_group(label, num_nodes)) for label in labels]
    names = draw(
        st.lists(st.sampled_from(EMBODIED_COMPONENTS), min_size=1, max_size=3, unique=True)
    )
    placement: dict[str, Any] = {}
    for name in names:
        where = draw(st.sampled_from(["short", "group", "node"])) if groups else "short"
        text = draw(placement_text(draw(st.sampled_from([1, 2, 4, 8, 12]))))
        if where == "short":
            placement[name] = text
        elif where == "node":
            placement[name] = {"node_group": "node", "placement": text}
        else:
            chosen = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=2, unique=True))
            placement[name] = {"node_group": ",".join(chosen), "placement": text}
    cluster: dict[str, Any] = {"num_nodes": num_nodes, "component_placement": placement}
    if groups:
        cluster["node_groups"] = groups
    task = draw(st.sampled_from(["embodied", "embodied", "sft", "chess"]))
    return {"cluster": cluster, "runner": {"task_type": task}}, draw(gpu_layouts(num_nodes))


@st.composite
def reasoning_config(draw) -> tuple[dict[str, Any], Any]:
    num_nodes = draw(st.integers(1, 3))
    gpus = draw(gpu_layouts(num_nodes))
    total = sum(gpus.values()) if isinstance(gpus, dict) else gpus * num_nodes
    mode = draw(st.sampled_from(["collocated", "disaggregated", "auto", "eval"]))
    cut = lambda lo, hi: draw(st.integers(lo, max(lo, hi)))  # noqa: E731
    placement: dict[str, Any]
    config: dict[str, Any] = {}
    if mode in ("collocated", "eval"):
        placement = {
            "actor,rollout,reward" if mode == "collocated" else "rollout,reward": draw(
                st.sampled_from(["all", f"0-{max(total - 1, 0)}", "0-3", "2-5", "3-10"])
            )
        }
    else:
        a = cut(0, total // 3)
        b = cut(a + 1, 2 * total // 3)
        placement = {"actor": f"0-{a}" if a else "0", "rollout": f"{a + 1}-{b}"}
        rest = total - 1
        inference = draw(st.sampled_from(["inference", "actor_inference", None]))
        if inference and b + 1 <= rest:
            placement[inference] = f"{b + 1}-{rest}"
            config[inference] = {"model": {"tensor_model_parallel_size": draw(SIZES)}}
            if inference == "inference" and draw(st.booleans()):
                placement["critic_inference"] = f"{rest}"
                if draw(st.booleans()):
                    config["critic"] = {"model": {"tensor_model_parallel_size": 1}}
        placement["reward"] = draw(st.sampled_from(["0", f"{a + 1}"]))
        if mode == "auto":
            config["auto_scheduler"] = True
    cluster: dict[str, Any] = {"num_nodes": num_nodes, "component_placement": placement}
    if config.pop("auto_scheduler", False):
        cluster["auto_scheduler"] = True
        cluster["use_pre_process_policy"] = draw(st.booleans())
    config["cluster"] = cluster
    config["runner"] = {"task_type": "reasoning_eval" if mode == "eval" else "reasoning"}
    if draw(st.integers(0, 9)):
        config["actor"] = {"model": {"tensor_model_parallel_size": draw(SIZES)}}
    if draw(st.integers(0, 9)):
        config["rollout"] = {
            "tensor_parallel_size": draw(SIZES),
            "pipeline_parallel_size": draw(st.sampled_from([1, 1, 2])),
        }
    config["algorithm"] = {"recompute_logprobs": draw(st.booleans())}
    return config, gpus


configs = st.one_of(embodied_config(), reasoning_config())
