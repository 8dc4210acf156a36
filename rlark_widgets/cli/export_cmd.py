"""``rlark-migrate export``: the same plan as KubeRay ``ray.io/v1`` RayJob or RayCluster YAML."""

from __future__ import annotations

import argparse

from ..findings import has_errors
from ..i18n import Text
from ..pipeline import export_kuberay
from ..rlark.yaml_io import dump_yaml
from .config_args import add_config_arguments, wrote_output
from .kuberay_args import add_kuberay_arguments, export_options
from .output_args import add_output_argument
from .plan_cmd import add_job_arguments, load_inventory_arg, planned_from_args
from .render import findings_text
from .terminal import say


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    add_config_arguments(parser, positional=False)
    add_job_arguments(parser)
    kuberay = parser.add_argument_group("KubeRay")
    kuberay.add_argument(
        "--to", choices=("kuberay",), default="kuberay", help="target (kuberay: ray.io/v1)"
    )
    add_kuberay_arguments(kuberay)
    add_output_argument(parser, "FILE", "write the YAML here")
    parser.set_defaults(run=run, namespace=None)  # a Job YAML keeps its own unless given


def run(args: argparse.Namespace) -> int:
    options = export_options(args)
    planned = planned_from_args(args, load_inventory_arg(args))
    if planned is None:
        return 1
    if planned.job is not None and args.namespace:
        planned.job.namespace = args.namespace
    exported = export_kuberay(planned, options)
    findings = exported.findings
    shown = findings_text(findings, args.lang)
    if exported.manifest is not None:
        text = dump_yaml(exported.manifest)
        if args.output:
            if not wrote_output(args, text):
                return 1
            say(
                Text("Wrote {kind} to {path}", kind=options.kind, path=args.output).render(
                    args.lang
                )
            )
            say(shown)
        else:
            say(text, end="")
            say(shown, err=True)
    else:
        say(shown, err=True)
    return 1 if exported.manifest is None or has_errors(findings) else 0
