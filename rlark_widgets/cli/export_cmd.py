"""``rlark-migrate export``: the same plan as KubeRay ``ray.io/v1`` RayJob or RayCluster YAML."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..findings import Finding, has_errors
from ..i18n import Text, render
from ..rlark.check import check_job
from ..rlark.kuberay import export_checked
from ..rlark.secrets import redact
from ..rlark.yaml_io import JobYamlError, dump_yaml, parse_job_yaml
from ..rlinf import ConfigReport, inspect_config
from .config_args import (
    UsageError,
    add_config_arguments,
    exc_text,
    gpu_layout,
    has_config,
    load_from_args,
)
from .kuberay_args import add_kuberay_arguments, export_options
from .plan_cmd import add_job_arguments, load_inventory_arg, plan_from_args
from .render import findings_text


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export",
        help="export a Job (a Job YAML, or plan one from --config) as KubeRay RayJob/RayCluster",
        description="Write the same plan as a KubeRay ray.io/v1 manifest: the Header role becomes "
        "the head group, the other roles worker groups (one per node rank where RLinf needs "
        "RLINF_NODE_RANK on every node, i.e. with cluster.node_groups), each with its image, env, "
        "prepare script (run before KubeRay's `ray start`), nodeSelector, GPU and device limits, "
        "volumes and rayStartParams. A RayJob's entrypoint is the run script. The manifest is "
        "validated against KubeRay v1.7.0's CRDs. The YAML goes to stdout (findings to stderr) "
        "or to -o FILE. Exit code 1 when an error finding exists.",
    )
    parser.add_argument("job", nargs="?", metavar="JOB.yaml", help="a Job YAML (or use --config)")
    add_config_arguments(parser, positional=False, override_short=False)
    add_job_arguments(parser)
    kuberay = parser.add_argument_group("KubeRay")
    kuberay.add_argument(
        "--to", choices=("kuberay",), default="kuberay", help="target (kuberay: ray.io/v1)"
    )
    add_kuberay_arguments(kuberay)
    parser.add_argument("-o", "--output", metavar="FILE", help="write the YAML here")
    parser.set_defaults(run=run, namespace=None)  # a Job YAML keeps its own unless given


def _job(args: argparse.Namespace, inventory):
    """(Job, report, findings so far) from a Job YAML or a config; None when planning failed."""
    if args.job:
        try:
            job = parse_job_yaml(Path(args.job).read_text(encoding="utf-8"))
        except (OSError, JobYamlError) as exc:
            raise UsageError(f"{args.job}: {render(exc_text(exc), args.lang)}") from None
        report: ConfigReport | None = None
        if has_config(args):
            config = load_from_args(args)
            if config is None:
                return None
            report = inspect_config(config, gpu_layout(args), search_gpus=False)
        job.namespace = args.namespace or job.namespace
        return job, report, list(report.findings) if report else []
    if not has_config(args):
        raise UsageError(Text("give a Job YAML or --config CONFIG to plan one"))
    planned = plan_from_args(args, inventory)
    if planned is None:
        return None
    before: list[Finding] = [*planned.report.findings, *planned.plan.findings]
    if planned.job is None:
        print(findings_text(planned.findings, args.lang), file=sys.stderr)
        return None
    return planned.job, planned.report, before


def run(args: argparse.Namespace) -> int:
    options = export_options(args)
    inventory = load_inventory_arg(args)
    built = _job(args, inventory)
    if built is None:
        return 1
    job, report, findings = built
    exported = export_checked(job, report, inventory, options, target_cluster=args.cluster)
    findings += exported.findings
    if exported.manifest is None:  # the Job's own check says why in more words
        findings += [f for f in check_job(job, report, inventory) if f.rule_id.startswith("PLN-")]
    shown = findings_text(findings, args.lang)
    if exported.manifest is not None:
        text = redact(dump_yaml(exported.manifest))
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            print(
                Text("Wrote {kind} to {path}", kind=options.kind, path=args.output).render(
                    args.lang
                )
            )
            print(shown)
        else:
            print(text, end="")
            print(shown, file=sys.stderr)
    else:
        print(shown, file=sys.stderr)
    return 1 if exported.manifest is None or has_errors(findings) else 0
