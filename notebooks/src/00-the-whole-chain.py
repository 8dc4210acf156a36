# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 00 · The whole chain: words, one picture, and why
#
# Moving an RLinf run onto RLark means following one chain of objects from your config to the
# processes that train:
#
# **RLinf config → node ranks → roles → Workers (Pods) → Ray nodes → GPUs → component processes**
#
# This notebook gives the words for each link (a glossary), draws the whole chain for a real
# plan, explains **why** the chain is built this way, and ends with a first exercise. The other
# notebooks take one link at a time. 中文版：[00-the-whole-chain.zh.ipynb](00-the-whole-chain.zh.ipynb).

# %% [markdown] lang="zh"
# # 00 · 整条链路：术语、一张图和背后的原因
#
# 把 RLinf 任务迁移到 RLark，就是沿着一条链路，从配置一直走到真正执行训练的进程：
#
# **RLinf 配置 → 节点 rank → 角色 → Worker（Pod）→ Ray 节点 → GPU → 组件进程**
#
# 本 notebook 先给出每一环的术语（术语表），再用一个真实的规划画出整条链路，说明这条链路**为什么**这样设计，
# 最后做第一个练习。后面的 notebook 每次只讲其中一环。English: [00-the-whole-chain.en.ipynb](00-the-whole-chain.en.ipynb).

# %%
from rlark_widgets.examples import example_configs
from rlark_widgets.exercises import check_prediction
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlinf import inspect_config, load_config
from rlark_widgets.viz.chain import chain_figure

config = load_config(example_configs()["local_rehearsal_2node"])
report = inspect_config(config, gpus=2, search_gpus=False)
plan = plan_roles(report)
print("cluster:", config.get("cluster"))

# %% [markdown] lang="en"
# ## 1. Glossary: four kinds of "node", and six kinds of "worker"
#
# The word **node** means four different things here. Keep them apart:
#
# | term | what it is | who sets it |
# |---|---|---|
# | **Kubernetes Node** | a machine (or VM) in the cluster. A role's node selection picks among them; the count it matches is the console's 已选节点数 | the platform |
# | **Ray node** | one Ray runtime, started inside one Worker Pod. Several can run on one machine; one never spans two | RLark, one per Worker |
# | **node rank** (`RLINF_NODE_RANK`) | the number 0..N-1 of a Ray node. RLinf's `node_groups[].node_ranks` and placements refer to it | RLark sets it from the role order |
# | **node group** (`node_groups[]`) | RLinf's name for a set of node ranks with the same hardware (GPUs, robots) | your RLinf config |
#
# And the word **worker** (or its neighbours) means six:
#
# | term | what it is | how many |
# |---|---|---|
# | **Job** (任务) | what the console's 创建任务 submits | one per run |
# | **role** (角色) | a template for a group of identical Workers | one per different Worker set-up |
# | **Task** | RLark's orchestration object made from a role's entry in `spec.tasks[]` | one per role; you rarely touch it |
# | **Worker** | one Pod started from a role | the sum over roles = `cluster.num_nodes` |
# | **Pod** | the Kubernetes unit holding a Worker: a `main` container, and helper containers RLark may add | one per Worker |
# | **process** | an RLinf component process (actor, rollout, env ...), a Ray actor placed on a Ray node | each component's world size |
#
# RLinf's own docs also say "worker" for a component process. That is **not** an RLark Worker.

# %% [markdown] lang="zh"
# ## 1. 术语表：四种“节点”，六种“Worker”
#
# 这里的“节点”有四种不同含义，请分清：
#
# | 术语 | 是什么 | 由谁决定 |
# |---|---|---|
# | **Kubernetes Node** | 集群中的一台机器（或虚拟机）。角色的节点选择在这些 Node 中圈定范围，匹配到的数量就是控制台的已选节点数 | 平台 |
# | **Ray 节点** | 在一个 Worker Pod 内启动的一个 Ray runtime。一台机器上可以运行多个，一个 Ray 节点不会跨越两台机器 | RLark，每个 Worker 一个 |
# | **节点 rank**（`RLINF_NODE_RANK`） | Ray 节点的编号 0..N-1。RLinf 的 `node_groups[].node_ranks` 和组件放置都引用它 | RLark 按角色顺序设置 |
# | **节点组**（`node_groups[]`） | RLinf 中一组硬件相同（GPU、机器人）的节点 rank 的名称 | 你的 RLinf 配置 |
#
# 与 Worker 相关的词有六个：
#
# | 术语 | 是什么 | 数量 |
# |---|---|---|
# | **Job**（任务） | 控制台“创建任务”提交的对象 | 每次运行一个 |
# | **角色** | 一组相同 Worker 的配置模板 | Worker 配置有几种不同，就有几个角色 |
# | **Task** | RLark 根据 `spec.tasks[]` 中某个角色的模板创建的编排对象 | 每个角色一个；通常不需要直接操作 |
# | **Worker** | 根据角色启动的一个 Pod | 各角色之和 = `cluster.num_nodes` |
# | **Pod** | 承载 Worker 的 Kubernetes 单元：一个 `main` 容器，以及 RLark 可能加入的辅助容器 | 每个 Worker 一个 |
# | **进程** | RLinf 组件进程（actor、rollout、env 等），即放置在 Ray 节点上的 Ray actor | 各组件的 world size |
#
# RLinf 文档中的组件 Worker 指的是组件进程，**不是** RLark Worker。

# %% [markdown] lang="en"
# ## 2. The whole chain, drawn from a plan
#
# The bundled 2-node rehearsal config (`num_nodes: 2`, `actor: all`, `env: 0,2`, `rollout: 1,3`)
# at 2 GPUs per node. Read the diagram left to right: the config asks for 2 Ray nodes; RLark gives
# ranks 0 and 1 to the Workers of the roles `header` and `workers`; each Worker is one Pod running
# one Ray node; RLinf then puts its component processes on the GPUs of those Ray nodes. The widths
# are process counts.

# %% [markdown] lang="zh"
# ## 2. 根据规划画出整条链路
#
# 示例使用自带的 2 节点演练配置（`num_nodes: 2`，`actor: all`，`env: 0,2`，`rollout: 1,3`），每个节点 2 张
# GPU。从左往右看：配置要求 2 个 Ray 节点；RLark 把节点 rank 0 和 1 分给 `header` 和 `workers` 两个角色的
# Worker；每个 Worker 是一个 Pod，运行一个 Ray 节点；RLinf 再把组件进程放到这些 Ray 节点的 GPU 上。连线宽度
# 表示进程数。

# %% tags=["figure"]
chain_figure(report.expansion, plan.rank_map())

# %%
print("rank map (RLINF_NODE_RANK, role, worker index):", plan.rank_map())
for rank, summary in report.expansion.per_node.items():
    print(f"Ray node {rank}: {summary.processes} processes of {', '.join(summary.components)}")
assert plan.total_workers == report.cluster.num_nodes == 2
assert [rank for rank, _, _ in plan.rank_map()] == [0, 1]

# %% [markdown] lang="en"
# ## 3. Why the chain is built this way
#
# **Why one Pod per Ray node?** RLinf counts Ray nodes: it waits for `cluster.num_nodes` of them
# and numbers them. RLark starts exactly one Ray node in each Worker Pod, so the number of Workers
# *is* the number of Ray nodes, and each Pod gets the resources (GPUs, devices, mounts) its Ray node
# needs. A Pod cannot span machines, so neither can a Ray node.
#
# **Why is `RLINF_NODE_RANK` set before `ray start`?** RLinf reads the rank of each Ray node from its
# environment when Ray starts there; `node_groups[].node_ranks` and every placement refer to those
# ranks. If the rank came later, a robot placement could land on a GPU server. RLark therefore sets it
# from the role order before Ray starts: a Worker's rank is **the number of Workers of all roles
# before its role, plus its worker index**. Reordering roles renumbers the Ray nodes.
#
# **Why is "Running" not training?** "Running" (运行中) is Kubernetes saying the Pods' containers run.
# Training needs more links to hold: all Ray members joined with ranks 0..N-1, RLinf saved its final
# config, steps advance, and checkpoints land on persistent storage and read back. Notebooks 05 and
# 06 show each link break.

# %% [markdown] lang="zh"
# ## 3. 为什么这样设计
#
# **为什么一个 Ray 节点对应一个 Pod？** RLinf 按 Ray 节点计数：它等待 `cluster.num_nodes` 个 Ray 节点并为它们
# 编号。RLark 在每个 Worker Pod 中只启动一个 Ray 节点，所以 Worker 数**就是** Ray 节点数，每个 Pod 也能申请到
# 该 Ray 节点需要的 GPU、设备和挂载。Pod 不能跨机器，Ray 节点也就不会跨机器。
#
# **为什么要在 `ray start` 之前设置 `RLINF_NODE_RANK`？** RLinf 在每个 Ray 节点启动时从环境变量读取该节点的 rank；
# `node_groups[].node_ranks` 和所有组件放置都引用这些 rank。如果 rank 设置得晚，机器人组件就可能被放到 GPU
# 服务器上。因此 RLark 在 Ray 启动前按角色顺序设置 rank：一个 Worker 的 rank **等于排在它所属角色之前的所有
# 角色的 Worker 数之和，再加上它在本角色中的 Worker 序号**。调整角色顺序会改变 Ray 节点的编号。
#
# **为什么“运行中”不等于正在训练？** “运行中”只表示 Kubernetes 中 Pod 的容器在运行。训练正常还需要后面几环都
# 成立：所有 Ray 成员以 rank 0..N-1 加入，RLinf 保存了最终配置，训练步数在前进，checkpoint 写入持久存储并能
# 重新读取。notebook 05 和 06 会逐一演示每一环出问题的情况。

# %%
from rlark_widgets.rlark.job import Role

roles = [Role("header", 1, head=True), Role("gpu", 3), Role("franka", 2)]
rank_of = {}
before = 0
for role in roles:
    for index in range(role.replicas):
        rank_of[(role.name, index)] = before + index  # Workers of earlier roles + worker index
    before += role.replicas
print(rank_of)
assert rank_of[("franka", 1)] == 1 + 3 + 1 == 5

# %% [markdown] lang="en"
# ## 4. Exercise: predict the rank map
#
# A Job lists the roles `header` (1 Worker), `gpu` (2 Workers) and `franka` (2 Workers), in that
# order. Which `RLINF_NODE_RANK` does each `franka` Worker get? Write your prediction as a list, for
# instance `[1, 2]`, in place of `None`, then run the next two cells. The notebook checks it.

# %% [markdown] lang="zh"
# ## 4. 练习：预测 rank 分配
#
# 一个 Job 依次列出角色 `header`（1 个 Worker）、`gpu`（2 个 Worker）和 `franka`（2 个 Worker）。每个 `franka`
# Worker 分别得到哪个 `RLINF_NODE_RANK`？把你的预测写成列表（例如 `[1, 2]`）替换 `None`，再运行后面两个
# 单元格，notebook 会检查你的答案。

# %%
my_prediction = None  # e.g. [1, 2]

# %%
exercise = [Role("header", 1, head=True), Role("gpu", 2), Role("franka", 2)]
starts = [sum(r.replicas for r in exercise[:i]) for i in range(len(exercise))]
answer = [starts[2] + index for index in range(exercise[2].replicas)]
print(check_prediction(my_prediction, answer))
assert answer == [3, 4]

# %% [markdown] lang="en"
# ## What to remember
#
# - Four "nodes": a Kubernetes Node is a machine, a Ray node is a runtime in one Pod, a node rank
#   numbers Ray nodes, a node group is RLinf's set of ranks.
# - Job → roles (Task templates) → Workers, one Pod each → one Ray node each → GPUs → processes.
# - A Worker's `RLINF_NODE_RANK` = the Workers of the roles before its role + its worker index.
# - "Running" is the Pods; training is the whole chain holding.

# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 四种“节点”：Kubernetes Node 是机器，Ray 节点是一个 Pod 中的运行时，节点 rank 是 Ray 节点的编号，节点组是
#   RLinf 中的一组 rank。
# - Job → 角色（Task 模板）→ Worker（每个一个 Pod）→ 每个 Worker 一个 Ray 节点 → GPU → 组件进程。
# - Worker 的 `RLINF_NODE_RANK` = 排在其所属角色之前的各角色 Worker 数之和 + 它的 Worker 序号。
# - “运行中”说的是 Pod；训练正常需要整条链路都成立。
