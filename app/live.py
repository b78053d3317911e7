"""Tables' news between server processes: which table changed, never what changed.

A change at a table for friends (a move, a seat taken, a person connected) is stored in
the database first; then every page watching that table is woken up and reads what it may
see from the database itself (:mod:`app.tables`).  So the news carry only the table's id,
and any number of server processes can serve one table:

* PostgreSQL: ``NOTIFY`` on one channel, sent in the transaction that stores the change
  (delivered when it commits, never for a change rolled back); each process LISTENs on one
  connection of its own and wakes its local watchers.
* SQLite (one server process): the process wakes its watchers itself after the commit.

A watcher's queue holds one wake-up at most: ten moves while a page was busy sending are
one look at the database, which finds all ten.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session

log = logging.getLogger(__name__)

CHANNEL = "hearts_tables"


class Broker:
    """The process's watchers of tables, each an asyncio queue on the server's loop."""

    def __init__(self) -> None:
        self._watchers: dict[str, set[asyncio.Queue[None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._listener: Listener | None = None

    # ---- watching (on the server's event loop) ----

    @contextmanager
    def watching(self, table_id: str) -> Iterator[asyncio.Queue[None]]:
        self._loop = asyncio.get_running_loop()
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        with self._lock:
            self._watchers.setdefault(table_id, set()).add(queue)
        try:
            yield queue
        finally:
            with self._lock:
                left = self._watchers.get(table_id)
                if left is not None:
                    left.discard(queue)
                    if not left:
                        del self._watchers[table_id]

    def _wake(self, table_id: str) -> None:
        with self._lock:
            queues = list(self._watchers.get(table_id, ()))
        for queue in queues:
            if queue.empty():
                queue.put_nowait(None)

    def wake(self, table_id: str) -> None:
        """Wake the watchers of ``table_id`` (from any thread)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._wake, table_id)

    def wake_all(self) -> None:
        with self._lock:
            ids = list(self._watchers)
        for table_id in ids:
            self.wake(table_id)

    # ---- telling (in the storing transaction / after it) ----

    def announce(self, session: Session, table_id: str) -> None:
        """Inside the transaction that stores a change of ``table_id``: on PostgreSQL the
        NOTIFY goes out with the commit (every process, this one included, hears it)."""
        if session.get_bind().dialect.name == "postgresql":
            session.connection().execute(text("SELECT pg_notify(:channel, :id)"), {"channel": CHANNEL, "id": table_id})

    def committed(self, session: Session, table_id: str) -> None:
        """After that transaction has committed: with SQLite the process wakes its own watchers."""
        if session.get_bind().dialect.name != "postgresql":
            self.wake(table_id)

    # ---- the PostgreSQL listener ----

    def start(self, engine: Engine) -> None:
        self._loop = asyncio.get_running_loop()
        if engine.dialect.name == "postgresql" and self._listener is None:
            self._listener = Listener(engine, self)
            self._listener.start()

    def stop(self) -> None:
        if self._listener is not None:
            self._listener.stop()
            self._listener = None


class Listener(threading.Thread):
    """LISTENs on its own PostgreSQL connection and wakes the watchers of each table named;
    after a lost connection it connects again and wakes every watcher (it may have missed news)."""

    def __init__(self, engine: Engine, broker: Broker) -> None:
        super().__init__(name="tables-listener", daemon=True)
        self.url = make_url(engine.url).set(drivername="postgresql").render_as_string(hide_password=False)
        self.broker = broker
        self._halt = threading.Event()
        self.ready = threading.Event()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)

    def run(self) -> None:
        import psycopg  # PostgreSQL's driver, only where PostgreSQL is used

        delay = 0.5
        while not self._halt.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    delay = 0.5
                    self.broker.wake_all()
                    while not self._halt.is_set():
                        for note in conn.notifies(timeout=1.0):
                            self.broker.wake(note.payload)
            except Exception:  # the database went away: try again, a little later each time
                log.warning("the tables' listener lost PostgreSQL; connecting again in %.1f s", delay, exc_info=True)
                self.ready.clear()
                time.sleep(delay)
                delay = min(delay * 2, 10.0)


BROKER = Broker()
"""The process's one broker (the app's lifespan starts its listener)."""
