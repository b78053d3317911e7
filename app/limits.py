"""Bounded work and bounded data (SPEC §8): the admission gate and per-client rate limits.

**The gate** (:class:`AdmissionGate`, pure ASGI).  A request that touches the database
waits here, on the event loop, for one of ``max_active_requests`` places before FastAPI
resolves its dependencies.  The database pool has a connection for every place (and a
spare for the few paths that open a second session), and the thread pool has more threads
than places, so a request that got in never waits for a connection held by a request
that is itself waiting for a thread: the lock-up of issue 9 (hundreds of requests each
holding a connection across the thread-pool hops between dependencies and route, while
the threads were all taken by requests waiting for a connection) cannot form.  A request
that would not get a place within ``queue_timeout`` seconds is answered 503 with
``Retry-After``: at once when the queue ahead of it already holds more than that much work
(the gate keeps a moving average of how long a request takes), else when the wait has run
out; so is one that finds ``max_queue`` requests waiting.  Turning requests away at once
leaves the CPU to the ones admitted, instead of making every one of a burst wait.
``/healthz`` and ``/static`` do not queue.

**Rate limits** (:func:`take`).  A token bucket per client and kind ("game", "player") in
the ``rate_bucket`` table, refilled continuously; one conditional UPDATE takes a token or
matches no row, so any number of server processes on one database share the limit.  A
refused creation raises :class:`RateLimitedError` (429 with ``Retry-After``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import math
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import case, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .db import writing
from .models import BUCKET_TABLE, RateBucket

RETRY_AFTER_BUSY = 2
"""Seconds a client is asked to wait after a 503: long enough for a burst to drain."""

UNGATED = ("/healthz", "/static/")


def _is_stream(path: str) -> bool:
    """A table's event stream (app.routers.tables) stays open as long as its page: it waits
    for news, not for a place, and each of its reads of the database is short."""
    return path.startswith("/t/") and path.endswith("/events")


class RateLimitedError(Exception):
    """Too many creations from one client; ``retry_after`` seconds until the next is allowed."""

    def __init__(self, what: str, retry_after: int) -> None:
        super().__init__(f"too many new {what} from your address; try again in {retry_after} s")
        self.what = what
        self.retry_after = retry_after


class ServerBusyError(Exception):
    """The server could not take this request in time (a database or worker pool was full)."""

    retry_after = RETRY_AFTER_BUSY


# ---- the gate ------------------------------------------------------------------------------

class AdmissionGate:
    """At most ``limit`` requests inside the app at once; the rest wait a bounded time."""

    def __init__(self, app: ASGIApp, limit: int, timeout: float, max_queue: int, state: Any = None) -> None:
        self.app = app
        if state is not None:
            state.gate = self  # /healthz reports how full it is
        self.limit = limit
        self.timeout = timeout
        self.max_queue = max_queue
        self.waiting = 0
        self.service_s = 0.02
        """Moving average of the seconds a request spends inside (all its places together
        serve ``limit / service_s`` requests a second)."""
        self._places: asyncio.Semaphore | None = None

    def places(self) -> asyncio.Semaphore:
        # created on first use, inside the server's event loop
        if self._places is None:
            self._places = asyncio.Semaphore(self.limit)
        return self._places

    @property
    def active(self) -> int:
        return self.limit - self.places()._value  # noqa: SLF001  (asyncio has no public reading)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(UNGATED) or _is_stream(path):
            await self.app(scope, receive, send)
            return
        places = self.places()
        if not places.locked():
            # a free place, the usual case: taken without the context manager of place()
            await places.acquire()
            started = time.perf_counter()
            try:
                await self.app(scope, receive, send)
            finally:
                self._release(places, started)
            return
        async with self.place() as admitted:
            if not admitted:
                await busy(scope, send)
                return
            await self.app(scope, receive, send)

    def _release(self, places: asyncio.Semaphore, started: float) -> None:
        places.release()
        self.service_s += 0.1 * (time.perf_counter() - started - self.service_s)

    @asynccontextmanager
    async def place(self) -> AsyncIterator[bool]:
        """One of the places for as long as the block runs: a request's, or a table's event
        stream's first look (its reading and drawing are work like a request's, though the
        stream then waits outside the gate).  Yields False, holding nothing, when the work
        is to be answered busy."""
        places = self.places()
        if not places.locked():
            # a free place is taken at once: without wait_for, whose task and timer cost an
            # admitted request a turn of the event loop
            await places.acquire()
        else:
            # turned away at once only behind a real queue (as long as the places, at least):
            # one slow request must not make the average turn away the next one
            if self.waiting >= self.max_queue or (
                    self.waiting >= self.limit and (self.waiting + 1) * self.service_s / self.limit > self.timeout):
                yield False
                return
            self.waiting += 1
            try:
                await asyncio.wait_for(places.acquire(), self.timeout)
            except TimeoutError:
                yield False
                return
            finally:
                self.waiting -= 1
        started = time.perf_counter()
        try:
            yield True
        finally:
            self._release(places, started)


class StreamSlots:
    """The tables' event streams open in this process, counted per client address
    (:func:`client_key`).  A page of a table holds its stream as long as it is open, outside
    the admission gate, and every stream costs the server something at each change of its
    table: past ``per_client`` streams from one address (0: no limit) another is refused
    (429), rather than one client slowing every table down.  Not per person: a phone that
    lost its network may hold streams the server cannot yet tell are gone, and its person
    must still get a new one."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self.clients: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, client: str) -> StreamSlot | None:
        """A slot for one more stream from ``client``; None: none left."""
        with self._lock:
            if self.per_client and self.clients[client] >= self.per_client:
                return None
            self.clients[client] += 1
        return StreamSlot(self, client)

    def _give_back(self, client: str) -> None:
        with self._lock:
            self.clients[client] -= 1
            if self.clients[client] <= 0:
                del self.clients[client]


class StreamSlot:
    """One stream's place among its address's open streams, given back once: by the
    stream's end, or by the collection of a stream that never started (in whatever thread)."""

    def __init__(self, slots: StreamSlots, client: str) -> None:
        self._slots: StreamSlots | None = slots
        self.client = client

    def release(self) -> None:
        slots, self._slots = self._slots, None
        if slots is not None:
            slots._give_back(self.client)  # noqa: SLF001  (its own pool)


def _wants_json(scope: Scope) -> bool:
    if scope.get("path", "").startswith("/api/"):
        return True
    accept = next((bytes(v).decode("latin-1") for k, v in scope.get("headers", ()) if k == b"accept"), "")
    return "application/json" in accept


async def busy(scope: Scope, send: Send, retry_after: int = RETRY_AFTER_BUSY) -> None:
    """503 with Retry-After, in the form the client reads (JSON for the API, a short page
    otherwise; an HTMX request keeps its page and retries after the pause)."""
    if _wants_json(scope):
        body = (b'{"error":"busy","detail":"The server is busy; try again in '
                + str(retry_after).encode() + b' s."}')
        kind = b"application/json"
    else:
        body = (b"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Hearts</title></head>"
                b"<body><p>The server is busy; please try again in a moment.</p></body></html>")
        kind = b"text/html; charset=utf-8"
    start: Message = {"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", kind), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry_after).encode()), (b"cache-control", b"no-store")]}
    await send(start)
    await send({"type": "http.response.body", "body": body})


# ---- rate limits ---------------------------------------------------------------------------

def client_key(scope: MutableMapping[str, Any]) -> str:
    """Who a request comes from: its IP address (set from X-Forwarded-For by uvicorn only
    for the proxies it trusts), an IPv6 client by its /64, as one household or phone has."""
    client = scope.get("client")
    host = client[0] if client else "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _insert_ignore(session: Session) -> Any:
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql.insert(RateBucket).on_conflict_do_nothing()
    if dialect == "sqlite":
        return sqlite.insert(RateBucket).on_conflict_do_nothing()
    return insert(RateBucket).prefix_with("IGNORE")


def take(session: Session, kind: str, client: str, per_second: float, burst: int,
         now: float | None = None) -> None:
    """Take one token from ``client``'s ``kind`` bucket, or raise :class:`RateLimitedError`.

    Runs in its own short transaction (committed here), before the creation it guards."""
    if per_second <= 0:
        return
    now = time.time() if now is None else now
    key = f"{kind}:{client}"[:96]
    table = BUCKET_TABLE
    refilled = table.c.tokens + (now - table.c.updated) * per_second
    level = case((refilled > burst, float(burst)), else_=refilled)
    with writing(session):
        session.exec(_insert_ignore(session).values(key=key, tokens=float(burst), updated=now))
        taken = session.exec(update(table).where(table.c.key == key, level >= 1)
                             .values(tokens=level - 1, updated=now))
        if taken.rowcount == 1:
            session.commit()
            return
        tokens = session.connection().execute(select(level).where(table.c.key == key)).first()
        session.commit()
    have = float(tokens[0]) if tokens is not None else 0.0
    raise RateLimitedError(kind + "s", max(1, math.ceil((1 - have) / per_second)))


def forget_idle(session: Session, before: float) -> int:
    """Delete buckets untouched since ``before`` (full again by then); returns how many."""
    table = BUCKET_TABLE
    with writing(session):
        result = session.exec(table.delete().where(table.c.updated < before))
        session.commit()
    return int(result.rowcount or 0)
