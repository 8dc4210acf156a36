"""``rlark-migrate crd`` and ``rlark-migrate rules``: the schema and the rule catalogue."""

from __future__ import annotations

import argparse

from ..rlark.rules import RULES
from ..rlark.schema import crd_text
from .render import table

#: Rules raised by the importer and the secret scanner (outside the Job rule registry).
OTHER_RULES = [
    (
        "CFG-LOAD",
        "error",
        "The config cannot be read or composed (YAML, Hydra defaults, searchpath variables)",
        "Hydra composition as RLinf does it",
    ),
    (
        "CFG-CLUSTER",
        "error",
        "The cluster section fails one of RLinf's ClusterConfig checks",
        "RLinf cluster/config.py",
    ),
    (
        "CFG-ROBOT-IP",
        "error",
        "A robot IP is a placeholder RLinf rejects at start",
        "RLinf hardware/robots",
    ),
    (
        "CFG-INTERPRETER-PLACEHOLDER",
        "error",
        "python_interpreter_path is a /path/to placeholder",
        "RLinf cluster/node.py",
    ),
    (
        "CFG-YAML-SEXAGESIMAL",
        "error",
        "An unquoted H:M value is a YAML 1.1 base-60 integer (1:5 -> 65)",
        "rlinf-cluster-spec §1.2",
    ),
    ("CFG-UNRESOLVED", "warning", "An interpolation cannot be resolved here", "OmegaConf"),
    ("CFG-NOT-COMPOSED", "warning", "The defaults list was not composed", "Hydra"),
    (
        "CFG-TASK-TYPE",
        "error",
        "runner.task_type is not one RLinf supports (info when unset)",
        "RLinf rlinf/config.py",
    ),
    (
        "PLC-PLACEMENT",
        "error",
        "A component_placement entry fails RLinf's parser or strategies",
        "RLinf placement/*",
    ),
    ("PLC-MODE", "info", "The execution mode, for information", "RLinf utils/placement.py"),
    ("PLN-REJECTED", "error", "RLinf rejects the config, so nothing can be planned", "RLinf"),
    (
        "PLN-GPU-LAYOUT",
        "warning",
        "No smaller GPU request reproduces the placement",
        "rlinf-cluster-spec §3.1",
    ),
    (
        "PLN-DEVICE-NAME",
        "warning",
        "A robot's rlinf.io device resource name is unknown (error with an inventory that lacks it)",
        "seeds/create-training-job",
    ),
    (
        "PLN-CLUSTER",
        "error",
        "The target cluster is not in the inventory",
        "seeds/create-training-job",
    ),
    ("JOB-SCHEMA", "error", "The Job does not match the jobs.rlark.io schema", "rlark-widgets CRD"),
    (
        "SEC-SECRET",
        "error",
        "A password, private key, token or storage key in env, scripts or YAML",
        "seeds/create-training-job (保护敏感信息)",
    ),
    (
        "SEC-SSH-PRIVATE",
        "error",
        "An SSH key that is a private key (only public keys belong in the Job)",
        "seeds/create-training-job",
    ),
]


def catalogue() -> list[tuple[str, str, str, str]]:
    registered = [(r.id, r.severity.value, r.title, r.source) for r in RULES]
    return sorted(OTHER_RULES + registered, key=lambda r: (r[0].split("-")[0], r[0]))


def register(commands: argparse._SubParsersAction) -> None:
    crd = commands.add_parser(
        "crd",
        help="print the jobs.rlark.io CustomResourceDefinition",
        description="Print the CRD (with its complete openAPIV3Schema) that every rendered Job validates against.",
    )
    crd.set_defaults(run=lambda args: print(crd_text(), end="") or 0)
    rules = commands.add_parser(
        "rules",
        help="list the rule catalogue",
        description="List every rule: ID, severity, what it checks and its source.",
    )
    rules.add_argument(
        "--markdown", action="store_true", help="print a markdown table (as in the README)"
    )
    rules.set_defaults(run=run_rules)


def run_rules(args: argparse.Namespace) -> int:
    rows = catalogue()
    if args.markdown:
        print("| rule | severity | checks | source |\n|---|---|---|---|")
        for rule_id, severity, title, source in rows:
            print(f"| {rule_id} | {severity} | {title} | {source} |")
    else:
        print(table(("rule", "severity", "checks"), [r[:3] for r in rows]))
    return 0
