# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="en"
# # 05 · Images, storage, checkpoints, run records, and "Running" vs training
#
# A Job that RLark accepts can still lose its checkpoints, train from scratch after a restart, or run
# an image nobody can identify later. This notebook covers what keeps a run reproducible and its
# outputs safe:
#
# - image tags and digests;
# - the three kinds of path (node directory, object storage, container path);
# - where checkpoints must live, and how resuming really works;
# - the run record, and why secrets never reach it.
#
# It ends with monitoring, using hand-built snapshots and no cluster: why "运行中" (Running) does not
# mean training, and the order in which to check a Job that stays Pending.
# 中文版：[05-images-storage-and-records.zh.ipynb](05-images-storage-and-records.zh.ipynb).

# %% [markdown] lang="zh"
# # 05 · 镜像、存储、checkpoint、运行记录，以及“运行中”与训练
#
# RLark 接受的 Job 仍可能丢失 checkpoint、重启后从头训练，或者使用一个以后无人能确认的镜像。本 notebook 讲解让运行
# 可复现、输出可保留的要点：
#
# - 镜像 tag 与 digest；
# - 三种路径（主机目录、对象存储、容器路径）；
# - checkpoint 必须保存在哪里，恢复训练实际上如何进行；
# - 运行记录，以及为什么敏感信息不会进入运行记录。
#
# 最后用手工构造的快照（不需要集群）讲解监控：为什么“运行中”不等于正在训练，以及 Job 一直 Pending 时按什么顺序检查。
# English: [05-images-storage-and-records.en.ipynb](05-images-storage-and-records.en.ipynb).

# %%
import tempfile
from pathlib import Path

import pandas as pd

from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.monitor.diagnosis import LINKS, diagnose
from rlark_widgets.monitor.snapshot import (
    Checkpoint,
    EventRecord,
    JobPhase,
    JobSnapshot,
    Progress,
    RayMember,
    WorkerSnapshot,
)
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.facts import RecordFacts
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.record import build_record
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import ConfigLoadError, inspect_config, load_config

TAG = "registry.example.com/rlinf:v0.3.0-cuda12.4"
DIGEST = "sha256:" + "4f" * 32  # stands for the digest your registry reports for TAG
CONFIGS = example_configs()
inventory = load_inventory(example_inventories()["gpu-cloud"], site=example_site())
config = load_config(CONFIGS["maniskill_ppo_openvlaoft"])
report = inspect_config(config, gpus=8)
plan = plan_roles(report, inventory)
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")  # object storage via a StorageClass


def show(findings, *prefixes):
    """Print findings; with prefixes, only the rules whose id starts with one of them."""
    for f in findings:
        if not prefixes or f.rule_id.startswith(prefixes):
            print(f"{f.severity.value:<8}{f.rule_id:<24}{f.path}\n        {f.message}")


def rule_ids(findings):
    return {f.rule_id for f in findings}


def check(**settings):
    """Build the ManiSkill Job with these settings and return (job, findings)."""
    job = build_job(plan, JobSettings(**{"image": TAG, **settings}), site=example_site())
    return job, given_job(job, report, inventory, site=example_site()).findings


# %% [markdown] lang="en"
# ## 1. Image tag or digest
#
# A **tag** (`rlinf:v0.3.0-cuda12.4`) is a readable name. Unless the registry forbids overwriting,
# the same tag can point at different content later. A **digest** (`rlinf@sha256:…`) is the
# fingerprint of one exact image content. Which to use:
#
# - start with a version tag your team confirmed;
# - never use `latest`, or no tag at all, which means `latest` (`JOB-IMAGE`, an error);
# - when you need to reproduce, compare or publish a run, record the digest behind the tag
#   (`JOB-IMAGE-DIGEST` reminds you), or use the digest directly.

# %% [markdown] lang="zh"
# ## 1. 镜像 tag 还是 digest
#
# **tag**（`rlinf:v0.3.0-cuda12.4`）是便于阅读的版本名称。除非镜像仓库禁止覆盖，同一个 tag 以后仍可能指向不同内容。
# **digest**（`rlinf@sha256:…`）是一份确定镜像内容的唯一指纹。使用建议：
#
# - 首次使用时，填写团队确认的版本 tag；
# - 不要使用 `latest`，也不要省略 tag（省略即 `latest`，`JOB-IMAGE`，错误）；
# - 需要复现、比较或发布运行时，记录该 tag 实际对应的 digest（`JOB-IMAGE-DIGEST` 会提醒你），或直接使用 digest。

# %%
verdicts = []
for image in (
    "registry.example.com/rlinf:latest",
    "registry.example.com/rlinf",
    TAG,
    f"registry.example.com/rlinf@{DIGEST}",
):
    _, findings = check(image=image)
    verdicts.append(
        {
            "image": image if "@" not in image else image[:40] + "…",
            "JOB-IMAGE (error)": "JOB-IMAGE" in rule_ids(findings),
            "JOB-IMAGE-DIGEST (info)": "JOB-IMAGE-DIGEST" in rule_ids(findings),
        }
    )
verdicts = pd.DataFrame(verdicts)
assert list(verdicts["JOB-IMAGE (error)"]) == [True, True, False, False]
assert list(verdicts["JOB-IMAGE-DIGEST (info)"]) == [True, True, True, False]
verdicts

# %% [markdown] lang="en"
# ## 2. Node directory, object storage and container path
#
# There are three kinds of path, and each lives in a different place:
#
# - **Node directory** (主机目录, `hostPath`): its source is a directory on whichever **node** the
#   Worker lands on. It is not copied between nodes, so it must exist, with the same content, on every
#   node the role may use (`JOB-HOSTPATH`).
# - **Object storage**: connected through a **StorageClass**. RLark creates a PVC from it. You never
#   enter a bucket, an object key or a laptop path (`JOB-STORAGE-SOURCE`).
# - **Container path** (`mountPath`): where both appear inside the Worker. RLinf reads and writes
#   only these paths.

# %% [markdown] lang="zh"
# ## 2. 主机目录、对象存储与容器路径
#
# 三种路径分别位于不同的地方：
#
# - **主机目录**（`hostPath`）：源路径是 Worker 实际运行的那个**计算节点**上的目录。它不会在节点之间复制，所以该角色
#   可能落到的每个节点上都必须存在、且内容相同（`JOB-HOSTPATH`）。
# - **对象存储**：通过 **StorageClass** 连接，RLark 据此创建 PVC。这里不要填写 Bucket、对象键或本地电脑路径
#   （`JOB-STORAGE-SOURCE`）。
# - **容器路径**（`mountPath`）：两者在 Worker 内出现的位置。RLinf 只通过这些路径读写数据。

# %%
data = Mount("data", "hostPath", "/data/maniskill", "/mnt/data", read_only=True)
job, findings = check(mounts=[data, OUTPUT])
task = job.to_manifest()["spec"]
print("container paths:", task["tasks"][0]["template"]["spec"]["containers"][0]["volumeMounts"])
print("volumes:        ", task["tasks"][0]["template"]["spec"]["volumes"])
print("spec.storage:   ", task["storage"])
show(findings, "JOB-HOSTPATH", "JOB-STORAGE-SOURCE")
print()

bucket = Mount("output", "storage", "oss://my-bucket/rlinf", "/mnt/output")
_, bad = check(mounts=[bucket])
show(bad, "JOB-STORAGE-SOURCE")

assert "JOB-HOSTPATH" in rule_ids(findings) and "JOB-STORAGE-SOURCE" not in rule_ids(findings)
assert "JOB-STORAGE-SOURCE" in rule_ids(bad)

# %% [markdown] lang="en"
# ## 3. Checkpoints must be written under a persistent mount
#
# Adding a mount does not move RLinf's outputs. RLinf writes checkpoints to
# `<runner.logger.log_path>/<experiment_name>/checkpoints/global_step_N/`. For this config that is
# `../results`, inside the container, and it is lost when the Pod is recreated
# (`JOB-CHECKPOINT-PERSIST`). `JobSettings(output_mount=...)` adds the override
# `runner.logger.log_path=/mnt/output/<job>` to the run script. The config file stays unchanged.

# %% [markdown] lang="zh"
# ## 3. checkpoint 必须写到持久化挂载路径下
#
# 添加挂载不会改变 RLinf 的输出位置。RLinf 把 checkpoint 写到
# `<runner.logger.log_path>/<experiment_name>/checkpoints/global_step_N/`。这个配置中是容器内的 `../results`，Pod 重建
# 后就会丢失（`JOB-CHECKPOINT-PERSIST`）。`JobSettings(output_mount=...)` 会在运行脚本中加入覆盖项
# `runner.logger.log_path=/mnt/output/<job>`，配置文件本身保持不变。

# %%
_, before = check(mounts=[OUTPUT])
show(before, "JOB-CHECKPOINT-PERSIST")
job, after = check(mounts=[OUTPUT], output_mount="/mnt/output")
print("\nrun script:", job.run_script.strip().splitlines()[-1])
print("where RLinf will write checkpoints:", job.annotations["rlark.io/checkpoint-dir"])

assert "JOB-CHECKPOINT-PERSIST" in rule_ids(before)
assert "JOB-CHECKPOINT-PERSIST" not in rule_ids(after)
assert "runner.logger.log_path=/mnt/output/maniskill-ppo-openvlaoft" in job.run_script

# %% [markdown] lang="en"
# With several Workers, every actor rank writes its own checkpoint shard on its own node. A node
# directory is then not enough: you need **shared** storage that every Worker and the Header can read.
# The 2-node rehearsal config already writes to `/mnt/output/logs`:

# %% [markdown] lang="zh"
# 有多个 Worker 时，每个 actor rank 在自己的节点上写自己的 checkpoint 分片。这时主机目录不够用：需要每个 Worker 和
# Header 都能读取的**共享**存储。2 节点演练配置已经写到 `/mnt/output/logs`：

# %%
rehearsal = inspect_config(load_config(CONFIGS["local_rehearsal_2node"]), gpus=2)
rehearsal_plan = plan_roles(rehearsal)
node_local = Mount("output", "hostPath", "/data/output", "/mnt/output")
for mount in (node_local, OUTPUT):
    two = build_job(rehearsal_plan, JobSettings(image=TAG, mounts=[mount]), site=example_site())
    print(f"[{mount.kind} at {mount.mount_path}, {two.total_workers} Workers]")
    show(given_job(two, rehearsal, site=example_site()).findings, "JOB-CHECKPOINT-PERSIST")

# %% [markdown] lang="en"
# ## 4. Stopping and starting again does not resume
#
# Starting a Job again creates new Pods and new Ray processes, and RLinf trains **from scratch**
# (`RES-NO-AUTO-RESUME`). Training resumes only when the RLinf command reads a persisted checkpoint:
# `runner.resume_dir=<…>/checkpoints/global_step_N`, which holds `actor/`, under a mount.
# `RES-RESUME-DIR` catches a path that does not end in `global_step_N`, or that no mount covers. Only
# the reasoning runner accepts `resume_dir=auto`. Pass the resume setting as a normal RLinf override.

# %% [markdown] lang="zh"
# ## 4. 停止后再次启动不会自动恢复
#
# 再次启动 Job 会创建新的 Pod 和新的 Ray 进程，RLinf **从头开始**训练（`RES-NO-AUTO-RESUME`）。只有 RLinf 命令明确读取
# 持久化的 checkpoint 时才会恢复：`runner.resume_dir=<…>/checkpoints/global_step_N`，该目录包含 `actor/`，并位于挂载
# 路径下。`RES-RESUME-DIR` 会发现不以 `global_step_N` 结尾、或不在任何挂载路径下的目录。只有推理类 runner 接受
# `resume_dir=auto`。恢复设置作为普通的 RLinf 覆盖项传入。

# %%
_, fresh = check(mounts=[OUTPUT], output_mount="/mnt/output")
show(fresh, "RES")
checkpoints = job.annotations["rlark.io/checkpoint-dir"]
results = {}
for resume_dir in (
    f"{checkpoints}/global_step_40",
    f"{checkpoints}/latest",
    "/tmp/ckpt/global_step_40",
):
    resumed = inspect_config(
        load_config(
            CONFIGS["maniskill_ppo_openvlaoft"], overrides=[f"runner.resume_dir={resume_dir}"]
        ),
        gpus=8,
    )
    resume_job = build_job(
        plan_roles(resumed, inventory),
        JobSettings(image=TAG, mounts=[OUTPUT], output_mount="/mnt/output"),
        site=example_site(),
    )
    results[resume_dir] = given_job(resume_job, resumed, inventory, site=example_site()).findings
    print(f"\n[runner.resume_dir={resume_dir}]")
    if rule_ids(results[resume_dir]) & {"RES-RESUME-DIR", "RES-NO-AUTO-RESUME"}:
        show(results[resume_dir], "RES")
    else:
        print("        no RES finding: this run resumes from global_step_40")

good, latest, outside = results.values()
assert "RES-NO-AUTO-RESUME" in rule_ids(fresh)
assert not rule_ids(good) & {"RES-RESUME-DIR", "RES-NO-AUTO-RESUME"}
assert "RES-RESUME-DIR" in rule_ids(latest) and "RES-RESUME-DIR" in rule_ids(outside)

# %% [markdown] lang="en"
# **`runner.resume_dir=…` or `+runner.resume_dir=…`?** Both are Hydra command-line overrides, and
# Hydra treats them differently:
#
# - `key=value` **overrides** a key the config already has. The bundled ManiSkill config lists
#   `runner.resume_dir: null`, so the plain form works there. On a config without the key, Hydra
#   refuses: "Could not override 'runner.resume_dir'".
# - `+key=value` **appends** a key the config does not have (notebook 06 uses it, because the
#   rehearsal config has no `resume_dir`). On a key that already holds a value, Hydra refuses:
#   "Could not append to config. An item is already at …".
# - `++key=value` sets the key either way.
#
# So look at your config: if `runner.resume_dir` is there (even as `null`), write it without `+`.
# The cell below makes each case happen with `load_config`, which composes exactly as RLinf does.

# %% [markdown] lang="zh"
# **写 `runner.resume_dir=…` 还是 `+runner.resume_dir=…`？** 两者都是 Hydra 命令行覆盖项，但 Hydra 的处理不同：
#
# - `key=value` **覆盖**配置中已有的键。自带的 ManiSkill 配置写有 `runner.resume_dir: null`，所以这里用不带 `+` 的
#   写法即可。配置中没有这个键时，Hydra 会拒绝：“Could not override 'runner.resume_dir'”。
# - `+key=value` **追加**配置中没有的键（notebook 06 用的就是它，因为演练配置中没有 `resume_dir`）。对已经有值的键，
#   Hydra 会拒绝：“Could not append to config. An item is already at …”。
# - `++key=value` 无论键是否存在都会设置。
#
# 所以先看你的配置：只要其中有 `runner.resume_dir`（即使是 `null`），就写不带 `+` 的形式。下面的单元格用
# `load_config`（与 RLinf 相同的组合方式）逐一演示这几种情况。

# %%
attempts = []
for name, override in (
    ("maniskill_ppo_openvlaoft", "runner.resume_dir=/mnt/output/ckpt/global_step_40"),
    ("local_rehearsal_2node", "runner.resume_dir=/mnt/output/ckpt/global_step_4"),
    ("local_rehearsal_2node", "+runner.resume_dir=/mnt/output/ckpt/global_step_4"),
    ("local_rehearsal_2node", "+runner.max_epochs=3"),
    ("local_rehearsal_2node", "++runner.max_epochs=3"),
):
    try:
        load_config(CONFIGS[name], overrides=[override])
        outcome = "applied"
    except ConfigLoadError as refused:
        outcome = str(refused.message).split(": ", 1)[-1]
    attempts.append({"config": name, "override": override, "Hydra": outcome})
attempts = pd.DataFrame(attempts)
assert list(attempts["Hydra"] == "applied") == [True, False, True, False, True]
assert "Could not override" in attempts["Hydra"][1]
assert "already at" in attempts["Hydra"][3]
attempts

# %% [markdown] lang="en"
# ## 5. Record the versions, because nobody checks them for you
#
# The console does not check whether the RLinf, Ray, CUDA and driver versions inside the image work
# together. Use the version combination your environment publishes. If it publishes none, pin the
# RLinf commit, the image and its dependencies, and test them in the target environment. Pass the
# facts you know as `RecordFacts`. The record rules then name what is still missing:
#
# - `REC-RLINF-COMMIT`: the RLinf commit;
# - `REC-IMAGE-DIGEST`: the image digest;
# - `REC-RUNTIME-VERSIONS`: the Ray, Python and CUDA versions.

# %% [markdown] lang="zh"
# ## 5. 记录版本，因为没有人替你检查
#
# 控制台不会检查镜像中的 RLinf、Ray、CUDA 和驱动版本是否兼容。目标环境提供兼容表时以它为准；没有时，固定 RLinf commit、
# 镜像和依赖版本，并在目标环境中验证。把已知的信息作为 `RecordFacts` 传入，记录规则会指出仍然缺少的内容：
#
# - `REC-RLINF-COMMIT`：RLinf commit；
# - `REC-IMAGE-DIGEST`：镜像 digest；
# - `REC-RUNTIME-VERSIONS`：Ray、Python 和 CUDA 版本。

# %%
job, _ = check(mounts=[OUTPUT], output_mount="/mnt/output")
unknown = given_job(job, report, inventory, facts=RecordFacts(), site=example_site()).findings
show(unknown, "REC")
known = RecordFacts(
    rlinf_commit="a3816b59",
    image_digest=DIGEST,
    ray_version="2.47.1",
    python_version="3.11",
    cuda_version="12.4",
)
assert {"REC-RLINF-COMMIT", "REC-IMAGE-DIGEST", "REC-RUNTIME-VERSIONS"} <= rule_ids(unknown)
assert not any(
    i.startswith("REC")
    for i in rule_ids(given_job(job, report, inventory, facts=known, site=example_site()).findings)
)

# %% [markdown] lang="en"
# ## 6. The run record, with secrets redacted
#
# RLark does not keep the final RLinf config. The **run record** does: the Job YAML, the original and
# resolved config, the overrides, the expansion, the plan, the findings, the versions and the
# locations. Facts nobody gave are listed as missing and never invented. Passwords, tokens and storage
# keys do not belong in a Job at all: `SEC-SECRET` is an error. If one slips in, every record file
# shows `«redacted»` in its place. Below, a token in an env var is flagged, and the record is written
# to a temporary directory.

# %% [markdown] lang="zh"
# ## 6. 运行记录，敏感信息已脱敏
#
# RLark 不会保存最终使用的 RLinf 配置，**运行记录**会保存：Job YAML、原始配置和解析后的配置、覆盖项、展开结果、规划、
# 检查结果、版本和各类路径。没有提供的信息列为缺失，从不编造。密码、令牌和对象存储密钥根本不应出现在 Job 中：
# `SEC-SECRET` 是错误。如果不小心写入，记录中的每个文件都会用 `«redacted»` 代替。下面，环境变量中的令牌被标出，
# 运行记录写入一个临时目录。

# %%
token = "wk_9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"
job, _ = check(mounts=[OUTPUT], output_mount="/mnt/output")
job.roles[0].env["WANDB_API_KEY"] = token
facts = RecordFacts(rlinf_commit="a3816b59")
findings = given_job(job, report, inventory, facts=facts, site=example_site()).findings
show(findings, "SEC")

record = build_record(plan, job, findings, facts, site=example_site())
with tempfile.TemporaryDirectory() as tmp:
    where = record.write(Path(tmp) / "run-record")
    files = sorted(str(p.relative_to(where)) for p in where.rglob("*") if p.is_file())
print("\nrecord files:", files)
print("missing facts:", record.missing)
env_lines = [line.strip() for line in record.files["job.yaml"].splitlines() if "redacted" in line]
print("\nthe token in job.yaml:", env_lines)

assert "SEC-SECRET" in rule_ids(findings)
assert all(token not in text for text in record.files.values())
assert "versions.image_digest" in record.missing
assert {"job.yaml", "config/resolved.yaml", "findings.json"} <= set(files)

# %%
readme = record.files["README.md"]  # the record's summary page: versions and missing facts
print(readme[readme.index("## Versions") : readme.index("## Locations")].strip())
print()
print(readme[readme.index("## Missing facts") :].strip())

# %% [markdown] lang="en"
# ## 7. "运行中" (Running) does not mean training
#
# The Job's phase comes from Kubernetes: its Pods are running. Training has started only when the
# later links hold too:
#
# 1. all Ray members have joined with node ranks 0..N-1;
# 2. RLinf has saved its final config;
# 3. steps are advancing;
# 4. checkpoints land in persistent storage and can be read back.
#
# The snapshots below are built by hand, as a backend would fill them. All four are "Running", and
# only the last one is training.

# %% [markdown] lang="zh"
# ## 7. “运行中”不等于正在训练
#
# Job 的阶段来自 Kubernetes：它的 Pod 在运行。只有后面几环也成立时，训练才算真正开始：
#
# 1. 所有 Ray 成员都已加入，节点 rank 为 0..N-1；
# 2. RLinf 已保存最终配置；
# 3. 训练步数在前进；
# 4. checkpoint 写入持久存储，并且能够重新读取。
#
# 下面的快照是手工构造的，内容与后端填写的一样。四个都是“运行中”，只有最后一个在训练。

# %%
NOW = 100_000.0  # a fixed clock keeps the output deterministic


def running(progress, checkpoints=()):
    workers = [
        WorkerSnapshot("header", 0, 0, "maniskill-header-0", phase="Running", node="a800-00")
    ]
    members = [RayMember("n0", "10.0.0.1", "ALIVE", is_head=True, node_rank=0)]
    return JobSnapshot(
        "maniskill-ppo-openvlaoft",
        "kubernetes",
        NOW,
        phase=JobPhase.RUNNING,
        expected_workers=1,
        tasks=[{"name": "header"}],
        workers=workers,
        members=members,
        progress=progress,
        checkpoints=list(checkpoints),
    )


ckpt = Checkpoint(40, f"{checkpoints}/global_step_40", time=NOW - 600)
stages = {
    "Pods up, RLinf still starting": running(Progress(config_saved=False)),
    "config saved, no step yet": running(Progress(config_saved=True)),
    "step 45, nothing persisted": running(Progress(True, 45, NOW - 30, save_interval=40)),
    "step 45, global_step_40 persisted": running(
        Progress(True, 45, NOW - 30, save_interval=40), [ckpt]
    ),
}
for name, snap in stages.items():
    result = diagnose(snap)
    print(
        f"phase={snap.phase:8} {name:36} -> training={result.training!s:5} [{result.link}] {result.title}"
    )
print()
print("\n".join(summary_lines(stages["step 45, nothing persisted"], {"header": 1})))

assert [diagnose(s).training for s in stages.values()] == [False, False, False, True]


# %% [markdown] lang="en"
# ## 8. Pending, or no Worker: check in this order
#
# When a Job stays Pending or shows no Worker, **do not stop and start it over and over**. Check the
# links in order, and fix the first one that is broken:
#
# 1. the Job exists;
# 2. its Tasks were generated;
# 3. the node selection matches nodes;
# 4. resources, image and storage are ready;
# 5. the Workers run;
# 6. the Ray head is up;
# 7. all Ray members have joined.
#
# Each snapshot below breaks one link. The last one breaks two: the diagnosis names the earlier link
# first, because fixing it may fix the other one too.

# %% [markdown] lang="zh"
# ## 8. Pending 或没有 Worker：按这个顺序检查
#
# Job 一直 Pending 或没有 Worker 时，**不要反复停止和启动任务**。按顺序检查各个环节，修复第一个断开的环节：
#
# 1. Job 已创建；
# 2. Task 已生成；
# 3. 节点选择匹配到节点；
# 4. 调度资源、镜像和存储已就绪；
# 5. Worker 在运行；
# 6. Ray Head 已启动；
# 7. 所有 Ray 成员都已加入。
#
# 下面每个快照断开一个环节。最后一个断开两个：诊断先指出较早的环节，因为修好它也可能解决另一个问题。


# %%
def pending(events=(), reason=None, message=None, phase="Pending", tasks=True):
    worker = WorkerSnapshot(
        "header",
        0,
        0,
        "maniskill-header-0",
        phase=phase,
        reason=reason,
        message=message,
        events=list(events),
    )
    return JobSnapshot(
        "maniskill-ppo-openvlaoft",
        "kubernetes",
        NOW,
        phase=JobPhase.PENDING,
        expected_workers=1,
        tasks=[{"name": "header"}] if tasks else [],
        workers=[worker] if tasks else [],
    )


NO_MATCH = EventRecord(
    "FailedScheduling",
    "0/32 nodes are available: 32 node(s) didn't match Pod's node affinity/selector.",
    "Warning",
)
NO_GPU = EventRecord(
    "FailedScheduling", "0/32 nodes are available: 32 Insufficient nvidia.com/gpu.", "Warning"
)
NO_VOLUME = EventRecord(
    "FailedMount", 'MountVolume.SetUp failed for volume "output": PVC not bound', "Warning"
)
cases = {
    "Job never submitted": JobSnapshot("maniskill-ppo-openvlaoft", "kubernetes", NOW, exists=False),
    "no Task yet": pending(tasks=False),
    "labels match no node": pending([NO_MATCH]),
    "not enough GPUs": pending([NO_GPU]),
    "image cannot be pulled": pending(reason="ImagePullBackOff", message="Back-off pulling image"),
    "storage not bound": pending([NO_VOLUME]),
    "Worker crashed": pending(phase="Failed", reason="CrashLoopBackOff"),
    "labels AND image wrong": pending([NO_MATCH], reason="ImagePullBackOff"),
}
table = pd.DataFrame(
    [
        {
            "case": name,
            "first broken link": (d := diagnose(snap)).link,
            "says": d.title,
            "fix": d.fix,
        }
        for name, snap in cases.items()
    ]
)
order = [LINKS.index(link) for link in table["first broken link"][:-1]]
assert order == sorted(order)  # the cases follow the checking order
assert table["first broken link"].iloc[-1] == "node-selection"  # the earlier link wins
table

# %% [markdown] lang="en"
# ## What to remember
#
# - Use a version tag, never `latest`. Record the digest behind it whenever you need to reproduce a run.
# - Node directory = a path on whichever node the Worker lands on. Object storage = a StorageClass.
#   RLinf uses only container paths.
# - Point `runner.logger.log_path` (or `runner.output_dir`) under a persistent mount. Use shared
#   storage when several Workers write.
# - Restarting does not resume. `runner.resume_dir=…/checkpoints/global_step_N` under a mount does;
#   write it without `+` when the config has the key, with `+` when it does not.
# - Keep a run record: Job YAML, configs, overrides, versions, digest and locations. Missing facts are
#   listed, never invented, and secrets are redacted (and are errors in the Job).
# - "运行中" is Kubernetes' view. Training means all Ray members have joined, the config is saved,
#   steps advance and checkpoints persist.
# - Pending? Check Job → Task → node selection → resources/image/storage → Workers → Ray. Do not
#   restart in a loop.
# %% [markdown] lang="zh"
# ## 要点（Key points）
#
# - 使用版本 tag，不要用 `latest`。需要复现时记录 tag 对应的 digest。
# - 主机目录 = Worker 所在节点上的路径。对象存储 = StorageClass。RLinf 只使用容器路径。
# - 把 `runner.logger.log_path`（或 `runner.output_dir`）指向持久化挂载路径。多个 Worker 写入时使用共享存储。
# - 重启不会自动恢复。`runner.resume_dir=…/checkpoints/global_step_N`（位于挂载路径下）才会恢复；配置中已有这个键时
#   写 `runner.resume_dir=`，没有时写 `+runner.resume_dir=`。
# - 保存运行记录：Job YAML、配置、覆盖项、版本、digest 和路径。缺失的信息列出而不编造，敏感信息脱敏（在 Job 中是错误）。
# - “运行中”是 Kubernetes 的视角。训练正常意味着所有 Ray 成员已加入、配置已保存、步数在前进、checkpoint 已持久化。
# - Pending？按 Job → Task → 节点选择 → 资源/镜像/存储 → Worker → Ray 的顺序检查，不要反复重启。
