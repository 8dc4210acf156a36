"""The rule catalogue: one case where each rule fires and one near-identical case where it stays silent.

Every case starts from one realistic baseline: a 3-node embodied RLinf config (actor on
GPUs 0-11 of two 8-GPU nodes, env on a Franka robot PC in node group ``franka``), planned
against a small ``lab`` inventory and built into a Job with the planner's own helpers. A
builder applies one or two small edits (to the config, the Job, or the context) and returns
the :class:`RuleContext`. Only the rule under test runs, so cases do not depend on each other.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace

import pytest
import yaml

from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.facts import RecordFacts
from rlark_widgets.rlark.inventory import inventory_from_dict
from rlark_widgets.rlark.job import Job, Mount
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.rules import RULES, RuleContext, evaluate
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import ConfigReport, inspect_config, load_text

# --- baseline --------------------------------------------------------------------------------
BASE_CONFIG = """
cluster:
  num_nodes: 3
  component_placement:
    actor: 0-11
    env:
      node_group: franka
      placement: 0
  node_groups:
    - label: franka
      node_ranks: 2
      env_configs:
        - node_ranks: 2
          env_vars:
            - OMP_NUM_THREADS: 4
      hardware:
        type: Franka
        configs:
          - node_rank: 2
            robot_ip: 10.0.0.2
runner:
  task_type: embodied
  logger: {log_path: /mnt/output/logs, experiment_name: lab}
"""
CONFIG_SOURCE = "examples/embodiment/config/lab.yaml"
GPUS = "0:8,1:8,2:0"  # node 0 runs actor GPUs 0-7, node 1 GPUs 8-11 (local 0-3), node 2 the env
ACTOR = "cluster.component_placement.actor"
CONTROLLER = "cluster.node_groups.0.hardware.configs.0.controller_node_rank"

IMAGE = "registry.example.com/rlinf:v0.3.0"
PINNED_IMAGE = "registry.example.com/rlinf@sha256:" + "0" * 64
OUTPUT = Mount("output", "storage", "oss-rlinf", "/mnt/output")
DATASET = Mount("dataset", "hostPath", "/data/rlinf", "/mnt/data", read_only=True)
CHECKPOINTS = "/mnt/output/logs/lab/checkpoints"
FACTS = RecordFacts(
    rlinf_commit="a3816b596478dcd8a5c69a6ec1468c9519f77b5b",
    image_digest="sha256:" + "0" * 64,
    cuda_version="12.4",
    ray_version="2.47.1",
    python_version="3.11.9",
)

CLUSTER = "rlark.io/cluster"
CATEGORY = "rlark.io/node-category"
HOSTNAME = "kubernetes.io/hostname"
LAB_CLOUD = {CLUSTER: "lab", CATEGORY: "cloud"}  # matches gpu-0 and gpu-1
GPU1 = {**LAB_CLOUD, HOSTNAME: "gpu-1"}  # the planner's selector for role 1 ('workers')


def _node(name: str, category: str, gpus: int, **extra: int) -> dict:
    return {
        "name": name,
        "labels": {HOSTNAME: name, CATEGORY: category},
        "allocatable": {"nvidia.com/gpu": gpus, **extra},
    }


INVENTORY = inventory_from_dict(
    {
        "cluster": "lab",
        "nodes": [
            _node("gpu-0", "cloud", 8),
            _node("gpu-1", "cloud", 8),
            _node("franka-0", "robot", 1, **{"rlinf.io/device-franka": 1}),
            {**_node("prod-gpu-0", "cloud", 8), "cluster": "prod"},
        ],
        "storageClasses": ["oss-rlinf"],
    },
    site=example_site(),
)


def _set(data: dict, dotted: str, value) -> None:
    """Set ``a.b.0.c`` in nested dicts/lists (numeric parts index lists)."""
    *parents, last = dotted.split(".")
    for key in parents:
        data = data[int(key)] if isinstance(data, list) else data[key]
    data[int(last) if isinstance(data, list) else last] = value


@functools.cache
def _report(changes: tuple[tuple[str, object], ...] = ()) -> ConfigReport:
    config = yaml.safe_load(BASE_CONFIG)
    for dotted, value in changes:
        _set(config, dotted, value)
    report = inspect_config(
        load_text(yaml.safe_dump(config), source=CONFIG_SOURCE), GPUS, search_gpus=False
    )
    assert report.ok, report.findings
    return report


def baseline_job(report: ConfigReport) -> Job:
    """The Job the planner proposes: roles header (rank 0), workers (rank 1), franka (rank 2)."""
    plan = plan_roles(report, INVENTORY)
    settings = JobSettings(
        image=IMAGE, mounts=[OUTPUT], prepare_script="source /opt/venv/bin/activate"
    )
    return build_job(plan, settings, site=example_site())


# --- edits and scenarios ---------------------------------------------------------------------
Edit = Callable[[Job], None]
Builder = Callable[[], RuleContext]


def role(index: int, **changes) -> Edit:
    def edit(target: Job) -> None:
        target.roles[index] = replace(target.roles[index], **changes)

    return edit


def every_role(**changes) -> Edit:
    def edit(target: Job) -> None:
        target.roles = [replace(r, **changes) for r in target.roles]

    return edit


def job(**changes) -> Edit:
    def edit(target: Job) -> None:
        for name, value in changes.items():
            setattr(target, name, value)

    return edit


def move_role(index: int, to: int) -> Edit:
    def edit(target: Job) -> None:
        target.roles.insert(to, target.roles.pop(index))

    return edit


def run_script_without(text: str) -> Edit:
    def edit(target: Job) -> None:
        assert text in target.run_script
        target.run_script = target.run_script.replace(text, "")

    return edit


def launch_with(*overrides: str) -> Edit:
    """Append Hydra overrides to the launch command (the run script's last line)."""

    def edit(target: Job) -> None:
        target.run_script = target.run_script.rstrip("\n") + " " + " ".join(overrides) + "\n"

    return edit


def scenario(*edits: Edit, config: dict | None = None, **context) -> Builder:
    """A builder: baseline (optionally with config keys changed), then ``edits`` on the Job."""

    def build() -> RuleContext:
        report = _report(tuple(sorted((config or {}).items())))
        target = baseline_job(report)
        for edit in edits:
            edit(target)
        defaults = {"inventory": INVENTORY, "target_cluster": "lab", "facts": FACTS}
        return RuleContext(target, report, **{**defaults, **context}, site=example_site())

    return build


def task(index: int, field: str = "") -> str:
    return f"spec.tasks[{index}]" + (f".{field}" if field else "")


LIMITS = "template.spec.containers[0].resources.limits"
ENV = "template.spec.containers[0].env"
IMAGE_FIELD = "template.spec.containers[0].image"
SELECTOR = "template.spec.nodeSelector"
MOUNT0 = "template.spec.containers[0].volumeMounts[0]"

# --- the table -------------------------------------------------------------------------------
# rule id: (fires, stays silent, expected path, distinctive part of the message)
CASES: dict[str, tuple[Builder, Builder, str, str]] = {
    # PLN: the plan against RLinf's Ray nodes
    "PLN-WORKER-COUNT": (
        scenario(role(1, replicas=2)),
        scenario(),
        "spec.tasks",
        "create 4 Workers but cluster.num_nodes is 3",
    ),
    "PLN-HEADER": (
        scenario(role(0, replicas=2)),
        scenario(role(1, replicas=2)),
        task(0, "replicas"),
        "The Header role has 2 Workers",
    ),
    "PLN-HEADER-RANK0": (
        scenario(move_role(0, to=2)),
        scenario(move_role(2, to=1)),
        task(2),
        "The Header role is not first",
    ),
    "PLN-GPU-COVER": (
        scenario(role(1, gpus=3)),
        scenario(),
        task(1, LIMITS),
        "RLINF_NODE_RANK 1 (role 'workers') needs 4 GPU(s) (processes use local GPUs [0, 1, 2, 3])",
    ),
    "PLN-IDLE-GPU": (
        scenario(role(1, gpus=6)),
        scenario(),
        task(1, LIMITS),
        "RLINF_NODE_RANK 1 requests GPU(s) [4, 5] that no RLinf process uses",
    ),
    "PLN-DEVICE-COVER": (
        scenario(role(2, devices={})),
        scenario(),
        task(2, LIMITS),
        "carries 1 x Franka but requests no rlinf.io/device-* resource for it",
    ),
    "PLN-ENV-COVER": (
        scenario(role(2, env={})),
        scenario(),
        task(2, ENV),
        "env_configs variables OMP_NUM_THREADS that role 'franka' does not set",
    ),
    "PLN-CONTROLLER": (
        # Node 1 runs nothing once the actor fits on node 0; the Franka's controller keeps it.
        scenario(config={ACTOR: "0-7", CONTROLLER: 1}),
        scenario(config={CONTROLLER: 1}),
        "spec.tasks",
        "RLINF_NODE_RANK 1 runs no RLinf component but hosts a robot controller",
    ),
    "PLN-SHARED-NODES": (
        scenario(role(2, replicas=2, node_selector=GPU1)),
        scenario(role(2, replicas=2)),
        task(2, SELECTOR),
        "Roles 'workers' and 'franka' select the same nodes",
    ),
    "PLN-ROLE-NAME": (
        scenario(role(2, name="Environment")),  # the console's name for the 'env' component
        scenario(role(2, name="Robots")),
        task(2, "name"),
        "Role 'Environment' shares a name with an RLinf component",
    ),
    # JOB: the form's fields
    "JOB-NAME": (
        scenario(job(name="Lab_Run")),
        scenario(job(name="lab-run")),
        "metadata.name",
        "'Lab_Run' is not a valid Job name",
    ),
    "JOB-ROLE-NAME": (
        scenario(role(1, name="Header")),
        scenario(role(1, name="header-2")),
        task(1, "name"),
        "Role name 'Header' repeats another role's name",
    ),
    "JOB-DEVICE-NAME": (
        scenario(role(2, devices={"rlinf.io/device franka": 1})),
        scenario(role(2, devices={"rlinf.io/Device_Franka.v2": 1})),
        task(2, LIMITS),
        '"rlinf.io/device franka" is not a Kubernetes extended resource name',
    ),
    "JOB-SELECTOR-EMPTY": (
        scenario(role(1, node_selector={})),
        scenario(),
        task(1, SELECTOR),
        "Role 'workers' has no node selection",
    ),
    "JOB-SELECTOR-CLUSTER": (
        scenario(role(1, node_selector={CATEGORY: "cloud"})),
        scenario(role(1, node_selector=LAB_CLOUD)),
        task(1, SELECTOR),
        "Role 'workers' also matches nodes outside cluster 'lab': prod",
    ),
    "JOB-SELECTOR-COUNT": (
        scenario(role(1, node_selector=LAB_CLOUD)),
        scenario(role(1, node_selector=LAB_CLOUD, replicas=2)),
        task(1, SELECTOR),
        "matches 2 node(s) but plans 1 Worker(s)",
    ),
    "JOB-SELECTOR-MULTI": (
        scenario(role(1, node_selector={**GPU1, HOSTNAME: "gpu-1,gpu-2"})),
        scenario(),
        task(1, f"{SELECTOR}.{HOSTNAME}"),
        "'kubernetes.io/hostname=gpu-1,gpu-2' looks like several values for one key",
    ),
    "JOB-GPU-CAPACITY": (
        scenario(role(0, gpus=16)),
        scenario(),
        task(0, LIMITS),
        "requests 16 GPU(s) per Worker but node(s) gpu-0 have fewer",
    ),
    "VALUE-NUL": (
        scenario(role(1, image="registry.example.com/rlinf:v0.3.0\x00")),
        scenario(role(1, image="registry.example.com/rlinf:v0.3.0")),
        task(1, IMAGE_FIELD),
        "holds a NUL byte",
    ),
    "JOB-IMAGE": (
        # A registry port is not a tag: this image defaults to :latest.
        scenario(role(1, image="registry.example.com:5000/rlinf")),
        scenario(role(1, image="registry.example.com:5000/rlinf:v0.3.0")),
        task(1, IMAGE_FIELD),
        "is (or defaults to) the latest tag",
    ),
    "JOB-IMAGE-REFERENCE": (
        scenario(role(1, image="registry.example.com/RLinf:v0.3.0")),
        scenario(role(1, image="registry.example.com/rlinf:v0.3.0")),
        task(1, IMAGE_FIELD),
        "the repository name must be lowercase",
    ),
    "JOB-IMAGE-DIGEST": (
        scenario(),
        scenario(every_role(image=PINNED_IMAGE)),
        task(0, IMAGE_FIELD),
        f"'{IMAGE}' is a tag: it may point at other content later",
    ),
    "JOB-IMAGE-MIXED": (
        scenario(role(1, image="registry.example.com/rlinf:v0.4.0")),
        scenario(),
        "spec.tasks",
        "Roles use 2 different images",
    ),
    "JOB-ENTRYPOINT": (
        scenario(role(1, prepare_script="  \n")),
        scenario(),
        task(1, "prepareScript"),
        "Role 'workers' has no prepare script",
    ),
    "JOB-RUN-SCRIPT": (
        scenario(job(run_script=" \n")),
        scenario(),
        "spec.runScript",
        "The run script is empty",
    ),
    "JOB-RUN-SCRIPT-CD": (
        scenario(run_script_without("cd /workspace/RLinf\n")),
        scenario(),
        "spec.runScript",
        "The run script never runs `cd`",
    ),
    "JOB-RUN-SCRIPT-RAY": (
        scenario(job(run_script="cd /workspace/RLinf\npython train.py\n")),
        scenario(job(run_script="cd /workspace/RLinf\nray status\npython train.py\n")),
        "spec.runScript",
        "does not check that every Ray node joined",
    ),
    "JOB-RUN-SCRIPT-ENTRY": (
        scenario(
            job(
                run_script='cd /workspace/RLinf\nENTRY=REPLACE_WITH_RLINF_ENTRY_SCRIPT.py\nray status\npython "$ENTRY"\n'
            )
        ),
        scenario(
            job(
                run_script='cd /workspace/RLinf\nENTRY=examples/sft/train_vlm_sft.py\nray status\npython "$ENTRY"\n'
            )
        ),
        "spec.runScript",
        "still has the ENTRY placeholder",
    ),
    "JOB-MOUNT-PATH": (
        scenario(role(1, mounts=[replace(OUTPUT, mount_path="mnt/output")])),
        scenario(),
        task(1, f"{MOUNT0}.mountPath"),
        "Mount path 'mnt/output' is not absolute",
    ),
    "JOB-MOUNT-SHADOW": (
        scenario(role(1, mounts=[replace(OUTPUT, mount_path="/workspace")])),
        scenario(role(1, mounts=[replace(OUTPUT, mount_path="/workspace-data")])),
        task(1, f"{MOUNT0}.mountPath"),
        "Mount at /workspace hides /workspace/RLinf from the image",
    ),
    "JOB-HOSTPATH": (
        scenario(role(1, mounts=[OUTPUT, DATASET])),
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, kind="storage", source="oss-rlinf")])),
        task(1, "template.spec.volumes[1].hostPath.path"),
        "/data/rlinf must exist, with the same content and permissions, on every node role 'workers'",
    ),
    "JOB-HOSTPATH-SYSTEM": (
        # '/data/../usr' is /usr however it is written; read-only it is only the generic warning
        scenario(
            role(1, mounts=[OUTPUT, replace(DATASET, source="/data/../usr", read_only=False)])
        ),
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, source="/etc/rlinf", read_only=True)])),
        task(1, "template.spec.volumes[1].hostPath.path"),
        "Role 'workers' mounts the node's /usr read-write",
    ),
    "JOB-MOUNT-SYSTEM": (
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, mount_path="/usr/local/share/")])),
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, mount_path="/mnt/usr")])),
        task(1, "template.spec.containers[0].volumeMounts[1].mountPath"),
        "Mount at /usr/local/share/ replaces the image's /usr",
    ),
    "JOB-CHECKPOINT-READONLY": (
        scenario(role(1, mounts=[replace(OUTPUT, read_only=True)])),
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, mount_path="/mnt/output/data")])),
        task(1, "template.spec.containers[0].volumeMounts[0].readOnly"),
        "on the read-only mount /mnt/output of role 'workers'",
    ),
    "JOB-STORAGE-SOURCE": (
        scenario(role(1, mounts=[replace(OUTPUT, source="s3://rlinf-ckpt")])),
        scenario(),
        task(1, MOUNT0),
        "'s3://rlinf-ckpt' looks like a bucket, object key or local path",
    ),
    "JOB-CHECKPOINT-PERSIST": (
        scenario(config={"runner.logger.log_path": "/mnt/outputs/logs"}),  # not /mnt/output
        scenario(),
        "spec.runScript",
        "runner.logger.log_path is '/mnt/outputs/logs', outside the mounts of role(s) header, workers, franka",
    ),
    "JOB-ENV-RESERVED": (
        scenario(role(1, env={"RAY_ADDRESS": "ray-head:6379"})),
        scenario(role(1, env={"RAY_DEDUP_LOGS": "0"})),
        task(1, ENV),
        "RAY_ADDRESS is set by RLark on every Worker (the address of the Ray head the Worker joins)",
    ),
    "JOB-ENV-ROBOT": (
        scenario(role(1, env={"ROBOT_IP": "10.0.0.2"})),
        scenario(role(1, env={"OMP_NUM_THREADS": "8"})),
        task(1, ENV),
        "ROBOT_IP on role 'workers' makes RLinf's RobotAutoConfig fill or even create robots",
    ),
    "JOB-NO-CPU-MEMORY": (
        scenario(),
        scenario(job(roles=[])),
        "spec.tasks",
        "The Job cannot request CPU, memory or /dev/shm",
    ),
    "JOB-TENSORBOARD": (
        scenario(job(tensorboard_log_dir="/mnt/outputs/tb")),
        scenario(job(tensorboard_log_dir="/mnt/output/tb")),
        "spec.tensorboard.logDir",
        "/mnt/outputs/tb is not under a mount of the Header role",
    ),
    # RES: resuming
    "RES-NO-AUTO-RESUME": (
        scenario(),
        # Exactly what the rule's fix says to do.
        scenario(launch_with(f"runner.resume_dir={CHECKPOINTS}/global_step_100")),
        "spec.runScript",
        "trains from scratch: nothing resumes",
    ),
    "RES-NO-CHECKPOINTS": (
        scenario(config={"runner.save_interval": -1}),
        # Exactly what the rule's fix says to do: the run script's override wins.
        scenario(launch_with("runner.save_interval=100"), config={"runner.save_interval": -1}),
        "spec.runScript",
        "runner.save_interval is -1: RLinf never saves a checkpoint",
    ),
    "RES-RESUME-DIR": (
        scenario(launch_with(f"runner.resume_dir={CHECKPOINTS}/step_100")),
        scenario(launch_with(f"runner.resume_dir={CHECKPOINTS}/global_step_100")),
        "spec.runScript",
        f"runner.resume_dir '{CHECKPOINTS}/step_100' does not end in global_step_<N>",
    ),
    # REC: what the run record must hold
    "REC-RLINF-COMMIT": (
        scenario(facts=replace(FACTS, rlinf_commit=None)),
        scenario(),
        "record.versions.rlinf_commit",
        "The RLinf commit of this run is not recorded",
    ),
    "REC-IMAGE-DIGEST": (
        scenario(facts=replace(FACTS, image_digest=None)),
        scenario(),
        "record.versions.image_digest",
        f"The digest behind {IMAGE} is not recorded",
    ),
    "REC-RUNTIME-VERSIONS": (
        scenario(facts=replace(FACTS, cuda_version=None)),
        scenario(),
        "record.versions",
        "CUDA version(s) of the image are not recorded",
    ),
}

RULES_BY_ID = {r.id: r for r in RULES}


def test_every_rule_has_cases():
    assert set(CASES) == set(RULES_BY_ID)


@pytest.mark.parametrize("rule_id", list(CASES))
def test_rule_fires(rule_id: str):
    fires, _, path, fragment = CASES[rule_id]
    rule = RULES_BY_ID[rule_id]
    findings = evaluate(fires(), rules=[rule])
    assert [(f.rule_id, f.path) for f in findings] == [(rule_id, path)], findings
    assert fragment in findings[0].message, findings[0].message
    assert findings[0].severity is rule.severity


@pytest.mark.parametrize("rule_id", list(CASES))
def test_rule_stays_silent(rule_id: str):
    _, silent, _, _ = CASES[rule_id]
    assert evaluate(silent(), rules=[RULES_BY_ID[rule_id]]) == []


def test_the_header_fix_matches_its_cause_the_workers_field() -> None:
    """Issue #24 item 15: a Header role given 2 Workers is told to set Workers to 1, not to
    narrow a node selection it may not have."""
    (finding,) = evaluate(scenario(role(0, replicas=2))(), rules=[RULES_BY_ID["PLN-HEADER"]])
    assert finding.fix == (
        "Set the Header role's Workers to 1 and move the other 1 Worker(s) to a role of their"
        " own (it keeps the same RLINF_NODE_RANK order)."
    )
    assert "node selection" not in finding.fix
    assert finding.fix_in("zh").startswith("把 Header 角色的 Worker 数设为 1")


def test_the_persist_fix_names_the_output_dir_option_not_the_run_script() -> None:
    """Issue #24 item 15: the CLI and the app set the output path with --output-dir (the
    app's Output mount), so the fix points there instead of at editing the run script."""
    fires, _, _, _ = CASES["JOB-CHECKPOINT-PERSIST"]
    (finding,) = evaluate(fires(), rules=[RULES_BY_ID["JOB-CHECKPOINT-PERSIST"]])
    assert "--output-dir /mnt/output" in finding.fix and "Output mount" in finding.fix
    assert "pass runner" not in finding.fix
    assert "--output-dir /mnt/output" in finding.fix_in("zh") and "输出挂载路径" in finding.fix_in(
        "zh"
    )
