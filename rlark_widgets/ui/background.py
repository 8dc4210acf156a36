"""The one helper for the app's long actions: one thread at a time, its lock and busy flag,
cancellation, and results delivered only while the task is still current.

Submit, resume, stop, delete and the monitor's watch loop each run in a :class:`Background`
(one per kind: an action and a watch loop may overlap, two actions may not). The kernel stays
responsive, a second click while one runs does nothing, and a task cancelled by a newer one
(Watch another run, a new config) never writes its result after the newer one started: it hands
its result to :meth:`Background.deliver`, which applies it under the same lock
:meth:`Background.cancel` takes, only while the task's token is not cancelled.

Each step of an action runs under a deadline (:meth:`Background.step`): the user sees which
step it is in, and a step that hangs ends the action with a message naming it instead of
sitting on "Preflight…" for minutes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import TypeVar

from ..backends.base import BackendError
from ..i18n import Text

T = TypeVar("T")


class Cancelled(Exception):
    """The task was cancelled (a newer one replaced it): it stops without a message."""


class StepTimedOut(BackendError):
    """A step of a long action did not finish within its deadline."""


class Token:
    """One task's identity: cancelled once a newer task (or the owner) replaces it."""

    def __init__(self) -> None:
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True when cancelled meanwhile (the loop should end)."""
        return self._cancelled.wait(seconds)


class Background:
    """Runs one task at a time in a daemon thread; ``on_busy`` hears when one starts and ends."""

    def __init__(self, name: str, on_busy: Callable[[bool], None] | None = None) -> None:
        self.name = name
        self._on_busy = on_busy
        self._lock = threading.Lock()  # guards _token and every delivery
        self._running = threading.Lock()  # held while a task runs: one at a time
        self._token = Token()
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        return self._running.locked()

    def start(self, work: Callable[[Token], None], *, replace: bool = False) -> bool:
        """Run ``work(token)`` in the background; False (nothing started) while a task runs,
        unless ``replace``: then the running task is cancelled and this one starts at once
        (the watch loop of a new run replaces the old run's)."""
        if replace:
            self.cancel()
            self._running = threading.Lock()  # the cancelled task releases its own lock
        running = self._running
        if not running.acquire(blocking=False):
            return False
        with self._lock:
            token = self._token = Token()
        if self._on_busy is not None:
            self._on_busy(True)

        def body() -> None:
            try:
                work(token)
            except Cancelled:
                pass
            finally:
                running.release()
                if self._on_busy is not None and running is self._running:
                    self._on_busy(False)

        self._thread = threading.Thread(target=body, name=self.name, daemon=True)
        self._thread.start()
        return True

    def cancel(self) -> None:
        """Cancel the running task: from now on none of its results is delivered."""
        with self._lock:
            self._token.cancel()

    def deliver(self, token: Token, apply: Callable[[], None]) -> bool:
        """Apply a task's result, unless the task was cancelled (then nothing; False)."""
        with self._lock:
            if token.cancelled:
                return False
            apply()
            return True

    def join(self, timeout: float | None = None) -> None:
        """Wait for the running task (tests, ``wait=True``); returns at once when none runs."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def step(
        self,
        token: Token,
        what: Text,
        timeout: float,
        work: Callable[[], T],
        on_start: Callable[[Text], None] | None = None,
    ) -> T:
        """Run one step of a task with a deadline; ``on_start`` shows which step it is.

        ``work`` runs in a helper thread: past ``timeout`` seconds the task ends with
        :class:`StepTimedOut` naming the step (the helper thread is left to finish on its own;
        its result is dropped). A cancelled task raises :class:`Cancelled` between steps.
        """
        if token.cancelled:
            raise Cancelled
        if on_start is not None:
            on_start(what)
        result: list[T] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                result.append(work())
            except BaseException as exc:  # re-raised in the task's own thread
                failure.append(exc)

        helper = threading.Thread(target=run, name=f"{self.name}-step", daemon=True)
        helper.start()
        helper.join(timeout)
        if helper.is_alive():
            raise StepTimedOut(
                Text(
                    "The step '{step}' did not finish within {seconds} s.",
                    step=what,
                    seconds=f"{timeout:g}",
                ),
                Text(
                    "Check that the backend answers (Cluster step: context, namespace), then try"
                    " again; List runs shows whether the Job was created meanwhile."
                ),
            )
        if failure:
            raise failure[0]
        if token.cancelled:
            raise Cancelled
        return result[0]


class Steps:
    """The steps of one task, each under its deadline (``timeouts`` by step key, else
    ``default``) and shown through ``on_start``: a :class:`~..pipeline.StepRunner`."""

    def __init__(
        self,
        background: Background,
        token: Token,
        timeouts: Mapping[str, float],
        default: float,
        on_start: Callable[[Text], None],
    ) -> None:
        self._background, self._token = background, token
        self._timeouts, self._default, self._on_start = timeouts, default, on_start

    def __call__(self, what: Text, key: str, work: Callable[[], T]) -> T:
        timeout = self._timeouts.get(key, self._default)
        return self._background.step(self._token, what, timeout, work, self._on_start)
