"""Every message of rlark/ (planner, schema, secrets, inventory, Job YAML, run record) in Chinese.

Inputs: the bundled example configs, planned without an inventory, with each example inventory
and with an unknown target cluster; small configs for the cases the examples do not reach (GPU
request fallbacks, robot controllers, idle GPUs, rejected configs); the error cases of the
inventory, Job YAML, record and secret tests. Every message must render in Chinese with all
placeholders filled and keep its English; together they must use every entry of the rlark
catalogue, so no translation is untested.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from test_secrets import _KEY_BODY, ENV, HF, OPENSSH_KEY, POSITIVES, _manifest

import rlark_widgets.i18n as i18n
from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.i18n import Text
from rlark_widgets.rlark import planner as planner_module
from rlark_widgets.rlark.build import JobSettings, build_job
from rlark_widgets.rlark.facts import RecordFacts
from rlark_widgets.rlark.inventory import (
    InventoryError,
    inventory_findings,
    inventory_from_dict,
    load_inventory,
)
from rlark_widgets.rlark.planner import (
    TEMPLATE_TITLES,
    TEMPLATES,
    Plan,
    job_role_reasons,
    plan_roles,
)
from rlark_widgets.rlark.record import RecordError, build_record
from rlark_widgets.rlark.schema import schema_findings
from rlark_widgets.rlark.schema_words import schema_detail
from rlark_widgets.rlark.secrets import secret_findings, ssh_key_findings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.text_fields import (
    FieldTextError,
    parse_counts,
    parse_mounts,
    parse_pairs,
    role_field,
)
from rlark_widgets.rlark.yaml_io import JobYamlError, load_manifest, parse_job_yaml
from rlark_widgets.rlinf import RLinfConfigError, inspect_config, load_config, load_text

CATALOGUE = Path(i18n.__file__).parent / "zh" / "rlark.yaml"
CJK = re.compile(r"[\u4e00-\u9fff]")
LEFTOVER = re.compile(r"\{[A-Za-z_]\w*\}")
IMAGE = "registry.example.com/rlinf:v0.3.0"

ROBOTS = """
cluster:
  num_nodes: 3
  component_placement:
    actor: {node_group: franka, placement: 0}
    rollout: {node_group: franka, placement: 0}
    env: {node_group: franka, placement: 0}
  node_groups:
    - label: franka
      node_ranks: 0-2
      env_configs:
        - node_ranks: 0-2
          python_interpreter_path: /opt/venv/bin/python
          env_vars:
            - MUJOCO_GL: egl
      hardware:
        type: DualFranka
        configs:
          - left_robot_ip: 10.0.0.1
            right_robot_ip: 10.0.0.2
            left_controller_node_rank: 1
            right_controller_node_rank: 2
            node_rank: 0
runner: {task_type: embodied}
"""
# Fewer GPUs on node 0 would renumber node 1's GPUs: the assumed count is requested instead.
GPU_FALLBACK_USED = "cluster: {num_nodes: 2, component_placement: {actor: 0-3, rollout: 8-15}}"
GPU_FALLBACK_ALL = "cluster: {num_nodes: 3, component_placement: {actor: 0-3, rollout: 16-23}}"
REJECTED = "cluster: {num_nodes: 1, component_placement: {actor: abc}}"
# Nodes 1 and 2 leave GPU 1 idle between their processes; node 1 of IDLE_NODE runs nothing.
GAPS = "cluster: {num_nodes: 3, component_placement: {rollout: 0, actor: '8,10,16,18'}}"
IDLE_NODE = "cluster: {num_nodes: 2, component_placement: {actor: 0-7}}"
# Nodes with a device the robot does not use and no cluster label.
UNLABELLED = {"nodes": [{"name": "pc-0", "allocatable": {"rlinf.io/device-ur5": 1}}]}
BAD_INVENTORIES = [
    {"nodes": "x"},
    {"nodes": [{"labels": {}}]},
    {"nodes": [{"name": "a"}, {"name": "a"}]},
    {"nodes": [{"name": "a", "allocatable": {"nvidia.com/gpu": "eight"}}]},
    {"nodes": [{"name": "a", "taints": "x"}]},
    {"nodes": [{"name": "a", "labels": "x"}]},
    {"nodes": [], "storageClasses": "oss"},
]
# not a mapping, a syntax error with its position, one without (PyYAML's reader), not a Job
#: A category the example site profile does not name: kept as reported, with an info.
UNKNOWN_CATEGORY = {"nodes": [{"name": "a", "labels": {"rlark.io/node-category": "gpu"}}]}
BAD_JOB_YAML = [
    "- a list",
    "a: [\n",
    "a: \x01",
    "{}",
    "spec: {storage: [{name: out, storageClassName: a}, {name: out, storageClassName: b}]}",
]


def _report(text: str):
    return inspect_config(
        load_text(text + "\nrunner: {task_type: embodied}\n"), 8, search_gpus=False
    )


def _plans() -> Iterator[Plan]:
    """Every bundled example with no inventory, each example inventory and an unknown cluster."""
    inventories = [load_inventory(p, site=example_site()) for p in example_inventories().values()]
    for path in example_configs().values():
        report = inspect_config(load_config(path), 8, search_gpus=False)
        yield plan_roles(report)
        yield from (plan_roles(report, template=template) for template in TEMPLATES)
        for inventory in inventories:
            yield plan_roles(report, inventory)
            yield plan_roles(report, inventory, target_cluster="nowhere")
    robots = inspect_config(load_text(ROBOTS), 4, search_gpus=False)
    yield plan_roles(robots)
    yield plan_roles(
        robots, inventory_from_dict(UNLABELLED, site=example_site()), target_cluster="nowhere"
    )
    yield plan_roles(_report(GPU_FALLBACK_USED))
    yield plan_roles(_report(GPU_FALLBACK_ALL))
    yield plan_roles(_report(GAPS))
    yield plan_roles(_report(IDLE_NODE))
    rejected = _report(REJECTED)
    yield plan_roles(rejected)
    rejected.expansion.error = RLinfConfigError(rejected.expansion.error.text, "cluster")
    yield plan_roles(rejected)  # an RLinf error without a fix of its own


def _plan_messages() -> Iterator[Text | str]:
    yield from TEMPLATE_TITLES.values()  # labels of the console's task types
    for plan in _plans():
        yield from plan.explanations
        for role in plan.roles:
            yield from role.why
        for finding in plan.findings:
            yield from (finding.text, finding.fix_text)
        if plan.roles:  # a role reshaped after planning explains itself anew
            edited = [replace(role, gpus=role.gpus + 1) for role in plan.roles]
            for _, whys in job_role_reasons(plan, edited):
                yield from whys


def _gpu_layout_warning() -> list[Text | str]:
    """No GPU request reproduces the placement (RLinf placing differently is simulated)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(planner_module, "expand_placement", lambda *a, **k: SimpleNamespace(ok=False))
        (finding,) = plan_roles(_report(GPU_FALLBACK_USED)).findings
    assert finding.rule_id == "PLN-GPU-LAYOUT"
    return [finding.text, finding.fix_text]


def _check_messages() -> Iterator[Text | str]:
    """Schema and secret findings: a broken manifest, every secret shape, SSH private keys."""
    manifests = [
        {"apiVersion": "v1", "kind": "Job", "spec": {"tasks": [{"replicas": "two"}]}},
        _manifest(),
        {"spec": {"env": [{"name": "PASSWORD", "value": "x"}]}},  # a one-character secret
        *({"spec": {"runScript": text}} for _, text, _, _ in POSITIVES),
        {"spec": {"runScript": f"git clone https://x:{'glpat-' + 'Ab1' * 7}@gitlab.com/r.git"}},
        {
            "spec": {
                "runScript": "export MAPS=" + "AIza" + "SyX" + "B1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6"
            }
        },
    ]
    long_name = "x" * 64
    violations = {  # one per kind of violation the Job schema raises (rlark/schema_words.py)
        "apiVersion": "v1",
        "kind": "Job",
        "metadata": {"name": long_name, "namespace": ""},
        "spec": {"runScript": "x", "tasks": [], "colour": "blue", "tensorboard": {"logDir": "r"}},
    }
    for finding in [
        *schema_findings(manifests[0], site=example_site()),
        *schema_findings(violations, site=example_site()),
        *schema_findings({"spec": {"tasks": [{"replicas": 0}]}}, site=example_site()),
        *(f for m in manifests[1:] for f in secret_findings(m)),
        *ssh_key_findings(["alice-laptop", OPENSSH_KEY]),
    ]:
        yield from (finding.text, finding.fix_text)
    # a violation our words do not cover keeps jsonschema's sentence, framed as its own
    other = SimpleNamespace(
        validator="const", validator_value=1, instance=2, message="1 was expected"
    )
    yield schema_detail(other)


#: Typed fields that do not read (text_fields.py): every way a mount line, item or count fails.
BAD_FIELD_TEXT = [
    lambda: parse_mounts("a storage x", "r"),
    lambda: parse_mounts("a storage 'x /p", "r"),
    lambda: parse_mounts("Bad storage x /p", "r"),
    lambda: parse_mounts("a storage x /p\na storage x /q", "r"),
    lambda: parse_mounts("a disk x /p", "r"),
    lambda: parse_mounts("a storage x /p rx", "r"),
    lambda: parse_mounts("a storage x /p", "r", {"a": ("y", "other")}),
    lambda: parse_pairs("zone", role_field("r", Text("nodes"))),
    lambda: parse_counts("rlinf.io/device-franka=one", role_field("r", Text("devices"))),
]


def _errors(tmp_path: Path) -> Iterator[Text | str]:
    """InventoryError, JobYamlError and RecordError for every way a user can cause them."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("nodes: [\n")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x]\n" + "".join(f"b{i}: *a\n" for i in range(300)))
    attempts = [
        *(
            lambda data=data: inventory_from_dict(data, site=example_site())
            for data in BAD_INVENTORIES
        ),
        lambda: load_inventory(tmp_path / "nope.yaml", site=example_site()),
        lambda: load_inventory(broken, site=example_site()),
        lambda: load_inventory(bomb, site=example_site()),
        *(lambda text=text: parse_job_yaml(text, site=example_site()) for text in BAD_JOB_YAML),
        lambda: load_manifest(bomb.read_text()),
        lambda: _record(RecordFacts()).write(broken / "record"),  # a file is in the way
        *BAD_FIELD_TEXT,
    ]
    for attempt in attempts:
        with pytest.raises((InventoryError, JobYamlError, RecordError, FieldTextError)) as caught:
            attempt()
        yield caught.value.text
        if isinstance(caught.value.fix_text, Text):
            yield caught.value.fix_text
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RLARK_MAX_INPUT_MB", "0.000001")
        with pytest.raises(InventoryError) as caught:
            load_inventory(broken, site=example_site())
        yield caught.value.text


def _record(facts: RecordFacts, lang: str = "en", image: str = "", full: bool = False):
    """A 2-node run; ``full``: with overrides and output locations, else neither."""
    logger = "logger: {log_path: /mnt/out, experiment_name: x}" if full else ""
    text = (
        "cluster: {num_nodes: 2, component_placement: {actor: 0-11}}\n"
        f"runner: {{task_type: embodied, {logger}}}\n"
    )
    overrides = ["runner.max_epochs=3"] if full else []
    report = inspect_config(load_text(text, "demo.yaml", overrides), 8, search_gpus=False)
    plan = plan_roles(report)
    job = build_job(plan, JobSettings(image=image), site=example_site())
    return build_record(plan, job, [], facts, lang=lang, site=example_site())


FULL_FACTS = RecordFacts(
    rlinf_commit="a3816b59",
    image_digest="sha256:" + "ab" * 32,
    cuda_version="12.4",
    ray_version="2.49.0",
    python_version="3.11.9",
)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple[Text, str]], set]:
    """Every message as (Text, Chinese), and the templates looked up while rendering them."""
    seen: set[str] = set()
    lookup = i18n.translation

    def recording(template: str, lang: str) -> str:
        seen.add(template)
        return lookup(template, lang)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(i18n, "translation", recording)
        messages = [
            *_plan_messages(),
            *_gpu_layout_warning(),
            *_check_messages(),
            *_errors(tmp_path_factory.mktemp("errors")),
        ]
        assert [m for m in messages if not isinstance(m, Text)] == []
        out = [(m, m.render("zh")) for m in messages]
        _record(RecordFacts(), "zh")  # README.md lines: every fact missing
        _record(FULL_FACTS, "zh", IMAGE, full=True)  # and none
    return out, seen


def test_every_message_is_a_text_in_chinese_with_its_values(rendered) -> None:
    messages, _ = rendered
    assert len(messages) > 300
    bad = [
        (str(text), zh)
        for text, zh in messages
        if not CJK.search(zh) or LEFTOVER.search(zh) or zh == str(text)
    ]
    assert not bad, bad[:5]


def test_every_rlark_translation_is_exercised(rendered) -> None:
    _, seen = rendered
    entries = {entry["en"] for entry in yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))}
    missing = sorted(entries - seen)
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize(
    ("messages", "english"),
    [
        (
            lambda: (
                plan_roles(inspect_config(load_text(ROBOTS), 4, search_gpus=False)).explanations
            ),
            [
                "cluster.num_nodes is 3: RLinf waits for exactly 3 Ray node(s), and on RLark every "
                "Worker (one Pod) is one Ray node, so the roles' Workers add up to 3. Fewer and "
                "RLinf waits forever; more and RLinf may use only the lowest ranks while the rest "
                "may still hold resources, idle.",
                "The Header role has exactly one Worker, at RLINF_NODE_RANK 0: it starts the Ray "
                "head and runs the run script, and RLinf's driver (and its managers) run on node "
                "rank 0.",
                "The RL task (强化学习任务) template pre-fills roles Actor, Rollout, Environment. "
                "Role names place no RLinf component (component_placement does), so the plan "
                "reshapes them into 2 role(s) that follow the config's Ray nodes.",
                "Node rank(s) [1, 2] run no component but host a robot controller "
                "(controller_node_rank); they still count and get their Worker.",
                "Execution mode HYBRID is reported for information; it decides no role count.",
            ],
        ),
        (
            lambda: (
                plan_roles(inspect_config(load_text(ROBOTS), 4, search_gpus=False)).roles[0].why
            ),
            [
                "Holds RLINF_NODE_RANK [0] (1 Worker(s)); runs actor, env, rollout.",
                "4 GPU(s) per Worker: the largest local GPU index placed on its node(s) is 3.",
                "Node group(s) franka.",
                "Environment from env_configs: MUJOCO_GL.",
                "RLinf runs this group's workers with /opt/venv/bin/python; the image must have it.",
                "Idle GPUs (requested, used by no process): node 0: [0, 1, 2, 3].",
            ],
        ),
        (
            lambda: [
                *plan_roles(_report(GAPS)).roles[1].why,
                *plan_roles(_report(IDLE_NODE)).roles[1].why,
            ],
            [
                "Holds RLINF_NODE_RANK [1, 2] (2 Worker(s)); runs actor.",
                "8 GPU(s) per Worker: the largest local GPU index placed on its node(s) is 7.",
                "Idle GPUs (requested, used by no process): node 1: [1, 3, 4, 5, 6, 7]; "
                "node 2: [1, 3, 4, 5, 6, 7].",
                "Holds RLINF_NODE_RANK [1] (1 Worker(s)); runs no component process.",
            ],
        ),
        (
            lambda: [
                f.text
                for f in plan_roles(
                    inspect_config(load_text(ROBOTS), 4, search_gpus=False),
                    inventory_from_dict(UNLABELLED, site=example_site()),
                    target_cluster="nowhere",
                ).findings
            ],
            [
                "Role 'header' (node ranks [0]) carries a DualFranka, but the inventory reports no "
                "rlinf.io/* resource for it (reported: rlinf.io/device-ur5).",
                "Cluster 'nowhere' is not in the inventory (no clusters labelled).",
            ],
        ),
        (
            lambda: [f.text for f in secret_findings(_manifest()) if f.path.startswith(ENV)],
            [
                f"password assignment (in DB_PASSWORD) found at {ENV}[1].value: …(7 chars). The "
                "Job YAML is stored and shown, so it must not carry credentials.",
                f"HuggingFace token (in HF_TOKEN) found at {ENV}[2].value: …({len(HF)} chars). The "
                "Job YAML is stored and shown, so it must not carry credentials.",
            ],
        ),
        (
            lambda: [f.text for f in ssh_key_findings([OPENSSH_KEY])],
            [
                f"spec.sshKeys[0] holds a private key (…({len(OPENSSH_KEY.strip())} chars)); SSH "
                "keys must be public keys or names of registered keys."
            ],
        ),
        (
            lambda: [_raised(parse_job_yaml, text, example_site()) for text in BAD_JOB_YAML],
            [
                "The Job YAML must be one mapping with apiVersion, kind, metadata and spec.",
                "The Job YAML is not valid YAML at line 2, column 1: expected the node content, "
                "but found '<stream end>'.",
                "The Job YAML is not valid YAML: unacceptable character #x0001: special "
                'characters are not allowed\n  in "<unicode string>", position 3.',
                "The Job YAML does not have the Job shape (KeyError('metadata')); check it "
                "against the CRD.",
                "spec.storage[1]: storage 'out' is StorageClass 'b' here and 'a' in "
                "spec.storage[0]; one storage name has one StorageClass.",
            ],
        ),
        (
            lambda: [
                f.text
                for f in inventory_findings(
                    inventory_from_dict(UNKNOWN_CATEGORY, site=example_site())
                )
            ],
            [
                "1 node(s) (a) report rlark.io/node-category=gpu, a category the site profile "
                "does not name; they are shown as reported, not as 云算力 / 端算力 / 端真机."
            ],
        ),
    ],
    ids=[
        "explanations",
        "why",
        "why-idle",
        "planner-findings",
        "secrets",
        "ssh",
        "job-yaml",
        "inventory",
    ],
)
def test_english_is_unchanged(messages, english: list[str]) -> None:
    texts = messages()
    assert all(isinstance(t, Text) for t in texts)
    assert [str(t) for t in texts] == english


def _raised(action, *args) -> Text:
    with pytest.raises((InventoryError, JobYamlError, RecordError)) as caught:
        action(*args)
    assert str(caught.value) == str(caught.value.text)
    return caught.value.text


def test_secret_previews_in_chinese_show_only_the_length() -> None:
    (finding,) = [f for f in secret_findings(_manifest()) if f.path == f"{ENV}[1].value"]
    zh = finding.message_in("zh")
    assert "hunter2" not in zh and "…（7 个字符）" in zh and "DB_PASSWORD" in zh
    (ssh,) = ssh_key_findings([OPENSSH_KEY])
    assert _KEY_BODY.splitlines()[0] not in ssh.message_in("zh")


def test_record_is_english_unless_a_language_is_asked_for() -> None:
    english = _record(FULL_FACTS, image=IMAGE, full=True)
    chinese = _record(FULL_FACTS, "zh", IMAGE, full=True)
    readme = english.files["README.md"]
    assert readme.startswith(
        "# Run record: demo\n\n- RLinf config: demo.yaml (overrides: runner.max_epochs=3)\n"
        "- Workers: 2 (cluster.num_nodes 2)\n"
    )
    assert "## Missing facts\n\n- none\n" in readme and "- rlinf_commit: a3816b59\n" in readme
    zh = chinese.files["README.md"]
    assert zh.startswith(
        "# 运行记录：demo\n\n- RLinf 配置：demo.yaml（覆盖项：runner.max_epochs=3）\n"
        "- Worker 数：2（cluster.num_nodes 为 2）\n"
    )
    assert "## 缺失的信息\n\n- 无\n" in zh and "- rlinf_commit: a3816b59\n" in zh
    # machine-readable parts keep their keys and names; only the sentences change language
    assert chinese.missing == english.missing == []
    assert chinese.files["job.yaml"] == english.files["job.yaml"]
    explained = [json.loads(r.files["plan.json"])["explanations"][0] for r in (english, chinese)]
    assert explained[0].startswith("cluster.num_nodes is 2: RLinf waits")
    assert explained[1].startswith("cluster.num_nodes 为 2：RLinf 会等待")


def test_a_bare_record_lists_what_is_missing_in_either_language() -> None:
    english = _record(RecordFacts()).files["README.md"]
    assert "- Images: MISSING\n" in english and "- rlinf_commit: MISSING\n" in english
    assert "## Locations\n\n- none found in the config\n" in english
    chinese = _record(RecordFacts(), "zh").files["README.md"]
    assert "- 镜像：缺失\n" in chinese and "- rlinf_commit：缺失\n" in chinese
    assert "## 位置\n\n- 配置中未找到\n" in chinese
