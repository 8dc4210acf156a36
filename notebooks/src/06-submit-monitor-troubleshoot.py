# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 06 · Submit, monitor and troubleshoot: a local rehearsal end to end
#
# The earlier notebooks stop at the Job YAML. This one submits it. There is no Kubernetes cluster
# here, so it uses the **local backend**: it starts real Ray nodes on this machine, one per Worker,
# with the GPUs, rank labels and environment the Job gives them, and runs a **rehearsal** in place
# of training. The rehearsal checks that every Ray member joined with the right `RLINF_NODE_RANK`,
# places one probe per planned component process on its node and GPUs, then writes steps, metrics
# and `global_step_N` checkpoints like RLinf would.
#
# You will see:
#
# 1. the plan and the preflight: what blocks a local run and what it does not model;
# 2. the Job's life, refresh by refresh: why "Running" is not "training" yet;
# 3. the diagnosis order, live, and then the monitor charts and a Worker's log;
# 4. why a restart does not resume, and how `runner.resume_dir` does.
#
# Each Job takes about half a minute to start here. The cells wait for it.
# 中文版：[06-submit-monitor-troubleshoot.zh.ipynb](06-submit-monitor-troubleshoot.zh.ipynb).

# %% [markdown] lang="zh"
# # 06 · 提交、监控与排查：完整的本地演练
#
# 前面的 notebook 停在 Job YAML，本 notebook 把它提交出去。这里没有 Kubernetes 集群，所以使用**本地后端**：它在本机
# 为每个 Worker 启动一个真实的 Ray 节点，带上 Job 为它们指定的 GPU、rank 标签和环境变量，并用一次**演练**代替训练。
# 演练会检查每个 Ray 成员是否以正确的 `RLINF_NODE_RANK` 加入，为每个规划的组件进程在对应节点和 GPU 上放置一个探针，
# 然后像 RLinf 一样写出训练步数、指标和 `global_step_N` checkpoint。
#
# 你将看到：
#
# 1. 规划与提交前检查：本地运行时哪些问题会阻止提交，哪些情况无法模拟；
# 2. 逐次刷新查看 Job 的生命周期：为什么“运行中”还不是“正在训练”；
# 3. 实时的诊断顺序，然后是监控图表和一个 Worker 的日志；
# 4. 为什么重启不会自动恢复，以及 `runner.resume_dir` 如何恢复。
#
# 在这台机器上，每个 Job 启动大约需要半分钟，单元格会等待它完成。
# English: [06-submit-monitor-troubleshoot.en.ipynb](06-submit-monitor-troubleshoot.en.ipynb).

# %%
import tempfile
import time
from pathlib import Path

import pandas as pd

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.rehearsal import Rehearsal, RehearsalFailure
from rlark_widgets.backends.policy import LOCAL
from rlark_widgets.examples import example_configs
from rlark_widgets.monitor.diagnosis import LINKS, diagnose
from rlark_widgets.monitor.history import HistoryPoint
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import inspect_config, load_config
from rlark_widgets.viz.monitor_charts import checkpoint_figure, members_figure

CONFIG = example_configs()["local_rehearsal_2node"]
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")
WORKSPACE = Path(tempfile.mkdtemp(prefix="rlark-06-"))  # this notebook's local Jobs live here
backend = LocalBackend(WORKSPACE, step_seconds=0.5, linger=120, site=example_site())


def planned_job(name, overrides=()):
    """Import the config, plan the roles and build the Job, as notebook 01 does."""
    report = inspect_config(load_config(CONFIG, overrides=list(overrides)), gpus=2)
    settings = JobSettings(
        name=name, image="rlinf:v0.3.0", mounts=[OUTPUT], output_mount="/mnt/output"
    )
    return build_job(plan_roles(report), settings, site=example_site()), report


def finished(snap):
    return snap.run_script_state not in (None, "not started", "running")


def watch(name, until=finished, timeout=900.0, every=1.0):
    """Refresh the snapshot like the app's monitor does; keep one row per refresh.

    The timeout only bounds a stuck start: on a busy 2-core machine one Ray node can take
    minutes to start.
    """
    rows, history, start = [], [], time.monotonic()
    while True:
        snap = backend.snapshot(name)
        result = diagnose(snap)
        history.append(snap)
        rows.append(
            {
                "s": round(time.monotonic() - start),
                "phase": snap.phase,
                "members": f"{snap.members_alive}/{snap.expected_workers}",
                "run script": snap.run_script_state,
                "step": snap.progress.last_step,
                "checkpoints": tuple(c.step for c in snap.checkpoints),
                "first broken link": result.link,
                "diagnosis": result.title,
            }
        )
        if until(snap) or time.monotonic() - start > timeout:
            return snap, history, pd.DataFrame(rows)
        time.sleep(every)


# %% [markdown] lang="en"
# ## 1. Plan, check and preflight
#
# The bundled `local_rehearsal_2node` config asks for two Ray nodes (`cluster.num_nodes: 2`) with two
# GPUs each. The planner makes a Header (node rank 0) and one Worker (node rank 1). The output mount
# and `output_mount` put RLinf's checkpoints under `/mnt/output`, which the local backend maps into
# this notebook's workspace.
#
# Locally, only some findings block. There is no image to pull and no node to select, so the
# cluster-only rules (image, StorageClass, node selectors) cannot stop a rehearsal. Config,
# placement, schema and secret errors still do. So do the local preflight's own errors (`LOC-*`):
# not enough memory for the Ray nodes, or a layout this machine cannot host.

# %% [markdown] lang="zh"
# ## 1. 规划、检查与提交前检查
#
# 自带的 `local_rehearsal_2node` 配置需要两个 Ray 节点（`cluster.num_nodes: 2`），每个 2 张 GPU。规划器生成一个
# Header（节点 rank 0）和一个 Worker（节点 rank 1）。输出挂载和 `output_mount` 把 RLinf 的 checkpoint 放到
# `/mnt/output` 下，本地后端把它映射到本 notebook 的工作目录。
#
# 在本地，只有部分检查结果会阻止运行。这里没有要拉取的镜像，也没有要选择的节点，所以只针对集群的规则（镜像、
# StorageClass、节点选择）不会阻止演练。配置、放置、schema 和敏感信息错误仍会阻止，本地提交前检查自己的错误
# （`LOC-*`）也会：内存不足以运行这些 Ray 节点，或者本机无法承载这种布局。

# %%
job, report = planned_job("rehearsal-06")
findings = [*given_job(job, report, site=example_site()).findings, *backend.preflight(job)]
print(f"Job {job.name}: roles", [(r.name, r.replicas, r.gpus) for r in job.roles])
print("blocking here:", [f.rule_id for f in LOCAL.blocking(findings)] or "nothing")
for f in backend.preflight(job):
    print(f"  {f.severity:7} {f.rule_id}: {f.message}")

assert [(r.name, r.replicas) for r in job.roles][0] == ("header", 1)
assert job.total_workers == 2 and not LOCAL.blocking(findings)

# %% [markdown] lang="en"
# ## 2. Submit, and watch "Running" become a rehearsal that trains
#
# `submit` returns at once. A detached supervisor starts the Ray head first, then the other Worker.
# The diagnosis walks the chain the FAQ gives, in order, and names the **first** broken link:

# %% [markdown] lang="zh"
# ## 2. 提交，看“运行中”如何变成真正推进的演练
#
# `submit` 立即返回。一个独立的监管进程先启动 Ray Head，再启动另一个 Worker。诊断按常见问题给出的链路依次检查，
# 并指出**第一个**断开的环节：

# %%
print(" -> ".join(LINKS))

# %% [markdown] lang="en"
# Each refresh below is one row. The Job's phase turns "Running" as soon as a Worker process runs.
# The diagnosis still says what is missing: the second Ray member, then the first step. Ray members
# join one after another, the rehearsal then checks ranks and placement, and only then do steps and
# checkpoints appear. A rehearsal is never reported as "training": it is a rehearsal of the layout.

# %% [markdown] lang="zh"
# 下面每一行是一次刷新。只要有一个 Worker 进程在运行，Job 的阶段就变为“运行中”，但诊断仍会指出还缺什么：先是第二个
# Ray 成员，然后是第一个训练步。Ray 成员依次加入，演练随后检查 rank 和放置，之后才出现训练步和 checkpoint。演练永远
# 不会被报告为“正在训练”：它只演练布局。

# %%
result = backend.submit(job, expansion=report.expansion, config=report.config)
print(result.message)
snap, history, timeline = watch(job.name)
timeline.drop_duplicates(
    subset=["phase", "members", "run script", "first broken link", "checkpoints"]
)

# %%
running_but_not_yet = timeline[(timeline["phase"] == "Running") & (timeline["step"].isna())]
print("refreshes that were 'Running' before the first step:", len(running_but_not_yet))
print("\n".join(summary_lines(snap, {r.name: r.replicas for r in job.roles}, diagnose(snap))))

assert snap.run_script_state == "succeeded", snap.log_tail
assert snap.members_alive == snap.expected_workers == 2
assert [c.step for c in snap.checkpoints] == [2, 4, 6]
assert not any(diagnose(s).training for s in history)  # a rehearsal is never "training"

# %% [markdown] lang="en"
# ## 3. The diagnosis order, live
#
# The first broken link moved along the chain while the Job started: Workers running, then the
# Ray head, all members, the saved config, steps, checkpoints. On a busy machine it can step back
# for a refresh (a member the head has not counted yet, a Worker restarting), so read it on every
# refresh, not once. This is the order
# to check a Job that is stuck, too. Fix the **first** broken link: stopping and starting the Job
# again only hides it. Notebook 05 breaks each link on purpose with hand-built snapshots.

# %% [markdown] lang="zh"
# ## 3. 实时的诊断顺序
#
# Job 启动过程中，第一个断开的环节沿着链路依次前进：Worker 运行、Ray Head、全部成员、已保存的配置、训练步、
# checkpoint。在繁忙的机器上，它可能会在某次刷新时后退一步（Head 还没统计到某个成员，或者某个 Worker 正在重启），
# 所以每次刷新都要看，而不是只看一次。排查卡住的 Job 也按这个顺序。修复**第一个**断开的环节：反复停止和启动 Job
# 只会掩盖问题。notebook 05 用手工构造的快照逐一故意断开每个环节。

# %%
from itertools import pairwise

links = [link for link in timeline["first broken link"] if link in LINKS]
moves = [LINKS.index(b) - LINKS.index(a) for a, b in pairwise(links) if a != b]
forward, back = sum(m > 0 for m in moves), sum(m < 0 for m in moves)
print(" -> ".join(dict.fromkeys(links)), "-> ended" if diagnose(snap).link == "ended" else "")
print(f"{forward} step(s) forward, {back} back")
assert links and forward >= back, "the chain advanced as the Job started"

# %% [markdown] lang="en"
# ### The monitor charts and a Worker's log
#
# These are the figures the app's monitor step shows: Ray members alive against `num_nodes`, and
# checkpoints against the expected cadence (`runner.save_interval`).

# %% [markdown] lang="zh"
# ### 监控图表与 Worker 日志
#
# 这些就是应用的监控步骤中显示的图：存活的 Ray 成员与 `num_nodes` 对比，以及 checkpoint 与预期保存间隔
# （`runner.save_interval`）对比。

# %% tags=["figure"]
members_figure([HistoryPoint.of(s) for s in history])

# %% tags=["figure"]
checkpoint_figure(snap, history[0].time)

# %%
worker = snap.workers[1]
print(f"log of {worker.key} (RLINF_NODE_RANK {worker.rank}):")
log = backend.logs(job.name, worker.key, tail=8)
print(log)
assert log.strip()

# %% [markdown] lang="en"
# ## 4. A restart does not resume by itself
#
# Stop the first Job and submit it again. The Workers and Ray nodes are new and RLinf starts **from
# step 1**, even though checkpoints 2, 4 and 6 are still on the output volume
# (`RES-NO-AUTO-RESUME`). The new submission is a new run with its own id: the earlier
# checkpoints stay on disk but are listed as the previous run's, never as this run's, until this
# run writes its own. Only `runner.resume_dir=<checkpoints>/global_step_N` makes it resume.
# That directory must hold a readable `actor/`, like the one RLinf asserts.

# %% [markdown] lang="zh"
# ## 4. 重启不会自动恢复
#
# 停止第一个 Job 后再次提交。Worker 和 Ray 节点都是新的，RLinf **从第 1 步**开始，即使 checkpoint 2、4、6 仍在输出卷上
# （`RES-NO-AUTO-RESUME`）。再次提交是一次新的运行，有自己的 id：之前的 checkpoint 仍保留在磁盘上，但只会列为上一次运行的，
# 在本次运行写出自己的 checkpoint 之前，绝不算作本次运行的。只有 `runner.resume_dir=<checkpoints>/global_step_N` 才会恢复训练。该目录必须包含可读取的
# `actor/`，与 RLinf 的检查一致。

# %%
first_run = backend.snapshot(job.name).run.id
backend.stop(job.name)
again = backend.submit(job, expansion=report.expansion, config=report.config)
print(again.message)
restarted, _, _ = watch(job.name, until=lambda s: s.progress.last_step is not None or finished(s))
first_lines = [line for line in restarted.log_tail if "step" in line][:2]
print("first step after a plain restart:", restarted.progress.last_step, first_lines)
print("this run's checkpoints:", [c.step for c in restarted.checkpoints])
print("the previous run's, still on the volume:", [c.step for c in restarted.earlier_checkpoints])
backend.stop(job.name)

assert "does not resume" in again.message
assert restarted.progress.last_step <= 2
assert restarted.run.id != first_run  # a new run, with its own identity
on_volume = {c.step for c in [*restarted.checkpoints, *restarted.earlier_checkpoints]}
assert {2, 4, 6} <= on_volume  # kept on disk ...
assert all(c.step <= restarted.progress.last_step for c in restarted.checkpoints)  # ... not counted

# %% [markdown] lang="en"
# Resuming is RLinf reading `runner.resume_dir` at start-up. The rehearsal runs the same check RLinf
# does before it continues after step N: the directory is a `global_step_N` with a readable
# `actor/`. Here it is on the real checkpoints the first run wrote. The local backend maps the
# container path `/mnt/output/...` to this directory of the workspace. Submitting with the
# override `+runner.resume_dir=<checkpoints>/global_step_4` makes the rehearsal continue at step 5.
# It is `+` here because the rehearsal config has no `runner.resume_dir` key: `+` appends a new key,
# while the plain form only overrides a key the config already has (notebook 05, section 4, shows
# both forms and the error each gives in the wrong case).

# %% [markdown] lang="zh"
# 恢复训练是 RLinf 在启动时读取 `runner.resume_dir`。演练执行与 RLinf 相同的检查，然后从第 N 步之后继续：目录是
# `global_step_N`，并包含可读取的 `actor/`。这里检查的是第一次运行写出的真实 checkpoint。本地后端把容器路径
# `/mnt/output/...` 映射到工作目录中的这个目录。提交时加上覆盖项 `+runner.resume_dir=<checkpoints>/global_step_4`，
# 演练就会从第 5 步继续。这里写 `+`，是因为演练配置中没有 `runner.resume_dir` 这个键：`+` 追加新键，不带 `+` 的写法
# 只能覆盖已有的键（notebook 05 第 4 节演示了两种写法和各自的报错）。

# %%
checkpoints = job.annotations["rlark.io/checkpoint-dir"]
mounts = MountMap.for_job(job, WORKSPACE / job.name)


def first_step(container_path):
    """Where a run started with runner.resume_dir=container_path would continue."""
    local = str(mounts.local(container_path))
    paths = {"resume_dir": {"container": container_path, "local": local}}
    try:
        return Rehearsal({"job": job.name, "paths": paths}).first_step()
    except RehearsalFailure as refused:
        return f"refused: {refused}"


for candidate in (f"{checkpoints}/global_step_4", f"{checkpoints}/global_step_5", checkpoints):
    print(candidate, "->", first_step(candidate))

assert first_step(f"{checkpoints}/global_step_4") == 5
assert str(first_step(f"{checkpoints}/global_step_5")).startswith("refused")

# %% [markdown] lang="en"
# ## 5. Stop and delete
#
# `stop` ends every process of the Job by PID, session and token. It never runs `ray stop`, which
# would kill other Ray clusters on the machine. `delete` removes the Job's directory and Ray's
# temporary files.

# %% [markdown] lang="zh"
# ## 5. 停止与删除
#
# `stop` 按 PID、会话和令牌结束 Job 的每个进程，从不执行 `ray stop`，因为那会结束本机上的其他 Ray 集群。`delete` 删除
# Job 的目录和 Ray 的临时文件。

# %%
print(backend.stop(job.name))
print(backend.delete(job.name))
assert not any(WORKSPACE.iterdir())

# %% [markdown] lang="en"
# ## What to remember
#
# - Submitting returns at once. Follow the Job by refreshing snapshots, in the app, with
#   `rlark-migrate status --watch`, or as above.
# - "Running" means the Worker processes run. Training needs all Ray members, the saved config,
#   advancing steps and checkpoints on persistent storage.
# - When something is wrong, fix the **first** broken link in the chain. Stopping and starting again
#   only hides it.
# - A restart trains from scratch. Resume with `runner.resume_dir=…/global_step_N` under a mount
#   (`+runner.resume_dir` when the config has no such key).
# - `rlark-migrate resubmit NAME --resume latest` (or the monitor's Resume button) does that for
#   you: it checks the checkpoint is under a mount and readable, adds `++runner.resume_dir` to the
#   RLinf command line, names that one change, and submits a new run.
# - The local rehearsal checks layout, ranks and placement on real Ray nodes. It does not check images,
#   node selection or storage classes: the Kubernetes preflight does that.
# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 提交立即返回。通过刷新快照跟踪 Job：在应用中、用 `rlark-migrate status --watch`，或者像上面这样。
# - “运行中”表示 Worker 进程在运行。训练正常需要全部 Ray 成员、已保存的配置、前进的训练步，以及持久存储中的
#   checkpoint。
# - 出现问题时，修复链路中**第一个**断开的环节。反复停止和启动只会掩盖问题。
# - 重启会从头训练。用挂载路径下的 `runner.resume_dir=…/global_step_N` 恢复（配置中没有这个键时写 `+runner.resume_dir`）。
# - `rlark-migrate resubmit NAME --resume latest`（或监控页的“恢复”按钮）会替你完成这一步：检查 checkpoint 位于挂载路径下且
#   可读取，在 RLinf 启动命令中加上 `++runner.resume_dir`，说明这唯一的改动，然后提交新的运行。
# - 本地演练在真实的 Ray 节点上检查布局、rank 和放置，但不检查镜像、节点选择或 StorageClass：这些由 Kubernetes 的
#   提交前检查负责。
