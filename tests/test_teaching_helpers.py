"""The chain diagram and the exercise check the teaching notebooks use."""

from __future__ import annotations

from rlark_widgets.examples import example_configs
from rlark_widgets.exercises import check_prediction
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlinf import inspect_config, load_config
from rlark_widgets.viz.chain import chain_figure


def _plan(name: str, gpus: int = 8):
    return plan_roles(inspect_config(load_config(example_configs()[name]), gpus=gpus))


def test_chain_follows_every_rank_from_config_to_processes() -> None:
    plan = _plan("local_rehearsal_2node", gpus=2)
    sankey = chain_figure(plan.report.expansion, plan.rank_map()).data[0]
    labels = list(sankey.node.label)
    assert labels[0] == "cluster.num_nodes = 2"
    for rank, role, index in plan.rank_map():
        assert f"RLINF_NODE_RANK {rank}" in labels and f"Worker {role}/{index} (Pod)" in labels
    assert "Ray node 0 (head)" in labels and "Ray node 1" in labels
    processes = plan.report.expansion.total_processes
    into_components = sum(
        v
        for s, t, v in zip(sankey.link.source, sankey.link.target, sankey.link.value, strict=True)
        if labels[t] in plan.report.expansion.components
    )
    assert into_components == processes  # every process reaches its component, once
    out_of_config = sum(
        v for s, v in zip(sankey.link.source, sankey.link.value, strict=True) if s == 0
    )
    assert out_of_config == processes


def test_chain_keeps_a_node_without_processes_and_speaks_chinese() -> None:
    plan = _plan("realworld_peginsertion_rlpd_cnn_async_2arms")
    figure = chain_figure(plan.report.expansion, plan.rank_map(), lang="zh")
    labels = list(figure.data[0].node.label)
    assert "Ray 节点 0（Head）" in labels
    assert {"节点 rank 0", "节点 rank 1", "节点 rank 2"} <= set(labels)
    assert "Worker franka/1（一个 Pod）" in labels  # node rank 2: the second franka Worker
    assert "Worker 配置" not in figure.layout.title.text and "角色" in figure.layout.title.text


def test_check_prediction_says_right_wrong_or_missing_in_both_languages() -> None:
    assert check_prediction([0, 1], [0, 1]).splitlines() == ["Right: [0, 1].", "答对了：[0, 1]。"]
    wrong = check_prediction({0: "a"}, {0: "b"})
    assert "you predicted {0: 'a'}, the answer is {0: 'b'}" in wrong and "不对" in wrong
    missing = check_prediction(None, 3)
    assert missing.startswith("No prediction yet. The answer is 3") and "答案是 3" in missing
