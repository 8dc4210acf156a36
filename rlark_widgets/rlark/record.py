"""The run record: everything needed to reproduce or compare a run, secrets redacted.

The seeds ask for the RLinf commit, the image and its digest, Ray/Python/CUDA versions, the
original config with overrides and the resolved final config, data/model/checkpoint/output
locations, the expected Workers and resources, and the final Job YAML. A fact we do not know
is listed as missing, never guessed.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from ..findings import Finding
from .facts import RecordFacts
from .job import Job
from .planner import Plan
from .secrets import redact
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


class RecordError(OSError):
    """The record cannot be written where asked (message names the path and the fix)."""


@dataclass
class RunRecord:
    """The record's files (name -> text), all already redacted."""

    files: dict[str, str]
    missing: list[str]

    def write(self, out: str | Path) -> Path:
        """Write a directory, or a zip file when ``out`` ends in .zip."""
        target = Path(out)
        try:
            if target.suffix == ".zip":
                target.parent.mkdir(parents=True, exist_ok=True)
                with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
                    for name, text in sorted(self.files.items()):
                        archive.writestr(name, text)
            else:
                for name, text in self.files.items():
                    path = target / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise RecordError(
                f"Cannot write the run record to {target}: {exc.strerror or exc}. Choose a writable directory."
            ) from None
        return target


def locations(plan: Plan, job: Job) -> dict[str, Any]:
    """Paths as the Job will see them: the run script's overrides win over the config's values."""
    config = plan.report.config
    found = {key: config.get(key) for key in LOCATION_KEYS if config.get(key) not in (None, "", [])}
    found.update(dict(re.findall(r"(runner\.[\w.]+)=(\S+)", job.run_script)))
    checkpoints = job.annotations.get("rlark.io/checkpoint-dir")
    if checkpoints:
        found["checkpoints (RLinf writes)"] = f"{checkpoints}/global_step_<N>/actor"
    return found


def _plan_summary(plan: Plan, job: Job) -> dict[str, Any]:
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
        "explanations": plan.explanations,
    }


def build_record(
    plan: Plan, job: Job, findings: list[Finding], facts: RecordFacts | None = None
) -> RunRecord:
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

    def as_json(data: Any) -> str:
        return redact(json.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n"

    files = {
        "job.yaml": redact(render_job_yaml(job)),
        "config/original.yaml": redact(config.raw_text),
        "config/overrides.txt": redact(
            "\n".join(config.overrides) + ("\n" if config.overrides else "")
        ),
        "config/composed.yaml": redact(OmegaConf.to_yaml(config.composed)),
        "config/resolved.yaml": redact(dump_yaml(config.resolved)),
        "expansion.json": as_json(plan.report.expansion.to_json()),
        "plan.json": as_json(_plan_summary(plan, job)),
        "findings.json": as_json([f.to_dict() for f in findings]),
        "versions.json": as_json({"images": images, **versions}),
        "locations.json": as_json(where),
        "missing.json": as_json(missing),
    }
    files["README.md"] = redact(_readme(plan, job, versions, where, missing, findings))
    return RunRecord(files, missing)


def _readme(plan, job, versions, where, missing, findings) -> str:
    lines = [
        f"# Run record: {job.name}",
        "",
        f"- RLinf config: {job.annotations.get('rlark.io/rlinf-config', plan.report.config.name)} "
        f"(overrides: {' '.join(plan.report.config.overrides) or 'none'})",
        f"- Workers: {job.total_workers} (cluster.num_nodes {plan.report.cluster.num_nodes if plan.report.cluster else '?'})",
        f"- Images: {', '.join(sorted({r.image for r in job.roles if r.image})) or 'MISSING'}",
        "",
        "| role | head | workers | RLINF_NODE_RANK | GPUs/worker | devices/worker |",
        "|---|---|---|---|---|---|",
    ]
    for planned, role in zip(plan.roles, job.roles, strict=False):
        devices = ", ".join(f"{k}: {v}" for k, v in role.devices.items()) or "-"
        lines.append(
            f"| {role.name} | {role.head} | {role.replicas} | {list(planned.node_ranks)} | {role.gpus} | {devices} |"
        )
    lines += ["", "## Versions", ""]
    lines += [f"- {k}: {v if v is not None else 'MISSING'}" for k, v in versions.items()]
    lines += ["", "## Locations", ""] + (
        [f"- {k}: {v}" for k, v in where.items()] or ["- none found in the config"]
    )
    lines += ["", "## Missing facts", ""] + ([f"- {m}" for m in missing] or ["- none"])
    counts = {
        s: sum(1 for f in findings if f.severity.value == s) for s in ("error", "warning", "info")
    }
    lines += [
        "",
        f"Findings: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info(s) (findings.json).",
        "",
    ]
    return "\n".join(lines)


def snapshot_record(job: Job, snapshot: dict, diagnosis: dict, logs: dict[str, str]) -> RunRecord:
    """A record of a submitted Job: its YAML, the latest snapshot, the diagnosis and log tails."""
    files = {
        "job.yaml": redact(render_job_yaml(job)),
        "snapshot.json": redact(json.dumps(snapshot, indent=2, default=str)) + "\n",
        "diagnosis.json": redact(json.dumps(diagnosis, indent=2)) + "\n",
    }
    files.update(
        {f"logs/{worker.replace('/', '-')}.log": redact(text) for worker, text in logs.items()}
    )
    return RunRecord(files, [])
