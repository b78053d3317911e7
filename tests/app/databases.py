"""The databases the app tests run against: SQLite always, and PostgreSQL as well when
``TEST_DATABASE_URL`` names one (``.ci/run`` always starts one and sets it).

Each test gets an empty database: a new SQLite file, or the PostgreSQL database with its
``public`` schema dropped and created again.  When the suite runs in several processes
(pytest-xdist), each process has a PostgreSQL database of its own, made on first use next to
the one named (``hearts_test_gw0``, ``hearts_test_gw1``, ...), so no process empties another's.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PG_ENV = "TEST_DATABASE_URL"
_made: set[str] = set()


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


def fresh_url(kind: str, directory: Path) -> str:
    """An empty database of this kind (``directory`` holds the SQLite file)."""
    if kind == "sqlite":
        return f"sqlite:///{directory / 'hearts.db'}"
    url = postgresql_url()
    empty_database(url)
    return url


def postgresql_url() -> str:
    """This test process's PostgreSQL database (made if it is missing)."""
    url = make_url(os.environ[PG_ENV])
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url.render_as_string(hide_password=False)
    name = f"{url.database}_{worker}"
    mine = url.set(database=name).render_as_string(hide_password=False)
    if mine not in _made:
        admin = create_engine(url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first() is None:
                    conn.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            admin.dispose()
        _made.add(mine)
    return mine
