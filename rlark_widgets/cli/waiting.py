"""Waiting for a Job with a live progress line, a timeout and a clean Ctrl-C."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from ..i18n import Text
from ..monitor.diagnosis import diagnose
from ..monitor.snapshot import FAILED, RUNNING, JobSnapshot
from .terminal import is_terminal, redraw_line, write

WAIT_TARGETS = ("members", "running", "checkpoint")


@dataclass
class WaitOutcome:
    reached: bool
    timed_out: bool
    snapshot: JobSnapshot | None
    message: str  # in the language wait_for was given


def reached(target: str, snap: JobSnapshot) -> bool:
    if target == "members":
        return snap.expected_workers > 0 and snap.members_alive == snap.expected_workers
    if target == "running":
        return (
            bool(snap.workers)
            and all(w.phase == RUNNING for w in snap.workers)
            and len(snap.workers) == snap.expected_workers
        )
    return snap.latest_checkpoint is not None


def failed(snap: JobSnapshot) -> bool:
    return (
        snap.run_script_state == "failed"
        or any(w.phase == FAILED for w in snap.workers)
        or not snap.exists
    )


class ProgressLine:
    """One line rewritten in place on a terminal; a line every ``every`` seconds elsewhere
    (``stream``: stderr unless given)."""

    def __init__(self, stream: IO[str] | None = None, every: float = 10.0) -> None:
        self.stream, self.every, self.last = stream, every, 0.0
        self.tty = is_terminal(stream, err=True)

    def show(self, text: str) -> None:
        if self.tty:
            redraw_line(text, self.stream)
        elif time.monotonic() - self.last >= self.every:
            write(text + "\n", err=True, stream=self.stream)
            self.last = time.monotonic()

    def done(self) -> None:
        if self.tty:
            write("\n", err=True, stream=self.stream)


def wait_for(
    snapshot: Callable[[], JobSnapshot],
    target: str,
    timeout: float,
    interval: float = 2.0,
    line: ProgressLine | None = None,
    lang: str = "en",
) -> WaitOutcome:
    """Poll until ``target`` holds, the Job fails, or ``timeout`` seconds pass; words in ``lang``."""
    line = line or ProgressLine()
    start = time.monotonic()
    while True:
        snap = snapshot()
        elapsed = time.monotonic() - start
        if reached(target, snap):
            line.done()
            message = Text(
                "Reached '{target}' after {seconds} s.", target=target, seconds=f"{elapsed:.0f}"
            )
            return WaitOutcome(True, False, snap, message.render(lang))
        if failed(snap):
            line.done()
            return WaitOutcome(False, False, snap, diagnose(snap).sentence(lang))
        if elapsed >= timeout:
            line.done()
            message = Text(
                "Timed out after {seconds} s waiting for '{target}': {diagnosis}",
                seconds=f"{timeout:.0f}",
                target=target,
                diagnosis=diagnose(snap).sentence(lang),
            )
            return WaitOutcome(False, True, snap, message.render(lang))
        progress = Text(
            "[{elapsed} s] waiting for {target}: {alive}/{expected} Ray members, "
            "{running} Workers running - {diagnosis}",
            elapsed=f"{elapsed:4.0f}",
            target=target,
            alive=snap.members_alive,
            expected=snap.expected_workers,
            running=sum(w.phase == RUNNING for w in snap.workers),
            diagnosis=diagnose(snap).title_text,
        )
        line.show(progress.render(lang))
        time.sleep(interval)
