"""The databases the app tests run against: SQLite always, and PostgreSQL as well when
``TEST_DATABASE_URL`` names one (``.ci/run`` always starts one and sets it).

Each test gets an empty database: a new SQLite file, or the PostgreSQL database with its
``public`` schema dropped and created again.  When the suite runs on several processes
(pytest-xdist), each process has a PostgreSQL database of its own beside the named one
(``hearts_test_gw0``, ``hearts_test_gw1``, …), created on first use, so that one process
never empties the database another is using.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

PG_ENV = "TEST_DATABASE_URL"
# set by pytest-xdist in each of its worker processes ("gw0", "gw1", …)
WORKER_ENV = "PYTEST_XDIST_WORKER"


def kinds() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get(PG_ENV) else ["sqlite"]


def empty_database(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
    finally:
        engine.dispose()


@cache
def postgresql_url() -> str:
    """This test process's PostgreSQL database: the named one, or a worker's own beside it."""
    url = make_url(os.environ[PG_ENV])
    worker = os.environ.get(WORKER_ENV)
    if not worker:
        return url.render_as_string(hide_password=False)
    if not worker.isalnum():
        raise ValueError(f"unexpected {WORKER_ENV}={worker!r}")
    name = f"{url.database}_{worker}"
    server = create_engine(url, isolation_level="AUTOCOMMIT")  # CREATE DATABASE runs outside a transaction
    try:
        with server.connect() as conn:
            exists = conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :name"), {"name": name}).first()
            if exists is None:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        server.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


def fresh_url(kind: str, directory: Path) -> str:
    """An empty database of this kind (``directory`` holds the SQLite file)."""
    if kind == "sqlite":
        return f"sqlite:///{directory / 'hearts.db'}"
    url = postgresql_url()
    empty_database(url)
    return url
