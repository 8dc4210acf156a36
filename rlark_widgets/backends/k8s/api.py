"""One door to the API server: a timeout on every call, bounded retries, errors a user can act on.

Every request of the Kubernetes and KubeRay backends goes through :meth:`KubeApi.call`, so the retry policy
(429, 5xx and connection errors only), the request timeout and the wording of failures live in
one place. Answers are decoded as plain JSON dicts (``_preload_content=False``): the generated
models are slow for 1,000 pods and reject fields real servers leave empty.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import urllib3
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from ...i18n import Text
from ...rlark.secrets import redact
from ...rlark.site import SiteProfile
from ..base import BackendError

RETRYABLE = frozenset({429, 500, 502, 503, 504})
#: How a connection that the server (or a proxy) dropped mid-request reads in urllib3's errors.
DROPPED = ("Remote end closed connection", "Connection reset", "Connection aborted")
#: How an answer cut short (fewer bytes than its Content-Length, a broken chunk) reads there.
CUT_SHORT = ("IncompleteRead", "InvalidChunkLength", "Response ended prematurely")


#: The verbs calls use, each a whole phrase (the verb's place differs between languages).
_PHRASES: dict[str, Callable[[Text | str], Text]] = {
    "list": lambda target: Text("list {target}", target=target),
    "get": lambda target: Text("get {target}", target=target),
    "create": lambda target: Text("create {target}", target=target),
    "delete": lambda target: Text("delete {target}", target=target),
    "discover": lambda target: Text("discover {target}", target=target),
    "read the log of": lambda target: Text("read the log of {target}", target=target),
}


@dataclass(frozen=True)
class Action:
    """What a call tries to do, in the words a message needs (verb, resource, namespace, name)."""

    verb: str
    resource: str
    namespace: str | None = None
    name: str | None = None

    @property
    def text(self) -> Text:
        """E.g. "create jobs.rlark.io 'demo' in namespace 'research'", in the reader's language."""
        if self.namespace and self.name:
            target: Text | str = Text(
                "{resource} '{name}' in namespace '{namespace}'",
                resource=self.resource,
                name=self.name,
                namespace=self.namespace,
            )
        elif self.namespace:
            target = Text(
                "{resource} in namespace '{namespace}'",
                resource=self.resource,
                namespace=self.namespace,
            )
        else:  # no words to translate
            target = f"{self.resource} '{self.name}'" if self.name else self.resource
        phrase = _PHRASES.get(self.verb)  # a verb without a phrase of its own reads "verb target"
        return phrase(target) if phrase else Text("{verb} {target}", verb=self.verb, target=target)

    def __str__(self) -> str:
        return str(self.text)


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff; a server's Retry-After wins up to ``max_wait``."""

    attempts: int = 4
    backoff: float = 0.2
    cap: float = 2.0
    max_wait: float = 10.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)

    def wait(self, attempt: int, retry_after: float | None) -> float:
        delay = min(self.cap, self.backoff * 2**attempt)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_wait))
        return float(delay)


class KubeApiError(BackendError):
    """An API call that failed; ``status`` is None when no HTTP answer came (timeout, refused).

    ``maybe_applied`` is True when an earlier attempt of the same call failed after it may have
    reached the server (a 5xx, a timeout): a create that then meets a 409 may have been ours.
    """

    def __init__(
        self,
        text: Text,
        fix_text: Text,
        status: int | None = None,
        causes: list[tuple[str, str]] | None = None,
        maybe_applied: bool = False,
    ) -> None:
        super().__init__(text, fix_text)
        self.status, self.causes, self.maybe_applied = status, causes or [], maybe_applied

    @property
    def transient(self) -> bool:
        """Whether the same call may well succeed a little later (no answer, 429, 5xx), so a
        watcher reports it and tries again rather than giving up."""
        return self.status is None or self.status in RETRYABLE

    @property
    def server_trouble(self) -> bool:
        """No answer, or an overloaded or failing server: a check can draw no finding from it,
        so preflight raises it rather than reporting the Job wrong."""
        return self.status is None or self.status == 429 or self.status >= 500


def _status_body(exc: ApiException) -> dict[str, Any]:
    try:
        body = json.loads(exc.body or "{}")
    except (TypeError, ValueError):
        return {"message": str(exc.body or "")[:300]}
    return body if isinstance(body, dict) else {}


def _retry_after(exc: ApiException) -> float | None:
    value = (exc.headers or {}).get("Retry-After")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class KubeApi:
    """The official client's API groups behind one call method that counts its requests."""

    def __init__(
        self,
        api_client: client.ApiClient,
        timeout: float = 10.0,
        retry: RetryPolicy | None = None,
        *,
        site: SiteProfile,
    ) -> None:
        #: the site profile naming the Job resource (group, version, plural) and Worker labels
        self.site = site
        self.client = api_client
        self.core = client.CoreV1Api(api_client)
        self.custom = client.CustomObjectsApi(api_client)
        self.storage = client.StorageV1Api(api_client)
        self.authz = client.AuthorizationV1Api(api_client)
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.requests = 0  # HTTP requests sent, retries included (cost checks, the benchmark)

    @property
    def host(self) -> str:
        """The server's address as messages show it: never the user:password a URL may carry."""
        return without_credentials(self.client.configuration.host)

    @cached_property
    def exec_core(self) -> client.CoreV1Api:
        """CoreV1Api on its own ApiClient: ``kubernetes.stream`` swaps its client's ``call_api``
        while an exec runs, which must not hit a concurrent call (a refresh during a submit)."""
        return client.CoreV1Api(client.ApiClient(self.client.configuration))

    def close(self) -> None:
        """Close the connection pools (ours and the exec client's, if one was made)."""
        self.client.close()
        if "exec_core" in self.__dict__:
            self.exec_core.api_client.close()

    def call(
        self,
        action: Action,
        method: Callable[..., Any],
        *args: Any,
        attempts: int | None = None,
        deadline: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call a generated API method; returns the decoded JSON (or text for non-JSON answers).

        ``deadline`` (``time.monotonic()``): no retry starts that could not end before it, so
        a caller with a time budget (a monitor's refresh) is never held by a slow server.
        """
        attempts = attempts or self.retry.attempts
        attempt, maybe_applied = 0, False
        while True:
            attempt += 1
            self.requests += 1
            try:
                response = method(
                    *args, _preload_content=False, _request_timeout=self.timeout, **kwargs
                )
                return self._decode(action, response)  # reading the body can fail as well
            except ApiException as exc:
                if not exc.status:  # the client's own wrapper of TLS failures
                    raise self._transport_error(
                        action, exc.reason, attempt, maybe_applied
                    ) from None
                failure = self._http_error(action, exc, attempt, maybe_applied)
                if exc.status not in RETRYABLE:
                    raise failure from None
                retry_after, reached = _retry_after(exc), True
            except urllib3.exceptions.HTTPError as exc:  # no answer, or one cut short
                reason = getattr(exc, "reason", None) or exc
                failure = self._transport_error(action, reason, attempt, maybe_applied)
                retry_after = None
                reached = not isinstance(reason, urllib3.exceptions.NewConnectionError)
            delay = self.retry.wait(attempt - 1, retry_after)
            late = deadline is not None and time.monotonic() + delay + self.timeout > deadline
            if attempt >= attempts or late:
                raise failure from None
            maybe_applied = maybe_applied or reached
            self.retry.sleep(delay)

    def raw_get(
        self,
        action: Action,
        path: str,
        attempts: int | None = None,
        deadline: float | None = None,
        **path_params: str,
    ) -> Any:
        """GET a path no generated method covers well (the pod proxy), with the same policy."""

        def get(_preload_content: bool, _request_timeout: float) -> Any:
            request = self.client.param_serialize(
                "GET", path, path_params=path_params, auth_settings=["BearerToken"]
            )
            response = self.client.call_api(*request, _request_timeout=_request_timeout)
            if not 200 <= response.status <= 299:
                response.read()
                raise ApiException.from_response(http_resp=response, body=None, data=None)
            return response.response

        return self.call(action, get, attempts=attempts, deadline=deadline)

    def _decode(self, action: Action, response: Any) -> Any:
        """JSON answers as dicts; text answers (logs) as text."""
        try:
            data = response.data
        finally:
            response.release_conn()
        if "json" not in response.headers.get("Content-Type", ""):
            return data.decode("utf-8", "replace")
        try:
            return json.loads(data) if data else {}
        except ValueError:
            raise KubeApiError(
                Text(
                    "The API server at {host} answered '{action}' with something that is not JSON.",
                    host=self.host,
                    action=action.text,
                ),
                _NOT_A_SERVER,
            ) from None

    # --- messages -------------------------------------------------------------------------------
    def _http_error(
        self, action: Action, exc: ApiException, attempts: int, maybe_applied: bool
    ) -> KubeApiError:
        body = _status_body(exc)
        said = body.get("message") or exc.reason or ""
        causes = [
            (str(c.get("field") or "(object)"), str(c.get("message") or c.get("reason") or ""))
            for c in (body.get("details") or {}).get("causes") or []
            if isinstance(c, dict)
        ]
        status, doing = exc.status or 0, action.text
        if status == 401:
            message = Text(
                "The API server at {host} did not accept your credentials (401) when trying to"
                " {action}.",
                host=self.host,
                action=doing,
            )
            fix = _LOG_IN_AGAIN
        elif status == 403:
            message, fix = _forbidden(action)
            message = with_server_words(message, said)
        elif status == 404:
            message = Text(
                "Not found when trying to {action} (404): {said}", action=doing, said=said
            )
            fix = _CHECK_NAME
        elif status == 409:
            message = Text(
                "Conflict when trying to {action} (409): {said}", action=doing, said=said
            )
            fix = _OPEN_EXISTING
        elif status == 422:
            listed = "; ".join(f"{path}: {text}" for path, text in causes) or said
            message = Text(
                "The API server rejected {action} as invalid (422): {causes}",
                action=doing,
                causes=listed,
            )
            fix = _CORRECT_FIELDS
        elif status == 429 or status >= 500:
            message = Text(
                "The API server kept answering {status} ({reason}) to {action} after {attempts}"
                " attempt(s).",
                status=status,
                reason=exc.reason,
                action=doing,
                attempts=attempts,
            )
            message, fix = with_server_words(message, said), _BUSY
        else:
            message = Text(
                "The API server refused to {action} ({status} {reason}): {said}",
                action=doing,
                status=status,
                reason=exc.reason,
                said=said,
            )
            fix = _CHECK_REQUEST
        return KubeApiError(message, fix, status, causes, maybe_applied)

    def _transport_error(
        self, action: Action, reason: object, attempts: int, maybe_applied: bool
    ) -> KubeApiError:
        refused = urllib3.exceptions.NewConnectionError  # a subclass of TimeoutError, sadly
        if isinstance(reason, urllib3.exceptions.TimeoutError) and not isinstance(reason, refused):
            message = Text(
                "The API server at {host} did not answer within {timeout} s when trying to {action}"
                " ({attempts} attempt(s)).",
                host=self.host,
                timeout=f"{self.timeout:g}",
                action=action.text,
                attempts=attempts,
            )
            fix = _SLOW
        else:
            message = Text(
                "Cannot reach the Kubernetes API server at {host} to {action}: {reason}",
                host=self.host,
                action=action.text,
                reason=_short(reason),
            )
            fix = _UNREACHABLE
        return KubeApiError(message, fix, None, maybe_applied=maybe_applied)


_NOT_A_SERVER = Text(
    "Check that the kubeconfig points at a Kubernetes API server, not a proxy or web page."
)
_LOG_IN_AGAIN = Text("Log in again or refresh the token in your kubeconfig, then retry.")
_CHECK_NAME = Text(
    "Check the name and namespace; if the resource type itself is unknown, RLark may not be"
    " installed on this cluster."
)
_OPEN_EXISTING = Text("Open the existing object, or choose another name.")
_CORRECT_FIELDS = Text("Correct the listed fields of the Job and submit again.")
_BUSY = Text(
    "The cluster is busy or unwell: wait a minute and retry; if it lasts, tell the cluster admin."
)
_CHECK_REQUEST = Text("Check the request; the server's words above say what it expected.")
_SLOW = Text(
    "Check your network or VPN and the cluster's health; a slow cluster needs a longer timeout."
)
_UNREACHABLE = Text(
    "Check the server address in your kubeconfig, your network or VPN, and that the cluster is up."
)


def _forbidden(action: Action) -> tuple[Text, Text]:
    """A 403: what we may not do and whom to ask, in the namespace or cluster-wide."""
    if action.namespace:
        message = Text(
            "Kubernetes refused to {action}: you may not '{verb}' {resource} in namespace"
            " '{namespace}' (403 Forbidden).",
            action=action.text,
            verb=action.verb,
            resource=action.resource,
            namespace=action.namespace,
        )
        fix = Text(
            "Ask the cluster admin for '{verb}' on {resource} in namespace '{namespace}'.",
            verb=action.verb,
            resource=action.resource,
            namespace=action.namespace,
        )
        return message, fix
    message = Text(
        "Kubernetes refused to {action}: you may not '{verb}' {resource} cluster-wide"
        " (403 Forbidden).",
        action=action.text,
        verb=action.verb,
        resource=action.resource,
    )
    fix = Text(
        "Ask the cluster admin for '{verb}' on {resource} cluster-wide.",
        verb=action.verb,
        resource=action.resource,
    )
    return message, fix


def with_server_words(message: Text, said: str) -> Text:
    """``message`` followed by the server's own words, when it said any (they are not ours)."""
    return Text("{message} {said}", message=message, said=said) if said else message


_URL_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^\s/@]*@")


def without_credentials(url: str) -> str:
    """``http://admin:pass@host:6443/x`` -> ``http://host:6443/x``."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _short(reason: object) -> Text | str:
    text = redact(_URL_USERINFO.sub(r"\1", str(reason)))
    if any(marker in text for marker in DROPPED):
        return Text("the server closed the connection without answering.")
    if any(marker in text for marker in CUT_SHORT):
        return Text("the answer was cut short (the connection closed before its end).")
    for marker in ("Connection refused", "Name or service not known", "No route to host"):
        if marker in text:
            return marker.lower() + "."
    return text[:200]
