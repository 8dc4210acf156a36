# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 02 · Jobs, roles, Workers, Pods, Ray nodes and RLinf processes
#
# RLark and RLinf both use the word "worker", and they mean different things. This notebook sorts out
# the vocabulary with live examples (the glossary is in notebook 00):
#
# | term | what it is | how many |
# |---|---|---|
# | **Job** (任务) | what the console's 创建任务 submits: `kind: Job` | one per run |
# | **role** (角色) | a template for a group of identical Workers. In the YAML it is one `spec.tasks[]` entry, a **Task** template | as many as you need different Worker set-ups |
# | **Worker** | one Pod started from a role. The role's matched node count (已选节点数) sets how many | the sum over roles must equal `cluster.num_nodes` |
# | **Pod** | the Kubernetes unit that holds a Worker: a `main` container, plus helper containers RLark may add | one per Worker |
# | **Ray node** | the Ray runtime started inside one Worker Pod, numbered by `RLINF_NODE_RANK` | one per Worker |
# | **RLinf component process** | an actor / rollout / env Ray actor that RLinf places onto Ray nodes | the world size of each component |
#
# We use a 4-node config throughout: the bundled SFT example at `cluster.num_nodes=4`. Treat that
# override as "your verified 4-node run". Never change `num_nodes` just to fit the form. We also use
# a small inventory: four A800 nodes. Its labels are this tool's example values; each RLark
# environment defines its own. 中文版：[02-jobs-roles-workers-ray-nodes.zh.ipynb](02-jobs-roles-workers-ray-nodes.zh.ipynb).

# %% [markdown] lang="zh"
# # 02 · Job、角色、Worker、Pod、Ray 节点与 RLinf 进程
#
# RLark 和 RLinf 都使用 “worker” 这个词，但含义不同。本 notebook 用可运行的例子理清这些概念（术语表见 notebook 00）：
#
# | 术语 | 是什么 | 数量 |
# |---|---|---|
# | **Job**（任务） | 控制台“创建任务”提交的对象：`kind: Job` | 每次运行一个 |
# | **角色** | 一组相同 Worker 的配置模板。在 YAML 中是 `spec.tasks[]` 的一个条目，即一个 **Task** 模板 | Worker 配置有几种不同就有几个 |
# | **Worker** | 根据角色启动的一个 Pod。角色的已选节点数决定 Worker 数 | 各角色之和必须等于 `cluster.num_nodes` |
# | **Pod** | 承载 Worker 的 Kubernetes 单元：一个 `main` 容器，以及 RLark 可能加入的辅助容器 | 每个 Worker 一个 |
# | **Ray 节点** | 在一个 Worker Pod 内启动的 Ray runtime，用 `RLINF_NODE_RANK` 编号 | 每个 Worker 一个 |
# | **RLinf 组件进程** | RLinf 放置到 Ray 节点上的 actor、rollout、env 等 Ray actor | 各组件的 world size |
#
# 全文使用一个 4 节点配置：自带的 SFT 示例，设置 `cluster.num_nodes=4`。请把这个覆盖项当作“你已经验证过的 4 节点
# 运行”。不要为了适配表单修改 `num_nodes`。节点清单是 4 台 A800 节点；其中的标签是本工具的示例值，实际由每个
# RLark 环境自行定义。English: [02-jobs-roles-workers-ray-nodes.en.ipynb](02-jobs-roles-workers-ray-nodes.en.ipynb).

# %%
import pandas as pd

from rlark_widgets.examples import example_configs
from rlark_widgets.exercises import check_prediction
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import inventory_from_dict
from rlark_widgets.rlark.job import Job, Mount, Role
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import inspect_config, load_config

IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"


def show(findings, *prefixes):
    """Print findings; with prefixes, only the rules whose id starts with one of them."""
    for f in findings:
        if not prefixes or f.rule_id.startswith(prefixes):
            print(f"{f.severity.value:<8}{f.rule_id:<24}{f.path}\n        {f.message}")


def rule_ids(findings):
    return {f.rule_id for f in findings}


config = load_config(
    example_configs()["qwen3_vl_moe_megatron_sft_vlm"], overrides=["cluster.num_nodes=4"]
)
report = inspect_config(config, gpus=8)
lab = inventory_from_dict(
    {
        "cluster": "lab-a",
        "storageClasses": ["oss-rlinf"],
        "nodes": [
            {
                "name": f"a800-{i:02d}",
                "labels": {
                    "kubernetes.io/hostname": f"a800-{i:02d}",
                    "rlark.io/node-category": "cloud",
                    "gpu.model": "a800",
                    "rack": "r1" if i == 0 else "r2",
                },
                "allocatable": {"nvidia.com/gpu": 8},
            }
            for i in range(4)
        ],
    },
    site=example_site(),
)
print("cluster.num_nodes =", report.cluster.num_nodes)
print("component_placement =", config.get("cluster.component_placement"))
print("inventory nodes:", [n.name for n in lab.nodes])

# %% [markdown] lang="en"
# ## 1. The console's 任务 is a Job, and its roles are Task templates
#
# When you click 创建任务, the console submits **one RLark Job**. It does not create a Task directly.
# The Job's `spec.tasks[]` holds one **Task template** per role. After submission, RLark creates the
# Task resources from these templates, and each Task creates its Workers. You look at Tasks only when
# you read the YAML or investigate why Workers did not appear.

# %% [markdown] lang="zh"
# ## 1. 控制台中的“任务”是 Job，角色是 Task 模板
#
# 点击“创建任务”时，控制台提交的是**一个 RLark Job**，而不是直接创建 Task。Job 的 `spec.tasks[]` 为每个角色保存一个
# **Task 模板**。提交后，RLark 根据这些模板创建 Task 资源，再由 Task 创建 Worker。只有在查看 YAML 或排查 Worker
# 为什么没有创建时，才需要关注 Task。

# %%
plan = plan_roles(report, lab)
job = build_job(plan, JobSettings(image=IMAGE), site=example_site())
manifest = job.to_manifest()
print("kind:", manifest["kind"], "| apiVersion:", manifest["apiVersion"])
for task in manifest["spec"]["tasks"]:
    name, head, replicas = task["name"], task["head"], task["replicas"]
    print(f"  spec.tasks[]: name={name!r:10} head={head!s:5} replicas={replicas}")

assert manifest["kind"] == "Job"
assert len(manifest["spec"]["tasks"]) == len(job.roles)  # one Task template per role

# %% [markdown] lang="en"
# ## 2. A role makes Workers, each Worker is one Pod, and each Pod runs one Ray node
#
# A role is **not** a Pod. It is a template. Its node selection decides how many Workers it creates:
# one per matched node (已选节点数). Each Worker is one Pod, and each Pod starts one Ray node. RLark
# numbers the Ray nodes with `RLINF_NODE_RANK`: a Worker's rank is **the number of Workers of all the
# roles listed before its role, plus its worker index** (a sum, not a product). That is most of the Ray
# you need on day one: one Worker = one Ray node; one Header runs the Ray head and your script; the
# total number of Workers = `cluster.num_nodes`; and `RLINF_NODE_RANK` names each node.

# %% [markdown] lang="zh"
# ## 2. 角色创建 Worker，每个 Worker 是一个 Pod，每个 Pod 运行一个 Ray 节点
#
# 角色**不是** Pod，而是模板。它的节点选择决定创建多少个 Worker：每匹配一个节点（已选节点数）就创建一个。每个
# Worker 是一个 Pod，每个 Pod 启动一个 Ray 节点。RLark 用 `RLINF_NODE_RANK` 为 Ray 节点编号：一个 Worker 的 rank
# **等于排在它所属角色之前的所有角色的 Worker 数之和，再加上它在本角色中的 Worker 序号**（是相加，不是相乘）。
# 首次使用只需要知道这些：一个 Worker 就是一个 Ray 节点；一个 Header 负责 Ray Head 和运行脚本；Worker 总数 =
# `cluster.num_nodes`；`RLINF_NODE_RANK` 标识各个 Ray 节点。

# %%
for role in plan.roles:
    print(f"role {role.name!r}: nodeSelector {role.node_selector}")
    print(
        f"   matches {len(role.matched_nodes)} node(s) {role.matched_nodes} -> {role.replicas} Worker(s)"
    )
    assert len(role.matched_nodes) == role.replicas  # the console's read-only 已选节点数

pd.DataFrame(
    [
        {
            "RLINF_NODE_RANK": rank,
            "role (Task)": role,
            "worker index": index,
            "Pod labels": f"rlark.io/task={role}, rlark.io/worker-index={index}",
            "Ray node": "head" if rank == 0 else "worker",
        }
        for rank, role, index in plan.rank_map()
    ]
)

# %%
assert plan.total_workers == job.total_workers == report.cluster.num_nodes == 4
assert [rank for rank, _, _ in plan.rank_map()] == [0, 1, 2, 3]
before = 0
for role in plan.roles:  # rank = Workers of the roles before + worker index
    assert list(role.node_ranks) == [before + i for i in range(role.replicas)]
    before += role.replicas

# %% [markdown] lang="en"
# **Exercise.** Suppose you reorder the roles so that the 3-Worker role comes first and the Header
# second (the Header is then no longer first: section 5 shows the finding that gives). Which
# `RLINF_NODE_RANK` would the Header's Worker get? Replace `None` with a number, then run the next
# two cells.

# %% [markdown] lang="zh"
# **练习。** 如果调整角色顺序，把 3 个 Worker 的角色放在第一位、Header 放在第二位（这样 Header 就不再排第一，第 5
# 节会展示由此产生的检查结果），Header 的 Worker 会得到哪个 `RLINF_NODE_RANK`？把 `None` 换成一个数字，再运行后面
# 两个单元格。

# %%
my_prediction = None  # e.g. 0

# %%
reordered = build_job(plan, JobSettings(image=IMAGE), site=example_site())
reordered.roles.reverse()
header_rank = next(list(ranks) for role, ranks in reordered.node_rank_ranges() if role.head)[0]
print(check_prediction(my_prediction, header_rank))
assert header_rank == 3

# %% [markdown] lang="en"
# ## 3. Three roles that select the same four nodes make twelve Workers
#
# The console's RL template (强化学习任务) pre-fills three roles: Actor, Rollout and Environment.
# Suppose all three get the same node selection, which matches our four nodes. The roles do **not**
# share Workers or GPUs. Each role creates its own four Workers, with their own resources and node
# ranks, so RLark tries to create **12** Workers. RLinf does not merge Ray nodes by hostname either.
# `given_job` compares the Job with the config.

# %% [markdown] lang="zh"
# ## 3. 三个角色选择同一批 4 个节点，会创建 12 个 Worker
#
# 控制台的强化学习任务模板预填三个角色：Actor、Rollout 和 Environment。假设三个角色使用相同的节点选择，都匹配我们的
# 4 个节点。这些角色**不会**共用 Worker 或 GPU：每个角色分别创建自己的 4 个 Worker，分别申请资源、获得节点编号，
# 所以 RLark 会尝试创建 **12** 个 Worker。RLinf 也不会按 hostname 合并 Ray 节点。`given_job` 会把 Job 与配置对比。

# %%
same_nodes = {"rlark.io/cluster": "lab-a", "gpu.model": "a800"}
three_roles = Job(
    name="sft-three-roles",
    run_script="cd /workspace/RLinf\npython train.py",
    roles=[
        Role("Actor", 4, image=IMAGE, head=True, gpus=8, node_selector=same_nodes),
        Role("Rollout", 4, image=IMAGE, gpus=8, node_selector=same_nodes),
        Role("Environment", 4, image=IMAGE, gpus=8, node_selector=same_nodes),
    ],
)
findings = given_job(three_roles, report, lab, site=example_site()).findings
print("Workers:", three_roles.total_workers, "| cluster.num_nodes:", report.cluster.num_nodes)
print(
    "GPUs requested:",
    sum(r.replicas * r.gpus for r in three_roles.roles),
    "on",
    len(lab.nodes) * 8,
    "GPUs",
)
show(findings, "PLN-WORKER-COUNT", "PLN-SHARED-NODES")

assert three_roles.total_workers == 12
assert {"PLN-WORKER-COUNT", "PLN-SHARED-NODES"} <= rule_ids(findings)

# %% [markdown] lang="en"
# This also shows that **a Ray node is not a physical machine**. Twelve Workers would mean twelve Ray
# nodes on four machines: a Ray node is a runtime inside one Pod, and one machine can run several. It
# still never spans two machines.

# %% [markdown] lang="zh"
# 这也说明**一个 Ray 节点不是一台物理机器**。12 个 Worker 意味着 4 台机器上运行 12 个 Ray 节点：Ray 节点是一个 Pod
# 内的运行时，一台机器可以运行多个，但一个 Ray 节点不会跨越两台机器。

# %%
machines = {n.name for role in three_roles.roles for n in lab.matching(role.node_selector)}
workers = three_roles.total_workers
print(f"{workers} Workers = {workers} Ray nodes on {len(machines)} machines")
assert len(machines) == 4 < three_roles.total_workers

# %% [markdown] lang="en"
# ## 4. Role names and the task type (任务类型) place nothing
#
# A role called `Actor` does not start RLinf's actor. `component_placement` decides where components
# run, and the role name is only a label (`PLN-ROLE-NAME`). Likewise, the console's task type
# (强化学习 / 数据采集 / 评测 / 自定义) only decides which roles the form pre-fills. It does not set
# RLinf's algorithm, `runner.task_type` (RLinf's own task type) or the execution mode. The plan for this
# config is the same whichever template you start from.

# %% [markdown] lang="zh"
# ## 4. 角色名称和任务类型不决定任何放置
#
# 名为 `Actor` 的角色不会启动 RLinf 的 actor。组件在哪里运行由 `component_placement` 决定，角色名称只是标签
# （`PLN-ROLE-NAME`）。同样，控制台的任务类型（强化学习 / 数据采集 / 评测 / 自定义）只决定表单预填哪些角色，不会
# 设置 RLinf 的算法、RLinf 任务类型（`runner.task_type`）或执行模式。无论从哪个模板开始，这个配置的规划都相同。

# %%
show(findings, "PLN-ROLE-NAME")
print()
shapes = {}
for template in ("rl", "data-collection", "evaluation", "custom"):
    roles = plan_roles(report, lab, template=template).roles
    shapes[template] = [(r.name, r.replicas) for r in roles]
    print(f"template {template:16} -> roles {shapes[template]}")
print("runner.task_type stays", repr(config.task_type))

assert "PLN-ROLE-NAME" in rule_ids(findings)
assert len({tuple(s) for s in shapes.values()}) == 1  # the template changes no role

# %% [markdown] lang="en"
# ## 5. The Header: exactly one role, with exactly one Worker, at rank 0
#
# The Header role starts the Ray head and runs the run script. The other Workers join its Ray cluster.
# Being the Header has nothing to do with RLinf's actor. Three rules apply:
#
# - there is exactly one Header role;
# - the Header role has exactly one Worker. With more, each Worker would start its own Ray head and
#   run the script;
# - the Header is first, so its Worker gets `RLINF_NODE_RANK` 0, where RLinf runs its driver.
#
# The 12-Worker Job above broke the second rule as well: its Header role `Actor` had 4 Workers.

# %% [markdown] lang="zh"
# ## 5. Header：只有一个角色，只有一个 Worker，rank 为 0
#
# Header 角色启动 Ray Head 并执行运行脚本，其他 Worker 加入它的 Ray 集群。Header 与 RLinf 的 actor 没有关系。
# 需要满足三条规则：
#
# - 只有一个 Header 角色；
# - Header 角色只包含 1 个 Worker。多于 1 个时，每个 Worker 都会启动自己的 Ray Head 并执行运行脚本；
# - Header 排在第一位，它的 Worker 才能得到 `RLINF_NODE_RANK` 0，RLinf 的 driver 运行在这个节点上。
#
# 上面 12 个 Worker 的 Job 也违反了第二条：它的 Header 角色 `Actor` 有 4 个 Worker。

# %%
print("the plan's Header:", [(r.name, r.replicas, r.node_ranks) for r in plan.roles if r.head])
show(findings, "PLN-HEADER")
print()

two_heads = build_job(plan, JobSettings(image=IMAGE), site=example_site())
two_heads.roles[1].head = True  # the 3-Worker role too
header_last = build_job(plan, JobSettings(image=IMAGE), site=example_site())
header_last.roles.reverse()  # the Header's Worker now gets RLINF_NODE_RANK 3
for name, bad in (("two Header roles", two_heads), ("Header not first", header_last)):
    print(f"[{name}]")
    show(given_job(bad, report, lab, site=example_site()).findings, "PLN-HEADER")

assert "PLN-HEADER" not in rule_ids(
    given_job(job, report, lab, site=example_site()).findings
)  # the plan itself is fine
assert "PLN-HEADER" in rule_ids(findings)
assert "PLN-HEADER" in rule_ids(given_job(two_heads, report, lab, site=example_site()).findings)
assert "PLN-HEADER-RANK0" in rule_ids(
    given_job(header_last, report, lab, site=example_site()).findings
)

# %% [markdown] lang="en"
# ## 6. A Worker is not a PyTorch process
#
# An RLark Worker is a Pod plus a Ray node. RLinf then starts **component processes** on it: Ray
# actors such as actor, rollout or env. One Worker often runs many of them, so a component's world size
# does not tell you how many Workers to create. Compare the processes on each Ray node with the
# Workers: here there are 8 actor processes per node (`local_world_size` 8), 32 in total, on 4 Workers.

# %% [markdown] lang="zh"
# ## 6. Worker 不是 PyTorch 进程
#
# RLark Worker 是一个 Pod 加一个 Ray 节点。RLinf 再在上面启动**组件进程**：actor、rollout、env 等 Ray actor。一个
# Worker 通常运行多个组件进程，所以不能用组件的 world size 决定 Worker 数。对比每个 Ray 节点上的进程数和 Worker
# 数：这里每个节点有 8 个 actor 进程（`local_world_size` 为 8），共 32 个，分布在 4 个 Worker 上。

# %%
actor = report.expansion.components["actor"]
per_node = pd.DataFrame(
    [
        {
            "RLINF_NODE_RANK": n.node_rank,
            "Workers (Pods)": 1,
            "component processes": n.processes,
            "local_world_size": max(
                p.local_world_size for p in actor.processes if p.node_rank == n.node_rank
            ),
        }
        for n in report.expansion.per_node.values()
    ]
)
print(f"actor world size {actor.world_size} on {len(per_node)} Workers")
per_node

# %%
assert actor.world_size == 32 and job.total_workers == 4
assert per_node["component processes"].sum() == report.expansion.total_processes == 32

# %% [markdown] lang="en"
# **One Pod or several?** Use one Worker Pod when `cluster.num_nodes: 1` and one machine provides
# everything. Use several when RLinf needs several Ray nodes, or when node groups need different
# machines, devices, images or mounts. The deciding input is always `num_nodes` and the node layout,
# never the names actor / rollout / env. Here the single-node quickstart config runs 16 processes in
# **one** Worker:

# %% [markdown] lang="zh"
# **一个 Pod 还是多个 Pod？** `cluster.num_nodes: 1` 且一台机器能满足全部运行条件时，使用一个 Worker Pod。RLinf
# 需要多个 Ray 节点，或者不同节点组需要不同的机器、设备、镜像或挂载时，使用多个 Worker Pod。决定因素始终是
# `num_nodes` 和节点布局，而不是 actor、rollout、env 这些名称。下面，快速上手中的单节点配置在**一个** Worker 中
# 运行 16 个进程：

# %%
single = inspect_config(load_config(example_configs()["maniskill_ppo_openvlaoft"]), gpus=8)
single_plan = plan_roles(single)
print(
    f"maniskill_ppo_openvlaoft: {single.expansion.total_processes} processes "
    f"({', '.join(single.expansion.components)}) in {single_plan.total_workers} Worker"
)
assert single_plan.total_workers == 1 and single.expansion.total_processes == 16

# %% [markdown] lang="en"
# ## 7. Helper containers are not Workers
#
# Every Worker Pod has one `main` container, which runs your image: that is all the Job's Pod template
# holds. When you choose a network domain (网络域) or configure TensorBoard, RLark **may** add helper
# containers (sidecars) to the Pod when it runs it. They are RLark's, not part of the Job you write,
# so this notebook cannot show one. What it can show is what the Job holds: the two fields are set,
# the Pod templates still list only `main`, and the number of Workers does not change, since helper
# containers add no Worker and no Ray node. Containers in one Pod share its network and volumes, each
# running its own processes. The TensorBoard directory should be under a mount of the Header
# (`JOB-TENSORBOARD`).

# %% [markdown] lang="zh"
# ## 7. 辅助容器不是 Worker
#
# 每个 Worker Pod 都有一个运行你的镜像的 `main` 容器，Job 的 Pod 模板中只有它。选择网络域或配置 TensorBoard 时，
# RLark 在运行 Pod 时**还可能**加入辅助容器。辅助容器由 RLark 添加，不在你填写的 Job 中，所以本 notebook 无法展示
# 一个辅助容器；能展示的是 Job 本身：这两个字段已经设置，Pod 模板中仍然只有 `main`，Worker 数也没有变化，因为辅助
# 容器不会增加 Worker 或 Ray 节点。同一 Pod 中的容器共享网络和挂载的卷，但各自运行独立进程。TensorBoard 日志目录
# 应位于 Header 的挂载路径下（`JOB-TENSORBOARD`）。

# %%
output = Mount("output", "storage", "oss-rlinf", "/mnt/output")
with_helpers = build_job(
    plan,
    JobSettings(
        image=IMAGE,
        mounts=[output],
        output_mount="/mnt/output",
        tensorboard_log_dir="/mnt/output/tensorboard",
        network_domain="cross-cluster-a",
    ),
    site=example_site(),
)
spec = with_helpers.to_manifest()["spec"]
print("spec.tensorboard:", spec["tensorboard"], "| spec.networkDomain:", spec["networkDomain"])
print(
    "containers per Pod template:",
    [[c["name"] for c in t["template"]["spec"]["containers"]] for t in spec["tasks"]],
)
print("Workers without these fields:", job.total_workers, "| with:", with_helpers.total_workers)

outside = build_job(
    plan, JobSettings(image=IMAGE, tensorboard_log_dir="/tmp/tb"), site=example_site()
)
show(given_job(outside, report, lab, site=example_site()).findings, "JOB-TENSORBOARD")

assert with_helpers.total_workers == job.total_workers == report.cluster.num_nodes
assert all(
    [c["name"] for c in t["template"]["spec"]["containers"]] == ["main"] for t in spec["tasks"]
)
assert "JOB-TENSORBOARD" not in rule_ids(
    given_job(with_helpers, report, lab, site=example_site()).findings
)

# %% [markdown] lang="en"
# ## What to remember
#
# - The console's 任务 is a **Job**. Each role is a **Task template** in `spec.tasks[]`, and RLark
#   creates the Tasks and Workers from them.
# - Role → Workers (one per matched node) → one Pod each → one Ray node each. A Worker's
#   `RLINF_NODE_RANK` = the Workers of the roles before its role + its worker index.
# - Roles that select the same nodes do not share anything: 3 roles × 4 nodes = 12 Workers.
#   The sum of all Workers must equal `cluster.num_nodes`.
# - Role names and the console's task type place nothing. `component_placement` places RLinf
#   components.
# - Exactly one Header role, with one Worker, first in the list (node rank 0).
# - A Worker is not a PyTorch process: one Worker can run many component processes. World size is
#   not a Worker count.
# - Helper containers RLark may add for TensorBoard or a network domain are not Workers.

# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 控制台中的“任务”是 **Job**。每个角色是 `spec.tasks[]` 中的一个 **Task 模板**，RLark 根据它们创建 Task 和 Worker。
# - 角色 → Worker（每个匹配节点一个）→ 每个 Worker 一个 Pod → 每个 Pod 一个 Ray 节点。Worker 的 `RLINF_NODE_RANK` =
#   排在其所属角色之前的各角色 Worker 数之和 + 它的 Worker 序号。
# - 选择同一批节点的角色互不共用：3 个角色 × 4 个节点 = 12 个 Worker。所有 Worker 之和必须等于 `cluster.num_nodes`。
# - 角色名称和控制台的任务类型不决定任何放置；RLinf 组件由 `component_placement` 放置。
# - 只有一个 Header 角色，只含 1 个 Worker，排在第一位（节点 rank 0）。
# - Worker 不是 PyTorch 进程：一个 Worker 可以运行多个组件进程，world size 不是 Worker 数。
# - RLark 为 TensorBoard 或网络域可能加入的辅助容器不是 Worker。
