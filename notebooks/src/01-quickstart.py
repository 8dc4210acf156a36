# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 01 · Quickstart: from an RLinf config to an RLark Job
#
# You already have an RLinf workload that runs. RLark (a Kubernetes platform) gives it Workers, GPUs,
# storage and a Ray runtime. This notebook runs the whole path once, in a few cells:
#
# **RLinf config → what RLinf will place on each Ray node → RLark roles → Job → YAML and findings**
#
# Every number below is computed by `rlark_widgets` from the config. Nothing is pasted in. The other
# notebooks explain each step: 00 the words and the whole chain, 02 Jobs, roles, Workers and Ray
# nodes, 03 placement, 04 multi-node and heterogeneous jobs, 05 images, storage and run records,
# 06 submitting and monitoring, 07 planning your own config.
# 中文版：[01-quickstart.zh.ipynb](01-quickstart.zh.ipynb).

# %% [markdown] lang="zh"
# # 01 · 快速上手：从 RLinf 配置到 RLark Job
#
# 你已经有一个能运行的 RLinf 工作负载。RLark（一个 Kubernetes 平台）为它准备 Worker、GPU、存储和 Ray 运行环境。
# 本 notebook 用几个单元格把整条路径走一遍：
#
# **RLinf 配置 → RLinf 会在每个 Ray 节点上放置什么 → RLark 角色 → Job → YAML 与检查结果**
#
# 下面的每个数字都由 `rlark_widgets` 根据配置计算得出，没有手工填写。其他 notebook 分别详细讲解每一步：00 术语与
# 整条链路，02 Job、角色、Worker 与 Ray 节点，03 组件放置，04 多节点与异构任务，05 镜像、存储与运行记录，
# 06 提交与监控，07 规划你自己的配置。English: [01-quickstart.en.ipynb](01-quickstart.en.ipynb).

# %%
from collections import Counter

import pandas as pd

from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.findings import has_errors
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import dump_yaml, render_job_yaml
from rlark_widgets.rlinf import inspect_config, load_config

# A version tag your team verified, never :latest.
IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"


def show(findings, *prefixes):
    """Print findings; with prefixes, only the rules whose id starts with one of them."""
    for f in findings:
        if not prefixes or f.rule_id.startswith(prefixes):
            print(f"{f.severity.value:<8}{f.rule_id:<24}{f.path}\n        {f.message}")


# %% [markdown] lang="en"
# ## 1. Import an RLinf config, unchanged
#
# RLark does not import, merge or rewrite your Hydra config. You keep it exactly as it is. The Job only
# launches it. The bundled examples are trimmed copies of RLinf's own configs. For your own work,
# point `load_config` at the YAML in your RLinf checkout (notebook 07 does exactly that).

# %% [markdown] lang="zh"
# ## 1. 导入 RLinf 配置，保持原样
#
# RLark 不会导入、合并或改写你的 Hydra 配置：不需要把 Hydra 配置改写成 RLark Job 字段，保留原有配置即可，Job
# 只负责启动它。自带的示例是从 RLinf 官方配置中裁剪出来的副本。处理自己的任务时，把 `load_config` 指向你的
# RLinf 代码目录中的 YAML（notebook 07 就是这样做的）。

# %%
configs = example_configs()
print("bundled examples:", ", ".join(configs))

config = load_config(configs["maniskill_ppo_openvlaoft"])
print("runner.task_type:", config.task_type)
print(dump_yaml({"cluster": config.get("cluster")}))

# %% [markdown] lang="en"
# ## 2. Inspect: what RLinf will place on each Ray node
#
# RLinf has no "GPUs per node" key. It counts the GPUs it finds when it starts. A plan therefore
# **assumes** a count (here 8 per node) and then expands `component_placement` the way RLinf would.
# The result lists every component process, the node it runs on and the GPUs it uses.

# %% [markdown] lang="zh"
# ## 2. 检查：RLinf 会在每个 Ray 节点上放置什么
#
# RLinf 没有“每个节点的 GPU 数”这个配置项，它在启动时统计实际发现的 GPU。因此规划时需要先**假定**一个数量（这里
# 是每个节点 8 张），再按 RLinf 的方式展开 `component_placement`。结果列出每个组件进程、它所在的节点和使用的 GPU。

# %%
report = inspect_config(config, gpus=8)
expansion = report.expansion
print(
    "cluster.num_nodes =", report.cluster.num_nodes, "| execution mode:", expansion.placement_mode
)
print(f"smallest GPUs per node RLinf accepts: {report.min_gpus_per_node}")
for name, component in expansion.components.items():
    gpus = sorted({g for p in component.processes for g in p.local_hardware_ranks})
    print(f"  {name:8} world size {component.world_size:2}  on local GPUs {gpus}")

pd.DataFrame(
    [
        {
            "RLINF_NODE_RANK": node.node_rank,
            "components": ", ".join(node.components),
            "processes": node.processes,
            "GPUs used": str(node.accelerators_used),
            "GPUs needed": node.min_accelerators_needed,
        }
        for node in expansion.per_node.values()
    ]
)

# %%
node0 = expansion.per_node[0]
assert report.ok and report.cluster.num_nodes == 1
assert node0.processes == 8 + 4 + 4  # actor 0-7, env 0-3, rollout 4-7: all on one Ray node
assert node0.min_accelerators_needed == 8 == report.min_gpus_per_node

# %% [markdown] lang="en"
# ## 3. Plan the roles
#
# Each Ray node becomes one RLark **Worker**, which is one Pod. The Header is the single Worker at
# `RLINF_NODE_RANK` 0. It starts the Ray head and runs your script. This config has
# `cluster.num_nodes: 1`, so we plan what the FAQ recommends for a single-node run: start from the
# **custom task** template (自定义任务, `template="custom"`, which pre-fills no role), add one role
# named `worker`, set it as Header, and let it match exactly one node. The plan below confirms it
# started from that template. With an inventory of the target cluster, the plan also suggests
# node-selector labels. The labels you see (`rlark.io/cluster`, `rlark.io/node-category: cloud`) are
# this tool's example values: in practice each RLark environment defines its label names and values,
# and you take them from its administrator, never guess them.

# %% [markdown] lang="zh"
# ## 3. 规划角色
#
# 每个 Ray 节点对应一个 RLark **Worker**，也就是一个 Pod。Header 是 `RLINF_NODE_RANK` 为 0 的那个唯一 Worker，
# 它启动 Ray Head 并执行运行脚本。这个配置是 `cluster.num_nodes: 1`，所以按常见问题中单节点任务的做法规划：任务
# 类型选择**自定义任务**（`template="custom"`，不预填任何角色），添加一个名为 `worker` 的角色，把它设为 Header，
# 并让它只匹配 1 个 Node。下面打印的规划会确认它是从自定义任务开始的。提供目标集群的节点清单时，规划还会建议
# 节点选择标签。这里出现的标签（`rlark.io/cluster`、`rlark.io/node-category: cloud`）只是本工具的示例值：实际的
# 标签名称和值由当前 RLark 环境定义，请向平台管理员确认，不要猜测。

# %%
inventory = load_inventory(example_inventories()["gpu-cloud"], site=example_site())
plan = plan_roles(report, inventory, template="custom")
print("started from the console template:", plan.template)
for role in plan.roles:
    print(
        f"role {role.name!r}: head={role.head}, Workers={role.replicas}, GPUs per Worker={role.gpus}"
    )
    print(f"  nodeSelector {role.node_selector} matches {role.matched_nodes}")
print()
for line in plan.explanations:
    print("-", line)

assert plan.template == "custom"
assert plan.total_workers == report.cluster.num_nodes
assert [(r.name, r.head, r.replicas) for r in plan.roles] == [("worker", True, 1)]
assert len(plan.roles[0].matched_nodes) == 1

# %% [markdown] lang="en"
# ## 4. Build the Job and preview its YAML
#
# The Job form needs two things the config cannot tell you. The first is the **image**: a version tag,
# never `latest`. The second is **where outputs persist**. Here we add an object-storage mount at
# `/mnt/output` and set `output_mount`. The run script then points RLinf's `runner.logger.log_path`
# under that mount with a command-line override. The config file itself does not change.

# %% [markdown] lang="zh"
# ## 4. 生成 Job 并预览 YAML
#
# Job 表单中有两项信息无法从配置中得到。第一是**镜像**：填写明确的版本 tag，不要使用 `latest`。第二是**输出
# 保存在哪里**。这里添加一个挂载到 `/mnt/output` 的对象存储，并设置 `output_mount`；运行脚本会通过命令行覆盖项
# 把 RLinf 的 `runner.logger.log_path` 指向这个挂载路径，配置文件本身不变。

# %%
settings = JobSettings(
    image=IMAGE,
    mounts=[Mount("output", "storage", "oss-rlinf", "/mnt/output")],
    output_mount="/mnt/output",
)
job = build_job(plan, settings, site=example_site())
print(render_job_yaml(job))

# %%
launch = job.run_script.strip().splitlines()[-1]
print("the RLinf command the Header runs:\n ", launch)
assert "--config-name maniskill_ppo_openvlaoft" in launch  # the same config, by name
assert "runner.logger.log_path=/mnt/output/" in launch  # one override: outputs under the mount
assert "component_placement" not in render_job_yaml(job)  # placement stays in the RLinf config

# %% [markdown] lang="en"
# > The bundled example files are trimmed copies of RLinf configs. The Job cites the RLinf path each
# > one comes from (here `examples/embodiment/config/...`), so `--config-path` and the
# > `rlark.io/rlinf-config` annotation point where the config lives in an RLinf checkout.
#
# ## 5. Read the findings
#
# Every check produces a **finding**: a rule ID, a severity, the config or Job path it points at,
# a message and a fix. The severity tells you what to do:
#
# - **error**: blocks submission;
# - **warning**: needs a conscious "yes";
# - **info**: teaches.
#
# Config findings come from `inspect_config`. Job findings come from `given_job`.

# %% [markdown] lang="zh"
# > 自带的示例文件是 RLinf 配置的裁剪副本。Job 中记录了每个示例在 RLinf 中的原始路径（这里是
# > `examples/embodiment/config/...`），因此 `--config-path` 和 `rlark.io/rlinf-config` 注解指向 RLinf 代码目录中
# > 配置的实际位置。
#
# ## 5. 阅读检查结果
#
# 每项检查都会产生一条**检查结果**：规则 ID、严重程度、它指向的配置或 Job 路径、说明和修复方法。严重程度决定你要
# 做什么：
#
# - **错误**：阻止提交；
# - **警告**：需要你明确确认；
# - **提示**：用于说明。
#
# 配置的检查结果来自 `inspect_config`，Job 的检查结果来自 `given_job`。

# %%
findings = given_job(job, report, inventory, site=example_site()).findings
show(findings)
print()
print(Counter(f.severity.value for f in findings))
assert not has_errors(findings)

# %% [markdown] lang="en"
# ## 6. Who decides what: RLinf or RLark
#
# RLinf decides the algorithm, the components and where every component process runs. RLark provides
# the Workers, GPUs, storage and the Ray runtime those processes run in. The table below traces each
# Job field back to the config value it was computed from.

# %% [markdown] lang="zh"
# ## 6. 谁决定什么：RLinf 还是 RLark
#
# RLinf 决定算法、组件以及每个组件进程在哪里运行；RLark 为这些进程准备 Worker、GPU、存储和 Ray 运行环境。下表
# 把每个 Job 字段追溯到计算它的配置值。

# %%
manifest = job.to_manifest()
task = manifest["spec"]["tasks"][0]
limits = task["template"]["spec"]["containers"][0]["resources"]["limits"]
mapping = pd.DataFrame(
    [
        (
            "cluster.num_nodes",
            report.cluster.num_nodes,
            "sum of spec.tasks[].replicas",
            sum(t["replicas"] for t in manifest["spec"]["tasks"]),
        ),
        (
            "largest local GPU index + 1",
            node0.min_accelerators_needed,
            "nvidia.com/gpu per Worker",
            limits["nvidia.com/gpu"],
        ),
        (
            "runner.logger.log_path",
            config.get("runner.logger.log_path"),
            "override in spec.runScript",
            launch.split()[-1],
        ),
        (
            "component_placement",
            str(config.get("cluster.component_placement")),
            "(not in the Job: RLinf places components at run time)",
            "-",
        ),
    ],
    columns=["RLinf config", "value", "RLark Job", "Job value"],
)
assert mapping.loc[0, "value"] == mapping.loc[0, "Job value"]
assert mapping.loc[1, "value"] == mapping.loc[1, "Job value"]
mapping

# %% [markdown] lang="en"
# ## What to remember
#
# - Keep your RLinf config as it is. The Job launches it by name, and overrides go in the run script.
# - `inspect_config` shows what RLinf will place on each Ray node, for a GPU count you assume.
# - One Ray node is one RLark Worker, which is one Pod. The Header is the single Worker at node rank 0.
# - A single-node run: custom task, one role `worker`, set as Header, matching one node.
# - Add up the Workers of all roles: the total must equal `cluster.num_nodes`.
# - GPUs per Worker = the largest local GPU index placed on that node, plus 1.
# - Use a version tag for the image (never `latest`), and write outputs under a persistent mount.
# - Read every finding: errors block, warnings need a yes, infos teach.

# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 保留 RLinf 配置原样。Job 按名称启动它，覆盖项写在运行脚本中。
# - `inspect_config` 按你假定的 GPU 数展示 RLinf 会在每个 Ray 节点上放置什么。
# - 一个 Ray 节点就是一个 RLark Worker，也就是一个 Pod。Header 是节点 rank 0 上的唯一 Worker。
# - 单节点任务：选择自定义任务，添加一个 `worker` 角色，设为 Header，只匹配 1 个 Node。
# - 把所有角色的 Worker 数相加，总数必须等于 `cluster.num_nodes`。
# - 每个 Worker 的 GPU 数 = 该节点上被放置的最大本地 GPU 编号 + 1。
# - 镜像使用明确的版本 tag（不要用 `latest`），输出写到持久化挂载路径下。
# - 逐条阅读检查结果：错误阻止提交，警告需要确认，提示用于说明。
