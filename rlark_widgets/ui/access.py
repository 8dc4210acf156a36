"""Who the app answers: its user's browser or script, on the app's own host, with its token.

Every request the app's server serves goes through :class:`AccessGuard`, websockets included:
``rlark-app`` (and on Binder ``binder_guard``) puts every route of the server behind it with
:func:`guard_routes`. Voila leaves three
holes of its own, found in its and jupyter_server's sources: it sets ``allow_remote_access=True``
(any ``Host`` is served, so a page on ``evil.example`` rebound to 127.0.0.1 is same-origin with
the app), jupyter_server accepts a websocket whose ``Origin`` matches whatever ``Host`` was sent,
and Voila's template, static and file handlers are plain tornado handlers that ask for no user
at all. The guard closes all three in one place, before any handler runs:

1. the ``Host`` header names one of :attr:`AccessPolicy.host_names` (loopback names; on Binder
   also the hub's public name), else 403;
2. an ``Origin`` header (browsers send it on websockets, POSTs and cross-origin fetches) is the
   app's own origin, else 403: a foreign page cannot drive the kernel even with a stolen cookie;
3. the request carries the user's identity (the token in ``?token=``, an ``Authorization:
   token`` header, or the login cookie the token set): jupyter_server's identity provider
   decides, and a request without it gets 403 (a page is redirected to the login form), except
   the login form itself.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from jupyter_server.auth.login import LoginFormHandler
from jupyter_server.auth.logout import LogoutHandler
from jupyter_server.base.handlers import JupyterHandler
from tornado import httputil, web
from tornado.routing import RuleRouter, URLSpec

from rlark_widgets.i18n import LANGUAGES, Text

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class AccessPolicy:
    """The host names the app is reached at and the origins of its own pages."""

    host_names: frozenset[str]
    origins: frozenset[str]

    @classmethod
    def loopback(cls, port: int) -> AccessPolicy:
        """The app on this machine: loopback names, and its pages at ``http://name:port``."""
        origins = frozenset(f"http://{_netloc(name)}:{port}" for name in LOOPBACK_NAMES)
        return cls(LOOPBACK_NAMES, origins)

    def also_at(self, urls: Iterable[str]) -> AccessPolicy:
        """This policy, plus the host name and origin of each public URL (a proxy's address)."""
        given = [url.strip() for url in urls if url.strip()]
        names = {host for url in given if (host := urlsplit(url.lower()).hostname)}
        origins = {_origin(url) for url in given}
        return AccessPolicy(self.host_names | names, self.origins | origins)


def _netloc(name: str) -> str:
    """``name`` as it appears in a URL: an IPv6 address in brackets."""
    try:
        return f"[{name}]" if ipaddress.ip_address(name).version == 6 else name
    except ValueError:
        return name


def host_name(host_header: str) -> str:
    """The name of a ``Host`` header: without its port, an IPv6 address without brackets."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def refusal(request: httputil.HTTPServerRequest, policy: AccessPolicy) -> Text | None:
    """Why ``request`` is refused before any handler sees it (foreign Host or Origin), or None."""
    host = request.headers.get("Host", "")
    if host_name(host) not in policy.host_names:
        return Text(
            "Refused: the app answers only at {names} (the Host header was '{host}'). Open it at one of its own addresses: {origins}.",
            names=", ".join(sorted(policy.host_names)),
            host=host,
            origins=", ".join(sorted(policy.origins)),
        )
    for header in ("Origin", "Sec-WebSocket-Origin"):
        origin = request.headers.get(header)
        if origin is not None and _origin(origin) not in policy.origins:
            return Text(
                "Refused: a page from {origin} may not use the app; only the app's own pages ({origins}) may.",
                origin=origin,
                origins=", ".join(sorted(policy.origins)),
            )
    return None


def _origin(value: str) -> str:
    """``scheme://host:port`` of an Origin header, lower-cased, port explicit (``null``, which
    sandboxed pages send, comes out as no origin of the app's)."""
    parts = urlsplit(value.strip().lower())
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:  # a port that is not a number
        return value
    return f"{parts.scheme}://{_netloc(parts.hostname or '')}:{port}"


class AccessGuard(JupyterHandler):
    """The checks above, run first in ``prepare`` of every handler the app serves."""

    #: Why this request was refused, shown on the error page in both languages.
    refused_because: Text | None = None

    async def prepare(self, *args: Any, **kwargs: Any) -> None:
        policy: AccessPolicy = self.settings["rlark_access_policy"]
        self._refuse_if(refusal(self.request, policy))
        # jupyter_server's own checks: the identity provider sets current_user from the token
        # or the login cookie (a page without either is redirected to the login form).
        ready: object = super().prepare(*args, **kwargs)
        while isinstance(ready, Awaitable):  # JupyterHandler's prepare may return another
            ready = await ready
        if self._finished or self.current_user is not None or _open_to_anyone(self):
            return
        self._refuse_if(
            Text(
                "Refused: the app's token is missing or wrong. Open the URL with the token that the app printed when it started."
            )
        )

    def _refuse_if(self, reason: Text | None) -> None:
        if reason is not None:
            self.refused_because = reason
            self.log.warning("%s %s: %s", self.request.method, self.request.path, reason)
            raise web.HTTPError(403)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """A plain-text error page (jupyter_server's error templates need a ``static_path``
        that Voila's own server does not have: they fail and log a traceback instead)."""
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        lines = [f"{status_code} {self._reason}"]
        if self.refused_because is not None:
            lines += [self.refused_because.render(lang) for lang in LANGUAGES]
        self.finish("\n".join(lines) + "\n")


def _open_to_anyone(handler: web.RequestHandler) -> bool:
    """The login form (it asks for the token) and logout; nothing else, not even the static
    files jupyter_server itself leaves open for its login page (FileFindHandler)."""
    return isinstance(handler, LoginFormHandler | LogoutHandler)


def guard_routes(router: RuleRouter) -> None:
    """Put every handler ``router`` routes to (a tornado Application's ``default_router``, its
    host rules and what they nest) behind the guard, whoever registered it."""
    for rule in router.rules:
        if isinstance(rule.target, RuleRouter):
            guard_routes(rule.target)
        elif isinstance(rule.target, type) and issubclass(rule.target, web.RequestHandler):
            rule.target = guarded(rule.target)
            if isinstance(rule, URLSpec):
                rule.handler_class = rule.target


#: One guarded class per handler class, so a handler routed twice is one class.
_GUARDED: dict[type[web.RequestHandler], type[web.RequestHandler]] = {}


def guarded(handler_class: type[web.RequestHandler]) -> type[web.RequestHandler]:
    """``handler_class`` behind :class:`AccessGuard`.

    A plain tornado handler (Voila's static and file handlers) becomes a JupyterHandler too, as
    jupyter_server's own FileFindHandler is, so the identity provider can read its token.
    """
    if issubclass(handler_class, AccessGuard):
        return handler_class
    if handler_class not in _GUARDED:
        name = f"Guarded{handler_class.__name__}"
        _GUARDED[handler_class] = type(name, (AccessGuard, handler_class), {})
    return _GUARDED[handler_class]
