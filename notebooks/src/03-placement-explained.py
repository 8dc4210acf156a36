# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 03 · Placement explained: ranks, node groups, world sizes and execution modes
#
# `cluster.component_placement` tells RLinf where each component process runs. The console cannot
# express it, and it should not try: placement stays in your RLinf config. You still need to read it
# to get three numbers right: how many Workers, how many GPUs per Worker, and which Worker gets which
# `RLINF_NODE_RANK`. Every table and figure below is the library's expansion of a config, done the
# way RLinf itself expands it. 中文版：[03-placement-explained.zh.ipynb](03-placement-explained.zh.ipynb).

# %% [markdown] lang="zh"
# # 03 · 组件放置详解：编号、节点组、world size 与执行模式
#
# `cluster.component_placement` 告诉 RLinf 每个组件进程在哪里运行。控制台无法表达它，也不应该尝试：放置规则保留在
# 你的 RLinf 配置中。但你仍需要读懂它，才能算对三个数：需要多少个 Worker、每个 Worker 申请多少张 GPU、哪个 Worker
# 得到哪个 `RLINF_NODE_RANK`。下面的每个表格和图都是本库按 RLinf 自己的方式展开配置得到的。
# English: [03-placement-explained.en.ipynb](03-placement-explained.en.ipynb).

# %%
import ipywidgets as widgets
import pandas as pd

from rlark_widgets.examples import example_configs
from rlark_widgets.exercises import check_prediction
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import (
    expand_placement,
    gpu_requirements,
    inspect_config,
    load_config,
    load_text,
)
from rlark_widgets.viz.topology import node_rows, topology_figure

IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"
CONFIGS = example_configs()


def show(findings, *prefixes):
    """Print findings; with prefixes, only the rules whose id starts with one of them."""
    for f in findings:
        if not prefixes or f.rule_id.startswith(prefixes):
            print(f"{f.severity.value:<8}{f.rule_id:<24}{f.path}\n        {f.message}")


def rows(report, component):
    """One row per process of a component: where RLinf puts it."""
    return pd.DataFrame(
        [
            {
                "process rank": p.rank,
                "RLINF_NODE_RANK": p.node_rank,
                "node group": p.node_group,
                "resource": p.hardware_type,
                "local resource ranks": list(p.local_hardware_ranks),
                "CUDA_VISIBLE_DEVICES": ",".join(map(str, p.visible_accelerators)),
                "local_rank": p.local_rank,
                "local_world_size": p.local_world_size,
            }
            for p in report.expansion.components[component].processes
        ]
    )


# %% [markdown] lang="en"
# ## 1. Resource ranks are not process ranks, and neither is a Worker number
#
# In `actor: 0-7`, the `0-7` are **resource ranks**: usually GPUs, sometimes robots or nodes. They
# are not Worker numbers and not node numbers. In `env: 0-3:0-7`, the part before the colon (`0-3`)
# is the resources and the part after it (`0-7`) is the **process ranks**: 8 env processes on 4
# GPUs, two per GPU. `all` means every resource RLinf finds. Worker (node) numbers are a separate
# thing: they come from `RLINF_NODE_RANK` and `node_groups[].node_ranks`.

# %% [markdown] lang="zh"
# ## 1. 资源编号不是进程编号，也不是 Worker 编号
#
# 在 `actor: 0-7` 中，`0-7` 是**资源编号**：通常是 GPU，有时是机器人或节点。它们不是 Worker 编号，也不是节点编号。
# 在 `env: 0-3:0-7` 中，冒号前的 `0-3` 是资源编号，冒号后的 `0-7` 是**进程编号**：4 张 GPU 上运行 8 个 env 进程，
# 每张 GPU 两个。`all` 表示 RLinf 发现的全部资源。Worker（节点）编号是另一回事：它来自 `RLINF_NODE_RANK` 和
# `node_groups[].node_ranks`。

# %%
ranks_demo = load_text(
    """
cluster:
  num_nodes: 1
  component_placement:
    actor: 0-7
    env: 0-3:0-7
    rollout: all
runner:
  task_type: embodied
""",
    "ranks_demo.yaml",
)
demo = inspect_config(ranks_demo, gpus=8)
for name, component in demo.expansion.components.items():
    written = ranks_demo.get(f"cluster.component_placement.{name}")
    print(f"{name:8} {written!r:10} -> world size {component.world_size}")
rows(demo, "env")

# %%
env = demo.expansion.components["env"].processes
assert len(env) == 8  # the process ranks after ':'
assert [p.local_hardware_ranks for p in env[:2]] == [(0,), (0,)]  # processes 0 and 1 share GPU 0
assert demo.expansion.components["rollout"].world_size == 8  # 'all' = every GPU found: 8 here

# %% [markdown] lang="en"
# ## 2. GPU ranks count across nodes, in node-rank order
#
# A global GPU rank is "the g-th GPU when the nodes are taken in `RLINF_NODE_RANK` order, each with
# the GPUs it really has". The node a rank lands on therefore depends on the GPUs per node. The
# bundled 2-node rehearsal config puts `env: 0,2` on **both** nodes when each node has 2 GPUs. With
# 4 GPUs per node, both env processes land on **node rank 0**.

# %% [markdown] lang="zh"
# ## 2. GPU 编号按节点 rank 顺序跨节点计数
#
# 全局 GPU 编号的含义是“按 `RLINF_NODE_RANK` 顺序依次数各节点实际拥有的 GPU，数到的第 g 张”。因此一个编号落在哪个
# 节点上，取决于每个节点的 GPU 数。自带的 2 节点演练配置中，每个节点 2 张 GPU 时，`env: 0,2` 分布在**两个**节点上；
# 每个节点 4 张 GPU 时，两个 env 进程都落在**节点 rank 0** 上。

# %%
rehearsal = load_config(CONFIGS["local_rehearsal_2node"])
print("component_placement:", rehearsal.get("cluster.component_placement"))
where = {}
for gpus in (2, 4):
    expansion = inspect_config(rehearsal, gpus=gpus, search_gpus=False).expansion
    where[gpus] = [
        (p.node_rank, p.local_hardware_ranks) for p in expansion.components["env"].processes
    ]
    print(f"{gpus} GPUs per node: env processes at (node, local GPUs) {where[gpus]}")
assert where[2] == [(0, (0,)), (1, (0,))]
assert where[4] == [(0, (0,)), (0, (2,))]

# %% [markdown] lang="en"
# **Exercise.** Still with 2 nodes, at **3** GPUs per node: on which `(node, local GPU)` pairs do
# the two env processes (`env: 0,2`) land? Global GPU 0 is node 0's first GPU; count on from there.
# Replace `None` with a list such as `[(0, 0), (1, 1)]`, then run the next two cells.

# %% [markdown] lang="zh"
# **练习。** 仍然是 2 个节点，每个节点 **3** 张 GPU 时，两个 env 进程（`env: 0,2`）分别落在哪个 `(节点, 本地 GPU)`
# 上？全局 GPU 0 是节点 0 的第一张 GPU，依次往后数。把 `None` 换成列表（例如 `[(0, 0), (1, 1)]`），再运行后面两个
# 单元格。

# %%
my_prediction = None  # e.g. [(0, 0), (1, 1)]

# %%
at3 = inspect_config(rehearsal, gpus=3, search_gpus=False).expansion
answer = [(p.node_rank, p.local_hardware_ranks[0]) for p in at3.components["env"].processes]
print(check_prediction(my_prediction, answer))
assert answer == [(0, 0), (0, 2)]

# %% [markdown] lang="en"
# ## 3. Node groups: each group numbers its own resources
#
# `node_groups` names sets of Ray nodes (`node_ranks`) and says what each set's resources are. A
# placement through a group counts ranks **inside that group**. In the real-robot example, group
# `4090` is node 0 with its GPUs, and group `franka` is nodes 1-2 with one Franka arm each. So
# `actor: {node_group: '4090', placement: 0}` means GPU 0 of node 0, while
# `env: {node_group: franka, placement: 0-1}` means the two robots, on nodes 1 and 2.

# %% [markdown] lang="zh"
# ## 3. 节点组：每个组单独为自己的资源编号
#
# `node_groups` 为一组 Ray 节点（`node_ranks`）命名，并说明这些节点的资源。通过节点组放置时，编号**只在该组内**计数。
# 在真机示例中，组 `4090` 是带 GPU 的节点 rank 0，组 `franka` 是节点 rank 1-2，每个节点连接一台 Franka 机械臂。所以
# `actor: {node_group: '4090', placement: 0}` 表示节点 rank 0 的 GPU 0，而 `env: {node_group: franka, placement: 0-1}`
# 表示节点 rank 1 和 2 上的两台机器人。

# %%
franka_cfg = load_config(CONFIGS["realworld_peginsertion_rlpd_cnn_async_2arms"])
franka = inspect_config(franka_cfg, gpus=8)
for group in franka.cluster.node_groups:
    kind = group.hardware_type or "GPUs"
    print(f"node group {group.label!r}: node ranks {list(group.node_ranks)}, hardware {kind}")
pd.concat(
    [rows(franka, "actor").assign(component="actor"), rows(franka, "env").assign(component="env")]
)

# %%
actor0 = franka.expansion.components["actor"].processes[0]
env_rows = franka.expansion.components["env"].processes
assert (actor0.node_rank, actor0.local_hardware_ranks) == (0, (0,))
assert actor0.hardware_type == "Accelerator"
assert [(p.node_rank, p.hardware_type) for p in env_rows] == [(1, "Franka"), (2, "Franka")]

# %% [markdown] lang="en"
# ## 4. World size, local world size and cluster.num_nodes are three different numbers
#
# - `cluster.num_nodes` is the number of **Ray nodes**, and so the number of RLark Worker Pods.
# - A component's **world size** is its number of **processes**.
# - The **local world size** is how many of those processes run on one Ray node.
#
# You cannot add or swap them. With `actor: all` on 2 nodes, the world size follows the GPUs found:
# 16 processes on 2×8 GPUs, 8 on 2×4. `num_nodes` stays 2 in both cases.

# %% [markdown] lang="zh"
# ## 4. world size、local world size 与 cluster.num_nodes 是三个不同的数
#
# - `cluster.num_nodes` 是 **Ray 节点**数，也就是 RLark Worker Pod 数。
# - 组件的 **world size** 是它的**进程**数。
# - **local world size** 是其中位于一个 Ray 节点上的进程数。
#
# 这三个数不能相加，也不能互相替代。2 个节点上 `actor: all` 时，world size 随发现的 GPU 数变化：2×8 张 GPU 时为 16
# 个进程，2×4 张时为 8 个。两种情况下 `num_nodes` 都是 2。

# %%
sft = load_config(CONFIGS["qwen3_vl_moe_megatron_sft_vlm"])
table = []
for gpus in (8, 4):
    r = inspect_config(sft, gpus=gpus, search_gpus=False)
    actor = r.expansion.components["actor"]
    table.append(
        {
            "GPUs per node": gpus,
            "cluster.num_nodes (Workers)": r.cluster.num_nodes,
            "actor world size": actor.world_size,
            "local world size": sorted({p.local_world_size for p in actor.processes}),
        }
    )
table = pd.DataFrame(table)
assert list(table["actor world size"]) == [16, 8]
assert set(table["cluster.num_nodes (Workers)"]) == {2}
table

# %% [markdown] lang="en"
# ## 5. Collocated, disaggregated and hybrid modes decide no role count
#
# - **Collocated** (共享式): the components use the same GPUs and take turns.
# - **Disaggregated** (分离式): each component has GPUs of its own.
# - **Hybrid** (混合式): some components share GPUs and others are split.
#
# These GPUs may sit in one Worker or in many, so the mode says nothing about how many roles or Workers
# you need. `num_nodes` and the node layout decide that. The reasoning entry point reports the mode
# (`PLC-MODE`). Embodied entry points always report HYBRID. Below are a collocated reasoning config
# (Qwen2.5-7B GRPO, 16 nodes), a disaggregated one written inline, and the hybrid ManiSkill example.

# %% [markdown] lang="zh"
# ## 5. 共享式、分离式和混合式执行模式不决定角色数量
#
# - **共享式**（collocated）：各组件使用同一组 GPU，轮流使用。
# - **分离式**（disaggregated）：每个组件使用互不重叠的 GPU。
# - **混合式**（hybrid）：一部分组件共享 GPU，另一部分分开使用。
#
# 这些 GPU 可以位于同一个 Worker，也可以分布在多个 Worker 中，因此执行模式不能说明需要多少个角色或 Worker，决定它的
# 是 `num_nodes` 和节点布局。推理类入口会报告执行模式（`PLC-MODE`），具身入口始终报告 HYBRID。下面依次是共享式的推理
# 配置（Qwen2.5-7B GRPO，16 个节点）、一个直接写出的分离式配置，以及混合式的 ManiSkill 示例。

# %%
disaggregated = load_text(
    """
cluster:
  num_nodes: 2
  component_placement:
    rollout: 0-7
    reward: 0-7
    actor: 8-15
runner:
  task_type: reasoning
  output_dir: ../results
  experiment_name: pipeline
algorithm:
  recompute_logprobs: false
rollout:
  tensor_parallel_size: 2
  pipeline_parallel_size: 1
actor:
  model:
    tensor_model_parallel_size: 2
    pipeline_model_parallel_size: 1
""",
    "disaggregated_demo.yaml",
)
examples = {
    "qwen2.5-7b-grpo-megatron": load_config(CONFIGS["qwen2.5-7b-grpo-megatron"]),
    "disaggregated_demo": disaggregated,
    "maniskill_ppo_openvlaoft": load_config(CONFIGS["maniskill_ppo_openvlaoft"]),
}
modes = []
for name, cfg in examples.items():
    r = inspect_config(cfg, gpus=8, search_gpus=False)
    p = plan_roles(r)
    on_node0 = {
        c: sorted({g for x in comp.processes if x.node_rank == 0 for g in x.local_hardware_ranks})
        for c, comp in r.expansion.components.items()
    }
    modes.append(
        {
            "config": name,
            "mode": r.expansion.placement_mode,
            "GPUs on node 0 per component": on_node0,
            "num_nodes": r.cluster.num_nodes,
            "roles x Workers": [(role.name, role.replicas) for role in p.roles],
        }
    )
    assert p.total_workers == r.cluster.num_nodes  # the mode never changes this
modes = pd.DataFrame(modes)
assert list(modes["mode"]) == ["COLLOCATED", "DISAGGREGATED", "HYBRID"]
modes

# %%
qwen7b = inspect_config(examples["qwen2.5-7b-grpo-megatron"], gpus=8)
show(qwen7b.findings, "PLC-MODE")
print(
    "collocated rollout (TP 2, stride 2) on node 0:",
    [p.local_hardware_ranks for p in qwen7b.expansion.components["rollout"].processes[:4]],
)

# %% [markdown] lang="en"
# ## 6. How many Workers, and how many GPUs per Worker
#
# - **Workers**: the sum of every role's matched nodes, not the number of distinct machines. It must
#   equal `cluster.num_nodes`.
# - **GPUs**: the GPU field is per Worker. Request the **largest local GPU index placed on that node,
#   plus 1**. A role asks for `Workers × GPUs per Worker` in total.
# - You cannot choose physical GPU IDs in the console. Inside the Pod, the GPUs are numbered 0..n-1.
#
# The asynchronous SAC example (`env: 0:0-4, 1:5-9`) needs 2 GPUs on its one node. Requesting 1 GPU is
# an error (`PLN-GPU-COVER`). Requesting 4 leaves GPUs idle (`PLN-IDLE-GPU`).

# %% [markdown] lang="zh"
# ## 6. 需要多少个 Worker，每个 Worker 申请多少张 GPU
#
# - **Worker 数**：各角色已选节点数之和，而不是去重后的物理机器数，必须等于 `cluster.num_nodes`。
# - **GPU**：GPU 字段是每个 Worker 的申请数量。填写**该节点上被放置的最大本地 GPU 编号加 1**。一个角色总共申请
#   `Worker 数 × 每个 Worker 的 GPU 数`。
# - 控制台不能指定物理 GPU 编号。在 Pod 内，GPU 编号为 0..n-1。
#
# 异步 SAC 示例（`env: 0:0-4, 1:5-9`）在唯一的节点上需要 2 张 GPU。申请 1 张是错误（`PLN-GPU-COVER`），申请 4 张会让
# GPU 闲置（`PLN-IDLE-GPU`）。

# %%
sac = inspect_config(load_config(CONFIGS["maniskill_sac_mlp_async_decoupled"]), gpus=8)
sac_plan = plan_roles(sac)
print("planned:", [(r.name, r.replicas, r.gpus) for r in sac_plan.roles])
for gpus in (1, 4):
    job = build_job(sac_plan, JobSettings(image=IMAGE), site=example_site())
    job.roles[0].gpus = gpus
    print(f"[{gpus} GPU(s) per Worker]")
    show(given_job(job, sac, site=example_site()).findings, "PLN-GPU-COVER", "PLN-IDLE-GPU")

qwen_plan = plan_roles(qwen7b)
total = sum(r.replicas * r.gpus for r in qwen_plan.roles)
shape = [(r.name, r.replicas, r.gpus) for r in qwen_plan.roles]
print(f"qwen2.5-7b (role, Workers, GPUs per Worker): {shape} -> {total} GPUs in total")
assert sac_plan.roles[0].gpus == 2 and total == 16 * 8


# %% [markdown] lang="en"
# ## 7. A GPUs-per-node slider
#
# Move the slider to change how many GPUs each node has, and the topology redraws. Rows are Ray nodes
# (`RLINF_NODE_RANK`, coloured by role). Columns are GPU slots. Each cell lists the component
# processes on that GPU. Watch `env` jump from node 1 to node 0 as the count grows. At 1 GPU per node,
# RLinf rejects the config, and the function prints RLinf's own message. The first cell calls `draw`
# once directly for a fixed output (the figure the book shows). The next cell attaches the slider,
# which needs a running kernel.

# %% [markdown] lang="zh"
# ## 7. 每个节点 GPU 数的滑块
#
# 拖动滑块改变每个节点的 GPU 数，拓扑图会重新绘制。行是 Ray 节点（`RLINF_NODE_RANK`，按角色着色），列是 GPU 槽位，
# 每个格子列出该 GPU 上的组件进程。GPU 数增加时，注意 `env` 从节点 rank 1 移到节点 rank 0。每个节点只有 1 张 GPU 时，
# RLinf 拒绝这个配置，函数会打印 RLinf 自己的报错。第一个单元格直接调用一次 `draw`，得到固定的输出（书中显示的就是
# 这张图）；下一个单元格连接滑块，需要运行中的内核。


# %% tags=["figure"]
def topology_at(gpus_per_node):
    """The topology figure at a GPU count, or None (printing RLinf's message) when RLinf rejects it."""
    report = inspect_config(rehearsal, gpus=gpus_per_node, search_gpus=False)
    if not report.ok:
        print(f"{gpus_per_node} GPU(s) per node, RLinf rejects the config:")
        print("  ", report.expansion.error.message)
        return None
    plan = plan_roles(report)
    gpus = {rank: role.gpus for role in plan.roles for rank in role.node_ranks}
    return topology_figure(
        node_rows(report.expansion, [(r.name, r.replicas) for r in plan.roles], gpus),
        title=f"local_rehearsal_2node at {gpus_per_node} GPUs per node",
    )


def draw(gpus_per_node=2):
    figure = topology_at(gpus_per_node)
    if figure is not None:
        figure.show()


draw(2)
assert len(topology_at(2).data[0].y) == 2  # two Ray nodes, two rows
assert topology_at(1) is None

# %%
widgets.interact(
    draw, gpus_per_node=widgets.IntSlider(value=4, min=1, max=8, description="GPUs/node")
)
# %% [markdown] lang="en"
# ## 8. The smallest GPU count that works, and why more is not always fine
#
# `gpu_requirements` tries 1 to 16 GPUs per node and returns two things: the smallest count RLinf
# accepts, and every count it rejects.
#
# - Embodied placements with explicit ranks need at least the largest rank, plus 1.
# - `actor: all` works with any count.
# - Reasoning placements are **not monotonic**. The collocated Qwen2.5-7B config (actor TP 4,
#   rollout TP 2) works with 4 and 8 GPUs per node but fails with 5, 6 and 7: a rollout process
#   would span two nodes.

# %% [markdown] lang="zh"
# ## 8. 能够运行的最少 GPU 数，以及为什么更多并不总是可以
#
# `gpu_requirements` 依次尝试每个节点 1 到 16 张 GPU，返回两项结果：RLinf 接受的最小数量，以及它拒绝的每个数量。
#
# - 写明编号的具身放置至少需要最大编号加 1 张。
# - `actor: all` 在任何数量下都能运行。
# - 推理类放置**不是单调的**。共享式 Qwen2.5-7B 配置（actor TP 4，rollout TP 2）在每个节点 4 张和 8 张 GPU 时可以
#   运行，5、6、7 张时失败：会有一个 rollout 进程跨越两个节点。

# %%
needs = []
for name in (
    "maniskill_ppo_openvlaoft",
    "qwen3_vl_moe_megatron_sft_vlm",
    "qwen2.5-7b-grpo-megatron",
):
    cfg = load_config(CONFIGS[name])
    r = inspect_config(cfg, gpus=8, search_gpus=False)
    smallest, failing = gpu_requirements(r.cluster, task_type=cfg.task_type, lookup=cfg.get)
    needs.append({"config": name, "smallest GPUs/node": smallest, "rejected GPUs/node": failing})
needs = pd.DataFrame(needs).set_index("config")
assert needs.loc["qwen2.5-7b-grpo-megatron", "smallest GPUs/node"] == 4
assert {5, 6, 7} <= set(needs.loc["qwen2.5-7b-grpo-megatron", "rejected GPUs/node"])
assert 8 not in needs.loc["qwen2.5-7b-grpo-megatron", "rejected GPUs/node"]
needs

# %%
qwen_cfg = examples["qwen2.5-7b-grpo-megatron"]
at6 = expand_placement(qwen7b.cluster, 6, task_type="reasoning", lookup=qwen_cfg.get)
print("6 GPUs per node:", at6.error.message)
assert not at6.ok

# %% [markdown] lang="en"
# ## What to remember
#
# - In `actor: 0-7`, the ranks are resources (GPUs, robots or nodes). In `env: 0-3:0-7`, the part
#   after `:` is process ranks. Worker numbers are `RLINF_NODE_RANK`.
# - Global GPU ranks count across nodes in node-rank order, so the GPUs per node decide which node a
#   rank lands on.
# - Inside a node group, ranks count that group's resources only.
# - `num_nodes` (Workers) ≠ world size (processes) ≠ local world size (processes per node).
# - Collocated, disaggregated or hybrid: the mode does not decide the number of roles or Workers.
# - GPUs per Worker = largest local GPU index + 1. A role's total is Workers × GPUs per Worker.
# - Check the GPU counts you plan for with `gpu_requirements`. For reasoning configs, more GPUs per
#   node can fail.
# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 在 `actor: 0-7` 中，编号是资源（GPU、机器人或节点）。在 `env: 0-3:0-7` 中，`:` 之后是进程编号。Worker 编号是
#   `RLINF_NODE_RANK`。
# - 全局 GPU 编号按节点 rank 顺序跨节点计数，所以每个节点的 GPU 数决定一个编号落在哪个节点上。
# - 在节点组内，编号只计算该组的资源。
# - `num_nodes`（Worker 数）≠ world size（进程数）≠ local world size（每个节点上的进程数）。
# - 共享式、分离式还是混合式，执行模式都不决定角色或 Worker 数量。
# - 每个 Worker 的 GPU 数 = 最大本地 GPU 编号 + 1。一个角色的总申请量 = Worker 数 × 每个 Worker 的 GPU 数。
# - 用 `gpu_requirements` 检查你规划的 GPU 数。对推理类配置，每个节点更多 GPU 也可能失败。
