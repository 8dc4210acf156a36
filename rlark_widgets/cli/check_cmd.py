"""``rlark-migrate check``: schema and rules on an existing Job YAML."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..findings import has_errors
from ..pipeline import given_job, inspect
from ..rlark.schema import schema_findings
from ..rlark.yaml_io import JobYamlError, load_manifest, parse_job_yaml
from .config_args import (
    add_config_arguments,
    exc_text,
    gpu_layout,
    has_config,
    load_from_args,
    print_error,
)
from .plan_cmd import load_inventory_arg
from .render import findings_text


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "check",
        help="check an RLark Job YAML against the schema and the rules",
        description="Validate a Job YAML against the jobs.rlark.io schema and run the rule catalogue. "
        "With --config, the PLN rules compare it with the RLinf config (Workers vs num_nodes, GPUs "
        "and devices per RLINF_NODE_RANK). Exit code 1 when an error finding exists.",
    )
    parser.add_argument("job", metavar="JOB.yaml", help="the Job YAML to check")
    add_config_arguments(parser, positional=False)
    parser.add_argument(
        "--inventory", metavar="NODES.yaml", help="nodes to check node selections against"
    )
    parser.add_argument("--cluster", metavar="NAME", help="target cluster in the inventory")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    inventory = load_inventory_arg(args)
    try:
        text = Path(args.job).read_text(encoding="utf-8")
        manifest = load_manifest(text)
    except (OSError, UnicodeDecodeError, JobYamlError) as exc:
        print_error(exc_text(exc), "", args.lang, path=args.job)
        return 1
    findings = schema_findings(manifest)
    try:
        job = parse_job_yaml(text)
    except JobYamlError as exc:
        if not findings:  # the schema found nothing, so this error is the only explanation
            print_error(exc.text, exc.fix_text, args.lang, path=args.job)
            return 1
        job = None
    report = None
    if has_config(args):
        config = load_from_args(args)
        if config is None:
            return 1
        report = inspect(config, gpu_layout(args))
    if job is not None:
        planned = given_job(job, report, inventory, target_cluster=args.cluster)
        findings += [f for f in planned.findings if f.rule_id != "JOB-SCHEMA"]
    elif report is not None:
        findings += report.findings
    if args.json:
        print(
            json.dumps(
                {
                    "ok": not has_errors(findings),
                    "findings": [f.to_dict(args.lang) for f in findings],
                },
                indent=2,
            )
        )
    else:
        print(findings_text(findings, args.lang))
    return 1 if has_errors(findings) else 0
