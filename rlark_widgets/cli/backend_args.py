"""Choosing a backend on the command line; :func:`~..backends.open_backend` opens it.

The choices, and which options reach which backend, come from the registered backends'
policies, so a backend added in ``backends/`` is offered here unchanged.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..backends import backend_kinds, backend_policies, open_backend, policy_of
from ..backends.base import Backend, default_workspace
from ..backends.policy import BackendKind, Connection
from ..i18n import render
from .kuberay_args import export_options
from .site_args import site_of

DEFAULT_WORKSPACE = default_workspace()


def _takers(option: Connection) -> str:
    """The kinds that take ``option``, for its help."""
    return ", ".join(p.kind for p in backend_policies() if p.takes(option))


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("backend")
    group.add_argument(
        "--backend",
        choices=backend_kinds(),
        default=BackendKind.LOCAL.value,
        help="; ".join(f"{p.kind}: {render(p.summary)}" for p in backend_policies())
        + f" (default {BackendKind.LOCAL.value})",
    )
    group.add_argument(
        "--workspace",
        type=Path,
        default=DEFAULT_WORKSPACE,
        help=f"{_takers(Connection.WORKSPACE)}: where Jobs run (default {DEFAULT_WORKSPACE},"
        " or $RLARK_WORKSPACE), shared by every rlark-widgets process of this user: a Job name"
        " is one Job there",
    )
    group.add_argument(
        "--context",
        help=f"{_takers(Connection.CONTEXT)}: kubeconfig context (default: the current one)",
    )
    group.add_argument(
        "--namespace", help=f"{_takers(Connection.NAMESPACE)}: namespace (default: the context's)"
    )
    group.add_argument(
        "--kubeconfig",
        metavar="FILE",
        help=f"{_takers(Connection.KUBECONFIG)}: kubeconfig file (default: $KUBECONFIG or"
        " ~/.kube/config)",
    )


def backend_from_args(args: argparse.Namespace) -> Backend:
    """The backend the arguments name; raises BackendError when it cannot be reached."""
    takes = policy_of(args.backend).takes
    return open_backend(
        args.backend,
        workspace=args.workspace,
        run_timeout=getattr(args, "run_timeout", None),
        context=args.context,
        namespace=args.namespace,
        kubeconfig=args.kubeconfig,
        kuberay=export_options(args) if takes(Connection.EXPORT) else None,
        site=site_of(args),
    )


def backend_flags(args: argparse.Namespace) -> str:
    """The backend options that reach the same Job again (for the commands printed next): the
    backend, and the workspace of a backend whose Jobs live in one."""
    workspace = policy_of(args.backend).takes(Connection.WORKSPACE)
    return f"--backend {args.backend}" + (f" --workspace {args.workspace}" if workspace else "")
