"""The one parse of a command's config and plan options into the Session's ``PlanRequest``.

Every command that plans from an RLinf config (``plan``, ``inspect``, ``check --config``,
``export``, ``sheet``, ``admin-request`` and ``submit`` with ``--config``) calls
:func:`plan_request` once; no command reads a config or plan option below it, so the GPU
layout, the overrides and the Job settings are parsed once and the CLI plans from the same
typed request the app builds from its fields.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..contract import OUTPUT_MOUNT
from ..i18n import Text
from ..pipeline import PlanRequest
from ..rlark.build import JobSettings, merge_overrides
from ..rlark.facts import RecordFacts
from ..rlark.inventory import Inventory
from ..rlark.job import Mount
from ..rlark.text_fields import FieldTextError, parse_pairs
from ..rlinf import RLinfConfig, RLinfConfigError, compose_config, load_config, rlinf_repo_env
from ..rlinf.topology import GpuLayout, GpuLayoutError
from .config_args import UsageError, print_error
from .site_args import site_of


def has_config(args: argparse.Namespace) -> bool:
    """Whether the command line names a config (a command with a Job YAML may plan without one)."""
    return bool(args.config or args.config_dir or args.config_name)


def plan_request(
    args: argparse.Namespace,
    *,
    inventory: Inventory | None = None,
    recorded: Sequence[str] = (),
) -> PlanRequest | None:
    """The request the options describe; None when the config fails to load (already printed).

    The GPU layout is parsed first, so a usage error comes before any slow work. ``recorded``
    are the overrides a Job YAML records (its annotation and run script): they come first, so
    an override on the command line wins for the same key. A command without the Job options
    (``inspect``, ``check``) plans with the default settings, as the app does before any field
    is typed.
    """
    gpus = _gpu_layout(args)
    config = _load_config(args, recorded)
    if config is None:
        return None
    jobs = "image" in vars(args)  # add_job_arguments ran for this command
    return PlanRequest(
        config,
        gpus,
        inventory,
        template=args.template if jobs else None,
        target_cluster=getattr(args, "cluster", None),
        settings=_settings(args) if jobs else JobSettings(),
        facts=RecordFacts(rlinf_commit=args.rlinf_commit, image_digest=args.image_digest)
        if jobs
        else RecordFacts(),
        site=site_of(args),
    )


def _gpu_layout(args: argparse.Namespace) -> GpuLayout:
    option, value = (
        ("--gpus-per-node-map", args.gpus_per_node_map)
        if args.gpus_per_node_map
        else ("--gpus-per-node", args.gpus_per_node)
    )
    try:
        return GpuLayout.parse(value)
    except GpuLayoutError as exc:
        raise UsageError(
            Text(
                "{option}: {problem} For example --gpus-per-node 8 or --gpus-per-node-map 0:8,1:4.",
                option=option,
                problem=exc.text,
            )
        ) from None


def _env(args: argparse.Namespace) -> dict[str, str]:
    env = rlinf_repo_env(args.rlinf_repo) if args.rlinf_repo else {}
    try:
        return {**env, **parse_pairs(args.env, "--env")}
    except FieldTextError as exc:
        raise UsageError(exc.text) from None


def _load_config(args: argparse.Namespace, recorded: Sequence[str]) -> RLinfConfig | None:
    """Load the config the arguments name; print the error and return None if it fails."""
    if bool(args.config) == bool(args.config_dir or args.config_name):
        raise UsageError(Text("give either CONFIG or --config-dir DIR --config-name NAME"))
    if not args.config and not (args.config_dir and args.config_name):
        raise UsageError(Text("--config-dir and --config-name go together"))
    overrides = merge_overrides(recorded, args.overrides)
    try:
        if args.config:
            return load_config(args.config, overrides, _env(args), compose=not args.no_compose)
        return compose_config(args.config_dir, args.config_name, overrides, _env(args))
    except RLinfConfigError as exc:
        print_error(exc.text, exc.fix_text, args.lang, path=exc.path)
        return None


def _settings(args: argparse.Namespace) -> JobSettings:
    return JobSettings(
        name=args.name,
        namespace=args.namespace or "default",
        image=args.image,
        rlinf_dir=args.rlinf_dir,
        prepare_script=args.prepare,
        mounts=_mounts(args),
        output_mount=args.output_dir,
        tensorboard_log_dir=args.tensorboard,
    )


def _mount_option(option: str, shape: str, item: str) -> tuple[str, str, bool]:
    """``SOURCE:/PATH`` or ``SOURCE:/PATH:ro`` (or ``:rw``) as (source, path, read-only).

    ``--host-path /data:/mnt/data:ro`` gave a read-write mount at ``/mnt/data:ro``: the mode is
    read here, and anything else after a second colon is refused.
    """
    parts = item.split(":")
    mode = parts.pop() if len(parts) == 3 else "rw"
    if len(parts) != 2 or not all(parts) or mode not in ("ro", "rw"):
        raise UsageError(
            Text(
                "{option} takes {shape} or {shape}:ro (read-only), got {item}",
                option=option,
                shape=shape,
                item=repr(item),
            )
        )
    return parts[0], parts[1], mode == "ro"


def _mounts(args: argparse.Namespace) -> list[Mount]:
    mounts = []
    for index, item in enumerate(args.storage):
        source, path, read_only = _mount_option("--storage", "CLASS:/PATH", item)
        name = f"storage-{index}" if index else OUTPUT_MOUNT
        mounts.append(Mount(name, "storage", source, path, read_only=read_only))
    for index, item in enumerate(args.host_path):
        source, path, read_only = _mount_option("--host-path", "/SRC:/PATH", item)
        mounts.append(Mount(f"host-{index}", "hostPath", source, path, read_only=read_only))
    return mounts
