"""``rlark-migrate check``: schema and rules on an existing Job YAML."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..backends.base import BackendError
from ..findings import has_errors
from ..pipeline import given_job, inspect
from ..rlark.schema import UNKNOWN_FIELD_RULE, schema_findings
from ..rlark.yaml_io import JobYamlError, load_manifest, parse_job_yaml
from .config_args import (
    add_config_arguments,
    exc_text,
    gpu_layout,
    has_config,
    load_from_args,
    print_error,
)
from .plan_cmd import add_live_arguments, load_inventory_arg, site_json
from .render import findings_text
from .site_args import provenance_line, site_from_args


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "check",
        help="check an RLark Job YAML against the schema and the rules",
        description="Validate a Job YAML (ours, or the YAML the RLark console previews) against "
        "the Job schema of the site profile and run the rule catalogue. Fields our schema does not "
        "know are kept and reported as infos (JOB-UNKNOWN-FIELD), not schema errors. With --config, the PLN rules compare it with the RLinf config (Workers vs num_nodes, GPUs "
        "and devices per RLINF_NODE_RANK). Exit code 1 when an error finding exists.",
    )
    parser.add_argument("job", metavar="JOB.yaml", help="the Job YAML to check")
    add_config_arguments(parser, positional=False)
    parser.add_argument(
        "--inventory", metavar="NODES.yaml", help="nodes to check node selections against"
    )
    parser.add_argument("--cluster", metavar="NAME", help="target cluster in the inventory")
    add_live_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    site = site_from_args(args)
    try:
        inventory = load_inventory_arg(args)
    except BackendError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return 1
    try:
        text = Path(args.job).read_text(encoding="utf-8")
        manifest = load_manifest(text)
    except (OSError, UnicodeDecodeError, JobYamlError) as exc:
        print_error(exc_text(exc), "", args.lang, path=args.job)
        return 1
    findings = schema_findings(manifest, site, unknown_as_info=True)
    try:
        job = parse_job_yaml(text, site)
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
        planned = given_job(
            job, report, inventory, target_cluster=args.cluster, site=site, unknown_as_info=True
        )
        schema = ("JOB-SCHEMA", UNKNOWN_FIELD_RULE)  # already listed above
        findings += [f for f in planned.findings if f.rule_id not in schema]
    elif report is not None:
        findings += report.findings
    if args.json:
        print(
            json.dumps(
                {
                    "ok": not has_errors(findings),
                    "findings": [f.to_dict(args.lang) for f in findings],
                    "site": site_json(site, args.lang),
                },
                indent=2,
            )
        )
    else:
        print(provenance_line(site, args.lang))
        print(findings_text(findings, args.lang))
    return 1 if has_errors(findings) else 0
