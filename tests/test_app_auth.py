"""Issue #23: the app answers only its user (token, Host, Origin).

The server is started once, exactly as ``make app`` starts it (``servers.make_app``), and
spoken to by raw clients, no browser: ``http.client`` for every route the app registers (read
from the same ``rlark_widgets.ui.serve.GuardedVoila`` with the same command line, so a route
added later is tested or fails :func:`test_every_registered_route_has_a_sample`) and
``websocket-client`` for the kernel channel. Host names and Origins are generated: rebinding
names (``evil.example``, ``127.0.0.1.nip.io``...) and any DNS name, with and without a port.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
import websocket
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servers import LOOPBACK, REPO, AppServer, make_app
from tornado import httputil

from rlark_widgets.ui import serve
from rlark_widgets.ui.access import LOOPBACK_NAMES, AccessPolicy, host_name, refusal

pytestmark = pytest.mark.slow
PAGE_TIMEOUT = 300  # the first page executes the whole app notebook (slow on a busy machine)
#: A handful of generated Hosts or Origins per test on the one server (more under fuzz).
HANDFUL = settings(
    max_examples=max(6, settings.default.max_examples // 8),
    suppress_health_check=[HealthCheck.too_slow],
)
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
KERNEL = "{kernel}"
#: One concrete path per route the app registers (its pattern as Voila writes it); content that
#: exists where there is some, the real kernel where a route takes one.
SAMPLES = {
    r"/api/kernels/(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)": f"/api/kernels/{KERNEL}",
    r"/api/kernels/(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)/channels": f"/api/kernels/{KERNEL}/channels",
    "/voila/templates/(.*)": "/voila/templates/rlark/static/index.css",
    "/voila/static/(.*)": "/voila/static/voila.js",
    "/voila/api/themes/(.*)": "/voila/api/themes/@jupyterlab/theme-light-extension/index.css",
    "/voila/api/shutdown/(.*)": f"/voila/api/shutdown/{KERNEL}",
    "/login": "/login",
    "/logout": "/logout",
    "/voila/labextensions/(.*)": "/voila/labextensions/@jupyter-widgets/jupyterlab-manager/package.json",
    "/voila/files/(.*)": "/voila/files/figure.png",  # allow-listed (png), absent: 404 with the token
    "/(.*)": "/",
}
#: The identity routes: the login form asks for the token; logout has nothing to give.
IDENTITY = {"/login", "/logout"}
#: Routes that act on the kernel: never called with the token here (they would end it).
DESTRUCTIVE = {f"/voila/api/shutdown/{KERNEL}"}


# --- the server and raw clients ------------------------------------------------------------------
@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with make_app(tmp_path_factory.mktemp("app-auth")) as server:
        yield server


@dataclass(frozen=True)
class Reply:
    status: int
    location: str
    body: bytes


def request(
    app: AppServer,
    method: str,
    path: str,
    *,
    token: str | None = None,
    host: str | None = None,
    origin: str | None = None,
) -> Reply:
    """One HTTP request, redirects not followed; the token (if any) in the query, as in the
    printed URL."""
    if token is not None:
        path += ("&" if "?" in path else "?") + f"token={token}"
    headers = {"Host": host or f"{LOOPBACK}:{app.port}"}
    if origin is not None:
        headers["Origin"] = origin
    connection = http.client.HTTPConnection(LOOPBACK, app.port, timeout=PAGE_TIMEOUT)
    try:
        body = b"" if method in ("POST", "PUT", "PATCH") else None
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return Reply(response.status, response.getheader("Location") or "", response.read())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def kernel_id(app: AppServer) -> str:
    """The kernel of the app's page, loaded once with the token."""
    page = request(app, "GET", "/", token=app.token)
    assert page.status == 200, page
    found = re.search(rb'"kernelId": "([0-9a-f-]{36})"', page.body)
    assert found, "the app's page names no kernel"
    return found.group(1).decode()


def open_channel(
    app: AppServer,
    kernel: str,
    *,
    token: str | None,
    host: str | None = None,
    origin: str | None = None,
) -> websocket.WebSocket:
    """The kernel websocket the page opens; ``origin=None`` sends the app's own origin."""
    query = f"session_id={uuid.uuid4().hex}" + (f"&token={token}" if token else "")
    return websocket.create_connection(
        f"ws://{LOOPBACK}:{app.port}/api/kernels/{kernel}/channels?{query}",
        timeout=60,
        host=host or f"{LOOPBACK}:{app.port}",
        origin=origin or app.origin,
    )


def assert_channel_refused(app: AppServer, kernel: str, **how: str | None) -> None:
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        open_channel(app, kernel, **how).close()
    assert refused.value.status_code == 403


def kernel_answers(channel: websocket.WebSocket) -> bool:
    """Whether the kernel replies to kernel_info on ``channel`` (the channel reaches it)."""
    msg_id = uuid.uuid4().hex
    header = {"msg_id": msg_id, "msg_type": "kernel_info_request", "session": "test"}
    header |= {"username": "test", "version": "5.3", "date": "2024-01-01T00:00:00Z"}
    message = {"header": header, "parent_header": {}, "metadata": {}, "content": {}}
    channel.send(json.dumps(message | {"channel": "shell", "buffers": []}))
    for _ in range(200):
        reply = json.loads(channel.recv())
        answered = reply.get("parent_header", {}).get("msg_id") == msg_id
        if answered and reply["msg_type"] == "kernel_info_reply":
            return True
    return False


def registered_routes() -> list[str]:
    """The URL patterns rlark-app registers, from the same class with the same command line."""
    with mock.patch.dict(os.environ, {"JUPYTER_PATH": str(serve.TEMPLATES)}):
        voila = serve.GuardedVoila(token="t" * serve.MIN_TOKEN_LENGTH)
        voila.initialize(serve.voila_argv(REPO / "notebooks/app.ipynb", 8866))
        voila.init_settings()  # the identity provider, whose login routes are registered too
        return [rule[0] for rule in voila.init_handlers()]


def refused(reply: Reply) -> bool:
    """403/401, or a redirect to the login form; and no page of the app in the body."""
    to_login = reply.status in (302, 303) and reply.location.startswith("/login")
    return (reply.status in (401, 403) or to_login) and b"kernelId" not in reply.body


# --- every route, without the token --------------------------------------------------------------
def test_every_registered_route_has_a_sample() -> None:
    routes = registered_routes()
    assert set(routes) == set(SAMPLES), "a route without a sample is not tested below"
    for pattern, path in SAMPLES.items():
        concrete = path.replace(KERNEL, str(uuid.uuid4()))
        assert re.fullmatch(pattern, concrete), (pattern, path)
        # and the catch-all is not what serves it (it would be tested twice, this one never)
        assert pattern == "/(.*)" or next(p for p in routes if re.fullmatch(p, concrete)) == pattern


def test_with_the_token_every_sample_reaches_its_handler(app: AppServer, kernel_id: str) -> None:
    """The samples are real: with the token none is refused, and those with content serve it."""
    for path in set(SAMPLES.values()) - DESTRUCTIVE - IDENTITY:
        reply = request(app, "GET", path.replace(KERNEL, kernel_id), token=app.token)
        assert not refused(reply) and reply.status != 403, (path, reply.status)
    for path in ("/voila/static/voila.js", "/voila/templates/rlark/static/index.css"):
        assert request(app, "GET", path, token=app.token).status == 200, path


def test_without_the_token_every_route_and_method_is_refused(
    app: AppServer, kernel_id: str
) -> None:
    with_token = {
        path: request(app, "GET", path.replace(KERNEL, kernel_id), token=app.token).body
        for path in set(SAMPLES.values()) - DESTRUCTIVE - IDENTITY
    }
    for path in SAMPLES.values():
        for method in METHODS:
            for token in (None, "wrong-" + app.token):
                reply = request(app, method, path.replace(KERNEL, kernel_id), token=token)
                content = with_token.get(path, b"")
                leaked = len(content) > 40 and content[:200] in reply.body
                assert not leaked, (method, path)
                if path in IDENTITY:  # the login form, logout: open, and nothing of the app
                    assert b"kernelId" not in reply.body and reply.status != 204
                else:
                    assert refused(reply), (method, path, reply.status, reply.body[:200])
    # DELETE /api/kernels/<id> and POST /voila/api/shutdown/<id> did not end the kernel:
    assert request(app, "GET", f"/api/kernels/{kernel_id}", token=app.token).status == 200


def test_the_kernel_channel_opens_only_with_the_token(app: AppServer, kernel_id: str) -> None:
    assert_channel_refused(app, kernel_id, token=None)
    assert_channel_refused(app, kernel_id, token="wrong-" + app.token)
    channel = open_channel(app, kernel_id, token=app.token)
    try:
        assert kernel_answers(channel)
    finally:
        channel.close()
    # the app's other loopback name, with its own origin, is the app too
    local = f"localhost:{app.port}"
    channel = open_channel(app, kernel_id, token=app.token, host=local, origin=f"http://{local}")
    channel.close()


def test_the_printed_url_carries_the_token(app: AppServer) -> None:
    printed = app.log.read_text()
    assert f"open http://127.0.0.1:{app.port}/?token={app.token}" in printed
    assert f"请在浏览器中打开 http://127.0.0.1:{app.port}/?token={app.token}" in printed


# --- generated: foreign Host names and Origins ---------------------------------------------------
REBINDING = [
    "evil.example",
    "127.0.0.1.nip.io",
    "localtest.me",
    "localhost.evil.example",
    "localhost.",
    "EVIL.example",
    "127.0.0.2",
    "0.0.0.0",
    "192.168.1.10",
    "[::ffff:127.0.0.1]",
    "[::2]",
]
dns_names = st.from_regex(
    r"[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?(\.[a-z0-9]{1,10}){0,3}", fullmatch=True
)
foreign_names = (st.sampled_from(REBINDING) | dns_names).filter(
    lambda name: host_name(name) not in LOOPBACK_NAMES
)


def with_port(name: str, port: int, suffix: bool) -> str:
    return f"{name}:{port}" if suffix else name


@HANDFUL
@given(name=foreign_names, suffix=st.booleans())
def test_a_foreign_host_is_refused_with_and_without_the_token(
    app: AppServer, kernel_id: str, name: str, suffix: bool
) -> None:
    host = with_port(name, app.port, suffix)
    for token in (app.token, None):
        for path in ("/", f"/api/kernels/{kernel_id}", "/voila/static/voila.js", "/login"):
            reply = request(app, "GET", path, token=token, host=host)
            assert reply.status == 403 and b"kernelId" not in reply.body, (host, path)
        assert_channel_refused(app, kernel_id, token=token, host=host)


@st.composite
def foreign_origins(draw: st.DrawFn, port: int) -> str:
    """Origins of other pages: other hosts, the app's host on another port or scheme, 'null'."""
    own = draw(st.sampled_from(sorted(LOOPBACK_NAMES)))
    own = f"[{own}]" if ":" in own else own
    other_port = draw(st.integers(1, 65535).filter(lambda p: p != port))
    return draw(
        st.sampled_from(
            [
                f"http://{draw(foreign_names)}:{port}",
                f"https://{draw(foreign_names)}",
                f"http://{own}:{other_port}",
                f"https://{own}:{port}",
                f"http://{own}",
                "null",
            ]
        )
    )


@HANDFUL
@given(data=st.data())
def test_a_foreign_origin_is_refused_even_with_the_token(
    app: AppServer, kernel_id: str, data: st.DataObject
) -> None:
    origin = data.draw(foreign_origins(app.port))
    assert_channel_refused(app, kernel_id, token=app.token, origin=origin)
    for method in ("GET", "POST"):
        reply = request(app, method, "/", token=app.token, origin=origin)
        assert reply.status == 403 and b"kernelId" not in reply.body, (method, origin)


@HANDFUL
@given(name=foreign_names)
def test_a_rebinding_host_and_origin_pair_is_refused(
    app: AppServer, kernel_id: str, name: str
) -> None:
    """A page on ``name``, rebound to 127.0.0.1: its Origin matches its Host (what jupyter_server
    alone accepts), and it may even know the token."""
    host = f"{name}:{app.port}"
    for token in (app.token, None):
        assert_channel_refused(app, kernel_id, token=token, host=host, origin=f"http://{host}")
        reply = request(app, "GET", "/", token=token, host=host, origin=f"http://{host}")
        assert reply.status == 403 and b"kernelId" not in reply.body


def test_a_short_chosen_token_is_refused_with_the_variable_named() -> None:
    with pytest.raises(serve.UsageError) as error:
        serve.app_token({serve.TOKEN_VARIABLE: "short"})
    assert serve.TOKEN_VARIABLE in error.value.message.render("en")
    assert serve.TOKEN_VARIABLE in error.value.message.render("zh")
    assert len(serve.app_token({})) >= 40 and serve.app_token({}) != serve.app_token({})


# --- generated, in process: the guard's one decision over many more Hosts and Origins -------------
def guard_request(host: str, **headers: str) -> httputil.HTTPServerRequest:
    start = httputil.RequestStartLine("GET", "/", "HTTP/1.1")
    return httputil.HTTPServerRequest(
        start_line=start, headers=httputil.HTTPHeaders(Host=host, **headers)
    )


PORT = 8866
POLICY = AccessPolicy.loopback(PORT)
#: The app's own names as a browser may write them (any case), with and without the port.
own_names = st.builds(
    lambda name, upper: name.upper() if upper else name,
    st.sampled_from(["localhost", "127.0.0.1", "[::1]"]),
    st.booleans(),
)


@given(name=foreign_names, suffix=st.booleans(), own=own_names, own_suffix=st.booleans())
def test_the_guard_refuses_every_foreign_host_and_origin(
    name: str, suffix: bool, own: str, own_suffix: bool
) -> None:
    host, own_host = with_port(name, PORT, suffix), with_port(own, PORT, own_suffix)
    assert refusal(guard_request(host), POLICY) is not None, host
    assert refusal(guard_request(own_host), POLICY) is None, own_host
    for header in ("Origin", "Sec-WebSocket-Origin"):
        for origin in (f"http://{host}", f"http://{name}:{PORT}", "null"):
            assert refusal(guard_request(own_host, **{header: origin}), POLICY) is not None
        own_origin = f"http://{own}:{PORT}"
        assert refusal(guard_request(own_host, **{header: own_origin}), POLICY) is None


def test_a_start_that_cannot_be_served_says_which_option_to_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RLARK_LANG", "zh")
    assert serve.main([str(tmp_path / "missing.ipynb")]) == 2
    assert "missing.ipynb 处没有 notebook" in capsys.readouterr().err
    monkeypatch.setenv("RLARK_LANG", "en")
    monkeypatch.setenv(serve.TOKEN_VARIABLE, "short")
    assert serve.main([str(REPO / "notebooks/app.ipynb")]) == 2
    assert f"{serve.TOKEN_VARIABLE} must be at least 16 characters" in capsys.readouterr().err
    monkeypatch.delenv(serve.TOKEN_VARIABLE)
    with socket.socket() as taken:
        taken.bind((LOOPBACK, 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert serve.main([str(REPO / "notebooks/app.ipynb"), f"--port={port}"]) == 2
    assert f"Port {port} on 127.0.0.1 cannot be used" in capsys.readouterr().err
