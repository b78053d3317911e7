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
  (``--timeout-keep-alive``), as uvicorn closes one left idle after an answer.

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

_SAID = b"The request took too long to send."
TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
             b"content-length: %d\r\n\r\n%s" % (len(_SAID), _SAID))


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    _deadline: TimerHandle | None = None
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

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._earlier = self.cycle
        self._until(REQUEST_DEADLINE_S, self._too_slow)

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
