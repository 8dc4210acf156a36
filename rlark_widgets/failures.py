"""What an OS, network or API failure means to a user, and what to do: one mapping for every door.

The CLI's ``main`` and the app's action runner (``Session._guard``) each have one error
boundary; both ask :func:`explain` for the words, so a directory given as a file, a permission
refused, a connection cut mid-answer or a 403 reads the same everywhere and never as a
traceback. The deeper doors (``input_files``, ``output_files``, the Kubernetes API door) word
their own failures with the option or the call they concern; this is the net for what still
escapes them.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable
from dataclasses import dataclass

import urllib3
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException

from .i18n import Text, TextError

#: The exception classes :func:`explain` has words for: a boundary catches these.
FAILURES: tuple[type[Exception], ...] = (
    TextError,
    OSError,
    urllib3.exceptions.HTTPError,
    ApiException,
    ConfigException,
)


@dataclass(frozen=True)
class Explanation:
    """A failure in words: what happened and the fix that matches its cause."""

    text: Text
    fix_text: Text | str


_CHECK_PATH = Text("Check the path.")
_NETWORK = Text(
    "Check the server address in your kubeconfig, your network or VPN, and that the cluster "
    "is up; then run the command again."
)


def explain(exc: BaseException) -> Explanation | None:
    """The words for ``exc``; None when it is none of the failures a user can cause or meet."""
    if isinstance(exc, TextError):
        return Explanation(exc.text, exc.fix_text)
    if isinstance(exc, ApiException):
        return _api(exc)
    if isinstance(exc, urllib3.exceptions.HTTPError):
        return _network(exc)
    if isinstance(exc, ConfigException):
        return Explanation(
            Text("The kubeconfig cannot be used: {reason}", reason=str(exc)),
            Text("Check --kubeconfig (or $KUBECONFIG) and --context."),
        )
    if isinstance(exc, TimeoutError | socket.timeout):
        return Explanation(
            Text("No answer in time: {reason}", reason=str(exc) or type(exc).__name__),
            _NETWORK,
        )
    if isinstance(exc, ConnectionError):
        return Explanation(
            Text("The connection failed: {reason}", reason=exc.strerror or str(exc)), _NETWORK
        )
    if isinstance(exc, OSError):
        return _os(exc)
    return None


def interrupted_submit(
    name: str, cause: Text | str, exists: Callable[[], bool], status_command: str
) -> Explanation:
    """A submit whose answer never came: whether the Job exists, read back from the server now.

    The create may have reached the server before the connection broke (the answer cut short),
    so "it failed" could be untrue; ``exists`` asks the server again, and the message says what
    it answered (or that it cannot be read back either).
    """
    try:
        there: bool | None = exists()
    except FAILURES:
        there = None
    if there:
        return Explanation(
            Text(
                "The submit of {name} was interrupted ({cause}), but the Job exists on the "
                "cluster (read back just now): it was created.",
                name=name,
                cause=cause,
            ),
            Text(
                "Follow it with: {command} (submitting again creates no duplicate).",
                command=status_command,
            ),
        )
    if there is None:
        return Explanation(
            Text(
                "The submit of {name} was interrupted ({cause}), and whether the Job was created "
                "cannot be read back now.",
                name=name,
                cause=cause,
            ),
            Text(
                "Check with {command} once the cluster answers; submitting again is safe "
                "(it never creates a duplicate).",
                command=status_command,
            ),
        )
    return Explanation(
        Text(
            "The submit of {name} was interrupted ({cause}); the Job does not exist on the "
            "cluster (read back just now): nothing was created.",
            name=name,
            cause=cause,
        ),
        Text("Submit again once the cluster answers."),
    )


def _os(exc: OSError) -> Explanation:
    path = str(exc.filename) if exc.filename is not None else ""
    reason = exc.strerror or str(exc)
    if isinstance(exc, IsADirectoryError):
        return Explanation(
            Text("{path} is a directory, where a file is expected.", path=path),
            Text("Give the path of a file (inside that directory, or elsewhere)."),
        )
    if isinstance(exc, NotADirectoryError):
        return Explanation(
            Text("{path}: a part of this path is a file, not a directory.", path=path),
            _CHECK_PATH,
        )
    if isinstance(exc, FileNotFoundError):
        return Explanation(Text("No file or directory at {path}.", path=path), _CHECK_PATH)
    if isinstance(exc, PermissionError):
        return Explanation(
            Text("{path} cannot be opened: permission denied.", path=path),
            Text("Check its permissions (ls -l), or use a path you may read and write."),
        )
    if isinstance(exc, FileExistsError):
        return Explanation(
            Text("{path} already exists.", path=path),
            Text("Remove it first, or choose another path."),
        )
    if exc.errno in (errno.ENXIO, errno.EAGAIN):  # a FIFO without a reader, opened non-blocking
        return Explanation(
            Text("{path} is a FIFO (named pipe) with no reader.", path=path),
            Text("Give the path of a regular file."),
        )
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Explanation(
            Text("No space left to write {path}.", path=path),
            Text("Free some space, or write somewhere else."),
        )
    return Explanation(
        (
            Text("{path} failed: {reason}", path=path, reason=reason)
            if path
            else Text("The system refused: {reason}", reason=reason)
        ),
        Text("Check the path, its permissions and the free space."),
    )


def _network(exc: urllib3.exceptions.HTTPError) -> Explanation:
    reason = str(getattr(exc, "reason", None) or exc)
    if isinstance(exc, urllib3.exceptions.TimeoutError) and not isinstance(
        exc, urllib3.exceptions.NewConnectionError
    ):
        return Explanation(Text("No answer in time: {reason}", reason=reason), _NETWORK)
    return Explanation(
        Text("The connection to the server broke off: {reason}", reason=reason), _NETWORK
    )


def _api(exc: ApiException) -> Explanation:
    status, said = exc.status or 0, str(exc.reason or "")
    text = Text("The Kubernetes API answered {status} ({reason}).", status=status, reason=said)
    if status == 401:
        fix = Text("Log in again or refresh the token in your kubeconfig, then retry.")
    elif status == 403:
        fix = Text("Ask the cluster admin for the permission this command needs.")
    elif status == 404:
        fix = Text("Check the name and --namespace; RLark or KubeRay may not be installed.")
    elif status == 409:
        fix = Text("Open the existing object, or choose another name.")
    elif status == 429 or status >= 500 or status == 0:
        fix = Text(
            "The cluster is busy or unwell: wait a minute and retry; if it lasts, tell the "
            "cluster admin."
        )
    else:
        fix = Text("Check the request; the server's words above say what it expected.")
    return Explanation(text, fix)
