# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 07 · Plan your own config
#
# The last notebook takes **your** RLinf config and walks it through the whole chain once: what RLinf
# will place on each Ray node, the roles and their node ranks, the Job, every finding with its fix,
# what to ask your platform administrator, and the Job YAML written to a file.
#
# Set the cell below: the path of your config (or `export RLARK_CONFIG=/path/to/config.yaml` before
# starting Jupyter), your overrides, the GPUs per node of the target machines, and, if you have one,
# an inventory of the target cluster. Left empty, it plans a bundled example so that every cell runs.
# 中文版：[07-plan-your-own-config.zh.ipynb](07-plan-your-own-config.zh.ipynb).

# %% [markdown] lang="zh"
# # 07 · 规划你自己的配置
#
# 最后一个 notebook 使用**你自己的** RLinf 配置，把整条链路完整走一遍：RLinf 会在每个 Ray 节点上放置什么、角色及其
# 节点 rank、Job、每条检查结果及修复方法、需要向平台管理员确认的内容，以及写入文件的 Job YAML。
#
# 请修改下面的单元格：配置文件路径（或在启动 Jupyter 前 `export RLARK_CONFIG=/path/to/config.yaml`）、覆盖项、目标
# 机器每个节点的 GPU 数，以及目标集群的节点清单（如果有）。全部留空时，会规划一个自带示例，保证每个单元格都能运行。
# English: [07-plan-your-own-config.en.ipynb](07-plan-your-own-config.en.ipynb).

# %%
import os
import tempfile
from pathlib import Path

import pandas as pd

from rlark_widgets.examples import example_configs
from rlark_widgets.findings import has_errors
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.rlinf import inspect_config, load_config, rlinf_repo_env
from rlark_widgets.viz.chain import chain_figure

# ---- your settings ------------------------------------------------------------------------------
MY_CONFIG = os.environ.get("RLARK_CONFIG")  # your RLinf YAML; None plans a bundled example
OVERRIDES = []  # the overrides you launch with, e.g. ["cluster.num_nodes=2"]
RLINF_REPO = None  # your RLinf checkout, for searchpaths such as ${oc.env:EMBODIED_PATH}
GPUS_PER_NODE = 8  # or a per-node map such as "0:8,1:4"
MY_INVENTORY = None  # an inventory YAML of the target cluster (see the README), if you have one
IMAGE = "registry.example.com/rlinf:v0.3.0-cuda12.4"  # the version tag your team confirmed
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")  # StorageClass from your admin
# --------------------------------------------------------------------------------------------------

source = MY_CONFIG or example_configs()["realworld_peginsertion_rlpd_cnn_async_2arms"]
env = rlinf_repo_env(RLINF_REPO) if RLINF_REPO else None
config = load_config(source, overrides=OVERRIDES, env=env)
inventory = load_inventory(MY_INVENTORY, site=example_site()) if MY_INVENTORY else None
print("config:", Path(source).name, "| runner.task_type:", config.task_type)

# %% [markdown] lang="en"
# ## 1. What RLinf will place on each Ray node
#
# One row per Ray node: its components, how many processes, which local GPUs they use and how many
# GPUs the node needs. Below it, the GPU counts per node RLinf accepts for this placement.

# %% [markdown] lang="zh"
# ## 1. RLinf 会在每个 Ray 节点上放置什么
#
# 每个 Ray 节点一行：节点上的组件、进程数、使用的本地 GPU，以及该节点需要的 GPU 数。表格下面是 RLinf 对这个放置
# 接受的每节点 GPU 数。

# %%
report = inspect_config(config, gpus=GPUS_PER_NODE)
if not report.ok:
    print("RLinf rejects this config:", report.expansion.error.message)
print(
    f"cluster.num_nodes = {report.cluster.num_nodes}; smallest uniform GPUs per node RLinf "
    f"accepts: {report.min_gpus_per_node}; rejected: {list(report.failing_gpus_per_node) or 'none'}"
)
pd.DataFrame(
    [
        {
            "RLINF_NODE_RANK": node.node_rank,
            "components": ", ".join(node.components),
            "processes": node.processes,
            "GPUs used": str(node.accelerators_used),
            "GPUs needed": node.min_accelerators_needed,
            "robots and devices": ", ".join(node.other_hardware_used) or "-",
        }
        for node in report.expansion.per_node.values()
    ]
)

# %% [markdown] lang="en"
# ## 2. Roles, node ranks and the whole chain
#
# The plan starts from the console's custom task template. Each row is one Worker (one Pod, one Ray
# node) with the `RLINF_NODE_RANK` RLark will give it. Keep the role order: it fixes the ranks.

# %% [markdown] lang="zh"
# ## 2. 角色、节点 rank 与整条链路
#
# 规划从控制台的自定义任务模板开始。每一行是一个 Worker（一个 Pod、一个 Ray 节点）以及 RLark 会分配给它的
# `RLINF_NODE_RANK`。请保持角色顺序：它决定各 Worker 的 rank。

# %%
plan = plan_roles(report, inventory, template="custom")
ranks = pd.DataFrame(
    [
        {
            "RLINF_NODE_RANK": rank,
            "role": role,
            "worker index": index,
            "Header": rank == 0,
            "GPUs per Worker": next(r.gpus for r in plan.roles if r.name == role),
            "devices per Worker": str(next(r.devices for r in plan.roles if r.name == role)),
        }
        for rank, role, index in plan.rank_map()
    ]
)
if report.ok:
    assert plan.total_workers == report.cluster.num_nodes
ranks

# %% tags=["figure"]
chain_figure(report.expansion, plan.rank_map())

# %% [markdown] lang="en"
# ## 3. The Job and its findings
#
# Errors block submission, warnings need a conscious yes, infos teach. Each finding names the config or
# Job field it points at and how to fix it. Fix errors in your config or in the settings cell above,
# then run the notebook again.

# %% [markdown] lang="zh"
# ## 3. Job 与检查结果
#
# 错误会阻止提交，警告需要你明确确认，提示用于说明。每条检查结果都指出对应的配置或 Job 字段以及修复方法。请在配置
# 或上面的设置单元格中修复错误，再重新运行本 notebook。

# %%
job = build_job(
    plan,
    JobSettings(image=IMAGE, mounts=[OUTPUT], output_mount=OUTPUT.mount_path),
    site=example_site(),
)
findings = [*plan.findings, *given_job(job, report, inventory, site=example_site()).findings]
order = {"error": 0, "warning": 1, "info": 2}
table = pd.DataFrame(
    [
        {
            "severity": f.severity.value,
            "rule": f.rule_id,
            "where": f.path,
            "message": str(f.message),
            "fix": str(f.fix),
        }
        for f in sorted(findings, key=lambda f: order[f.severity.value])
    ]
).drop_duplicates()
print("blocking errors:", has_errors(findings))
table

# %% [markdown] lang="en"
# ## 4. What to ask your platform administrator
#
# Label names and values, StorageClasses and device resource names are defined by each RLark
# environment; never guess them. The plan above used example values. Tell your administrator what
# your Workers need, per role, and ask for the checked node selection that matches exactly that many
# nodes.

# %% [markdown] lang="zh"
# ## 4. 需要向平台管理员确认的内容
#
# 标签名称和值、StorageClass、专用设备资源名称都由每个 RLark 环境定义，不要猜测。上面的规划使用的是示例值。请按
# 角色向管理员说明 Worker 的需求，并请管理员提供已经核对过、恰好匹配这么多节点的节点选择条件。

# %%
request = pd.DataFrame(
    [
        {
            "role": role.name,
            "Header": role.head,
            "Workers (= 已选节点数)": role.replicas,
            "RLINF_NODE_RANK": f"{role.node_ranks[0]}-{role.node_ranks[-1]}",
            "GPUs per Worker": role.gpus,
            "devices per Worker": str(role.devices) if role.devices else "-",
            "node groups": ", ".join(role.labels) or "-",
        }
        for role in plan.roles
    ]
)
print(f"in total {plan.total_workers} Workers for cluster.num_nodes = {report.cluster.num_nodes}")
request

# %% [markdown] lang="en"
# ## 5. The Job YAML, written to a file
#
# Check it again from a terminal with `rlark-migrate check JOB.yaml --config YOUR_CONFIG`, and keep it
# in the run record with the config, the overrides and the image digest (`rlark-migrate plan ...
# --record DIR`).

# %% [markdown] lang="zh"
# ## 5. 写入文件的 Job YAML
#
# 可以在终端中用 `rlark-migrate check JOB.yaml --config YOUR_CONFIG` 再检查一次，并把它与配置、覆盖项和镜像 digest
# 一起保存到运行记录中（`rlark-migrate plan ... --record DIR`）。

# %%
out = Path(tempfile.mkdtemp(prefix="rlark-07-")) / f"{job.name}.yaml"
out.write_text(render_job_yaml(job), encoding="utf-8")
print("written:", out)
print(render_job_yaml(job)[:1200])
assert out.read_text(encoding="utf-8").startswith("apiVersion: rlark.io/")

# %% [markdown] lang="en"
# ## What to remember
#
# - Your config stays as it is; the Job launches it with your overrides.
# - Workers = `cluster.num_nodes`, one Pod and one Ray node each; the role order fixes the ranks.
# - Fix every error, answer every warning, and confirm labels, StorageClasses and device names with
#   your administrator before you submit.

# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 你的配置保持原样；Job 带着你的覆盖项启动它。
# - Worker 数 = `cluster.num_nodes`，每个 Worker 一个 Pod、一个 Ray 节点；角色顺序决定 rank。
# - 提交前修复所有错误、逐条确认警告，并向管理员核实标签、StorageClass 和设备资源名称。
