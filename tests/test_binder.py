"""The Binder launch: what repo2docker reads in binder/, and the app at the launch URL.

Binder builds the image from ``binder/`` (Python from runtime.txt, then postBuild installs the
package) and starts ``jupyter server``; the README's badge opens ``urlpath`` on it. Binder itself
cannot run here, so this checks the files it reads, and serves the repository with the same
``jupyter server`` and Voila's server extension to load the launch URL in a real browser, and
to check the app's access guard there (``rlark_widgets/ui/binder_guard.py``, which ``start``
enables): the server's token, a loopback or the hub's Host, the hub's Origin.
"""

from __future__ import annotations

import http.client
import os
import re
import sys
import tomllib
import urllib.parse
from pathlib import Path

import pytest
from servers import free_port, serving

from rlark_widgets.ui.access import LOOPBACK_NAMES, AccessPolicy
from rlark_widgets.ui.binder_guard import ORIGINS_VARIABLE, binder_policy

REPO = Path(__file__).resolve().parents[1]
BINDER = REPO / "binder"


def _launch_urlpath() -> str:
    """The ``urlpath`` of the README's Binder badge."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(r"https://mybinder\.org/v2/gh/[^)\s]+\?urlpath=([^)\s]+)", readme)
    assert match, "README has no mybinder.org launch link with a urlpath"
    return urllib.parse.unquote(match.group(1))


def test_binder_installs_this_package_on_the_supported_python() -> None:
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.(\d+)", runtime), runtime
    required = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    minor = int(runtime.split(".")[1])
    assert required == ">=3.11" and minor >= 11
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK), "repo2docker runs postBuild only when executable"
    assert re.search(r"pip install .*-e \.$", post_build.read_text(), re.MULTILINE)


def test_launch_url_opens_the_app_notebook_with_the_offline_template() -> None:
    path, _, query = _launch_urlpath().partition("?")
    assert path == "voila/render/notebooks/app.ipynb" and query == "template=rlark"
    assert (REPO / path.removeprefix("voila/render/")).is_file()
    assert os.access(BINDER / "start", os.X_OK), "repo2docker runs start only when executable"


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory):
    """``jupyter server`` over the repository, as Binder starts it: through ``binder/start``,
    with a token."""
    port, token = free_port(), "binder-check"
    argv = [
        str(BINDER / "start"),
        str(Path(sys.executable).parent / "jupyter-server"),
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={REPO}",
        "--allow-root",  # CI runs as root; Binder runs as an ordinary user
    ]
    workspace = tmp_path_factory.mktemp("binder-jobs")
    with serving(argv, port, env={"RLARK_WORKSPACE": str(workspace)}):
        yield f"http://127.0.0.1:{port}/", token


@pytest.mark.slow
def test_the_launch_url_renders_the_app_under_jupyter_server(page, jupyter_server) -> None:
    base, token = jupyter_server
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{base}{_launch_urlpath()}&token={token}", timeout=180_000)
    page.wait_for_selector(".widget-tab", timeout=180_000)
    assert page.locator("link[href*='://']").count() == 0  # no stylesheet from a CDN
    assert page.get_by_role("button", name="Load example").count() == 1
    assert "Traceback" not in page.content()


# --- the access guard on Binder's server (rlark_widgets/ui/binder_guard.py) ----------------------
def _status(
    url: str, *, host: str | None = None, token: str | None = None, origin: str = ""
) -> int:
    """The status of a GET, redirects not followed."""
    parts = urllib.parse.urlsplit(url)
    headers = {"Host": host or parts.netloc} | ({"Origin": origin} if origin else {})
    if token:
        headers["Authorization"] = f"token {token}"
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}", headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.slow
def test_binder_serves_the_app_only_with_its_token_host_and_origin(jupyter_server) -> None:
    base, token = jupyter_server
    app_page = f"{base}{_launch_urlpath()}"
    static = f"{base}voila/templates/rlark/static/index.css"
    assert _status(app_page, token=token) == 200 and _status(static, token=token) == 200
    # Voila's static handler asks for no user of its own: the guard does
    assert _status(static) == 403 and _status(app_page) in (302, 403)
    port = urllib.parse.urlsplit(base).port
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.nip.io:{port}"):
        assert _status(app_page, host=host, token=token) == 403, host
        assert _status(static, host=host, token=token) == 403, host
    assert _status(f"{base}api/status", token=token, origin="http://evil.example") == 403


def test_binder_serves_the_hubs_public_origin_and_never_any_host() -> None:
    env = {"JUPYTERHUB_PUBLIC_URL": "https://hub.example.org/", "JUPYTERHUB_HOST": ""}
    env[ORIGINS_VARIABLE] = "https://other.example.org:8443, "
    policy = binder_policy(env, 8888)
    assert policy.host_names == LOOPBACK_NAMES | {"hub.example.org", "other.example.org"}
    assert "https://hub.example.org:443" in policy.origins
    assert "https://other.example.org:8443" in policy.origins
    assert binder_policy({}, 8888) == AccessPolicy.loopback(8888)  # nothing known: loopback only
