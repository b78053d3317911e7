"""uvicorn's HTTP protocol (httptools) with deadlines for what a client sends.

uvicorn waits for a request as long as its client likes.  A connection that never sends
one is held until the client leaves.  A request whose head or body comes a byte at a time
is held the same way (its body is read before the admission gate, by
:class:`app.security.SecurityMiddleware`, so it holds no place there).  Each holds an open
file and a little memory, so enough of them would exhaust the process.  So this protocol:

- gives a request :data:`REQUEST_DEADLINE_S` from its first byte to its last (head and
  body; our bodies are at most 16 KB).  Past it, the client is answered 408 if nothing was
  answered yet, and the connection is closed; the app sees the client gone.
- closes a new connection that has not started a request within the keep-alive time
  (``--timeout-keep-alive``), as uvicorn closes one left idle after an answer;
- answers 431 and closes the connection when a request's head (its request line and
  headers) passes :data:`MAX_HEAD_BYTES`.  uvicorn and httptools set no limit: a single
  header of 100 MB was taken whole, and the process grew by 145 MB.

Served with ``uvicorn --http app.protocol:GuardedHttpToolsProtocol`` (`make run`, the Docker
image, :func:`tools.server.start_app`).  The time it takes the app to answer is not limited
here: a deadline runs only while the request is arriving."""

from __future__ import annotations

import asyncio
import os
from asyncio import TimerHandle
from collections.abc import Callable
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

REQUEST_DEADLINE_S = float(os.environ.get("REQUEST_DEADLINE_S", "20"))
"""Seconds from a request's first byte to its last (environment ``REQUEST_DEADLINE_S``)."""

MAX_HEAD_BYTES = 32 * 1024
"""A request line and headers larger than this are refused (a browser's are 1 to 3 KB)."""


def _answer(status: bytes, said: bytes) -> bytes:
    """A whole answer that closes the connection, written by the protocol itself."""
    return (b"HTTP/1.1 %s\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
            b"content-length: %d\r\n\r\n%s" % (status, len(said), said))


TIMED_OUT = _answer(b"408 Request Timeout", b"The request took too long to send.")
TOO_LARGE = _answer(b"431 Request Header Fields Too Large", b"The request's headers are too large.")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    _deadline: TimerHandle | None = None
    _heading = False
    """A request's head has begun and is not complete yet."""
    _head_bytes = 0
    _earlier: Any = None
    """The cycle of the connection's request before the one arriving (answered already)."""

    def _until(self, seconds: float, then: Callable[[], None]) -> None:
        self._cancel_deadline()
        self._deadline = self.loop.call_later(seconds, then)

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(cast(asyncio.Transport, transport))
        self._until(self.timeout_keep_alive, self._never_asked)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._heading and not self.transport.is_closing():
            # (counted by what arrives while the head is incomplete: at most one read more)
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._cancel_deadline()
                self.transport.write(TOO_LARGE)
                self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._heading = True
        self._head_bytes = 0
        self._earlier = self.cycle
        self._until(REQUEST_DEADLINE_S, self._too_slow)

    def on_headers_complete(self) -> None:
        self._heading = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._cancel_deadline()
        super().on_message_complete()

    def _never_asked(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        arriving = None if self.cycle is self._earlier else self.cycle
        if arriving is None or not arriving.response_started:
            self.transport.write(TIMED_OUT)
        self.transport.close()
