"""``rlark-migrate check``: schema and rules on an existing Job YAML."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..backends.base import BackendError
from ..findings import Finding, has_errors
from ..input_files import InputFileError, read_input_text
from ..pipeline import given_job, given_kuberay, inspect
from ..rlark.build import recorded_overrides
from ..rlark.inventory import Inventory
from ..rlark.kuberay import is_kuberay
from ..rlark.schema import schema_findings
from ..rlark.site import SiteProfile
from ..rlark.yaml_io import JobYamlError, job_from_manifest, load_manifest
from .config_args import add_config_arguments, print_error
from .plan_cmd import add_live_arguments, load_inventory_arg, site_json
from .plan_request import has_config, plan_request
from .render import findings_text
from .site_args import provenance_line, site_of
from .terminal import say


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check",
        help="check an RLark Job (or KubeRay RayJob/RayCluster) YAML against its schema and the rules",
        description="Validate a Job YAML (ours, or the YAML the RLark console previews) against "
        "the Job schema of the site profile and run the rule catalogue. Fields our schema does not "
        "know are reported as infos (JOB-UNKNOWN-FIELD), and as errors (JOB-NOT-KEPT) when the Job "
        "could not submit them as written; every key and value, and the file's comments, are "
        "scanned for secrets. "
        "A KubeRay RayJob/RayCluster is validated against KubeRay v1.7.0's CRDs and gets the rules "
        "that apply to it (secrets, images, mounts, selectors, GPU and device coverage, "
        "RLINF_NODE_RANK). "
        "With --config, the PLN rules compare it with the RLinf config (Workers vs num_nodes, GPUs "
        "and devices per RLINF_NODE_RANK), composed with the overrides the Job records (its "
        "annotation and run script; --override on the command line wins). Exit code 1 when an "
        "error finding exists.",
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
    site = site_of(args)
    try:
        inventory = load_inventory_arg(args)
    except BackendError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return 1
    try:
        text = read_input_text(args.job)
        manifest = load_manifest(text)
    except (InputFileError, JobYamlError) as exc:
        print_error(exc.text, exc.fix_text, args.lang, path=args.job)
        return 1
    if is_kuberay(manifest):
        return _report(args, _kuberay_findings(args, manifest, inventory, site), site)
    try:
        job = job_from_manifest(manifest, site)
    except JobYamlError as exc:
        if not schema_findings(manifest, site, unknown_as_info=True):  # the only explanation
            print_error(exc.text, exc.fix_text, args.lang, path=args.job)
            # ... and what it holds is still scanned: a secret there is a secret
            unread = given_job(None, site=site, document=manifest, text=text).findings
            if unread:
                say(findings_text(unread, args.lang))
            return 1
        job = None
    report = None
    if has_config(args):
        request = plan_request(args, recorded=recorded_overrides(job))
        if request is None:
            return 1
        report = inspect(request.config, request.gpus)
    findings = given_job(
        job,
        report,
        inventory,
        target_cluster=args.cluster,
        site=site,
        unknown_as_info=True,
        document=manifest,
        text=text,
    ).findings
    return _report(args, findings, site)


def _kuberay_findings(
    args: argparse.Namespace,
    manifest: dict[str, Any],
    inventory: Inventory | None,
    site: SiteProfile,
) -> list[Finding] | None:
    """KubeRay's schema and the rules that apply; None when the config cannot be read."""
    report = None
    if has_config(args):
        request = plan_request(args)
        if request is None:
            return None
        report = inspect(request.config, request.gpus)
    return given_kuberay(manifest, report, inventory, target_cluster=args.cluster, site=site)


def _report(args: argparse.Namespace, findings: list[Finding] | None, site: SiteProfile) -> int:
    if findings is None:
        return 1
    if args.json:
        say(
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
        say(provenance_line(site, args.lang))
        say(findings_text(findings, args.lang))
    return 1 if has_errors(findings) else 0
