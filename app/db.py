"""Database engine and sessions: SQLite (WAL, busy timeout) by default, PostgreSQL by URL."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

SQLITE_BUSY_TIMEOUT_MS = 5000
POOL_TIMEOUT_S = 5
"""How long a request waits for a pooled connection before it is answered 503.  With the
admission gate (:mod:`app.limits`) sized to the pool this wait does not happen; it bounds
what a connection held elsewhere (a migration, an operator's session) could cost."""


def sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL (None for PostgreSQL or an in-memory database)."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def private_file(path: Path) -> None:
    """Create the SQLite file readable by its owner only (players' games and ids are in it);
    SQLite gives its -wal and -shm files the same mode as the database file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    if path.stat().st_uid == os.getuid():
        path.chmod(0o600)


def make_engine(url: str, pool_size: int = 5, overflow: int | None = None) -> Engine:
    """An engine whose pool holds ``pool_size`` connections plus ``overflow`` more at peaks
    (as many again by default), each waited for at most :data:`POOL_TIMEOUT_S` seconds."""
    kwargs: dict[str, Any] = {"pool_size": pool_size, "max_overflow": pool_size if overflow is None else overflow,
                              "pool_timeout": POOL_TIMEOUT_S}
    path = sqlite_path(url)
    if url.startswith("sqlite"):
        # uvicorn serves requests from a thread pool; each request uses its own session
        kwargs["connect_args"] = {"check_same_thread": False}
        if path is None:
            kwargs = {"connect_args": kwargs["connect_args"]}  # in memory: SQLAlchemy picks the pool
        else:
            private_file(path)
    else:
        kwargs["pool_pre_ping"] = True
    engine = create_engine(url, **kwargs)
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cur = dbapi_connection.cursor()
    # WAL lets readers proceed while one writer commits; the busy timeout makes a second
    # writer wait instead of failing at once.
    if ":memory:" not in str(getattr(dbapi_connection, "database", "")):
        cur.execute("PRAGMA journal_mode=WAL")
        # in WAL mode NORMAL syncs at checkpoints, not at every commit: a commit survives
        # the server process being killed, and only an OS crash or power cut can take back
        # the last moments; a full sync per commit (~5 ms) held the single write lock so
        # long that writers queued behind it (docs/benchmarks.md)
        cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


_WRITERS: WeakKeyDictionary[Engine, threading.RLock] = WeakKeyDictionary()
_WRITERS_GUARD = threading.Lock()


@contextmanager
def writing(session: Session) -> Iterator[None]:
    """Around a write transaction (from its first statement to its commit): on SQLite, one
    writer of this process at a time.

    SQLite has one write lock per database; a writer that finds it taken sleeps in SQLite's
    busy handler in growing steps (1, 2, 5 … 100 ms) while the lock sits free between them,
    so sixteen threads writing at once served a few writes a second.  Waiting on a Python
    lock instead hands the write lock over the moment it is released.  (Processes sharing
    one SQLite file still meet in the busy handler; PostgreSQL needs none of this.)"""
    engine = session.get_bind()
    if not isinstance(engine, Engine) or engine.dialect.name != "sqlite":
        yield
        return
    with _WRITERS_GUARD:
        lock = _WRITERS.setdefault(engine, threading.RLock())
    with lock:
        yield
