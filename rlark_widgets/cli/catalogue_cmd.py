"""``rlark-migrate crd`` and ``rlark-migrate rules``: the schema and the rule catalogue."""

from __future__ import annotations

import argparse

from ..i18n import Text
from ..rlark.rules import RULES
from ..rlark.schema import crd_text
from .render import table
from .site_args import site_from_args

#: Rules raised by the importer and the secret scanner (outside the Job rule registry).
OTHER_RULES: list[tuple[str, str, Text, str]] = [
    (
        "CFG-LOAD",
        "error",
        Text("The config cannot be read or composed (YAML, Hydra defaults, searchpath variables)"),
        "Hydra composition as RLinf does it",
    ),
    (
        "CFG-CLUSTER",
        "error",
        Text("The cluster section fails one of RLinf's ClusterConfig checks"),
        "RLinf cluster/config.py",
    ),
    (
        "CFG-ROBOT-IP",
        "error",
        Text("A robot IP is a placeholder RLinf rejects at start"),
        "RLinf hardware/robots",
    ),
    (
        "CFG-INTERPRETER-PLACEHOLDER",
        "error",
        Text("python_interpreter_path is a /path/to placeholder"),
        "RLinf cluster/node.py",
    ),
    (
        "CFG-YAML-SEXAGESIMAL",
        "error",
        Text("An unquoted H:M value is a YAML 1.1 base-60 integer (1:5 -> 65)"),
        "rlinf-cluster-spec §1.2",
    ),
    ("CFG-UNRESOLVED", "warning", Text("An interpolation cannot be resolved here"), "OmegaConf"),
    ("CFG-NOT-COMPOSED", "warning", Text("The defaults list was not composed"), "Hydra"),
    (
        "CFG-TASK-TYPE",
        "error",
        Text("runner.task_type is not one RLinf supports (info when unset)"),
        "RLinf rlinf/config.py",
    ),
    (
        "CFG-LAUNCHER",
        "info",
        Text("The entry script was inferred, or RLinf's docs launch the config more than one way"),
        "RLinf launch scripts and docs",
    ),
    (
        "PLC-PLACEMENT",
        "error",
        Text("A component_placement entry fails RLinf's parser or strategies"),
        "RLinf placement/*",
    ),
    ("PLC-MODE", "info", Text("The execution mode, for information"), "RLinf utils/placement.py"),
    ("PLN-REJECTED", "error", Text("RLinf rejects the config, so nothing can be planned"), "RLinf"),
    (
        "PLN-GPU-LAYOUT",
        "warning",
        Text("No smaller GPU request reproduces the placement"),
        "rlinf-cluster-spec §3.1",
    ),
    (
        "PLN-DEVICE-NAME",
        "warning",
        Text(
            "A robot's rlinf.io device resource name is unknown (error with an inventory that lacks it)"
        ),
        "seeds/create-training-job",
    ),
    (
        "PLN-CLUSTER",
        "error",
        Text("The target cluster is not in the inventory"),
        "seeds/create-training-job",
    ),
    (
        "JOB-SCHEMA",
        "error",
        Text("The Job does not match the jobs.rlark.io schema"),
        "rlark-widgets CRD",
    ),
    (
        "JOB-UNKNOWN-FIELD",
        "info",
        Text("A field the Job schema does not know is kept as written, not checked (check)"),
        "seeds/create-training-job.zh.txt Step 4 (任务 YAML 预览)",
    ),
    (
        "INV-CATEGORY",
        "info",
        Text("A node-category value the site profile does not name is shown as reported"),
        "seeds/rlinf-faq.zh.txt (云算力、端算力、端真机)",
    ),
    (
        "SEC-SECRET",
        "error",
        Text("A password, private key, token or storage key in env, scripts or YAML"),
        "seeds/create-training-job (保护敏感信息)",
    ),
    (
        "SEC-SSH-PRIVATE",
        "error",
        Text("An SSH key that is a private key (only public keys belong in the Job)"),
        "seeds/create-training-job",
    ),
]


def catalogue(lang: str = "en") -> list[tuple[str, str, str, str]]:
    """Every rule as (ID, severity, title in ``lang``, source), grouped by prefix."""
    registered = [(r.id, r.severity.value, r.title, r.source) for r in RULES]
    rows = [(i, severity, t.render(lang), src) for i, severity, t, src in OTHER_RULES + registered]
    return sorted(rows, key=lambda r: (r[0].split("-")[0], r[0]))


def register(commands: argparse._SubParsersAction) -> None:
    crd = commands.add_parser(
        "crd",
        help="print the Job CustomResourceDefinition (in the site profile's names)",
        description="Print the CRD (with its complete openAPIV3Schema) that every rendered Job "
        "validates against, with the group, version, kind and resource names of the site profile "
        "(--site; the shipped example's otherwise, and it says so).",
    )
    crd.set_defaults(run=lambda args: print(crd_text(site_from_args(args)), end="") or 0)
    rules = commands.add_parser(
        "rules",
        help="list the rule catalogue",
        description="List every rule: ID, severity, what it checks and its source.",
    )
    rules.add_argument(
        "--markdown", action="store_true", help="print a markdown table (as in the README)"
    )
    rules.set_defaults(run=run_rules)


def rules_text(markdown: bool = False, lang: str = "en") -> str:
    """The catalogue as a terminal table, or as the README's markdown table."""
    rows = catalogue(lang)
    if not markdown:
        return table(("rule", "severity", "checks"), [r[:3] for r in rows])
    lines = ["| rule | severity | checks | source |", "|---|---|---|---|"]
    lines += [
        f"| {rule_id} | {severity} | {title} | {src} |" for rule_id, severity, title, src in rows
    ]
    return "\n".join(lines)


def run_rules(args: argparse.Namespace) -> int:
    print(rules_text(args.markdown, args.lang))
    return 0
