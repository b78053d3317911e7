"""Clients that send slowly, not at all, or too much are cut off (app.protocol).  A request must arrive
whole within REQUEST_DEADLINE_S of its first byte, and a connection that sends nothing is
closed after the keep-alive time.  Meanwhile everybody else is served: the body is read
before the admission gate (app.security), so a slow one holds no place there.  A request's
head larger than MAX_HEAD_BYTES is refused."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from app.protocol import MAX_HEAD_BYTES

from .live import LiveServer

DEADLINE_S = 3
KEEP_ALIVE_S = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # one place in the gate, so a slow request that held it would show
    env = {"REQUEST_DEADLINE_S": str(DEADLINE_S), "MAX_ACTIVE_REQUESTS": "1", "QUEUE_TIMEOUT": "0.2"}
    with LiveServer(tmp_path_factory.mktemp("slow"), env=env,
                    args=("--timeout-keep-alive", str(KEEP_ALIVE_S))) as s:
        yield s


def connect(server: LiveServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE_S + 10)


def read_all(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


def status(server: LiveServer, path: str = "/") -> int:
    with connect(server) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        head = read_all(conn).split(b"\r\n", 1)[0]
    return int(head.split()[1])


def test_a_request_head_that_never_ends_is_answered_408_and_closed(server: LiveServer) -> None:
    with connect(server) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        answer = read_all(conn)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert answer.endswith(b"The request took too long to send.")


def test_a_trickling_body_is_cut_off_at_the_deadline_and_others_are_served_meanwhile(
        server: LiveServer) -> None:
    body = b'{"difficulty": "easy"}'
    with connect(server) as slow:
        slow.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body[:5]))
        # (the body is read before the admission gate: the gate's only place stays free)
        assert status(server) == 200
        answer = read_all(slow)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert status(server) == 200


def test_a_connection_that_sends_nothing_is_closed_after_the_keep_alive_time(server: LiveServer) -> None:
    with connect(server) as conn:
        assert read_all(conn) == b""


def test_a_request_sent_in_pieces_within_the_deadline_is_answered(server: LiveServer) -> None:
    with connect(server) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(0.5)
        conn.sendall(b"Connection: close\r\n\r\n")
        answer = read_all(conn)
    assert answer.startswith(b"HTTP/1.1 200 "), answer


def test_a_request_head_too_large_is_answered_431_and_closed(server: LiveServer) -> None:
    with connect(server) as conn:
        # (a little over the limit, all of which the server reads: it then closes cleanly,
        # where unread bytes would reset the connection and could lose the answer)
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (MAX_HEAD_BYTES + 8192))
        answer = read_all(conn)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]


def test_a_large_head_within_the_limit_is_answered(server: LiveServer) -> None:
    with connect(server) as conn:
        big = b"a" * (MAX_HEAD_BYTES // 2)
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: %s\r\nConnection: close\r\n\r\n" % big)
        answer = read_all(conn)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]
