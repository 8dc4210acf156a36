"""The image and the scripts: what every Worker runs and how the run script starts RLinf."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...contract import ENTRY_PLACEHOLDER
from ...findings import Severity
from ...i18n import Text
from ..image_reference import image_reference_problem
from .context import CD_TARGET, CONTAINER, SEED_FAQ, SEED_JOB, Hit, RuleContext, code_lines, rule

RAY_CHECK = re.compile(r"ray\.nodes\(|\bray status\b|ray\.cluster_resources\(")


@rule(
    "JOB-IMAGE",
    Severity.ERROR,
    Text("Every role has an image, never :latest"),
    f"{SEED_JOB} (选择镜像版本和执行入口)",
)
def _image(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        path = ctx.role_path(index, f"{CONTAINER}.image")
        image = role.image.strip()
        if not image:
            yield (
                path,
                Text("Role '{role}' has no image.", role=role.name),
                Text(
                    "Give the image your team verified, e.g. registry.example.com/rlinf:v0.3.0-cuda12.4."
                ),
            )
        elif "@" not in image and (
            image.endswith(":latest") or ":" not in image.rsplit("/", 1)[-1]
        ):
            yield (
                path,
                Text(
                    "'{image}' is (or defaults to) the latest tag, which can point at different content tomorrow.",
                    image=image,
                ),
                Text(
                    "Use an explicit version tag, or a digest (@sha256:...) to reproduce exactly."
                ),
            )


@rule(
    "JOB-IMAGE-REFERENCE",
    Severity.ERROR,
    Text("Every image is a reference a registry resolves (the distribution grammar)"),
    "rlark-widgets: distribution/reference, parsed by docker-image-py",
)
def _image_reference(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        if role.image.strip() and (problem := image_reference_problem(role.image)):
            yield (
                ctx.role_path(index, f"{CONTAINER}.image"),
                problem,
                Text(
                    "Copy the reference from your registry, e.g. "
                    "registry.example.com/team/rlinf:0.3.0 or …/rlinf@sha256:<64 hex digits>."
                ),
            )


@rule(
    "JOB-IMAGE-DIGEST",
    Severity.INFO,
    Text("A digest pins the exact image content"),
    f"{SEED_FAQ} (镜像 tag 和 digest)",
)
def _image_digest(ctx: RuleContext) -> Iterator[Hit]:
    images = {r.image for r in ctx.job.roles if r.image and "@sha256:" not in r.image}
    for image in sorted(images):
        index = next(i for i, r in enumerate(ctx.job.roles) if r.image == image)
        yield (
            ctx.role_path(index, f"{CONTAINER}.image"),
            Text("'{image}' is a tag: it may point at other content later.", image=image),
            Text(
                "To reproduce or compare runs, record the digest the tag points at today (the run record asks for it)."
            ),
        )


@rule(
    "JOB-IMAGE-MIXED",
    Severity.WARNING,
    Text("Roles use one image (Ray and Python must match)"),
    f"{SEED_JOB} Step 2",
)
def _image_mixed(ctx: RuleContext) -> Iterator[Hit]:
    images = sorted({r.image for r in ctx.job.roles if r.image})
    if len(images) > 1:
        yield (
            "spec.tasks",
            Text(
                "Roles use {count} different images ({images}).",
                count=len(images),
                images=", ".join(images),
            ),
            Text(
                "Use one image, or confirm Ray, Python, RLinf and driver versions match across them."
            ),
        )


@rule(
    "JOB-ENTRYPOINT",
    Severity.INFO,
    Text("RLark replaces the image's command: activation goes in the prepare script"),
    f"{SEED_JOB} (RLark 会替换镜像 ENTRYPOINT)",
)
def _entrypoint(ctx: RuleContext) -> Iterator[Hit]:
    for index, role in enumerate(ctx.job.roles):
        if not role.prepare_script.strip():
            yield (
                ctx.role_path(index, "prepareScript"),
                Text(
                    "Role '{role}' has no prepare script. RLark starts Ray with its own command, so nothing from the "
                    "image's ENTRYPOINT runs; the image needs bash, ray and python on PATH.",
                    role=role.name,
                ),
                Text(
                    "Put environment activation (e.g. source /opt/venv/bin/activate) in the prepare script."
                ),
            )


@rule("JOB-RUN-SCRIPT", Severity.ERROR, Text("The run script is not empty"), f"{SEED_JOB} Step 3")
def _run_script(ctx: RuleContext) -> Iterator[Hit]:
    if not ctx.job.run_script.strip():
        yield (
            "spec.runScript",
            Text("The run script is empty: the Header would start Ray and run nothing."),
            Text("Change to the code directory and start the RLinf entry point with your config."),
        )


@rule(
    "JOB-RUN-SCRIPT-CD",
    Severity.WARNING,
    Text("The run script changes directory explicitly"),
    f"{SEED_JOB} Step 3",
)
def _run_script_cd(ctx: RuleContext) -> Iterator[Hit]:
    script = ctx.job.run_script
    if script.strip() and not CD_TARGET.search(code_lines(script)):
        yield (
            "spec.runScript",
            Text("The run script never runs `cd`, so it depends on the image's working directory."),
            Text("Start with e.g. `cd /workspace/RLinf`."),
        )


@rule(
    "JOB-RUN-SCRIPT-RAY",
    Severity.WARNING,
    Text("The run script re-checks that all Ray nodes joined"),
    f"{SEED_JOB} Step 3 (集群检查出现警告后，运行脚本仍可能执行)",
)
def _run_script_ray(ctx: RuleContext) -> Iterator[Hit]:
    script = ctx.job.run_script
    if script.strip() and not RAY_CHECK.search(code_lines(script)):
        yield (
            "spec.runScript",
            Text(
                "The run script does not check that every Ray node joined; the platform's check may "
                "only warn, and training would start short of nodes."
            ),
            Text(
                "Wait for len(ray.nodes()) alive == num_nodes (with a timeout) and exit non-zero otherwise."
            ),
        )


@rule(
    "JOB-RUN-SCRIPT-ENTRY",
    Severity.ERROR,
    Text("The run script names the RLinf entry script"),
    f"{SEED_JOB} Step 3 (明确写入工作目录切换和启动命令)",
)
def _run_script_entry(ctx: RuleContext) -> Iterator[Hit]:
    if ENTRY_PLACEHOLDER in code_lines(ctx.job.run_script):
        yield (
            "spec.runScript",
            Text(
                "The run script still has the ENTRY placeholder: no single RLinf entry script is known for this "
                "task type, so the command would fail."
            ),
            Text(
                "Set ENTRY to your launcher's Python entry script (the one your RLinf run command calls)."
            ),
        )
