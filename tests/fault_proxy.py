"""A TCP proxy in front of an API emulator that spoils chosen requests, as a bad network does.

The emulator's own faults (``Cluster.fail/slow/drop``) act inside its HTTP server; this proxy
acts on the wire, so it can also cut an answer short after the server did the work (the Job is
created, the client reads half the answer). Each client connection carries one request (the
answer goes back with ``Connection: close``), so a fault hits exactly the request it matches.

Faults: ``drop`` (close without answering), ``truncate`` (forward, then send half the answer),
``500`` / ``403`` (answer a Kubernetes Status, the server never sees the request), ``slow``
(wait ``delay`` seconds, then forward). A WebSocket upgrade (exec) is spliced both ways.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import urlsplit

FAULTS = ("drop", "truncate", "500", "403", "slow")


@dataclass
class Rule:
    """Spoil the next ``times`` requests whose ``METHOD path`` matches ``pattern``."""

    fault: str
    pattern: str = ""
    times: int = 1
    delay: float = 1.0
    hits: int = 0
    seen: list[str] = field(default_factory=list)

    def matches(self, request_line: str) -> bool:
        return self.hits < self.times and re.search(self.pattern, request_line) is not None


def _status(code: int, message: str) -> bytes:
    reason = HTTPStatus(code).phrase
    body = json.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": message,
            "reason": reason.replace(" ", ""),
            "code": code,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def _read_request(conn: socket.socket) -> bytes:
    """One whole request (head and Content-Length body), or b"" when the client went away."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    match = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    length = int(match.group(1)) if match else 0
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def _one_per_connection(request: bytes) -> bytes:
    head, _, body = request.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")]
    return b"\r\n".join([*lines, b"Connection: close"]) + b"\r\n\r\n" + body


def _read_all(conn: socket.socket) -> bytes:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


class FaultProxy:
    """``url``: the address to put in a kubeconfig; :meth:`add` a rule, the proxy does the rest."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.rules: list[Rule] = []
        self.lock = threading.Lock()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def add(self, fault: str, pattern: str = "", times: int = 1, delay: float = 1.0) -> Rule:
        assert fault in FAULTS, fault
        rule = Rule(fault, pattern, times, delay)
        with self.lock:
            self.rules.append(rule)
        return rule

    def close(self) -> None:
        self.closed = True
        self.server.close()

    def _rule_for(self, request_line: str) -> Rule | None:
        with self.lock:
            for rule in self.rules:
                if rule.matches(request_line):
                    rule.hits += 1
                    rule.seen.append(request_line)
                    return rule
        return None

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                request = _read_request(conn)
                if not request:
                    return
                line = request.split(b"\r\n", 1)[0].decode("latin-1")
                rule = self._rule_for(line)
                fault = rule.fault if rule else None
                if fault == "drop":
                    return
                if fault in ("500", "403"):
                    conn.sendall(_status(int(fault), f"injected {fault} by the fault proxy"))
                    return
                if fault == "slow" and rule is not None:
                    time.sleep(rule.delay)
                with socket.create_connection(self.upstream, timeout=30) as upstream:
                    if b"\r\nupgrade:" in request.lower():  # exec: a WebSocket, both ways
                        upstream.sendall(request)
                        self._splice(conn, upstream)
                        return
                    upstream.sendall(_one_per_connection(request))
                    answer = _read_all(upstream)
                if fault == "truncate":
                    head, _, body = answer.partition(b"\r\n\r\n")
                    answer = head + b"\r\n\r\n" + body[: len(body) // 2]
                conn.sendall(answer)
            except OSError:
                return

    @staticmethod
    def _splice(client: socket.socket, upstream: socket.socket) -> None:
        def pump(source: socket.socket, sink: socket.socket) -> None:
            try:
                while chunk := source.recv(65536):
                    sink.sendall(chunk)
            except OSError:
                pass
            finally:
                for end in (source, sink):
                    with contextlib.suppress(OSError):
                        end.shutdown(socket.SHUT_RDWR)

        back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        back.start()
        pump(client, upstream)
        back.join(timeout=30)
