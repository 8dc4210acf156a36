"""KubeRay's own choices on the command line: ``export`` and ``submit --backend kuberay``."""

from __future__ import annotations

import argparse

from ..i18n import Text
from ..rlark.kuberay import KINDS, ExportOptions
from .config_args import UsageError
from .numbers import count


def add_kuberay_arguments(group: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    """KubeRay's own choices (export, and the kuberay backend's submit)."""
    group.add_argument(
        "--kind", choices=KINDS, default="RayJob", help="kuberay: RayJob (default) or RayCluster"
    )
    group.add_argument(
        "--keep-cluster",
        action="store_true",
        help="RayJob: keep the RayCluster after the job ends (shutdownAfterJobFinishes: false)",
    )
    group.add_argument(
        "--ttl-seconds-after-finished",
        type=count(),
        default=600,
        metavar="S",
        help="RayJob: seconds KubeRay keeps the pods after the job ends (default 600)",
    )
    group.add_argument(
        "--active-deadline-seconds",
        type=count(low=1),
        metavar="S",
        help="RayJob: fail the job after this long (default: no limit)",
    )
    group.add_argument(
        "--claim",
        action="append",
        default=[],
        metavar="MOUNT=CLAIM",
        help="an existing PVC for an object-storage mount (KubeRay creates none); repeatable",
    )
    group.add_argument("--ray-version", help="spec.rayVersion (the image's Ray version)")


def export_options(args: argparse.Namespace) -> ExportOptions:
    """The options as given; commands that take none (status, stop) get the defaults."""
    if not hasattr(args, "kind"):
        return ExportOptions()
    claims = {}
    for item in args.claim:
        mount, sep, claim = item.partition("=")
        if not sep or not mount or not claim:
            raise UsageError(Text("--claim takes MOUNT=CLAIM, got {item}", item=repr(item)))
        claims[mount] = claim
    return ExportOptions(
        kind=args.kind,
        shutdown_after_job_finishes=not args.keep_cluster,
        ttl_seconds_after_finished=args.ttl_seconds_after_finished,
        active_deadline_seconds=args.active_deadline_seconds,
        claims=claims,
        ray_version=args.ray_version,
    )
