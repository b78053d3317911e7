"""The databases the app tests run against: SQLite always, and PostgreSQL as well when
``TEST_DATABASE_URL`` names one (``.ci/run`` always starts one and sets it).

Each test gets an empty database: a new SQLite file, or the PostgreSQL database with its
``public`` schema dropped and created again.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import create_engine, text

PG_ENV = "TEST_DATABASE_URL"


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
    url = os.environ[PG_ENV]
    empty_database(url)
    return url
