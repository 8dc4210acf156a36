"""A snapshot in plain words: per role desired vs actual Workers, members, checkpoints, diagnosis."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..i18n import Listing, Text, render
from .diagnosis import Diagnosis, diagnose
from .gpus import GpuUse
from .scalars import latest_values
from .snapshot import APART_NAMES, JobSnapshot, phase_name

#: Workers listed apart and earlier checkpoints named in the report, at most.
LISTED = 5


@dataclass(frozen=True)
class RoleLine:
    role: str
    desired: int
    actual: int
    phases: dict[str, int]

    def text(self) -> Text:
        if not self.phases:
            return Text(
                "{role}: {actual}/{desired} Workers (none yet)",
                role=self.role,
                actual=self.actual,
                desired=self.desired,
            )
        return Text(
            "{role}: {actual}/{desired} Workers ({phases})",
            role=self.role,
            actual=self.actual,
            desired=self.desired,
            phases=Listing(
                (
                    Text("{count} {phase}", count=n, phase=phase_name(p))
                    for p, n in sorted(self.phases.items())
                ),
                ", ",
            ),
        )


def role_lines(snap: JobSnapshot, desired: dict[str, int]) -> list[RoleLine]:
    """One line per role, in role order; roles seen only in the snapshot come last."""
    by_role: dict[str, Counter[str]] = {}
    for worker in snap.workers:
        by_role.setdefault(worker.role, Counter())[worker.phase] += 1
    roles = list(desired) + [r for r in by_role if r not in desired]
    return [
        RoleLine(
            r,
            desired.get(r, 0),
            sum(by_role.get(r, Counter()).values()),
            dict(by_role.get(r, Counter())),
        )
        for r in roles
    ]


def age(seconds: float) -> Text:
    if seconds < 90:
        return Text("{count} s", count=int(seconds))
    if seconds < 5400:
        return Text("{count} min", count=int(seconds // 60))
    return Text("{count} h", count=f"{seconds / 3600:.1f}")


def _heading(snap: JobSnapshot) -> Text:
    phase = phase_name(snap.phase) if snap.phase else Text("unknown phase")
    if snap.rehearsal:
        return Text(
            "Job {job} on {backend} (rehearsal, not training): {phase}",
            job=snap.job,
            backend=snap.backend,
            phase=phase,
        )
    return Text("Job {job} on {backend}: {phase}", job=snap.job, backend=snap.backend, phase=phase)


def _run_line(snap: JobSnapshot) -> Text | None:
    run = snap.run
    if run is None:
        return None
    if run.started is None:
        return Text("Run {run}", run=run.id[:8])
    return Text(
        "Run {run}, submitted {age} ago", run=run.id[:8], age=age(max(0.0, snap.time - run.started))
    )


def _apart_line(snap: JobSnapshot) -> Text | None:
    """Pods that are not this run's: named, never counted."""
    if not snap.others:
        return None
    shown = Listing(
        (
            Text(
                "{worker} ({name}, {why}, phase {phase})",
                worker=w.key,
                name=w.name,
                why=APART_NAMES.get(w.apart or "", w.apart or ""),
                phase=phase_name(w.phase),
            )
            for w in snap.others[:LISTED]
        ),
        ", ",
    )
    more = len(snap.others) - LISTED
    if more > 0:
        return Text("Not counted: {workers} and {more} more", workers=shown, more=more)
    return Text("Not counted: {workers}", workers=shown)


def _earlier_line(snap: JobSnapshot) -> Text | None:
    """An earlier run's checkpoints, under that label only."""
    if not snap.earlier_checkpoints:
        return None
    steps = sorted({c.step for c in snap.earlier_checkpoints})
    names = ", ".join(f"global_step_{step}" for step in steps[-LISTED:])
    return Text("Previous run's checkpoints (not this run's): {names}", names=names)


def _resumed_line(snap: JobSnapshot) -> Text | None:
    """Where a resumed run started: the step after its runner.resume_dir checkpoint."""
    resumed = next((c for c in snap.checkpoints if c.resumed), None)
    if resumed is None:
        return None
    return Text(
        "Resumed from global_step_{step}: this run starts at step {first}.",
        step=resumed.step,
        first=resumed.step + 1,
    )


def _checkpoint_line(snap: JobSnapshot) -> Text:
    latest = snap.latest_checkpoint
    interval = snap.progress.save_interval
    if latest is None and interval is not None and interval <= 0:
        return Text(
            "Checkpoints: none will come (runner.save_interval is {interval}: this run saves none)",
            interval=interval,
        )
    if latest is None:
        return Text("Checkpoints: none yet")
    if latest.resumed:
        return Text(
            "Checkpoint resumed from (runner.resume_dir): global_step_{step} ({path}); none"
            " written by this run yet",
            step=latest.step,
            path=latest.path,
        )
    if not latest.time:
        return Text(
            "Latest checkpoint: global_step_{step} ({path})", step=latest.step, path=latest.path
        )
    return Text(
        "Latest checkpoint: global_step_{step}, {age} ago ({path})",
        step=latest.step,
        age=age(snap.time - latest.time),
        path=latest.path,
    )


def summary_lines(
    snap: JobSnapshot, desired: dict[str, int], result: Diagnosis | None = None, lang: str = "en"
) -> list[str]:
    """The status report in ``lang``; its last line (two when broken) is the diagnosis."""
    result = result or diagnose(snap)
    lines = [_heading(snap)]
    run = _run_line(snap)
    if run is not None:
        lines.append(run)
    lines += [line.text() for line in role_lines(snap, desired)]
    lines.append(
        Text(
            "Ray members: {alive}/{expected} alive",
            alive=snap.members_alive,
            expected=snap.expected_workers,
        )
    )
    lines.append(_checkpoint_line(snap))
    resumed = _resumed_line(snap)
    if resumed is not None:
        lines.append(resumed)
    if snap.verdict is not None:
        lines.append(Text("Rehearsal verdict: {line}", line=snap.verdict.said))
        if snap.verdict.placement and snap.verdict.passed:
            placement = snap.verdict.placement_text or snap.verdict.placement
            lines.append(Text("Rehearsal: {line}", line=placement))
    lines += [line for line in (_earlier_line(snap), _apart_line(snap)) if line is not None]
    lines += inside_lines(snap)
    if snap.missing:
        items = ", ".join(m.render(lang) for m in snap.missing)
        lines.append(Text("Could not read: {items}", items=items))
    out = [render(lines[0], lang)] + ["  " + render(line, lang) for line in lines[1:]]
    out.append(f"{'OK' if result.ok else '!!'} {result.sentence(lang)}")
    if not result.ok and result.fix_text:
        out.append("   " + Text("fix: {fix}", fix=result.fix_text).render(lang))
    return out


def inside_lines(snap: JobSnapshot) -> list[Text]:
    """The curves' latest values with the steps' pace, and the GPU use (or why there is none)."""
    lines: list[Text] = []
    latest = latest_values(snap.scalars)
    if latest:
        values = ", ".join(f"{tag}={point['value']:.4g}" for tag, point in sorted(latest.items()))
        pace = snap.pace
        lines.append(
            Text("Curves: {values}", values=values)
            if pace is None
            else Text("Curves: {values}; {pace}", values=values, pace=pace.text)
        )
    if snap.gpus:
        lines.append(gpu_line(snap.gpus))
    elif snap.gpu_note is not None:
        lines.append(snap.gpu_note)
    return lines


#: GPUs listed one by one; more are summed up (a 1,000-node Job's 8,000 made one 150 KB line,
#: sent to the page at every refresh and printed by `status`).
LISTED_GPUS = 16


def gpu_line(gpus: list[GpuUse]) -> Text:
    """Each GPU's utilisation; for many, their count, mean, lowest and highest."""

    def one(g: GpuUse) -> str:
        return f"{g.worker}#{g.index} {g.utilization if g.utilization is not None else '?'}%"

    if len(gpus) <= LISTED_GPUS:
        return Text("GPU use: {used}", used=", ".join(one(g) for g in gpus))
    known = [g for g in gpus if g.utilization is not None]
    if not known:
        return Text("GPU use: {count} GPUs, none reports its utilisation", count=len(gpus))
    mean = sum(g.utilization or 0.0 for g in known) / len(known)
    return Text(
        "GPU use: {count} GPUs, mean {mean}%, lowest {low}, highest {high}",
        count=len(gpus),
        mean=f"{mean:.0f}",
        low=one(min(known, key=lambda g: g.utilization or 0.0)),
        high=one(max(known, key=lambda g: g.utilization or 0.0)),
    )
