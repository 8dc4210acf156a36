"""Choosing and opening a backend from the command line (imports are lazy: Ray and kubernetes are slow)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..backends.base import Backend, default_workspace

DEFAULT_WORKSPACE = default_workspace()


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("backend")
    group.add_argument(
        "--backend",
        choices=("local", "kubernetes", "kuberay"),
        default="local",
        help="local: real Ray nodes on this machine (default); kubernetes: your cluster (RLark);"
        " kuberay: your cluster's KubeRay (RayJob/RayCluster)",
    )
    group.add_argument(
        "--workspace",
        type=Path,
        default=DEFAULT_WORKSPACE,
        help=f"local backend: where Jobs run (default {DEFAULT_WORKSPACE}, or $RLARK_WORKSPACE)",
    )
    group.add_argument(
        "--context", help="kubernetes: kubeconfig context (default: the current one)"
    )
    group.add_argument("--namespace", help="kubernetes: namespace (default: the context's)")
    group.add_argument(
        "--kubeconfig", help="kubernetes: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"
    )


def open_backend(args: argparse.Namespace) -> Backend:
    """The backend the arguments name; raises BackendError when it cannot be reached."""
    if args.backend == "kuberay":
        from ..backends.kuberay import KubeRayBackend
        from .kuberay_args import export_options

        return KubeRayBackend.from_kubeconfig(
            context=args.context,
            namespace=args.namespace,
            config_file=args.kubeconfig,
            options=export_options(args),  # submit's KubeRay options; defaults elsewhere
        )
    if args.backend == "kubernetes":
        from ..backends.kube.backend import KubernetesBackend

        return KubernetesBackend.from_kubeconfig(
            context=args.context, namespace=args.namespace, config_file=args.kubeconfig
        )
    from ..backends.local.backend import LocalBackend

    return LocalBackend(args.workspace, run_timeout=getattr(args, "run_timeout", None))
