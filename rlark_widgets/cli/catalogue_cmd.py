"""``rlark-migrate crd`` and ``rlark-migrate rules``: the schema and the rule catalogue."""

from __future__ import annotations

import argparse

from ..contract import DISTRIBUTION
from ..i18n import Text
from ..rlark.rules import RULES
from ..rlark.schema import crd_text
from .render import table
from .site_args import site_of
from .terminal import say

#: Rules raised outside the Job rule registry: the importer, the secret scanner, the Kubernetes
#: and KubeRay preflights (``K8S-*``, ``KRAY-*``) and the KubeRay export and check (``KRAY-*``).
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
    (
        "CFG-ENV-GUESSED",
        "info",
        Text("An unset searchpath variable took the value RLinf's launch scripts give it"),
        "RLinf launch scripts",
    ),
    (
        "CFG-ENV-NODE-VALUE",
        "error",
        Text("A node group's env_configs value comes from this machine's environment"),
        DISTRIBUTION,
    ),
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
    (
        "PLC-GPULESS-NODES",
        "info",
        Text("Nodes only in robot or CPU-only node groups are assumed to have 0 GPUs"),
        "RLinf cluster/node.py",
    ),
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
        "JOB-NOT-KEPT",
        "error",
        Text("A field the Job cannot keep as written (it would be dropped or rewritten)"),
        "rlark-widgets: what the user wrote is what is submitted",
    ),
    (
        "JOB-VOLUME",
        "error",
        Text("Volumes and volumeMounts are wired as Kubernetes requires"),
        "Kubernetes PodSpec validation",
    ),
    (
        "SEC-REDACTED",
        "error",
        Text("A redaction placeholder where a value belongs"),
        "seeds/create-training-job (保护敏感信息)",
    ),
    (
        "SEC-SSH-PRIVATE",
        "error",
        Text("An SSH key that is a private key (only public keys belong in the Job)"),
        "seeds/create-training-job",
    ),
    (
        "K8S-CRD",
        "error",
        Text("The cluster does not serve RLark's Job resource (RLark is not installed)"),
        "rlark-widgets: kubernetes preflight",
    ),
    (
        "K8S-ACCESS",
        "error",
        Text(
            "You may not create Jobs in the namespace (a warning when the access review cannot answer)"
        ),
        "rlark-widgets: kubernetes preflight",
    ),
    (
        "K8S-DRY-RUN",
        "error",
        Text("The API server's dry run rejects the Job (a warning when one of that name exists)"),
        "rlark-widgets: kubernetes preflight",
    ),
    (
        "K8S-NAMESPACE",
        "info",
        Text("The Job names another namespace than the connection works in"),
        "rlark-widgets: kubernetes preflight",
    ),
    (
        "K8S-STORAGECLASS",
        "error",
        Text("A StorageClass the Job names does not exist on the cluster"),
        "rlark-widgets: kubernetes preflight",
    ),
    (
        "K8S-CAPACITY",
        "error",
        Text(
            "The nodes a role selects lack the GPUs or devices its Workers request (KubeRay: per worker group)"
        ),
        "seeds/create-training-job Step 2",
    ),
    (
        "K8S-SELECTOR-OUTSIDE",
        "warning",
        Text("A role's node selection also matches nodes outside the intended cluster or category"),
        "seeds/create-training-job Step 2",
    ),
    (
        "K8S-SELECTOR-COUNT",
        "warning",
        Text("A role's node selection matches another number of usable nodes than it has Workers"),
        "seeds/create-training-job Step 2",
    ),
    (
        "KRAY-SCHEMA",
        "error",
        Text("The manifest does not match KubeRay's RayJob/RayCluster schema"),
        "KubeRay v1.7.0 CRDs",
    ),
    (
        "KRAY-HEAD",
        "error",
        Text("The Job has no single-Worker Header to become KubeRay's head group"),
        "rlark-widgets: kuberay export",
    ),
    (
        "KRAY-RANKS",
        "error",
        Text(
            "RLINF_NODE_RANK in the worker groups breaks RLinf's rules (info: why ranks get groups of their own or not)"
        ),
        "rlinf-cluster-spec §3.2",
    ),
    (
        "KRAY-NO-FIELD",
        "warning",
        Text(
            "An RLark field KubeRay has no field for (TensorBoard sidecar, network domain, SSH keys)"
        ),
        "rlark-widgets: kuberay export",
    ),
    (
        "KRAY-RUN-SCRIPT",
        "info",
        Text("A RayCluster runs no script: the run script is kept in an annotation"),
        "rlark-widgets: kuberay export",
    ),
    (
        "KRAY-PVC",
        "warning",
        Text("An object-storage mount needs a PVC that exists first (KubeRay creates none)"),
        "rlark-widgets: kuberay export",
    ),
    (
        "KRAY-CRD",
        "error",
        Text(
            "The cluster does not serve RayJob/RayCluster (the KubeRay operator is not installed)"
        ),
        "rlark-widgets: kuberay preflight",
    ),
    (
        "KRAY-ACCESS",
        "error",
        Text(
            "You may not create RayJobs/RayClusters in the namespace (a warning when the access review cannot answer)"
        ),
        "rlark-widgets: kuberay preflight",
    ),
    (
        "KRAY-DRY-RUN",
        "error",
        Text(
            "The API server's dry run rejects the RayJob/RayCluster (a warning when one of that name exists)"
        ),
        "rlark-widgets: kuberay preflight",
    ),
    (
        "KRAY-PVC-MISSING",
        "error",
        Text("A PVC the pods mount does not exist in the namespace"),
        "rlark-widgets: kuberay preflight",
    ),
]


def catalogue(lang: str = "en") -> list[tuple[str, str, str, str]]:
    """Every rule as (ID, severity, title in ``lang``, source), grouped by prefix."""
    registered = [(r.id, r.severity.value, r.title, r.source) for r in RULES]
    rows = [(i, severity, t.render(lang), src) for i, severity, t, src in OTHER_RULES + registered]
    return sorted(rows, key=lambda r: (r[0].split("-")[0], r[0]))


def run_crd(args: argparse.Namespace) -> int:
    say(crd_text(site_of(args)), end="")
    return 0


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    crd = commands.add_parser(
        "crd",
        help="print the Job CustomResourceDefinition (in the site profile's names)",
        description="Print the CRD (with its complete openAPIV3Schema) that every rendered Job "
        "validates against, with the group, version, kind and resource names of the site profile "
        "(--site; the shipped example's otherwise, and it says so).",
    )
    crd.set_defaults(run=run_crd)
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
    say(rules_text(args.markdown, args.lang))
    return 0
