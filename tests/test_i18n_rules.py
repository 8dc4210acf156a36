"""The rule catalogue speaks Chinese too: every title, and every finding's message and fix.

The sweep reuses test_rules.py's firing case of each rule and adds one case per further message
variant (a rule that can say two different things has two templates). Every message template in
rlark/rules/ must be reached by the sweep, so a variant added without a case fails here; the
English fragments pin the wording users and the golden files already know.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest
from test_rules import (
    CASES,
    CATEGORY,
    DATASET,
    INVENTORY,
    OUTPUT,
    RULES_BY_ID,
    Builder,
    every_role,
    launch_with,
    role,
    scenario,
)

from rlark_widgets.cli import main
from rlark_widgets.cli.catalogue_cmd import OTHER_RULES, catalogue, rules_text
from rlark_widgets.findings import Finding
from rlark_widgets.i18n import Text
from rlark_widgets.rlark import rules as rules_module
from rlark_widgets.rlark.rules import RULES, evaluate

CJK = re.compile(r"[\u4e00-\u9fff]")
README = Path(__file__).resolve().parents[1] / "docs" / "reference" / "rules.md"

# rule id, a builder that reaches a message the firing case in test_rules.py does not, and a
# distinctive part of that message in English.
VARIANTS: list[tuple[str, Builder, str]] = [
    (
        "PLN-WORKER-COUNT",
        scenario(role(1, replicas=0)),
        "The roles create 2 Workers but cluster.num_nodes is 3: RLinf waits forever",
    ),
    (
        "PLN-GPU-COVER",
        scenario(
            config={
                "cluster.component_placement.env.node_group": "node",
                "cluster.component_placement.env.placement": 1,
            }
        ),
        "RLINF_NODE_RANK 1 (role 'workers', running actor, env) is planned with 8 GPU(s)",
    ),
    ("PLN-HEADER", scenario(role(0, head=False)), "No role is the Header"),
    ("PLN-HEADER", scenario(role(1, head=True)), "2 roles are Headers"),
    (
        "PLN-DEVICE-COVER",
        scenario(role(1, devices={"rlinf.io/device-franka": 1})),
        "requests rlinf.io/device-franka but no robot is configured on that rank",
    ),
    ("JOB-ROLE-NAME", scenario(role(1, name=" ")), "A role has no name."),
    (
        "JOB-DEVICE-NAME",
        scenario(role(2, devices={"devices.example.org/franka": 1})),
        "is not a device resource of this site: the site profile's devices start with 'rlinf.io/'.",
    ),
    (
        "JOB-SELECTOR-CLUSTER",
        scenario(role(1, node_selector={CATEGORY: "cloud"}), inventory=None),
        "Role 'workers' has no rlark.io/cluster label, and without an inventory",
    ),
    (
        "JOB-SELECTOR-CLUSTER",
        scenario(role(1, node_selector={CATEGORY: "cloud"}), target_cluster=None),
        "Role 'workers' matches nodes of several clusters (lab, prod).",
    ),
    (
        "JOB-GPU-CAPACITY",
        scenario(inventory=None),
        "Role 'header' requests 8 GPU(s) per Worker, but no inventory says the nodes have them.",
    ),
    ("JOB-IMAGE", scenario(role(1, image="")), "Role 'workers' has no image."),
    (
        "JOB-IMAGE-REFERENCE",
        scenario(role(1, image="registry.example.com/rlinf:v0.3.0@sha256:abc")),
        "is not an image reference: it is not [registry/]path[:tag][@sha256:digest].",
    ),
    (
        "JOB-MOUNT-PATH",
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, source="data/rlinf")])),
        "hostPath source 'data/rlinf' is not absolute.",
    ),
    (
        "JOB-MOUNT-PATH",
        scenario(role(1, mounts=[OUTPUT, replace(DATASET, source="/data/x/../rlinf")])),
        "'/data/x/../rlinf' contains '..'; Kubernetes refuses it in a hostPath",
    ),
    *(
        (
            "JOB-ENV-RESERVED",
            scenario(role(1, env={name: "x"})),
            f"{name} is set by RLark on every Worker ({use}",
        )
        for name, use in (
            ("RLINF_NODE_RANK", "RLINF_NODE_RANK = Workers of the roles before + worker index"),
            ("RAY_HEAD_IP", "the site profile reserves it for the platform"),
            ("RLARK_ROLE", "the site profile reserves it for the platform"),
        )
    ),
    (
        "JOB-STORAGE-SOURCE",
        scenario(role(1, mounts=[replace(OUTPUT, source="oss-other")])),
        "StorageClass 'oss-other' is not in the inventory (oss-rlinf).",
    ),
    (
        "JOB-STORAGE-SOURCE",
        scenario(inventory=replace(INVENTORY, storage_classes=())),
        "StorageClass 'oss-rlinf' is not in the inventory (none).",
    ),
    (
        "JOB-CHECKPOINT-PERSIST",
        scenario(every_role(mounts=[replace(OUTPUT, kind="hostPath", source="/data/output")])),
        "runner.logger.log_path is on a node-local mount",
    ),
    # JOB-HOSTPATH-SYSTEM: each reason a node path is in the table (rlark/rules/node_paths.py)
    *(
        (
            "JOB-HOSTPATH-SYSTEM",
            scenario(role(1, mounts=[OUTPUT, replace(DATASET, source=source, read_only=ro)])),
            fragment,
        )
        for source, ro, fragment in (
            ("/run/k3s/containerd/containerd.sock", True, "the container runtime's socket"),
            ("/var/lib/kubelet/pods", True, "the cluster's credentials and state"),
            ("/proc", True, "the node's kernel"),
            ("/", True, "the node's whole file system"),
            ("/usr/local", False, "read-write: every Worker could change the node's system"),
        )
    ),
    (
        "RES-RESUME-DIR",
        scenario(launch_with("runner.resume_dir=auto")),
        "resume_dir 'auto' is accepted only by RLinf's reasoning runner.",
    ),
    (
        "RES-RESUME-DIR",
        scenario(launch_with("runner.resume_dir=/ckpt/global_step_100")),
        "runner.resume_dir '/ckpt/global_step_100' is not under a mount",
    ),
]
SWEEP = [(rule_id, fires, fragment) for rule_id, (fires, _, _, fragment) in CASES.items()]
SWEEP += VARIANTS


def _findings(rule_id: str, build: Builder) -> list[Finding]:
    return evaluate(build(), rules=[RULES_BY_ID[rule_id]])


def _assert_chinese(english: str, chinese: str) -> None:
    assert CJK.search(chinese), chinese
    assert not re.search(r"[{}]", chinese), f"unrendered placeholder: {chinese}"
    assert chinese != english


def _message_templates() -> set[str]:
    """Every Text template in the rules package that is not a rule title."""
    trees = [
        ast.parse(path.read_text(encoding="utf-8"))
        for path in Path(rules_module.__file__).parent.glob("*.py")
    ]
    return {
        node.args[0].value
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Text"
    } - {r.title.template for r in RULES}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_title_in_chinese(rule):
    assert isinstance(rule.title, Text)
    _assert_chinese(str(rule.title), rule.title.render("zh"))


@pytest.mark.parametrize(
    ("rule_id", "build", "fragment"),
    SWEEP,
    ids=[f"{rule_id}-{n}" for n, (rule_id, _, _) in enumerate(SWEEP)],
)
def test_finding_message_and_fix_in_chinese(rule_id, build, fragment):
    findings = _findings(rule_id, build)
    assert any(fragment in f.message for f in findings), [f.message for f in findings]
    for f in findings:
        assert isinstance(f.text, Text) and isinstance(f.fix_text, Text)
        _assert_chinese(f.message, f.message_in("zh"))
        _assert_chinese(f.fix, f.fix_in("zh"))
        assert f.to_dict("zh")["message"] == f.message_in("zh")
        assert f.to_dict()["message"] == f.message == str(f.text)


def _templates_in(value: object) -> list[str]:
    """A message's template and those of the messages it quotes (a reserved name's use)."""
    if not isinstance(value, Text):
        return []
    return [value.template, *(t for v in value.params.values() for t in _templates_in(v))]


def test_sweep_reaches_every_message_of_the_rules():
    reached = {
        t
        for rule_id, build, _ in SWEEP
        for f in _findings(rule_id, build)
        for t in (*_templates_in(f.text), *_templates_in(f.fix_text))
    }
    assert _message_templates() - reached == set(), "add a VARIANTS case for these"


def test_catalogue_in_chinese_keeps_ids_severities_and_sources():
    english, chinese = catalogue(), catalogue("zh")
    assert len(english) == len(RULES) + len(OTHER_RULES)
    assert [(i, s, src) for i, s, _, src in chinese] == [(i, s, src) for i, s, _, src in english]
    for (_, _, title_en, _), (_, _, title_zh, _) in zip(english, chinese, strict=True):
        _assert_chinese(title_en, title_zh)
    assert "| PLN-WORKER-COUNT | error | 所有角色的 Worker 数之和等于 cluster.num_nodes |" in (
        rules_text(markdown=True, lang="zh")
    )


@pytest.mark.parametrize(
    "argv", [["--lang", "zh", "rules"], ["rules", "--markdown", "--lang", "zh"]]
)
def test_rules_command_prints_the_chosen_language(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Header 的 Worker 获得 RLINF_NODE_RANK 0" in out
    assert "The Header's Worker gets RLINF_NODE_RANK 0" not in out


def test_english_catalogue_is_the_readme_table():
    """The reference page's rule table is this output; English titles must not drift from it."""
    readme = README.read_text(encoding="utf-8")
    rows = rules_text(markdown=True).splitlines()
    assert rows[:2] == ["| rule | severity | checks | source |", "|---|---|---|---|"]
    missing = [row for row in rows if row not in readme.splitlines()]
    assert not missing, missing
