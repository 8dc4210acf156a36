"""Compare our report with the RLinf oracle's output: verdict, message, rows and per-node figures.

The rules come from the oracle's README: where RLinf's code and ours disagree we are wrong,
except where RLinf only crashes (a TypeError, a missing section) or refuses at start-up what we
report as a finding (placeholder robot IPs), where ours must say so.
"""

from __future__ import annotations

import copy
import dataclasses
import ipaddress
import re
from typing import Any

from rlark_widgets.findings import Severity
from rlark_widgets.rlinf import ConfigReport, RLinfConfig
from rlark_widgets.rlinf.expansion import SUPPORTED_TASK_TYPES
from rlark_widgets.rlinf.ranks import format_ranks

#: RLinf's own crashes (no assertion message of its own): ours must name the exception, unless
#: it repeats RLinf's message (an IndexError RLinf raises on purpose has one).
CRASHES = ("TypeError", "ZeroDivisionError", "IndexError")
#: A section RLinf reads but the config lacks: ours must name the missing section.
MISSING_SECTION = ("ConfigAttributeError", "AttributeError")


def rlinf_sentences(error: str) -> list[str]:
    """The sentences of RLinf's message (without the exception type and the 'caused by' tail)."""
    message = error.split(" | caused by")[0].split(": ", 1)[-1]
    message = message.split("\n")[0]  # a multi-line message: its first line is the verdict
    # We elide long rank lists ([0, 1, 2, ..., 31]); the meaning is the same.
    message = re.sub(
        r"\[(\d+(?:, \d+)*)\]",
        lambda m: format_ranks([int(x) for x in m.group(1).split(", ")]),
        message,
    )
    return [s.strip() for s in re.split(r"(?<=\.) ", message) if s.strip()]


def disagreement(ours: ConfigReport, theirs: dict[str, Any]) -> str | None:
    """Why our report differs from RLinf's (None when they agree)."""
    if "oracle_crash" in theirs:
        return f"the oracle itself crashed: {theirs['oracle_crash']}"
    got = ours.to_json()
    if theirs.get("task_type") not in (*SUPPORTED_TASK_TYPES, None):
        # The oracle places any task type; RLinf's validate_cfg refuses it first.
        if got["ok"] or "task_type must be one of" not in (got["error"] or ""):
            return f"RLinf refuses task_type {theirs['task_type']!r}; we said {got['error']!r}"
        return None
    if theirs["ok"]:
        if not got["ok"]:
            return f"RLinf places it; we refuse it: {got['error_path']}: {got['error']}"
        for key in ("placement_mode", "num_nodes", "per_node", "components"):
            if got[key] != theirs[key]:
                return f"{key} differs:\n ours  {got[key]}\n RLinf {theirs[key]}"
        return None
    error = theirs["error"]
    kind = error.split(":", 1)[0]
    if "must be a valid IP address" in error:
        wanted = rlinf_sentences(error)[0]
        errors = [str(f.message) for f in ours.findings if f.severity == Severity.ERROR]
        if not any(wanted in message for message in errors):
            return f"RLinf refuses a robot IP ({wanted}); our error findings: {errors}"
        return None
    if got["ok"]:
        return f"RLinf refuses it ({error[:300]}); we place it"
    missing = [s for s in rlinf_sentences(error) if s not in got["error"]]
    if kind in CRASHES and missing:
        if kind not in got["error"]:
            return f"RLinf crashes with {error[:200]}; our message does not say so: {got['error']}"
        return None
    if kind in MISSING_SECTION:
        if "section" not in got["error"]:
            return f"RLinf stops on a missing section ({error[:200]}); we said {got['error']}"
        return None
    if missing:
        return f"RLinf's message {missing} is not in ours: {got['error']}"
    return None


def with_test_ips(config: RLinfConfig) -> RLinfConfig:
    """The config as the oracle's ``--fix-placeholders`` reads it: placeholder robot IPs
    replaced by 192.0.2.N, numbered in the same order, so the placements can be compared."""
    resolved = copy.deepcopy(config.resolved)
    count = 0
    for group in (resolved.get("cluster") or {}).get("node_groups") or []:
        hardware = group.get("hardware") if isinstance(group, dict) else None
        if not isinstance(hardware, dict):
            continue
        for robot in hardware.get("configs") or []:
            for key in list(robot):
                if key.endswith("robot_ip") and robot[key] is not None:
                    try:
                        ipaddress.ip_address(str(robot[key]))
                    except ValueError:
                        count += 1
                        robot[key] = f"192.0.2.{count}"
    return dataclasses.replace(config, resolved=resolved)
