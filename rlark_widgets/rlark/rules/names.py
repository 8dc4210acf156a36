"""Names: the Job's name and its roles' names, as Kubernetes and RLark accept them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...contract import DNS_LABEL
from ...findings import Severity
from ...i18n import Text
from ..device_names import DEVICE_NAME_RULE, DEVICE_NAME_SOURCE, device_name_hits
from .context import SEED_JOB, Hit, RuleContext, rule


@rule(
    "JOB-NAME",
    Severity.ERROR,
    Text("Job name: 1-63 lower-case letters, digits or '-', no '-' at either end"),
    f"{SEED_JOB} Step 1",
)
def _job_name(ctx: RuleContext) -> Iterator[Hit]:
    if not DNS_LABEL.fullmatch(ctx.job.name or ""):
        fixed = (
            re.sub(r"[^a-z0-9-]+", "-", (ctx.job.name or "").lower()).strip("-")[:63] or "rlinf-job"
        )
        yield (
            "metadata.name",
            Text("'{name}' is not a valid Job name.", name=ctx.job.name),
            Text("Use e.g. '{fixed}'.", fixed=fixed),
        )


@rule(
    "JOB-ROLE-NAME",
    Severity.ERROR,
    Text("Role names are non-empty and unique ignoring case"),
    f"{SEED_JOB} Step 1",
)
def _role_names(ctx: RuleContext) -> Iterator[Hit]:
    seen: set[str] = set()
    for index, role in enumerate(ctx.job.roles):
        if not role.name.strip():
            yield (
                ctx.role_path(index, "name"),
                Text("A role has no name."),
                Text("Name every role."),
            )
        elif role.name.lower() in seen:
            yield (
                ctx.role_path(index, "name"),
                Text(
                    "Role name '{role}' repeats another role's name (ignoring case).",
                    role=role.name,
                ),
                Text("Give each role its own name."),
            )
        seen.add(role.name.lower())


@rule(
    DEVICE_NAME_RULE,
    Severity.ERROR,
    Text("Device resources are Kubernetes extended resource names under the site's prefix"),
    DEVICE_NAME_SOURCE,
)
def _device_name(ctx: RuleContext) -> Iterator[Hit]:
    yield from device_name_hits(ctx.job, ctx.site)
