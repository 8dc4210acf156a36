"""REC rules: what the run record must hold to reproduce a run (commit, image digest, versions)."""

from __future__ import annotations

from collections.abc import Iterator

from ...findings import Severity
from ...i18n import Text
from .context import SEED_JOB, SEED_RLARK, Hit, RuleContext, rule


@rule(
    "REC-RLINF-COMMIT",
    Severity.WARNING,
    Text("The run record names the exact RLinf commit"),
    f"{SEED_RLARK} (为本次运行记录)",
)
def _rec_commit(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.facts is not None and not ctx.facts.rlinf_commit:
        yield (
            "record.versions.rlinf_commit",
            Text("The RLinf commit of this run is not recorded."),
            Text(
                "Give it (--rlinf-commit, or RLinf commit in the app's Job step; e.g. `git -C RLinf rev-parse HEAD`) so the run can be reproduced."
            ),
        )


@rule(
    "REC-IMAGE-DIGEST",
    Severity.WARNING,
    Text("The run record holds the image digest"),
    f"{SEED_JOB} (选择镜像版本和执行入口)",
)
def _rec_digest(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.facts is None or ctx.facts.image_digest:
        return
    tags = sorted({r.image for r in ctx.job.roles if r.image and "@sha256:" not in r.image})
    if tags:
        yield (
            "record.versions.image_digest",
            Text(
                "The digest behind {tags} is not recorded; the tag may move.", tags=", ".join(tags)
            ),
            Text(
                "Ask the image publisher or registry for the digest and give it (--image-digest sha256:..., or Image digest in the app's Job step)."
            ),
        )


@rule(
    "REC-RUNTIME-VERSIONS",
    Severity.INFO,
    Text("The run record holds Ray, Python and CUDA versions of the image"),
    f"{SEED_RLARK} (为本次运行记录)",
)
def _rec_runtime(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.facts is None:
        return
    missing = [
        n
        for n, v in (
            ("Ray", ctx.facts.ray_version),
            ("Python", ctx.facts.python_version),
            ("CUDA", ctx.facts.cuda_version),
        )
        if not v
    ]
    if missing:
        yield (
            "record.versions",
            Text(
                "{missing} version(s) of the image are not recorded (listed as missing).",
                missing=", ".join(missing),
            ),
            Text(
                "Read them from the image (ray --version, python --version, nvcc --version) and add them."
            ),
        )
