# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 04 · Multi-node and heterogeneous jobs: node groups, robots and controllers
#
# Real-robot and mixed workloads need Workers that differ from each other. Some run on a GPU server,
# others on the PC wired to a robot arm, others only host a robot controller. This notebook maps
# RLinf's `node_groups` to RLark roles and node ranks, using the real-robot peg-insertion example (one
# GPU node and two Franka arms) and a mixed lab inventory. It covers:
#
# - device resource names and robot IDs;
# - controller-only nodes;
# - what happens when the Worker count and `cluster.num_nodes` disagree;
# - the console's node categories 云算力 / 端算力 / 端真机.
#
# 中文版：[04-multi-node-and-heterogeneous.zh.ipynb](04-multi-node-and-heterogeneous.zh.ipynb).

# %% [markdown] lang="zh"
# # 04 · 多节点与异构任务：节点组、机器人与控制器
#
# 真机任务和混合任务需要彼此不同的 Worker：有的运行在 GPU 服务器上，有的运行在连接机械臂的工控机上，有的只承载机器人
# 控制器。本 notebook 用真机插孔示例（1 个 GPU 节点和 2 台 Franka 机械臂）和一份混合的实验室节点清单，把 RLinf 的
# `node_groups` 映射到 RLark 角色和节点 rank。内容包括：
#
# - 设备资源名称与机器人 ID；
# - 只运行控制器的节点；
# - Worker 数与 `cluster.num_nodes` 不一致时会发生什么；
# - 控制台的节点类别：云算力 / 端算力 / 端真机。
#
# English: [04-multi-node-and-heterogeneous.en.ipynb](04-multi-node-and-heterogeneous.en.ipynb).

# %%
import pandas as pd

from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.snapshot import JobPhase, JobSnapshot, RayMember, WorkerSnapshot
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import CONSOLE_CATEGORIES, example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.rlinf import inspect_config, load_config, load_text
from rlark_widgets.viz.flow import flow_figure
from rlark_widgets.viz.topology import node_rows, topology_figure

IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"
# The label names and values below are this tool's EXAMPLE site profile; yours come from your admin.
SITE = example_site()
CATEGORY_LABEL = SITE.category_label


def show(findings, *prefixes):
    """Print findings; with prefixes, only the rules whose id starts with one of them."""
    for f in findings:
        if not prefixes or f.rule_id.startswith(prefixes):
            print(f"{f.severity.value:<8}{f.rule_id:<24}{f.path}\n        {f.message}")


def rule_ids(findings):
    return {f.rule_id for f in findings}


inventory = load_inventory(example_inventories()["mixed-robots"], site=example_site())
config = load_config(example_configs()["realworld_peginsertion_rlpd_cnn_async_2arms"])
report = inspect_config(config, gpus=8)
for group in report.cluster.node_groups:
    kind = group.hardware_type or "GPUs"
    print(f"node group {group.label!r:9} node_ranks {list(group.node_ranks)}  hardware {kind}")

# %% [markdown] lang="en"
# ## 1. node_groups → roles → node ranks
#
# The planner cuts the Ray nodes into roles. Node 0 becomes the Header. The other nodes are grouped
# into roles of consecutive ranks with equal needs: GPUs, robots, env vars and node groups. RLark
# gives each Worker the `RLINF_NODE_RANK` = the Workers of the roles before its role + its worker
# index, so this role order reproduces `node_groups[].node_ranks` exactly. Whoever edits the roles must keep that order.

# %% [markdown] lang="zh"
# ## 1. node_groups → 角色 → 节点 rank
#
# 规划器把 Ray 节点划分为角色。节点 rank 0 成为 Header，其余节点按需求相同（GPU、机器人、环境变量和节点组）的连续
# rank 分组为角色。RLark 分配 `RLINF_NODE_RANK` 的方式是：排在前面的各角色 Worker 数之和，加上 Worker 在本角色中的
# 序号。因此这个角色顺序正好重现 `node_groups[].node_ranks`。修改角色的人必须保持这个顺序。

# %%
plan = plan_roles(report, inventory)
job = build_job(plan, JobSettings(image=IMAGE), site=example_site())
pd.DataFrame(
    [
        {
            "role": r.name,
            "head": r.head,
            "RLINF_NODE_RANK": list(r.node_ranks),
            "node groups": list(r.labels),
            "category": r.category,
            "GPUs/Worker": r.gpus,
            "devices/Worker": r.devices,
            "matched nodes": r.matched_nodes,
        }
        for r in plan.roles
    ]
)

# %%
ranks_by_role = {role.name: list(ranks) for role, ranks in job.node_rank_ranges()}
print("Job role order -> RLINF_NODE_RANK:", ranks_by_role)
for group in report.cluster.node_groups:
    holders = [name for name, ranks in ranks_by_role.items() if set(ranks) & set(group.node_ranks)]
    print(f"node group {group.label!r} (ranks {list(group.node_ranks)}) -> role(s) {holders}")
assert ranks_by_role == {"header": [0], "franka": [1, 2]}
assert plan.total_workers == report.cluster.num_nodes == 3

# %% tags=["figure"]
roles = [(r.name, r.replicas) for r in plan.roles]
flow_figure(report.expansion, roles).show()
topology_figure(
    node_rows(report.expansion, roles, {rank: r.gpus for r in plan.roles for rank in r.node_ranks}),
    title="peg insertion: Ray nodes x GPUs (robots in the devices column)",
).show()

# %% [markdown] lang="en"
# ## 2. 云算力 / 端算力 / 端真机: node categories your environment defines
#
# The console's three categories mean the same thing in a self-hosted RLark and in one an
# organisation or provider runs for you. The FAQ says RLark shows them from a node label (it names
# `rlark.io/node-category`), that they are not resource names of either deployment, and that the
# environment's platform administrator maintains them. They filter Nodes by what a machine is used
# for:
#
# - **云算力**: compute in a public cloud, a private cloud or a local data centre;
# - **端算力**: edge compute resources;
# - **端真机**: robot nodes.
#
# **Label names and values are defined by each RLark environment, not by RLark and not by this
# tool.** The label names `rlark.io/node-category` and `rlark.io/cluster` and the values `cloud`,
# `edge` and `robot` below are this tool's example values, used by its bundled inventories. For a real Job, take
# label names and values from your environment's administrator (this tool keeps them in a site
# profile, `--site`); never guess them from another cluster or a Kubernetes example. The planner puts the category label into every role's node
# selector; you still check node status, labels, GPUs, device connections and operating conditions
# before you submit.

# %% [markdown] lang="zh"
# ## 2. 云算力 / 端算力 / 端真机：由所在环境定义的节点类别
#
# 控制台中的这三个类别，在自行部署的 RLark 和由组织或服务提供方部署维护的环境中含义相同。常见问题中说明，它们是
# RLark 根据节点标签（文中写作 `rlark.io/node-category`）显示的节点类别，不是两种部署方式各自定义的资源名称，由该
# 环境的平台管理员维护。这些类别用于按机器在当前环境中的用途筛选 Node：
#
# - **云算力**：可以位于公有云、私有云或本地数据中心；
# - **端算力**：用于查找边缘计算资源；
# - **端真机**：用于查找机器人节点。
#
# **标签名称和值由每个 RLark 环境自行定义，既不是 RLark 规定的，也不是本工具规定的。**下面的标签名称
# `rlark.io/node-category`、`rlark.io/cluster` 和值 `cloud`、`edge`、`robot` 都是本工具的示例值，用于自带的节点清单。创建真实
# 的 Job 时，标签名称和值请向所在环境的平台管理员确认（本工具把它们保存在站点配置 `--site` 中），不要根据其他集群或 Kubernetes 示例猜测。规划器会把类别标签
# 写入每个角色的节点选择；提交前仍需核对节点状态、标签、GPU、设备连接和操作条件。

# %%
by_category = pd.DataFrame(
    [
        {
            "console": CONSOLE_CATEGORIES[category],
            CATEGORY_LABEL: category,
            "nodes": [n.name for n in inventory.nodes if n.category == category],
            "GPUs": sum(n.gpus for n in inventory.nodes if n.category == category),
        }
        for category in CONSOLE_CATEGORIES
    ]
)
# This tool's example profile; your environment defines its own values.
assert SITE.is_example and CONSOLE_CATEGORIES == {
    "cloud": "云算力",
    "edge": "端算力",
    "robot": "端真机",
}
assert all(CATEGORY_LABEL in role.node_selector for role in job.roles)
by_category

# %% [markdown] lang="en"
# You can find robot nodes by category, model and resource summary. That is the most the console and
# an inventory show. **Device IDs** (which arm, which camera) are not node labels. After a Worker gets
# its device resources, the device runtime on that node reports the IDs, and you read them from inside
# an authorized Worker. Querying a device and operating it need separate authorization. Complete the
# on-site safety checks before any device moves.

# %% [markdown] lang="zh"
# 控制台和节点清单最多能做到：按端真机、型号和资源摘要找到机器人节点。**设备 ID**（哪台机械臂、哪个摄像头）不是节点
# 标签。Worker 取得设备资源后，由该节点上的设备运行时报告这些 ID，你在获授权的 Worker 中查看。查询设备和操作设备需要
# 不同的授权；任何设备动作之前，请先完成现场安全确认。

# %%
robots = inventory.matching({CATEGORY_LABEL: "robot"})
for node in robots:
    print(f"{node.name:15} {node.labels.get('robot.model', '-'):12} {dict(node.devices)}")
# The inventory holds resource names and counts only, no device IDs.
assert all(isinstance(count, int) for n in robots for count in n.devices.values())

# %% [markdown] lang="en"
# ## 3. A device resource name is not a robot or camera ID
#
# `rlinf.io/device-franka: 1` is a **resource name and a count**. It asks the scheduler for one Franka
# slot on the node. It does not pick a particular arm, and it writes no device ID into the RLinf
# config. The planner takes the exact name from the inventory and never guesses one: without an
# inventory it warns (`PLN-DEVICE-NAME`). A Worker that carries a robot but requests no device
# resource is an error (`PLN-DEVICE-COVER`). Values such as a robot's IP or a camera serial belong to
# the RLinf config and the device runtime. The bundled config still holds placeholders, and RLinf
# would reject them at start (`CFG-ROBOT-IP`).

# %% [markdown] lang="zh"
# ## 3. 设备资源名称不是机器人或摄像头 ID
#
# `rlinf.io/device-franka: 1` 是**资源名称和数量**：它向调度器申请节点上的 1 份 Franka 资源，不会选择某一台具体的
# 机械臂，也不会把设备 ID 写入 RLinf 配置。规划器从节点清单中取得准确的名称，从不猜测：没有节点清单时会给出警告
# （`PLN-DEVICE-NAME`）。承载机器人的 Worker 没有申请设备资源是错误（`PLN-DEVICE-COVER`）。机器人的 IP、摄像头序列
# 号等值属于 RLinf 配置和设备运行时。自带配置中仍是占位值，RLinf 启动时会拒绝它们（`CFG-ROBOT-IP`）。

# %%
franka_task = job.to_manifest()["spec"]["tasks"][1]
limits = franka_task["template"]["spec"]["containers"][0]["resources"]["limits"]
print("franka role limits:", limits)
print()
show(report.findings, "CFG-ROBOT-IP")
print()
no_inventory = plan_roles(report)
show(no_inventory.findings, "PLN-DEVICE-NAME")
print()
no_device = build_job(plan, JobSettings(image=IMAGE), site=example_site())
no_device.roles[1].devices = {}
show(given_job(no_device, report, inventory, site=example_site()).findings, "PLN-DEVICE-COVER")

assert limits == {"rlinf.io/device-franka": 1}
assert "ROBOT_IP_FOR_RANK1" not in render_job_yaml(job)  # robot addresses never go into the Job
assert "PLN-DEVICE-COVER" in rule_ids(
    given_job(no_device, report, inventory, site=example_site()).findings
)

# %% [markdown] lang="en"
# ## 4. Controller-only nodes still need a Worker
#
# A robot's controller runs as an extra Ray actor, outside `component_placement`. It runs on the node
# named by `controller_node_rank`, or `left_/right_controller_node_rank` for a DualFranka. So a node
# can be needed **only** because a controller runs there, with no component process on it. It still
# counts in `num_nodes` and still needs its Worker (`PLN-CONTROLLER`). Below is a DualFranka
# evaluation layout whose right arm is controlled from node 1. The IPs are example addresses.

# %% [markdown] lang="zh"
# ## 4. 只运行控制器的节点同样需要 Worker
#
# 机器人的控制器作为额外的 Ray actor 运行，不在 `component_placement` 中。它运行在 `controller_node_rank`（DualFranka
# 为 `left_/right_controller_node_rank`）指定的节点上。所以一个节点可能**只**因为运行控制器而被需要，上面没有任何
# 组件进程。它仍然计入 `num_nodes`，仍然需要自己的 Worker（`PLN-CONTROLLER`）。下面是一个 DualFranka 评测布局，右臂
# 由节点 rank 1 控制。其中的 IP 是示例地址。

# %%
dual = load_text(
    """
cluster:
  num_nodes: 2
  component_placement:
    actor: {node_group: franka, placement: 0}
    rollout: {node_group: franka, placement: 0}
    env: {node_group: franka, placement: 0}
  node_groups:
    - label: franka
      node_ranks: 0-1
      hardware:
        type: DualFranka
        configs:
          - node_rank: 0
            left_robot_ip: 10.0.0.11
            right_robot_ip: 10.0.0.12
            left_controller_node_rank: 0
            right_controller_node_rank: 1
runner:
  task_type: embodied
  logger: {log_path: ../results, experiment_name: dual-franka-eval}
  max_epochs: 100
""",
    "realworld_eval_dual_franka.yaml",
)
dual_report = inspect_config(dual, gpus=1)
dual_plan = plan_roles(dual_report, inventory)
print("Ray nodes with component processes:", sorted(dual_report.expansion.per_node))
for role in dual_plan.roles:
    print(f"role {role.name!r}: RLINF_NODE_RANK {list(role.node_ranks)} -> {role.why[0]}")
show(
    given_job(
        build_job(dual_plan, JobSettings(image=IMAGE), site=example_site()),
        dual_report,
        inventory,
        site=example_site(),
    ).findings,
    "PLN-CONTROLLER",
)

assert 1 not in dual_report.expansion.per_node  # no component runs on node 1 ...
assert dual_plan.total_workers == 2 == dual_report.cluster.num_nodes  # ... but it keeps its Worker

# %% [markdown] lang="en"
# The actor and rollout run on node 0 through the robot group, so they see **all** GPUs of their
# Worker. RLinf gives them no GPU ranks of their own, so the planner requests every GPU the node is
# assumed to have for that Worker. If the robot PC has fewer GPUs, give the real count per node and re-plan.

# %% [markdown] lang="zh"
# actor 和 rollout 通过机器人节点组运行在节点 rank 0 上，所以它们能看到所在 Worker 的**全部** GPU。RLinf 不为它们单独
# 分配 GPU 编号，因此规划器为这个 Worker 申请该节点假定拥有的全部 GPU。如果工控机的 GPU 更少，请按节点填写实际数量
# 后重新规划。

# %%
actor = dual_report.expansion.components["actor"].processes[0]
print(f"actor placed on resource {actor.hardware_type!r}")
print("its CUDA_VISIBLE_DEVICES on an assumed 1-GPU node:", actor.visible_accelerators)
print("planned GPUs per Worker:", {r.name: r.gpus for r in dual_plan.roles})

# %% [markdown] lang="en"
# ## 5. More or fewer Ray nodes than cluster.num_nodes
#
# RLark creates as many Ray nodes as there are Workers, and RLinf waits for `cluster.num_nodes` of
# them:
#
# - **Fewer**: RLinf waits forever ("Waiting for 3 nodes…"). There is no timeout.
# - **More**: RLinf does not merge the extra Ray nodes by machine. Its current behaviour may be to log
#   a warning and use only the lowest node ranks; the Workers it does not use, and their GPUs and
#   robots, may stay allocated and idle. Do not treat that truncation as an automatic fix.
#
# So the rule is simple: make the Workers add up to `num_nodes`, and do not change a verified
# `num_nodes` to fit the form.

# %% [markdown] lang="zh"
# ## 5. Ray 节点多于或少于 cluster.num_nodes
#
# RLark 创建的 Ray 节点数等于 Worker 数，而 RLinf 等待 `cluster.num_nodes` 个：
#
# - **少了**：RLinf 一直等待（“Waiting for 3 nodes…”），没有超时。
# - **多了**：RLinf 不会按物理机器合并多余的 Ray 节点。当前行为**可能**是记录警告后只采用节点编号最靠前的部分节点；
#   没有被采用的 Worker 和资源仍可能继续存在，闲置却仍占用 GPU 和机器人。不要把这种截取行为当作自动纠错。
#
# 所以规则很简单：让 Worker 总数等于 `num_nodes`，不要为了适配表单修改已经验证过的 `num_nodes`。

# %%
for franka_workers in (1, 3):
    wrong = build_job(plan, JobSettings(image=IMAGE), site=example_site())
    wrong.roles[1].replicas = franka_workers
    print(f"[{wrong.total_workers} Workers for cluster.num_nodes={report.cluster.num_nodes}]")
    show(given_job(wrong, report, inventory, site=example_site()).findings, "PLN-WORKER-COUNT")
    assert "PLN-WORKER-COUNT" in rule_ids(
        given_job(wrong, report, inventory, site=example_site()).findings
    )


# %% [markdown] lang="en"
# Here is what the two cases look like after submission. Each hand-built snapshot has every Pod
# running and every Ray node joined, but there are 2 or 4 of them for `num_nodes: 3`. The diagnosis
# stops at the first broken link: missing Workers in the first case, too many Ray members in the
# second.

# %% [markdown] lang="zh"
# 下面是两种情况提交后的样子。每个手工构造的快照中所有 Pod 都在运行、所有 Ray 节点都已加入，但对于 `num_nodes: 3`
# 分别有 2 个和 4 个。诊断在第一个断开的环节停下：第一种是缺少 Worker，第二种是 Ray 成员过多。


# %%
def snapshot(ranks):
    workers = [
        WorkerSnapshot("header" if r == 0 else "franka", max(r - 1, 0), r, f"w{r}", phase="Running")
        for r in ranks
    ]
    members = [
        RayMember(f"node-{r}", f"10.1.0.{r + 1}", "ALIVE", is_head=r == 0, node_rank=r)
        for r in ranks
    ]
    return JobSnapshot(
        "peg-insertion",
        "kubernetes",
        1000.0,
        phase=JobPhase.RUNNING,
        expected_workers=3,
        tasks=[{"name": "header"}, {"name": "franka"}],
        workers=workers,
        members=members,
    )


fewer, more = diagnose(snapshot([0, 1])), diagnose(snapshot([0, 1, 2, 3]))
for n, result in ((2, fewer), (4, more)):
    print(f"{n} Workers, {n} Ray nodes -> [{result.link}] {result.title}")
assert (fewer.link, more.link) == ("workers-running", "ray-members")
assert not fewer.training and not more.training

# %% [markdown] lang="en"
# ## 6. Workers with different needs get different roles
#
# Use several Worker groups (roles) when Workers need different nodes, devices, GPU counts, images,
# mounts or environments, as the robot PCs above do. GPU counts alone are enough: a 3-node SFT run
# whose last node has only 4 GPUs gets three roles. The placement (`actor: all`) then puts 8, 8 and
# 4 processes on the three nodes.

# %% [markdown] lang="zh"
# ## 6. 需求不同的 Worker 使用不同的角色
#
# 当 Worker 需要不同的节点、设备、GPU 数、镜像、挂载或环境时（如上面的机器人工控机），使用多组 Worker（多个角色）。
# 仅 GPU 数不同就足够：最后一个节点只有 4 张 GPU 的 3 节点 SFT 任务会得到三个角色。放置规则（`actor: all`）随后在三个
# 节点上分别放置 8、8、4 个进程。

# %%
sft = load_config(
    example_configs()["qwen3_vl_moe_megatron_sft_vlm"], overrides=["cluster.num_nodes=3"]
)
mixed = inspect_config(sft, gpus="0:8,1:8,2:4")
mixed_plan = plan_roles(mixed)
print("processes per node:", {n: s.processes for n, s in mixed.expansion.per_node.items()})
for role in mixed_plan.roles:
    print(
        f"role {role.name!r}: RLINF_NODE_RANK {list(role.node_ranks)}, {role.gpus} GPUs per Worker"
    )
assert [r.gpus for r in mixed_plan.roles] == [8, 8, 4]

# %% [markdown] lang="en"
# ## What to remember
#
# - Roles follow Ray nodes. `RLINF_NODE_RANK` = the Workers of the roles before + the worker index,
#   and it must line up with `node_groups[].node_ranks`.
# - 云算力 / 端算力 / 端真机 are categories RLark shows from a node label; the label names and values are
#   your environment's (`rlark.io/node-category` with `cloud` / `edge` / `robot` are this tool's examples). Filter by them,
#   then check status, labels, GPUs and devices.
# - `rlinf.io/device-*` names ask the scheduler for a kind and a count of device. Robot and camera IDs
#   come from the device runtime inside the Worker. Never guess a resource name.
# - A node that only hosts a robot controller still counts, and still needs its Worker.
# - Fewer Workers than `num_nodes`: RLinf waits forever. More: RLinf may use only the lowest ranks,
#   and the rest may hold resources idle.
# - Different GPUs, devices, images, mounts or env → different roles. Component names never decide this.
# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 角色跟随 Ray 节点。`RLINF_NODE_RANK` = 排在前面的各角色 Worker 数之和 + Worker 序号，必须与
#   `node_groups[].node_ranks` 对齐。
# - 云算力 / 端算力 / 端真机是 RLark 根据节点标签显示的类别；标签名称和值由所在环境定义
#   （`rlark.io/node-category` 与 `cloud` / `edge` / `robot` 是本工具的示例值）。先按类别筛选，再核对状态、标签、GPU 和设备。
# - `rlinf.io/device-*` 名称向调度器申请一种设备及其数量。机器人和摄像头 ID 由 Worker 内的设备运行时报告。不要猜测
#   资源名称。
# - 只承载机器人控制器的节点同样计数，同样需要 Worker。
# - Worker 少于 `num_nodes`：RLinf 一直等待。多于：RLinf 可能只采用编号靠前的节点，其余 Worker 闲置却仍占用资源。
# - GPU、设备、镜像、挂载或环境不同 → 使用不同的角色。组件名称从不决定这一点。
