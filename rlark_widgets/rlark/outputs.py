"""Where each RLinf task type writes checkpoints and logs (rlinf-cluster-spec §5)."""

from __future__ import annotations

#: Reasoning runners write under runner.output_dir; embodied, SFT and offline under the logger path.
OUTPUT_KEYS = {"reasoning": "runner.output_dir", "coding_online_rl": "runner.output_dir"}
DEFAULT_OUTPUT_KEY = "runner.logger.log_path"


def output_key(task_type: str | None) -> str:
    return OUTPUT_KEYS.get(task_type or "", DEFAULT_OUTPUT_KEY)
