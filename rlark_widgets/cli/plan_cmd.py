"""``rlark-migrate plan``: roles, node-rank map, GPUs and devices, the Job YAML and findings."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from ..backends import backend_policies, open_backend, policy_of
from ..backends.base import BackendError
from ..findings import has_errors
from ..i18n import Text, render
from ..input_files import InputFileError, read_input_text
from ..pipeline import given_job, inspect, plan_job
from ..rlark.build import recorded_overrides
from ..rlark.inventory import Inventory, InventoryError, load_inventory
from ..rlark.planned import PlannedJob
from ..rlark.planner import TEMPLATES, RolePlan
from ..rlark.record import RecordError, build_record
from ..rlark.secrets import redact_document
from ..rlark.site import SiteProfile
from ..rlark.yaml_io import JobYamlError, job_from_manifest, load_manifest, render_job_yaml
from .config_args import UsageError, add_config_arguments, exc_text, print_error, wrote_output
from .output_args import add_force_argument, add_output_argument, command_inputs
from .plan_request import has_config, plan_request
from .render import findings_text, plan_text
from .site_args import provenance_line, site_of
from .terminal import say


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "plan",
        help="plan the RLark roles and Job for an RLinf config",
        description="Plan RLark roles from an RLinf config (one Header at RLINF_NODE_RANK 0, then "
        "Worker roles of nodes with equal needs), build the Job and check it. Prints the role "
        "table, the node-rank map, GPUs and devices per Worker, explanations and findings. "
        "Exit code 1 when an error finding exists.",
    )
    add_config_arguments(parser)
    add_job_arguments(parser)
    add_live_arguments(parser)
    add_output_argument(parser, "JOB.yaml", "write the Job YAML here ('-': to stdout)")
    parser.add_argument("--record", metavar="DIR|FILE.zip", help="export the run record here")
    add_force_argument(parser)
    parser.add_argument("--json", action="store_true", help="print roles, Job and findings as JSON")
    parser.set_defaults(run=run)


def _live_kinds() -> tuple[str, ...]:
    """The backends whose live nodes a plan can be checked against (their policies say)."""
    return tuple(p.kind for p in backend_policies() if p.live_inventory)


def add_live_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend KIND``: plan against a live cluster's nodes instead of a file."""
    live = parser.add_argument_group("live cluster")
    kinds = ", ".join(_live_kinds())
    live.add_argument(
        "--backend",
        choices=_live_kinds(),
        help=f"{kinds}: read the nodes and StorageClasses from your cluster (no --inventory)",
    )
    live.add_argument("--context", help=f"{kinds}: kubeconfig context (default: the current one)")
    live.add_argument(
        "--kubeconfig", help=f"{kinds}: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"
    )


def add_job_arguments(parser: argparse.ArgumentParser, namespace: bool = True) -> None:
    """Plan and Job options; ``namespace=False`` when the backend options already take it."""
    job = parser.add_argument_group("RLark Job")
    job.add_argument(
        "--inventory",
        metavar="NODES.yaml",
        help="nodes of the target clusters (labels, GPUs, devices)",
    )
    job.add_argument("--cluster", metavar="NAME", help="target cluster in the inventory")
    job.add_argument(
        "--template", choices=sorted(TEMPLATES), help="console task-type template to start from"
    )
    job.add_argument("--name", help="Job name (default: from the config name)")
    if namespace:
        job.add_argument(
            "--namespace", default="default", help="Kubernetes namespace (default: default)"
        )
    job.add_argument(
        "--image", default="", help="image reference; an explicit tag or @sha256 digest"
    )
    job.add_argument(
        "--rlinf-dir",
        help="RLinf checkout inside the image (default: the site profile's rlinfDir)",
    )
    job.add_argument(
        "--prepare", default="", metavar="SCRIPT", help="prepare script for every role"
    )
    job.add_argument(
        "--storage",
        action="append",
        default=[],
        metavar="CLASS:/PATH[:ro]",
        help="object-storage mount: StorageClass and container path (':ro': read-only); repeatable",
    )
    job.add_argument(
        "--host-path",
        action="append",
        default=[],
        metavar="/SRC:/PATH[:ro]",
        help="node directory mount (':ro': read-only); repeatable",
    )
    job.add_argument(
        "--output-dir",
        metavar="/PATH",
        help="container path (under a mount) for checkpoints and logs",
    )
    job.add_argument(
        "--tensorboard",
        metavar="/PATH",
        help="TensorBoard log dir (RLark may add a helper container for it)",
    )
    job.add_argument("--rlinf-commit", help="RLinf commit for the run record")
    job.add_argument("--image-digest", help="digest of the image tag for the run record")


def load_inventory_arg(args: argparse.Namespace) -> Inventory | None:
    """--inventory read through the site profile; else the live nodes of --backend (a backend
    with a live inventory; a failure to reach it raises BackendError); else None."""
    site = site_of(args)
    if getattr(args, "inventory", None):
        try:
            return load_inventory(args.inventory, site)
        except InventoryError as exc:
            raise UsageError(f"--inventory: {render(exc_text(exc), args.lang)}") from None
    kind = getattr(args, "backend", None)
    if kind is not None and policy_of(kind).live_inventory:
        backend = open_backend(
            kind,
            context=args.context,
            namespace=getattr(args, "namespace", None),
            kubeconfig=args.kubeconfig,
            site=site,
        )
        return backend.inventory()
    return None


def planned_from_args(
    args: argparse.Namespace, inventory: Inventory | None = None, *, console: bool = False
) -> PlannedJob | None:
    """A Job YAML checked (against --config when given), or a Job planned from --config.

    None when the config cannot be read (already said); ``job`` None when RLinf rejects the
    placement (the findings say why). For ``submit``, ``export``, ``sheet`` and
    ``admin-request``, which take either; ``console``: a Job YAML may be the console's preview
    (fields our schema does not know are infos, as ``check`` says, not errors).
    """
    if args.job:
        return _given_from_args(args, inventory, console=console)
    if not has_config(args):
        raise UsageError(Text("give a Job YAML or --config CONFIG to plan one"))
    request = plan_request(args, inventory=inventory)
    return None if request is None else plan_job(request)


def _given_from_args(
    args: argparse.Namespace, inventory: Inventory | None, *, console: bool
) -> PlannedJob | None:
    """The Job YAML ``args.job`` checked, against the request --config describes when given."""
    site = site_of(args)
    try:
        text = read_input_text(args.job)
        manifest = load_manifest(text)
        job = job_from_manifest(manifest, site)
    except (InputFileError, JobYamlError) as exc:
        print_error(exc.text, exc.fix_text, args.lang, path=args.job)
        return None
    report = None
    if has_config(args):
        request = plan_request(args, recorded=recorded_overrides(job))
        if request is None:
            return None
        report = inspect(request.config, request.gpus)
    return given_job(
        job,
        report,
        inventory,
        target_cluster=args.cluster,
        site=site,
        unknown_as_info=console,
        document=manifest,
        text=text,
    )


def run(args: argparse.Namespace) -> int:
    request = plan_request(args)  # usage errors and the config before a live cluster is asked
    if request is None:
        return 1
    try:
        inventory = load_inventory_arg(args)
    except BackendError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return 1
    planned = plan_job(replace(request, inventory=inventory))
    plan, job, findings = planned.plan, planned.job, planned.findings
    assert plan is not None  # planned from a config
    to_stdout = args.output == "-"
    if job is not None:
        if args.output and not to_stdout and not wrote_output(args, render_job_yaml(job)):
            return 1
        if args.record:
            try:
                build_record(plan, job, findings, planned.facts, site=planned.site).write(
                    args.record, force=args.force, inputs=command_inputs(args)
                )
            except RecordError as exc:
                print_error(exc.text, exc.fix_text, args.lang)
                return 1
    if args.json:
        say(
            json.dumps(
                {
                    "ok": plan.ok and not has_errors(findings),
                    "roles": [_role_json(r, args.lang) for r in plan.roles],
                    "rank_map": [
                        {"rlinf_node_rank": r, "role": n, "worker": i}
                        for r, n, i in plan.rank_map()
                    ],
                    "explanations": [render(e, args.lang) for e in plan.explanations],
                    "job": redact_document(job.to_manifest()) if job else None,
                    "findings": [f.to_dict(args.lang) for f in findings],
                    "site": site_json(planned.site, args.lang),
                },
                indent=2,
                default=str,
            )
        )
    elif to_stdout:  # `-o -`: the Job YAML alone, for a pipe; the rest goes to stderr
        if job is not None:
            say(render_job_yaml(job), end="")
        say(findings_text(findings, args.lang), err=True)
    else:
        say(provenance_line(planned.site, args.lang))
        say(plan_text(plan, args.lang))
        if job is not None and not args.output:
            say("\n" + Text("Job YAML").render(args.lang) + "\n" + render_job_yaml(job))
        say("\n" + Text("Findings").render(args.lang) + "\n" + findings_text(findings, args.lang))
    return 1 if has_errors(findings) or not plan.ok else 0


def _role_json(role: RolePlan, lang: str) -> dict[str, Any]:
    return {
        "name": role.name,
        "head": role.head,
        "workers": role.replicas,
        "rlinf_node_ranks": list(role.node_ranks),
        "gpus_per_worker": role.gpus,
        "devices": role.devices,
        "env": sorted(role.env),
        "node_selector": role.node_selector,
        "matched_nodes": role.matched_nodes,
        "why": [render(w, lang) for w in role.why],
    }


def site_json(site: SiteProfile, lang: str) -> dict[str, Any]:
    """The profile's name, source and which values are the shipped example's."""
    return {
        "name": site.name,
        "source": site.source,
        "example": site.is_example,
        "example_fields": sorted(site.example_fields),
        "note": render(site.provenance(), lang),
    }
