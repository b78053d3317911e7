"""Database engine and sessions: SQLite (WAL, busy timeout) by default, PostgreSQL by URL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

SQLITE_BUSY_TIMEOUT_MS = 5000


def make_engine(url: str) -> Engine:
    kwargs: dict[str, Any] = {}
    if url.startswith("sqlite"):
        # uvicorn serves requests from a thread pool; each request uses its own session
        kwargs["connect_args"] = {"check_same_thread": False}
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


def session_scope(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        yield session
