"""Platform facts live in rlark_widgets/contract.py and the example site profile, nowhere else.

A label, annotation key, environment name or default written out a second time could drift from
the first; this test finds such a copy as a string constant in any module. Site facts (labels,
categories, device prefix, StorageClasses, the Job API) are data in the site profile, so a
module that spells out one of the shipped example's values is caught too: it would use the
example where the user's site has its own. Docstrings, message templates (the first argument of
``Text``) and argparse help texts may name the facts: they explain them to people.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import rlark_widgets
from rlark_widgets import contract
from rlark_widgets.rlark.site import example_site

PACKAGE = Path(rlark_widgets.__file__).parent
CONTRACT = Path(contract.__file__)
EXAMPLE = example_site()
#: Facts plain enough to be ordinary words: only a constant equal to them is a copy.
WORDS = {contract.OUTPUT_MOUNT, EXAMPLE.api_group, EXAMPLE.api_version_name, EXAMPLE.kind}
WORDS |= {EXAMPLE.plural, *EXAMPLE.storage_classes, contract.KUBERAY_GROUP}
#: Our own name appears in paths, messages and the planned-by annotation's value.
WORDS.add(contract.DISTRIBUTION)
# The example's category values equal the console categories' own keys (cloud, edge, robot),
# which the code names on purpose (rlark/site.py CONSOLE_CATEGORIES), so they are not scanned.
#: The RLARK_ prefix is reserved for RLark on Workers; our own RLARK_* settings may carry it.
WORDS |= set(EXAMPLE.reserved_env_prefixes)


def _site_facts() -> dict[str, str]:
    """The example site profile's values, named by the field that holds them."""
    site = EXAMPLE
    facts = {
        site.cluster_label: "clusterLabel",
        site.category_label: "nodeCategory.label",
        site.device_prefix: "devicePrefix",
        site.gpu_resource: "gpuResource",
        site.rlinf_dir: "rlinfDir",
        site.api_version: "jobApi",
        site.job_resource: "jobApi",
        site.job_label: "workerLabels.job",
        site.task_label: "workerLabels.task",
        site.index_label: "workerLabels.workerIndex",
        **{name: "reservedEnv" for name in site.reserved_env},
        **{name: "storageClasses" for name in site.storage_classes},
    }
    for word in (site.api_group, site.api_version_name, site.kind, site.plural):
        facts[word] = "jobApi"
    facts.update({p: "reservedEnvPrefixes" for p in site.reserved_env_prefixes})
    return {fact: f"site profile {name}" for fact, name in facts.items()}


def _facts() -> dict[str, str]:
    """Every string the contract defines (a frozenset's members too), and its pattern's source,
    and every value of the example site profile."""
    facts: dict[str, str] = _site_facts()
    for name, value in vars(contract).items():
        if name.startswith("_") or not name.isupper():
            continue
        values = sorted(value) if isinstance(value, frozenset | tuple) else [value]
        for item in values:
            if isinstance(item, re.Pattern):
                item = item.pattern
            if isinstance(item, str):
                facts[item] = name
    return facts


FACTS = _facts()


def _explanations(tree: ast.AST) -> set[int]:
    """ids of constants that explain rather than act: docstrings, Text templates, help texts."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))
        if isinstance(node, ast.Call):
            if getattr(node.func, "id", None) == "Text" and node.args:
                skipped |= {id(n) for n in ast.walk(node.args[0])}
            for keyword in node.keywords:
                if keyword.arg in ("help", "description"):
                    skipped |= {id(n) for n in ast.walk(keyword.value)}
    return skipped


def _copies(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped = _explanations(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skipped:
            continue
        for fact, name in FACTS.items():
            if node.value == fact or (fact not in WORDS and fact in node.value):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r} ({name})")
    return found


def test_the_contract_defines_the_facts_the_issue_names():
    assert contract.RANK_LABEL == "rlinf.io/node-rank"
    assert contract.CHECKPOINT_DIR_ANNOTATION == "rlark.io/checkpoint-dir"
    assert contract.OUTPUT_MOUNT == "output"
    assert contract.DNS_LABEL.fullmatch("demo-job") and not contract.DNS_LABEL.fullmatch("Demo")
    assert "RLINF_NODE_RANK" in contract.RESERVED_ENV
    assert contract.KUBERAY_CLUSTER_LABEL == "ray.io/cluster"
    assert contract.KUBERAY_NODE_TYPE_LABEL == "ray.io/node-type"
    assert contract.KUBERAY_GROUP_LABEL == "ray.io/group"


def test_site_facts_are_the_example_profiles_not_the_contracts():
    """The labels the seeds say each environment defines are not constants any more."""
    for name in ("JOB_LABEL", "CLUSTER_LABEL", "CATEGORY_LABEL", "DEVICE_PREFIX", "API_GROUP"):
        assert not hasattr(contract, name)
    assert EXAMPLE.is_example and EXAMPLE.job_label == "rlark.io/job"
    assert EXAMPLE.rlinf_dir == "/workspace/RLinf"


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if p != CONTRACT],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_module_repeats_a_platform_fact(path):
    copies = _copies(path)
    assert not copies, "import these from rlark_widgets.contract instead:\n" + "\n".join(copies)


def test_the_check_finds_a_copy(tmp_path):
    """The scan can fail: a module that writes a label out is reported."""
    module = tmp_path / "copy.py"
    module.write_text('"""rlark.io/job in a docstring is fine."""\nLABEL = "rlark.io/job"\n')
    copies = _copies_at(module)
    assert "copy.py:2: 'rlark.io/job' (site profile workerLabels.job)" in copies
    assert not [c for c in copies if c.startswith("copy.py:1:")]


def _copies_at(path: Path) -> list[str]:
    global PACKAGE
    saved, PACKAGE = PACKAGE, path.parent
    try:
        return _copies(path)
    finally:
        PACKAGE = saved
