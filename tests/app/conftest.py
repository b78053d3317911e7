from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, SQLModel

from app.config import Settings
from app.main import create_app

from . import databases
from .csrf import with_token


@pytest.fixture(params=databases.kinds())
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: SQLite, and PostgreSQL too when TEST_DATABASE_URL is set."""
    return databases.fresh_url(request.param, tmp_path)


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, secret_key="test-secret")


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    app = create_app(settings)
    SQLModel.metadata.create_all(app.state.db_engine)
    yield app
    # close the pool so the next test can empty a shared PostgreSQL database
    app.state.db_engine.dispose()


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield with_token(c, app)


@pytest.fixture
def session(app: FastAPI) -> Iterator[Session]:
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        yield s


@pytest.fixture
def people(app: FastAPI) -> Iterator[list[TestClient]]:
    """Four browsers (no lifespan: no background watch, so the tests decide every turn)."""
    clients = [with_token(TestClient(app, base_url="http://testserver"), app) for _ in range(4)]
    for c in clients:
        c.get("/")
    yield clients
    for c in clients:
        c.close()
