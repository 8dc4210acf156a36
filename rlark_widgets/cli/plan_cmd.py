"""``rlark-migrate plan``: roles, node-rank map, GPUs and devices, the Job YAML and findings."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..contract import DEFAULT_RLINF_DIR, OUTPUT_MOUNT
from ..findings import has_errors
from ..i18n import Text, render
from ..pipeline import PlannedJob, PlanRequest, plan_job
from ..rlark.build import JobSettings
from ..rlark.facts import RecordFacts
from ..rlark.inventory import Inventory, InventoryError, load_inventory
from ..rlark.job import Mount
from ..rlark.planner import TEMPLATES, RolePlan
from ..rlark.record import RecordError, build_record
from ..rlark.secrets import redact
from ..rlark.yaml_io import render_job_yaml
from .config_args import (
    UsageError,
    add_config_arguments,
    exc_text,
    gpu_layout,
    load_from_args,
    print_error,
)
from .render import findings_text, plan_text


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "plan",
        help="plan the RLark roles and Job for an RLinf config",
        description="Plan RLark roles from an RLinf config (one Header at RLINF_NODE_RANK 0, then "
        "Worker roles of nodes with equal needs), build the Job and check it. Prints the role "
        "table, the node-rank map, GPUs and devices per Worker, explanations and findings. "
        "Exit code 1 when an error finding exists.",
    )
    add_config_arguments(parser, override_short=False)
    add_job_arguments(parser)
    parser.add_argument("-o", "--output", metavar="JOB.yaml", help="write the Job YAML here")
    parser.add_argument("--record", metavar="DIR|FILE.zip", help="export the run record here")
    parser.add_argument("--json", action="store_true", help="print roles, Job and findings as JSON")
    parser.set_defaults(run=run)


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
        "--rlinf-dir", default=DEFAULT_RLINF_DIR, help="RLinf checkout inside the image"
    )
    job.add_argument(
        "--prepare", default="", metavar="SCRIPT", help="prepare script for every role"
    )
    job.add_argument(
        "--storage",
        action="append",
        default=[],
        metavar="CLASS:/PATH",
        help="object-storage mount: StorageClass and container path; repeatable",
    )
    job.add_argument(
        "--host-path",
        action="append",
        default=[],
        metavar="/SRC:/PATH",
        help="node directory mount; repeatable",
    )
    job.add_argument(
        "--output-dir",
        metavar="/PATH",
        help="container path (under a mount) for checkpoints and logs",
    )
    job.add_argument("--tensorboard", metavar="/PATH", help="TensorBoard log dir (adds a sidecar)")
    job.add_argument("--rlinf-commit", help="RLinf commit for the run record")
    job.add_argument("--image-digest", help="digest of the image tag for the run record")


def _mounts(args: argparse.Namespace) -> list[Mount]:
    mounts = []
    for index, item in enumerate(args.storage):
        source, sep, path = item.partition(":")
        if not sep:
            raise UsageError(Text("--storage takes CLASS:/PATH, got {item}", item=repr(item)))
        mounts.append(Mount(f"storage-{index}" if index else OUTPUT_MOUNT, "storage", source, path))
    for index, item in enumerate(args.host_path):
        source, sep, path = item.partition(":")
        if not sep:
            raise UsageError(Text("--host-path takes /SRC:/PATH, got {item}", item=repr(item)))
        mounts.append(Mount(f"host-{index}", "hostPath", source, path))
    return mounts


def load_inventory_arg(args: argparse.Namespace) -> Inventory | None:
    if not args.inventory:
        return None
    try:
        return load_inventory(args.inventory)
    except InventoryError as exc:
        raise UsageError(f"--inventory: {render(exc_text(exc), args.lang)}") from None


def request_from_args(
    args: argparse.Namespace, inventory: Inventory | None = None
) -> PlanRequest | None:
    """The plan request the options describe (None when the config fails to load: printed)."""
    config = load_from_args(args)
    if config is None:
        return None
    settings = JobSettings(
        name=args.name,
        namespace=args.namespace or "default",
        image=args.image,
        rlinf_dir=args.rlinf_dir,
        prepare_script=args.prepare,
        mounts=_mounts(args),
        output_mount=args.output_dir,
        tensorboard_log_dir=args.tensorboard,
    )
    return PlanRequest(
        config,
        gpu_layout(args),
        inventory,
        template=args.template,
        target_cluster=args.cluster,
        settings=settings,
        facts=RecordFacts(rlinf_commit=args.rlinf_commit, image_digest=args.image_digest),
    )


def plan_from_args(
    args: argparse.Namespace, inventory: Inventory | None = None
) -> PlannedJob | None:
    """Load the config, plan its roles and build and check the Job (None if the config fails)."""
    request = request_from_args(args, inventory)
    return None if request is None else plan_job(request)


def run(args: argparse.Namespace) -> int:
    gpu_layout(args)  # usage errors before any slow work
    planned = plan_from_args(args, load_inventory_arg(args))
    if planned is None:
        return 1
    plan, job, findings = planned.plan, planned.job, planned.findings
    assert plan is not None  # planned from a config
    if job is not None:
        if args.output:
            Path(args.output).write_text(redact(render_job_yaml(job)), encoding="utf-8")
        if args.record:
            try:
                build_record(plan, job, findings, planned.facts).write(args.record)
            except RecordError as exc:
                print_error(exc_text(exc), "", args.lang)
                return 1
    if args.json:
        print(
            json.dumps(
                {
                    "ok": plan.ok and not has_errors(findings),
                    "roles": [_role_json(r, args.lang) for r in plan.roles],
                    "rank_map": [
                        {"rlinf_node_rank": r, "role": n, "worker": i}
                        for r, n, i in plan.rank_map()
                    ],
                    "explanations": [render(e, args.lang) for e in plan.explanations],
                    "job": job.to_manifest() if job else None,
                    "findings": [f.to_dict(args.lang) for f in findings],
                },
                indent=2,
                default=str,
            )
        )
    else:
        print(plan_text(plan, args.lang))
        if job is not None and not args.output:
            print("\n" + Text("Job YAML").render(args.lang) + "\n" + redact(render_job_yaml(job)))
        print("\n" + Text("Findings").render(args.lang) + "\n" + findings_text(findings, args.lang))
    return 1 if has_errors(findings) or not plan.ok else 0


def _role_json(role: RolePlan, lang: str) -> dict:
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
