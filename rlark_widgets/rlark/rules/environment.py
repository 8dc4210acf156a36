"""The Worker's environment: reserved and robot variables, resources RLark cannot set, TensorBoard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from ...contract import RANK_ENV, RAY_ADDRESS_ENV, RESERVED_ENV
from ...findings import Severity
from ...i18n import Text
from .context import CONTAINER, SEED_FAQ, SEED_JOB, SPEC, Hit, RuleContext, covers, rule

#: What RLark sets each reserved name to on every Worker: the message says it for that name.
RESERVED_USE = {
    RANK_ENV: Text("RLINF_NODE_RANK = Workers of the roles before + worker index"),
    RAY_ADDRESS_ENV: Text("the address of the Ray head the Worker joins"),
}
#: A name only the site profile reserves (reservedEnv, reservedEnvPrefixes).
SITE_RESERVED_USE = Text("the site profile reserves it for the platform")
#: Variables RLinf's RobotAutoConfig turns into robots on any node that has them (spec §1.6).
ROBOT_ENV = {"ROBOT_IP", "LEFT_ROBOT_IP", "RIGHT_ROBOT_IP", "ROBOT_URL", "CAN_INTERFACE"}


@rule(
    "JOB-ENV-RESERVED",
    Severity.ERROR,
    Text("Platform-reserved environment names are refused"),
    f"{SEED_JOB} (平台保留名称); rlark-widgets: the Job schema",
)
def _env_reserved(ctx: RuleContext) -> Iterator[Hit]:
    reserved, prefixes = RESERVED_ENV | ctx.site.reserved_env, ctx.site.reserved_env_prefixes
    for index, role in enumerate(ctx.job.roles):
        for name in role.env:
            if name in reserved or (prefixes and name.startswith(prefixes)):
                yield (
                    ctx.role_path(index, f"{CONTAINER}.env"),
                    Text(
                        "{name} is set by RLark on every Worker ({use}); a role must not set it.",
                        name=name,
                        use=RESERVED_USE.get(name, SITE_RESERVED_USE),
                    ),
                    Text("Remove {name} from role '{role}'.", name=name, role=role.name),
                )


@rule(
    "JOB-ENV-ROBOT",
    Severity.WARNING,
    Text("ROBOT_IP-style variables create robots on any node"),
    f"{SPEC} §1.6 (RobotAutoConfig)",
)
def _env_robot(ctx: RuleContext) -> Iterator[Hit]:
    robot_roles = set()
    if ctx.needs is not None:
        by_role: dict[int, list[bool]] = {}
        for rank, index, _ in ctx.roles_by_rank():
            by_role.setdefault(index, []).append(
                rank < len(ctx.needs) and bool(ctx.needs[rank].robots)
            )
        robot_roles = {index for index, flags in by_role.items() if all(flags)}
    for index, role in enumerate(ctx.job.roles):
        for name in role.env:
            if name in ROBOT_ENV and index not in robot_roles:
                yield (
                    ctx.role_path(index, f"{CONTAINER}.env"),
                    Text(
                        "{name} on role '{role}' makes RLinf's RobotAutoConfig fill or even create robots on every one of its Workers.",
                        name=name,
                        role=role.name,
                    ),
                    Text(
                        "Put robot addresses in the config's hardware section, or set the variable only where that robot is cabled."
                    ),
                )


@rule(
    "JOB-NO-CPU-MEMORY",
    Severity.INFO,
    Text("RLark has no CPU, memory or /dev/shm fields"),
    f"{SEED_JOB} (创建页面不能填写 CPU、内存或 /dev/shm)",
)
def _no_cpu_memory(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.job.roles:
        yield (
            "spec.tasks",
            Text(
                "The Job cannot request CPU, memory or /dev/shm; RLinf simulators and Ray object stores "
                "often need plenty of both."
            ),
            Text("Confirm with the platform admin how these are provided before relying on them."),
        )


@rule(
    "JOB-TENSORBOARD",
    Severity.WARNING,
    Text("The TensorBoard directory is under a mount"),
    f"{SEED_JOB} Step 3; {SEED_FAQ}",
)
def _tensorboard(ctx: RuleContext) -> Iterator[Hit]:
    logdir = ctx.job.tensorboard_log_dir
    if not logdir:
        return
    path = PurePosixPath(logdir)
    if not any(covers(m.mount_path, path) for r in ctx.job.roles if r.head for m in r.mounts):
        yield (
            "spec.tensorboard.logDir",
            Text(
                "{logdir} is not under a mount of the Header role; a helper container RLark may add (not a Worker) "
                "reads it from the Header's Pod.",
                logdir=logdir,
            ),
            Text("Use a directory under the Header's output mount."),
        )
