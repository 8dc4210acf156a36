"""Security (issue #8): the app listens on loopback only, its page cannot run code in the kernel,
and kubeconfig credentials are never displayed, logged or saved.

The Voila tests start the server exactly as ``make app`` does (the command ``make -n app``
prints) and talk to it as a browser's page would: over the kernel websocket the page uses.
The credential tests put a token and a client key in a kubeconfig, use it against the
Kubernetes emulator from the CLI (in a subprocess, with DEBUG logging on, so what it leaves
behind after exiting can be inspected) and from the app's session, and search every output.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import kmock
import pytest
import websocket
import yaml
from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)
from kube_emulator import Cluster, Fault
from servers import LOOPBACK, AppServer, make_app
from test_kubernetes_backend import NAMESPACE, demo_job, host

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.kube.backend import KubernetesBackend
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.ui.session import Session, finding_key

REPO = Path(__file__).resolve().parents[1]
PAGE_TIMEOUT = 300  # the first page executes the whole app notebook (slow on a busy machine)


# --- the Voila server, started the way `make app` starts it --------------------------------------
@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with make_app(tmp_path_factory.mktemp("voila")) as server:
        yield server


def listening_addresses(port: int) -> set[str]:
    """Local addresses of the sockets listening on ``port`` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table, size in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        for line in Path(table).read_text().splitlines()[1:]:
            local, _, state = line.split()[1:4]
            address, _, port_hex = local.partition(":")
            if state == "0A" and int(port_hex, 16) == port:  # 0A: LISTEN
                raw = bytes.fromhex(address)
                # The kernel prints each 32-bit word in host (little-endian) order.
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                family = socket.AF_INET if size == 4 else socket.AF_INET6
                found.add(socket.inet_ntop(family, words))
    return found


def non_loopback_addresses() -> set[str]:
    """IPv4 addresses of this machine other than 127.0.0.0/8 (may be empty in a sandbox)."""
    found = set()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:  # no packet is sent: connect() on UDP only picks the outgoing interface
            probe.connect(("192.0.2.1", 9))
            found.add(probe.getsockname()[0])
        except OSError:
            pass
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        found.update(info[4][0] for info in infos)
    except OSError:
        pass
    return {a for a in found if not a.startswith("127.") and a != "0.0.0.0"}


@pytest.mark.slow
def test_make_app_serves_on_loopback_only(app_server: AppServer) -> None:
    assert app_server.command[1:4] == ["-m", "rlark_widgets.ui.serve", "notebooks/app.ipynb"]
    assert listening_addresses(app_server.port) == {LOOPBACK}
    for address in non_loopback_addresses():
        with socket.socket() as s:
            s.settimeout(5)
            assert s.connect_ex((address, app_server.port)) != 0, f"reachable on {address}"


# --- the page cannot execute code in the kernel --------------------------------------------------
V1 = "v1.kernel.websocket.jupyter.org"  # the binary protocol JupyterLab's frontend prefers


def _message(msg_type: str, session: str, content: dict, channel: str) -> dict:
    header = {
        "msg_id": uuid.uuid4().hex,
        "msg_type": msg_type,
        "session": session,
        "username": "page",
        "version": "5.3",
        "date": "2024-01-01T00:00:00Z",
    }
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content} | {
        "channel": channel,
        "buffers": [],
    }


def _json_bytes(part: dict) -> bytes:
    return json.dumps(part).encode()


class KernelSocket:
    """The page's kernel websocket, speaking the legacy JSON protocol or the v1 binary one."""

    def __init__(self, url: str, protocol: str) -> None:
        self.binary = protocol == V1
        self.ws = websocket.create_connection(
            url, timeout=30, subprotocols=[V1] if self.binary else None
        )

    def send(self, message: dict) -> None:
        if not self.binary:
            self.ws.send(json.dumps(message))
            return
        self.ws.send_binary(serialize_msg_to_ws_v1(message, message["channel"], _json_bytes))

    def receive(self) -> dict | None:
        data = self.ws.recv()
        if not self.binary:
            return json.loads(data) if isinstance(data, str) else None
        _, parts = deserialize_msg_from_ws_v1(data)
        header, parent = json.loads(parts[0]), json.loads(parts[1])
        return {"header": header, "parent_header": parent, "msg_type": header["msg_type"]}

    def replies_until(self, msg_id: str, timeout: float) -> list[dict]:
        """Every message the kernel sends until the reply to ``msg_id`` arrives."""
        received = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.ws.settimeout(max(deadline - time.monotonic(), 0.1))
            message = self.receive()
            if message is None:
                continue  # a binary frame of widget buffers
            received.append(message)
            parent = message.get("parent_header", {}).get("msg_id")
            if parent == msg_id and message["msg_type"].endswith("_reply"):
                return received
        raise AssertionError(f"no reply to {msg_id} within {timeout} s")


REFUSED = 'Received message of type "execute_request", which is not allowed'


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["json", V1])
def test_the_page_cannot_execute_code_in_the_kernel(
    app_server: AppServer, protocol: str, tmp_path: Path
) -> None:
    page = urllib.request.urlopen(app_server.url, timeout=PAGE_TIMEOUT).read().decode()
    kernel_id = re.search(r'"kernelId": "([0-9a-f-]{36})"', page).group(1)
    refused_before = app_server.log.read_text().count(REFUSED)
    session = uuid.uuid4().hex
    marker = tmp_path / "executed"
    code = f"open({str(marker)!r}, 'w').write('the page ran code')"
    socket_url = f"ws://{LOOPBACK}:{app_server.port}/api/kernels/{kernel_id}/channels"
    kernel = KernelSocket(f"{socket_url}?session_id={session}&token={app_server.token}", protocol)
    try:
        requests = [
            _message("execute_request", session, {"code": code, "silent": False}, channel)
            for channel in ("shell", "control")  # ipykernel also executes from control
        ]
        for request in requests:
            kernel.send(request)
        # The kernel answers shell requests in order: once this reply is back, an execute
        # request sent before it would have run.
        probe = _message("kernel_info_request", session, {}, "shell")
        kernel.send(probe)
        received = kernel.replies_until(probe["header"]["msg_id"], timeout=60)
    finally:
        kernel.ws.close()
    assert received[-1]["msg_type"] == "kernel_info_reply"  # the socket reached the kernel
    asked = {r["header"]["msg_id"] for r in requests}
    assert not [m for m in received if m.get("parent_header", {}).get("msg_id") in asked]
    time.sleep(1)
    assert not marker.exists()
    assert app_server.log.read_text().count(REFUSED) - refused_before == 2


# --- kubeconfig credentials ----------------------------------------------------------------------
TOKEN = "rlark-test-token-3f9a7c1e5b2d"
KEY_PEM = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-not-a-real-key-7d41\n"
    "-----END PRIVATE KEY-----\n"
)
KEY_DATA = base64.b64encode(KEY_PEM.encode()).decode()
CERT_DATA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
SECRETS = (TOKEN, KEY_DATA, "not-a-real-key-7d41")


def write_kubeconfig(path: Path, server: str, context: str = "lab") -> Path:
    """A kubeconfig whose user carries a bearer token and a client certificate and key."""
    user = {
        "token": TOKEN,
        "client-certificate-data": CERT_DATA.decode(),
        "client-key-data": KEY_DATA,
    }
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": context,
        "clusters": [{"name": "emu", "cluster": {"server": server}}],
        "users": [{"name": "ana", "user": user}],
        "contexts": [
            {"name": "lab", "context": {"cluster": "emu", "user": "ana", "namespace": NAMESPACE}}
        ],
    }
    path.write_text(yaml.safe_dump(document))
    return path


def assert_no_secret(text: str, where: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"{where} shows kubeconfig credentials"


def assert_no_secret_in_files(root: Path, skip: Path) -> int:
    """Search every file under ``root`` (zip members too); return how many were searched."""
    searched = 0
    for file in root.rglob("*"):
        if not file.is_file() or file == skip:
            continue
        searched += 1
        assert_no_secret(file.read_bytes().decode("utf-8", "replace"), str(file))
        if zipfile.is_zipfile(file):
            with zipfile.ZipFile(file) as archive:
                for name in archive.namelist():
                    assert_no_secret(
                        archive.read(name).decode("utf-8", "replace"), f"{file}:{name}"
                    )
    return searched


@pytest.fixture
def authorization_headers(kube: Cluster) -> list[str]:
    """Authorization headers the emulator received (proof the credentials were used)."""
    seen: list[str] = []

    def record(request: kmock.Request) -> bool:
        seen.append(request.headers.get("Authorization", ""))
        return False  # a fault that never matches: it only watches

    kube.emulator.faults.append(Fault(record))
    return seen


CLI = "import logging, sys; logging.basicConfig(level=logging.DEBUG); from rlark_widgets.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.mark.slow
def test_cli_never_shows_logs_or_leaves_kubeconfig_credentials(
    kube: Cluster, authorization_headers: list[str], tmp_path: Path
) -> None:
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url)
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "HOME": str(tmp_path / "home")}
    (tmp_path / "tmp").mkdir()
    backend = ("--backend", "kubernetes", "--kubeconfig", str(config))
    commands = [
        ("submit", str(job_file)),
        ("status", "demo", "--json"),
        ("logs", "demo", "--worker", "header/0"),
        ("record", "demo", "-o", str(tmp_path / "record")),
        ("record", "demo", "-o", str(tmp_path / "record.zip")),
    ]
    for index, command in enumerate(commands):
        if index == 1:
            kube.start_workers("demo")
            kube.run_all("demo")
            kube.emulator.logs["demo-header-0"] = "step 1 done\n"
        done = subprocess.run(
            [sys.executable, "-c", CLI, *command, *backend],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert "DEBUG" in done.stderr  # library debug logging was on and is searched too
        assert_no_secret(done.stdout + done.stderr, f"rlark-migrate {command[0]}")
    assert f"Bearer {TOKEN}" in authorization_headers
    assert (tmp_path / "record" / "job.yaml").is_file()
    # After exit nothing holds them: not the record, not the temporary files the client made.
    assert assert_no_secret_in_files(tmp_path, skip=config) >= 5


def test_the_app_session_never_shows_or_logs_kubeconfig_credentials(
    kube: Cluster,
    authorization_headers: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path / "kubeconfig", kube.url)))
    s = Session(workspace=tmp_path / "workspace")
    s.settings = JobSettings(image="registry.example.com/rlinf:v0.3.0", namespace=NAMESPACE)
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    assert s.update_role(0, node_selector=host("gpu-a", "a800-0")), s.error
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    s.backend_name, s.k8s_namespace = "kubernetes", NAMESPACE
    assert s.submit(wait=True)
    assert s.submitted == s.job.name, s.error
    (worker,) = kube.start_workers(s.submitted)
    kube.run_all(s.submitted)
    kube.emulator.logs[worker] = "step 1 done\n"
    assert s.refresh(), s.error
    logs = s.logs(s.snapshot.workers[0].key)
    assert s.stop(wait=True), s.error
    record = s.record_zip(tmp_path / "record.zip")
    assert f"Bearer {TOKEN}" in authorization_headers
    shown = [repr(value) for value in s.trait_values().values()]
    assert_no_secret("\n".join([*shown, logs, caplog.text]), "the app session")
    assert record is not None and assert_no_secret_in_files(tmp_path, skip=tmp_path / "kubeconfig")


@pytest.mark.parametrize(
    "breakage",
    ["unknown context", "YAML error next to the token", "token of the wrong type"],
)
def test_a_broken_kubeconfig_error_never_quotes_its_credentials(
    breakage: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    config = write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9", context="lab")
    text = config.read_text()
    if breakage == "unknown context":
        text = text.replace("current-context: lab", "current-context: prod")
    elif breakage == "YAML error next to the token":
        text = text.replace(f"token: {TOKEN}", f"token: [{TOKEN}")
    else:
        text = text.replace(f"token: {TOKEN}", f"token: {{value: {TOKEN}}}")
    config.write_text(text)
    try:
        backend = KubernetesBackend.from_kubeconfig(
            config_file=config, timeout=1, site=example_site()
        )
        try:
            backend.inventory()  # a kubeconfig the client accepts still fails here: no server
        finally:
            backend.close()
    except BackendError as error:
        assert_no_secret(f"{error.message}\n{error.fix}\n{caplog.text}", breakage)
    else:
        pytest.fail(f"{breakage}: the broken kubeconfig was accepted")
