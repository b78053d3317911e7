from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, SQLModel

from app.config import Settings
from app.main import create_app

from .csrf import with_token


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path / 'hearts.db'}", secret_key="test-secret")


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    app = create_app(settings)
    SQLModel.metadata.create_all(app.state.db_engine)
    return app


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield with_token(c, app)


@pytest.fixture
def session(app: FastAPI) -> Iterator[Session]:
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        yield s
