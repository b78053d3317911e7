"""An idle connection stays open well past uvicorn's default of 5 s.  A browser, or a proxy
in front of the app, sends its next request on a connection it still counts as open.  If the
server closes it at that moment, the request fails with no answer (see README, "Idle and
slow connections")."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.server import HTTP_PROTOCOL, KEEP_ALIVE_S, ROOT

from .live import LiveServer

UVICORN_DEFAULT_S = 5


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "keep-alive") as s:
        yield s


def ask(conn: socket.socket, port: int) -> bytes:
    """One GET /healthz on ``conn``; the answer's head and body (b"" if the server closed it)."""
    conn.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    match = re.search(rb"(?i)content-length:\s*(\d+)", head)
    assert match is not None, head
    while len(body) < int(match.group(1)):
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_a_connection_idle_longer_than_uvicorns_default_still_answers(server: LiveServer) -> None:
    assert KEEP_ALIVE_S > UVICORN_DEFAULT_S + 1
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        assert ask(conn, server.port).startswith(b"HTTP/1.1 200")
        time.sleep(UVICORN_DEFAULT_S + 1)  # (idle: what is measured is that the server waited)
        again = ask(conn, server.port)
        assert again.startswith(b"HTTP/1.1 200"), f"the idle connection was closed: {again!r}"


@pytest.mark.parametrize("path", ["Makefile", "Dockerfile", "README.md"])
def test_every_way_of_serving_the_app_keeps_idle_connections_as_long_with_deadlines(path: str) -> None:
    text = (ROOT / path).read_text()
    assert f"--timeout-keep-alive {KEEP_ALIVE_S}" in text
    assert f"--http {HTTP_PROTOCOL}" in text
