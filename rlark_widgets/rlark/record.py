"""The run record: everything needed to reproduce or compare a run, secrets redacted.

The seeds ask for the RLinf commit, the image and its digest, Ray/Python/CUDA versions, the
original config with overrides and the resolved final config, data/model/checkpoint/output
locations, the expected Workers and resources, and the final Job YAML. A fact we do not know
is listed as missing, never guessed.

The record is written in English unless a language is asked for: then its human parts
(README.md, the plan's explanations, the findings' messages) are in that language, while file
names, JSON keys and the missing-fact names stay as they are, so records remain comparable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from ..contract import CHECKPOINT_DIR_ANNOTATION, CONFIG_ANNOTATION
from ..findings import Finding
from ..i18n import Text, TextError, render
from ..output_files import OutputError, refuse_existing, write_archive, write_output
from ..rlinf.environment_values import (
    environment_values,
    reference_swapper,
    without_environment_values,
)
from .facts import RecordFacts
from .job import Job
from .planner import Plan
from .secrets import redact
from .site import SiteProfile
from .yaml_io import dump_yaml, render_job_yaml

LOCATION_KEYS = (
    "runner.logger.log_path",
    "runner.output_dir",
    "runner.resume_dir",
    "runner.ckpt_path",
    "actor.model.model_path",
    "rollout.model.model_path",
    "actor.checkpoint_load_path",
    "data.train_data_paths",
    "data.val_data_paths",
)


class RecordError(TextError, OSError):
    """The record cannot be written where asked (``text`` names the path and the fix)."""


@dataclass
class RunRecord:
    """The record's files (name -> text), all already redacted."""

    files: dict[str, str]
    missing: list[str]

    def write(self, out: str | Path, *, force: bool = False, inputs: Iterable[str] = ()) -> Path:
        """Write a directory, or a zip file when ``out`` ends in .zip.

        Each file is written atomically and never over one of ``inputs``; a file of an earlier
        record is refused before anything is written, unless ``force``.
        """
        target = Path(out)
        inputs = list(inputs)
        try:
            if target.suffix == ".zip":
                if not force:
                    refuse_existing(target, "--record")
                write_archive(
                    target, dict(sorted(self.files.items())), inputs=inputs, option="--record"
                )
            else:
                if not force:
                    for name in self.files:
                        refuse_existing(target / name, "--record")
                for name, text in self.files.items():
                    path = target / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_output(path, text, inputs=inputs, option="--record")
        except OutputError as exc:
            raise RecordError(exc.text, exc.fix_text) from None
        except OSError as exc:
            blocker = _file_in_the_way(target)
            reason = (
                Text("{path} is a file, not a directory", path=str(blocker))
                if blocker
                else exc.strerror or str(exc)
            )
            raise RecordError(
                Text(
                    "Cannot write the run record to {target}: {reason}. Choose a writable "
                    "directory.",
                    target=str(target),
                    reason=reason,
                )
            ) from None
        return target


def _file_in_the_way(target: Path) -> Path | None:
    """A file where the record needs a directory (the zip itself may be a file)."""
    folders = target.parents if target.suffix == ".zip" else (target, *target.parents)
    return next((p for p in folders if p.is_file()), None)


def locations(plan: Plan, job: Job) -> dict[str, Any]:
    """Paths as the Job will see them: the run script's overrides win over the config's values."""
    config = plan.report.config
    from_environment = environment_values(config)  # recorded as references, never values
    found = {
        key: from_environment[tuple(key.split("."))]["expression"]
        if tuple(key.split(".")) in from_environment
        else config.get(key)
        for key in LOCATION_KEYS
        if config.get(key) not in (None, "", [])
    }
    found.update(dict(re.findall(r"(runner\.[\w.]+)=(\S+)", job.run_script)))
    checkpoints = job.annotations.get(CHECKPOINT_DIR_ANNOTATION)
    if checkpoints:
        found["checkpoints (RLinf writes)"] = f"{checkpoints}/global_step_<N>/actor"
    return found


def _plan_summary(plan: Plan, job: Job, lang: str) -> dict[str, Any]:
    roles = []
    for planned, role in zip(plan.roles, job.roles, strict=False):
        roles.append(
            {
                "name": role.name,
                "head": role.head,
                "workers": role.replicas,
                "rlinf_node_ranks": list(planned.node_ranks),
                "gpus_per_worker": role.gpus,
                "devices_per_worker": role.devices,
                "gpus_total": role.gpus * role.replicas,
                "node_selector": role.node_selector,
                "matched_nodes": planned.matched_nodes,
                "env": {k: redact(v, k) for k, v in role.env.items()},
            }
        )
    return {
        "expected_workers": job.total_workers,
        "rlinf_num_nodes": plan.report.cluster.num_nodes if plan.report.cluster else None,
        "roles": roles,
        "target_cluster": plan.target_cluster,
        "explanations": [render(e, lang) for e in plan.explanations],
    }


def build_record(
    plan: Plan,
    job: Job,
    findings: list[Finding],
    facts: RecordFacts | None = None,
    lang: str = "en",
    *,
    site: SiteProfile,
) -> RunRecord:
    """The record's files; ``lang`` chooses the language of its human parts (module docstring).

    ``site.json`` says which site profile the Job was planned with and which of its values are
    the shipped example's.
    """
    facts = facts or RecordFacts()
    config = plan.report.config
    versions = facts.versions()
    images = sorted({r.image for r in job.roles if r.image})
    where = locations(plan, job)
    missing = [f"versions.{k}" for k, v in versions.items() if v is None]
    if not images:
        missing.append("image")
    if not {"runner.logger.log_path", "runner.output_dir"} & where.keys():
        missing.append("locations.output (runner.logger.log_path or runner.output_dir)")

    # Values read from the planning machine's environment are recorded as their references.
    resolved, from_environment = without_environment_values(config)

    def as_json(data: Any) -> str:
        return redact(json.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n"

    files = {
        "job.yaml": redact(render_job_yaml(job)),
        "config/original.yaml": redact(config.raw_text),
        "config/overrides.txt": redact(
            "\n".join(config.overrides) + ("\n" if config.overrides else "")
        ),
        "config/composed.yaml": redact(OmegaConf.to_yaml(config.composed)),
        "config/resolved.yaml": redact(dump_yaml(resolved)),
        "config/environment.json": as_json(from_environment),
        "expansion.json": as_json(plan.report.expansion.to_json()),
        "plan.json": as_json(_plan_summary(plan, job, lang)),
        "findings.json": as_json([f.to_dict(lang) for f in findings]),
        "versions.json": as_json({"images": images, **versions}),
        "locations.json": as_json(where),
        "missing.json": as_json(missing),
        "site.json": as_json(
            {
                "name": site.name,
                "source": site.source,
                "example_fields": sorted(site.example_fields),
                "note": site.provenance().render(lang),
            }
        ),
    }
    readme = _readme(plan, job, versions, where, missing, findings)
    files["README.md"] = redact("\n".join(render(line, lang) for line in readme))
    # A value from the planning machine's environment may also be quoted by a finding or a
    # location: every file shows its reference instead.
    swap = reference_swapper(config)
    return RunRecord({name: swap(text) for name, text in files.items()}, missing)


def _readme(
    plan: Plan,
    job: Job,
    versions: dict[str, str | None],
    where: dict[str, Any],
    missing: list[str],
    findings: list[Finding],
) -> list[Text | str]:
    """README.md line by line; lines with words are Text, the rest (values, tables) plain."""
    config = plan.report.config
    source = job.annotations.get(CONFIG_ANNOTATION, config.name)
    images = ", ".join(sorted({r.image for r in job.roles if r.image}))
    lines: list[Text | str] = [
        Text("# Run record: {name}", name=job.name),
        "",
        Text(
            "- RLinf config: {config} (overrides: {overrides})",
            config=source,
            overrides=" ".join(config.overrides),
        )
        if config.overrides
        else Text("- RLinf config: {config} (overrides: none)", config=source),
        Text(
            "- Workers: {workers} (cluster.num_nodes {num_nodes})",
            workers=job.total_workers,
            num_nodes=plan.report.cluster.num_nodes if plan.report.cluster else "?",
        ),
        Text("- Images: {images}", images=images) if images else Text("- Images: MISSING"),
        "",
        Text("| role | head | workers | RLINF_NODE_RANK | GPUs/worker | devices/worker |"),
        "|---|---|---|---|---|---|",
    ]
    for planned, role in zip(plan.roles, job.roles, strict=False):
        devices = ", ".join(f"{k}: {v}" for k, v in role.devices.items()) or "-"
        lines.append(
            f"| {role.name} | {role.head} | {role.replicas} | {list(planned.node_ranks)} | {role.gpus} | {devices} |"
        )
    lines += ["", Text("## Versions"), ""]
    lines += [
        f"- {k}: {v}" if v is not None else Text("- {key}: MISSING", key=k)
        for k, v in versions.items()
    ]
    lines += ["", Text("## Locations"), ""]
    lines += [f"- {k}: {v}" for k, v in where.items()] or [Text("- none found in the config")]
    lines += ["", Text("## Missing facts"), ""]
    lines += [f"- {m}" for m in missing] or [Text("- none")]
    counts = {
        s: sum(1 for f in findings if f.severity.value == s) for s in ("error", "warning", "info")
    }
    lines += [
        "",
        Text(
            "Findings: {errors} error(s), {warnings} warning(s), {infos} info(s) (findings.json).",
            errors=counts["error"],
            warnings=counts["warning"],
            infos=counts["info"],
        ),
        "",
    ]
    return lines


def snapshot_record(
    job: Job,
    snapshot: dict[str, Any],
    diagnosis: dict[str, Any],
    logs: dict[str, str],
    manifest: dict[str, Any] | None = None,
) -> RunRecord:
    """A record of a submitted Job: its YAML, the latest snapshot, the diagnosis and log tails.

    ``manifest`` is what was submitted when it is not the RLark Job (a KubeRay RayJob).
    """
    files = {
        "job.yaml": redact(dump_yaml(manifest) if manifest else render_job_yaml(job)),
        "snapshot.json": redact(json.dumps(snapshot, indent=2, default=str)) + "\n",
        "diagnosis.json": redact(json.dumps(diagnosis, indent=2)) + "\n",
    }
    files.update(
        {f"logs/{worker.replace('/', '-')}.log": redact(text) for worker, text in logs.items()}
    )
    return RunRecord(files, [])
