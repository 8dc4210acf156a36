"""Ray members from the head's dashboard (``GET /api/v0/nodes``), for both backends."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..contract import RANK_LABEL
from ..monitor.snapshot import RayMember


def as_int(value: Any) -> int | None:
    """An integer from a label, an env value or a JSON field; None when it is not one."""
    text = str(value) if value is not None and not isinstance(value, bool) else ""
    digits = text.lstrip("-")  # ASCII digits, few enough for int() (a field may hold anything)
    return int(text) if digits.isdigit() and digits.isascii() and len(digits) < 19 else None


def members_from_dashboard(answer: Any) -> list[RayMember]:
    """Ray's ``GET /api/v0/nodes`` answer (``{"result", "msg", "data": {"result": {"result": [...]}}}``)."""
    if not isinstance(answer, Mapping):
        raise ValueError("the dashboard did not answer with JSON")
    if answer.get("result") is False:
        raise ValueError(answer.get("msg") or "the dashboard reported a failure")
    rows = ((answer.get("data") or {}).get("result") or {}).get("result") or []
    return [
        RayMember(
            node_id=str(row.get("node_id", "")),
            ip=str(row.get("node_ip", "")),
            state=str(row.get("state", "")),
            is_head=bool(row.get("is_head_node", False)),
            node_rank=as_int((row.get("labels") or {}).get(RANK_LABEL)),
            resources={k: float(v) for k, v in (row.get("resources_total") or {}).items()},
            labels={str(k): str(v) for k, v in (row.get("labels") or {}).items()},
        )
        for row in rows
        if isinstance(row, Mapping)
    ]
