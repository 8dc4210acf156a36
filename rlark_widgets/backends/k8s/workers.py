"""Workers from raw API answers (Pods and their Events), and Ray members joined to them.

Identity comes from the labels RLark puts on every Worker pod (``rlark.io/job``, ``rlark.io/task``,
``rlark.io/worker-index``) and ``RLINF_NODE_RANK`` from the main container's environment (or the
``rlinf.io/node-rank`` label). A pod is this run's when its ownerReferences (or its
``rlark.io/run`` label) name the Job object's uid; a pod that is being deleted, or that belongs
to another uid, is listed apart and never counted (a Job submitted again after a stop still
has the earlier run's pods for a while, with the same task and index). Ray members (read by
:mod:`..ray_members`) are joined to Workers by pod IP when they carry no rank label of their own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ...contract import RANK_ENV, RANK_LABEL, RUN_LABEL
from ...monitor.runs import CLOCK_SKEW
from ...monitor.snapshot import (
    EARLIER_RUN,
    EARLIER_TERMINATING,
    TERMINATING,
    EventRecord,
    RayMember,
    RunInfo,
    WorkerPhase,
    WorkerSnapshot,
)
from ...rlark.job import MAIN_CONTAINER
from ...rlark.site import SiteProfile
from ..ray_members import as_int


def epoch(stamp: Any) -> float | None:
    if not stamp or not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def run_of(obj: Mapping[str, Any], started: Any = None) -> RunInfo | None:
    """The run an object is (an RLark Job, a RayCluster): its uid and creation time, or
    ``started`` (a timestamp) when given; None when the server gave no uid."""
    metadata = obj.get("metadata") or {}
    uid = metadata.get("uid")
    when = epoch(started) or epoch(metadata.get("creationTimestamp"))
    return RunInfo(str(uid), when) if uid else None


def events_by_pod(events: Iterable[Mapping[str, Any]]) -> dict[str, list[EventRecord]]:
    """Pod events keyed by pod name, oldest first."""
    grouped: dict[str, list[EventRecord]] = defaultdict(list)
    for event in events:
        involved = event.get("involvedObject") or {}
        if involved.get("kind", "Pod") != "Pod":
            continue
        grouped[involved.get("name", "")].append(
            EventRecord(
                reason=event.get("reason", ""),
                message=event.get("message", ""),
                type=event.get("type", "Normal"),
                count=as_int(event.get("count")) or 1,
                time=epoch(event.get("lastTimestamp") or event.get("eventTime")),
            )
        )
    for records in grouped.values():
        records.sort(key=lambda e: e.time or 0.0)
    return grouped


def _mapping(value: Any) -> Mapping[str, Any]:
    """A field the server should have written as a mapping; anything else reads as empty."""
    return value if isinstance(value, Mapping) else {}


def _main(items: Any) -> Mapping[str, Any]:
    items = [c for c in items if isinstance(c, Mapping)] if isinstance(items, list) else []
    return next((c for c in items if c.get("name") == MAIN_CONTAINER), items[0] if items else {})


def _rank(pod: Mapping[str, Any]) -> int | None:
    container = _main(_mapping(pod.get("spec")).get("containers"))
    env_list = container.get("env")
    for env in env_list if isinstance(env_list, list) else []:
        if isinstance(env, Mapping) and env.get("name") == RANK_ENV:
            return as_int(env.get("value"))
    return as_int(_mapping(pod["metadata"].get("labels")).get(RANK_LABEL))


def _container_state(
    status: Mapping[str, Any],
) -> tuple[str | None, str | None, int | None]:
    """(reason, message, exit code) of the main container; a crash loop names its last death."""
    main = _main(status.get("containerStatuses"))
    state = _mapping(main.get("state"))
    last = _mapping(_mapping(main.get("lastState")).get("terminated"))
    if "waiting" in state:
        waiting = _mapping(state["waiting"])
        reason = waiting.get("reason")
        if reason == "CrashLoopBackOff" and last.get("reason") == "OOMKilled":
            reason = "OOMKilled"
        return reason, waiting.get("message"), as_int(last.get("exitCode"))
    if "terminated" in state:
        done = _mapping(state["terminated"])
        return done.get("reason"), done.get("message"), as_int(done.get("exitCode"))
    conditions = status.get("conditions")
    scheduled: Mapping[str, Any] = next(
        (
            c
            for c in (conditions if isinstance(conditions, list) else [])
            if isinstance(c, Mapping) and c.get("type") == "PodScheduled"
        ),
        {},
    )
    if scheduled.get("status") == "False":
        return scheduled.get("reason"), scheduled.get("message"), None
    return status.get("reason"), status.get("message"), None


def _earlier(metadata: Mapping[str, Any], run: RunInfo) -> bool:
    """Whether the pod belongs to another run than ``run``: by owner uid, run label, or (with
    neither) a pod created before the run started."""
    owners = {o.get("uid") for o in metadata.get("ownerReferences") or [] if o.get("uid")}
    label = (metadata.get("labels") or {}).get(RUN_LABEL)
    if owners or label:
        return run.id not in owners and label != run.id
    created = epoch(metadata.get("creationTimestamp"))
    return created is not None and run.started is not None and created < run.started - CLOCK_SKEW


def apart(pod: Mapping[str, Any], run: RunInfo | None) -> str | None:
    """Why the pod is not one of this run's Workers (None: it is)."""
    metadata = pod["metadata"]
    earlier = run is not None and _earlier(metadata, run)
    if metadata.get("deletionTimestamp"):
        return EARLIER_TERMINATING if earlier else TERMINATING
    return EARLIER_RUN if earlier else None


def worker_from_pod(
    pod: Mapping[str, Any], events: list[EventRecord], site: SiteProfile
) -> WorkerSnapshot:
    """One Worker from its pod; its role and index come from the site's Worker labels."""
    metadata, status = pod["metadata"], _mapping(pod.get("status"))
    labels = _mapping(metadata.get("labels"))
    reason, message, exit_code = _container_state(status)
    main = _main(status.get("containerStatuses"))
    return WorkerSnapshot(
        role=labels.get(site.task_label, "?"),
        index=as_int(labels.get(site.index_label)) or 0,
        rank=_rank(pod),
        name=metadata["name"],
        phase=WorkerPhase.read(status.get("phase")),
        node=_mapping(pod.get("spec")).get("nodeName"),
        ip=status.get("podIP"),
        restarts=as_int(main.get("restartCount")) or 0,
        reason=reason,
        message=message,
        exit_code=exit_code,
        events=events,
    )


def workers_from(
    pods: Iterable[Mapping[str, Any]],
    events: Iterable[Mapping[str, Any]],
    site: SiteProfile,
    run: RunInfo | None = None,
) -> tuple[list[WorkerSnapshot], list[WorkerSnapshot]]:
    """(this run's Workers, the pods listed apart), each in RLINF_NODE_RANK order (unknown
    ranks last, then by role and index)."""
    grouped = events_by_pod(events)
    ours: list[WorkerSnapshot] = []
    others: list[WorkerSnapshot] = []
    for pod in pods:
        worker = worker_from_pod(pod, grouped.get(pod["metadata"]["name"], []), site)
        worker.apart = apart(pod, run)
        (others if worker.apart else ours).append(worker)
    return _ranked(ours), _ranked(others)


def _ranked(workers: list[WorkerSnapshot]) -> list[WorkerSnapshot]:
    return sorted(workers, key=lambda w: (w.rank is None, w.rank or 0, w.role, w.index))


def join_members(members: list[RayMember], workers: list[WorkerSnapshot]) -> list[RayMember]:
    """Give each member without a rank label the RLINF_NODE_RANK of the Worker at its IP."""
    by_ip = {w.ip: w for w in workers if w.ip}
    for member in members:
        worker = by_ip.get(member.ip)
        if member.node_rank is None and worker is not None:
            member.node_rank = worker.rank
    return sorted(members, key=lambda m: (m.node_rank is None, m.node_rank or 0, m.ip))
