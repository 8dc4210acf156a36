"""Property tests for the RLinf placement engine: random cluster shapes and placement strings.

(a) Parsing and expansion fail only with typed ``RLinfConfigError``s that point into ``cluster``;
    ``expand_placement`` itself never raises.
(b) Every successful expansion is internally consistent: ranks 0..N-1, one node per process,
    per-node local ranks, visible GPUs that exist, the multiple-of rule per part, nodes in
    rank order, and per-node totals that add up.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rlark_widgets.rlinf import (
    ClusterSpec,
    Expansion,
    GpuLayout,
    PlacementError,
    RLinfConfigError,
    expand_placement,
    parse_cluster,
)
from rlark_widgets.rlinf.grammar import GrammarError, parse_rank_map, process_resources
from rlark_widgets.rlinf.ranks import RankRangeError, RankSyntaxError, parse_rank_config
from rlark_widgets.rlinf.topology import (
    ACCELERATOR,
    MAX_GPUS_PER_NODE,
    GpuLayoutError,
    build_topology,
)

LABELS = ["a", "b", "gpu", "4090", "A", "cluster", "node"]
COMPONENT_KEYS = [
    "actor",
    "rollout",
    "env",
    "reward",
    "agent",
    "actor,rollout",
    "env, reward",
    "critic",
]
SANE_LABELS = ["a", "b", "gpu", "4090", "A"]
DISJOINT_KEYS = ["actor", "rollout,reward", "env", "agent", "critic, inference"]
ROBOT_TYPES = ["Franka", "Turtle2", "DOSW1"]

small = st.integers(min_value=0, max_value=12)


# --- placement strings --------------------------------------------------------------------------
@st.composite
def rank_ranges(draw: st.DrawFn) -> str:
    start = draw(small)
    if draw(st.booleans()):
        return str(start)
    sep = draw(st.sampled_from(["-", "-", " - "]))
    return f"{start}{sep}{draw(small)}"


@st.composite
def grammar_parts(draw: st.DrawFn) -> str:
    resources = draw(st.one_of(rank_ranges(), st.sampled_from(["all", "ALL", "All"])))
    if draw(st.booleans()):
        return resources
    return f"{resources}:{draw(rank_ranges())}"


junk_parts = st.one_of(
    st.sampled_from(
        ["all", "ALL", ":", "::", "-", "--", "x", "[0", "1]", " ", "", "0:all", "1:2:3"]
    ),
    # Junk that may contain digits but is too short to ask for huge process ranges.
    st.text(alphabet="0123456789-:alx[] ", max_size=5),
    st.text(max_size=3),
)

placement_strings = st.lists(st.one_of(grammar_parts(), junk_parts), max_size=4).map(",".join)


# --- cluster shapes -----------------------------------------------------------------------------
@st.composite
def node_ranks_values(draw: st.DrawFn, num_nodes: int, sane: bool = False) -> Any:
    if sane:  # always within range(num_nodes)
        lo = draw(st.integers(0, num_nodes - 1))
        hi = draw(st.integers(lo, num_nodes - 1))
        return draw(st.sampled_from(["all", lo, f"{lo}-{hi}", f"{lo},{hi}"]))
    hi = num_nodes  # one past the last rank: sometimes out of range on purpose
    return draw(
        st.one_of(
            st.just("all"),
            st.integers(0, hi),
            st.builds(lambda a, b: f"{a}-{b}", st.integers(0, hi), st.integers(0, hi)),
            st.builds(lambda a, b: f"{a},{b}", st.integers(0, hi), st.integers(0, hi)),
            st.lists(st.integers(0, hi), min_size=1, max_size=2),  # a YAML list: rejected
            st.sampled_from(["x", "-1", ""]),
        )
    )


@st.composite
def gpu_layouts(draw: st.DrawFn, num_nodes: int) -> int | dict[int, int]:
    if draw(st.booleans()):
        return draw(st.integers(0, 8))
    return {rank: draw(st.integers(0, 8)) for rank in range(num_nodes)}


@st.composite
def robot_groups(draw: st.DrawFn, num_nodes: int, sane: bool = False) -> dict[str, Any]:
    lo = draw(st.integers(0, num_nodes - 1))
    hi = draw(st.integers(lo, num_nodes - 1))
    robot_type = draw(st.sampled_from(ROBOT_TYPES))
    configs = []
    # Sane groups: distinct robots inside the group. Otherwise also duplicates and strays.
    low_rank = lo if sane else max(lo - 1, 0)
    for index in range(draw(st.integers(0, 3))):
        config: dict[str, Any] = {"node_rank": draw(st.integers(low_rank, hi))}
        if robot_type == "Franka" and draw(st.booleans()):
            config["robot_ip"] = draw(st.sampled_from(["192.0.2.7", "ROBOT_IP", "10.0.0.1"]))
        if sane:
            config["camera_serials"] = [str(index)]  # keeps entries distinct
        if robot_type == "Turtle2":
            config.pop("camera_serials", None)
            if sane and config in configs:
                continue
        configs.append(config)
    return {
        "label": draw(st.sampled_from(["robot", "arms"])),
        "node_ranks": f"{lo}-{hi}",
        "hardware": {"type": robot_type, "configs": configs},
    }


@st.composite
def node_group_refs(draw: st.DrawFn, labels: list[str], sane: bool = False) -> Any:
    known = [*labels, "cluster", "node"] if sane else [*labels, "cluster", "node", "missing"]
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(st.sampled_from(known))
    if choice == 1:
        return ",".join(draw(st.lists(st.sampled_from(known), min_size=2, max_size=3)))
    if choice == 2:
        return draw(st.lists(st.sampled_from(known), min_size=1, max_size=2))
    return draw(st.sampled_from(labels)) if labels else "node"


@st.composite
def component_placements(
    draw: st.DrawFn,
    labels: list[str],
    placements: st.SearchStrategy[str] = placement_strings,
    sane: bool = False,
) -> dict[str, Any]:
    pool = DISJOINT_KEYS if sane else COMPONENT_KEYS
    keys = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    result: dict[str, Any] = {}
    for key in keys:
        placement = draw(placements)
        if draw(st.integers(0, 2)) == 0:
            result[key] = {
                "node_group": draw(node_group_refs(labels, sane)),
                "placement": placement,
            }
        else:
            result[key] = placement
    return result


@st.composite
def cluster_cases(
    draw: st.DrawFn, placements: st.SearchStrategy[str] = placement_strings, sane: bool = False
) -> tuple[dict[str, Any], int | dict[int, int]]:
    """A random ``cluster`` mapping and a GPU layout for it.

    ``sane`` keeps the ``node_groups`` valid (unique, unreserved labels; ranks in range) and the
    component keys disjoint, so that the placements themselves decide the outcome.
    """
    num_nodes = draw(st.integers(1, 8))
    groups: list[dict[str, Any]] = []
    label_pool = SANE_LABELS if sane else LABELS
    for _ in range(draw(st.integers(0, 3))):
        label = draw(st.sampled_from(label_pool))
        if sane and label in [g["label"] for g in groups]:
            continue
        group: dict[str, Any] = {
            "label": label,
            "node_ranks": draw(node_ranks_values(num_nodes, sane)),
        }
        if draw(st.integers(0, 3)) == 0:
            group["ignore_hardware"] = True
        groups.append(group)
    if draw(st.booleans()):
        groups.append(draw(robot_groups(num_nodes, sane)))
    labels = [str(g["label"]) for g in groups]
    mapping: dict[str, Any] = {
        "num_nodes": num_nodes,
        "component_placement": draw(component_placements(labels, placements, sane)),
    }
    if groups:
        mapping["node_groups"] = groups
    return mapping, draw(gpu_layouts(num_nodes))


# Placements that are valid grammar over a small resource count (so most expansions succeed).
@st.composite
def grammatical_placements(draw: st.DrawFn, total: int = 16) -> str:
    if draw(st.integers(0, 4)) == 0:
        return "all"
    parts = []
    cursor = 0
    next_process: int | None = None
    for _ in range(draw(st.integers(1, 3))):
        start = cursor + draw(st.integers(0, 2))
        size = draw(st.integers(1, 4))
        if start + size > total:
            break
        cursor = start + size
        resources = str(start) if size == 1 else f"{start}-{start + size - 1}"
        shape = draw(st.sampled_from(["implicit", "share", "split"]))
        if shape == "implicit":
            parts.append(resources)
            next_process = (next_process or 0) + size
            continue
        if shape == "share":
            count = size * draw(st.integers(1, 3))
        else:
            count = draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0]))
        first = next_process if next_process is not None else draw(st.integers(0, 2))
        processes = str(first) if count == 1 else f"{first}-{first + count - 1}"
        parts.append(f"{resources}:{processes}")
        next_process = first + count
    return ",".join(parts) or "0"


tp_sizes = st.fixed_dictionaries(
    {
        "actor.model.tensor_model_parallel_size": st.sampled_from([1, 2, 4]),
        "rollout.tensor_parallel_size": st.sampled_from([1, 2, 4]),
        "cluster.auto_scheduler": st.sampled_from([False, False, True]),
        "algorithm.recompute_logprobs": st.booleans(),
    }
)


# --- invariants ---------------------------------------------------------------------------------
def gpus_of(layout: int | dict[int, int], node: int) -> int:
    return GpuLayout.parse(layout).count(node)


def check_error(error: RLinfConfigError | None) -> None:
    assert isinstance(error, RLinfConfigError)
    assert error.message
    assert error.path.startswith("cluster"), error.path


def parse_or_none(mapping: dict[str, Any]) -> ClusterSpec | None:
    try:
        return parse_cluster(mapping)
    except RLinfConfigError as error:  # anything else propagates and fails the test
        check_error(error)
        return None


def check_processes(exp: Expansion, spec: ClusterSpec) -> None:
    """Invariants every component of a successful expansion satisfies."""
    for name, comp in exp.components.items():
        procs = comp.processes
        assert [p.rank for p in procs] == list(range(len(procs))), name
        nodes = [p.node_rank for p in procs]
        assert all(0 <= n < spec.num_nodes for n in nodes), name
        assert nodes == sorted(nodes), f"{name}: node ranks must be non-decreasing in rank order"
        per_node: dict[int, list[int]] = defaultdict(list)
        for p in procs:
            per_node[p.node_rank].append(p.local_rank)
        for node, local_ranks in per_node.items():
            assert local_ranks == list(range(len(local_ranks))), (name, node)
        for p in procs:
            assert p.local_world_size == len(per_node[p.node_rank])
            assert p.local_accelerator_rank == (
                p.visible_accelerators[0] if p.visible_accelerators else -1
            )


def check_hybrid(exp: Expansion, spec: ClusterSpec, layout: int | dict[int, int]) -> None:
    check_processes(exp, spec)
    topo = build_topology(spec, GpuLayout.parse(layout))
    for entry in spec.placements:
        groups = [topo.groups[label] for label in (entry.node_groups or ("cluster",))]
        total = sum(g.count for g in groups)
        parts = parse_rank_map(entry.placement, total, "resource")
        for part in parts:
            n_proc, n_res = len(part.processes), len(part.resources)
            assert n_proc % n_res == 0 or n_res % n_proc == 0, (entry.placement, part)
        world_size = sum(len(part.processes) for part in parts)
        assert len(process_resources(parts)) == world_size
        for name in entry.components:
            assert exp.components[name].world_size == world_size, (name, entry.placement)
            assert exp.components[name].path == entry.path
    for comp in exp.components.values():
        for p in comp.processes:
            gpus = gpus_of(layout, p.node_rank)
            assert all(0 <= g < gpus for g in p.visible_accelerators), (comp.name, p)
            if p.hardware_type == ACCELERATOR:
                assert p.visible_accelerators == p.local_hardware_ranks
                assert len(set(p.local_hardware_ranks)) == len(p.local_hardware_ranks)
            elif p.hardware_type is None:
                # Node placement: every GPU of the node, no hardware ranks.
                assert p.local_hardware_ranks == ()
                assert p.visible_accelerators == tuple(range(gpus))
            else:  # a robot: the process sees all GPUs of its node
                assert p.visible_accelerators == tuple(range(gpus))
    check_per_node(exp)


def check_per_node(exp: Expansion) -> None:
    counts = Counter(p.node_rank for comp in exp.components.values() for p in comp.processes)
    assert {node: s.processes for node, s in exp.per_node.items()} == dict(counts)
    assert sum(s.processes for s in exp.per_node.values()) == exp.total_processes
    for node, summary in exp.per_node.items():
        used = {
            g
            for comp in exp.components.values()
            for p in comp.processes
            if p.node_rank == node and p.hardware_type == ACCELERATOR
            for g in p.local_hardware_ranks
        }
        assert summary.accelerators_used == sorted(used)


# --- (a) only typed errors, always pointing into `cluster` ---------------------------------------
@given(cluster_cases())
def test_parse_and_expand_fail_only_with_typed_errors(case: tuple[dict, Any]) -> None:
    mapping, layout = case
    spec = parse_or_none(mapping)
    if spec is None:
        return
    exp = expand_placement(spec, layout)  # must never raise
    if exp.error is not None:
        check_error(exp.error)
        assert isinstance(exp.error, PlacementError)
        assert exp.error.path.startswith("cluster.component_placement.")
        assert exp.components == {}
    else:
        check_hybrid(exp, spec, layout)


@given(cluster_cases(), tp_sizes, st.sampled_from(["reasoning", "reasoning_eval", "sft", None]))
def test_every_placement_class_fails_only_with_typed_errors(
    case: tuple[dict, Any], sizes: dict[str, Any], task_type: str | None
) -> None:
    mapping, layout = case
    spec = parse_or_none(mapping)
    if spec is None:
        return
    exp = expand_placement(
        spec, layout, task_type=task_type, lookup=lambda path, default: sizes.get(path, default)
    )
    if exp.error is not None:
        check_error(exp.error)
        assert exp.error.path.startswith("cluster.component_placement")
    else:
        check_processes(exp, spec)
        check_per_node(exp)


cluster_keys = st.sampled_from(
    ["num_nodes", "component_placement", "node_groups", "profiling", "tracer"]
)
loose_values = st.one_of(
    st.none(),
    st.integers(-2, 3),
    st.text(max_size=3),
    st.lists(st.integers(0, 2), max_size=2),
    st.dictionaries(
        st.sampled_from(["actor", "backend", "label", "node_ranks"]),
        st.sampled_from(["all", "0", "nsight", "0-1"]),
        max_size=2,
    ),
)


@given(st.dictionaries(cluster_keys, loose_values))
def test_malformed_cluster_sections_raise_typed_errors(mapping: dict[str, Any]) -> None:
    spec = parse_or_none(mapping)
    if spec is not None:
        exp = expand_placement(spec, 4)
        if exp.error is not None:
            check_error(exp.error)


# --- (b) successful expansions are consistent ---------------------------------------------------
@given(cluster_cases(placements=grammatical_placements(), sane=True))
def test_successful_expansions_are_consistent(case: tuple[dict, Any]) -> None:
    mapping, layout = case
    spec = parse_or_none(mapping)
    if spec is None:
        return
    exp = expand_placement(spec, layout)
    if exp.error is not None:
        check_error(exp.error)
        return
    assert exp.placement_mode == "HYBRID"
    check_hybrid(exp, spec, layout)


@given(st.integers(1, 8), st.data())
def test_short_form_on_gpu_clusters(num_nodes: int, data: st.DataObject) -> None:
    """Short-form placements over GPUs only: the resource universe is every GPU in node order."""
    layout = data.draw(
        gpu_layouts(num_nodes).filter(lambda g: any(gpus_of(g, n) for n in range(num_nodes)))
    )
    total = sum(gpus_of(layout, n) for n in range(num_nodes))
    placement = data.draw(grammatical_placements(total=total))
    spec = parse_cluster({"num_nodes": num_nodes, "component_placement": {"actor": placement}})
    exp = expand_placement(spec, layout)
    if exp.error is not None:
        # Only the same-node rule can fail for grammatical placements within the GPU count.
        assert "must be on the same node" in exp.error.message, exp.error.message
        return
    check_hybrid(exp, spec, layout)
    # Global GPU ranks map to (node, local GPU) by walking the nodes in rank order.
    owner = [(n, g) for n in range(num_nodes) for g in range(gpus_of(layout, n))]
    parts = parse_rank_map(placement, total, ACCELERATOR)
    for p, resources in zip(
        exp.components["actor"].processes, process_resources(parts), strict=True
    ):
        assert [owner[r] for r in resources] == [(p.node_rank, g) for g in p.local_hardware_ranks]


# --- ranks.parse_rank_config ---------------------------------------------------------------------
@given(st.integers(0, 60), st.integers(0, 60))
def test_parse_rank_config_range(start: int, end: int) -> None:
    if start <= end:
        assert parse_rank_config(f"{start}-{end}") == list(range(start, end + 1))
        assert parse_rank_config(f" {start} - {end} ") == list(range(start, end + 1))
    else:
        with pytest.raises(RankRangeError, match="must be less than or equal to end rank"):
            parse_rank_config(f"{start}-{end}")


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 5)), max_size=5))
def test_parse_rank_config_is_the_sorted_union(spans: list[tuple[int, int]]) -> None:
    text = ",".join(f"{a}-{a + w}" if w else str(a) for a, w in spans)
    expected = sorted({r for a, w in spans for r in range(a, a + w + 1)})
    assert parse_rank_config(text) == expected


@given(st.one_of(placement_strings, st.text(max_size=8), st.integers(-5, 50)))
def test_parse_rank_config_sorted_unique_or_typed_error(value: Any) -> None:
    try:
        ranks = parse_rank_config(value, range(10), "node")
    except (RankSyntaxError, RankRangeError):
        return
    assert ranks == sorted(set(ranks))
    assert all(0 <= r < 10 for r in ranks)


@given(st.lists(st.integers(0, 20), max_size=6), st.sampled_from(["all", "ALL", "All"]))
def test_parse_rank_config_all_means_every_available_rank(available: list[int], word: str) -> None:
    assert parse_rank_config(word, available) == sorted(set(available))


@given(placement_strings, st.integers(0, 16))
def test_parse_rank_map_parts_obey_the_grammar(text: str, total: int) -> None:
    try:
        parts = parse_rank_map(text, total, ACCELERATOR)
    except GrammarError:
        return
    used: list[int] = []
    processes: list[int] = []
    for part in parts:
        assert part.resources and part.processes
        assert all(0 <= r < total for r in part.resources)
        assert not used or part.resources[0] > used[-1]
        assert not processes or part.processes[0] == processes[-1] + 1
        n_proc, n_res = len(part.processes), len(part.resources)
        assert n_proc % n_res == 0 or n_res % n_proc == 0
        used += part.resources
        processes += part.processes
    if processes:
        assert processes == list(range(processes[0], processes[0] + len(processes)))
    per_process = process_resources(parts)
    assert len(per_process) == len(processes)
    assert {r for resources in per_process for r in resources} == set(used)


GPU_COUNTS = st.one_of(st.integers(-5, 2_000), st.integers(), st.text(max_size=6))
GPU_LAYOUT_INPUTS = st.one_of(
    GPU_COUNTS,
    st.dictionaries(st.one_of(st.integers(-5, 20_000), st.text(max_size=3)), GPU_COUNTS),
    st.lists(st.tuples(GPU_COUNTS, GPU_COUNTS), max_size=4).map(
        lambda pairs: ",".join(f"{rank}:{count}" for rank, count in pairs)
    ),
)


@given(GPU_LAYOUT_INPUTS)
def test_a_gpu_layout_is_bounded_or_a_typed_error(value: Any) -> None:
    """--gpus-per-node(-map) and the app's GPU boxes: real node sizes or an error naming the value."""
    try:
        layout = GpuLayout.parse(value)
    except GpuLayoutError as error:
        assert error.fix and str(error) == error.message  # English by default, with a fix
        assert error.text.render("zh") != error.message  # and in Chinese
        return
    counts = [layout.default, *layout.per_node.values()]
    assert all(0 <= count <= MAX_GPUS_PER_NODE for count in counts)
    assert all(0 <= rank < 10_000 for rank in layout.per_node)
