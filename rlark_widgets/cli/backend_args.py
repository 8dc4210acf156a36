"""Choosing a backend on the command line; :func:`~..backends.open_backend` opens it."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..backends import BACKEND_NAMES, open_backend
from ..backends.base import Backend, default_workspace
from .kuberay_args import export_options
from .site_args import site_from_args

DEFAULT_WORKSPACE = default_workspace()


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("backend")
    group.add_argument(
        "--backend",
        choices=BACKEND_NAMES,
        default="local",
        help="local: real Ray nodes on this machine (default); kubernetes: your cluster (RLark);"
        " kuberay: your cluster's KubeRay (RayJob/RayCluster)",
    )
    group.add_argument(
        "--workspace",
        type=Path,
        default=DEFAULT_WORKSPACE,
        help=f"local backend: where Jobs run (default {DEFAULT_WORKSPACE}, or $RLARK_WORKSPACE),"
        " shared by every rlark-widgets process of this user: a Job name is one Job there",
    )
    group.add_argument(
        "--context", help="kubernetes, kuberay: kubeconfig context (default: the current one)"
    )
    group.add_argument(
        "--namespace", help="kubernetes, kuberay: namespace (default: the context's)"
    )
    group.add_argument(
        "--kubeconfig",
        metavar="FILE",
        help="kubernetes, kuberay: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)",
    )


def backend_from_args(args: argparse.Namespace) -> Backend:
    """The backend the arguments name; raises BackendError when it cannot be reached."""
    return open_backend(
        args.backend,
        workspace=args.workspace,
        run_timeout=getattr(args, "run_timeout", None),
        context=args.context,
        namespace=args.namespace,
        kubeconfig=args.kubeconfig,
        kuberay=export_options(args) if args.backend == "kuberay" else None,
        site=site_from_args(args),
    )
