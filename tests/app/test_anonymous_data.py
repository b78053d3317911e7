"""Bounded anonymous data (issue 9 item 4, SPEC §8): a player row only when there is
something to keep, creation rate-limited per client across processes (429 with
Retry-After), and a retention clean-up, as a command and on the server's schedule."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import Session, SQLModel, col, select, update

from app import limits, retention, services
from app.config import Settings
from app.main import create_app
from app.models import GameRecord, Player, RateBucket, Record, utcnow
from engine import Rules

from .csrf import with_token

ROOT = Path(__file__).resolve().parents[2]


def count(app: FastAPI, model: type[SQLModel]) -> int:
    with Session(app.state.db_engine) as s:
        return int(s.exec(select(func.count()).select_from(model)).one())


# ---- a player row only when there is something to keep --------------------------------------

def test_looking_stores_no_player(app: FastAPI) -> None:
    for path in ("/", "/embed", "/api/v1/records", "/table", "/api/v1/games/current", "/it/"):
        with TestClient(app) as c:  # cookieless each time, as a crawler or a script would be
            r = c.get(path)
            assert r.status_code in (200, 404), path
            assert "hearts_player=" in r.headers["set-cookie"]  # it can come back as this player
    assert count(app, Player) == 0


def test_the_first_thing_worth_keeping_stores_the_player_named_by_the_cookie(app: FastAPI) -> None:
    with TestClient(app) as c:
        with_token(c, app)
        page = c.get("/")
        assert count(app, Player) == 0
        # the page's own Deal button, with the token the page was drawn with
        r = c.post("/game/new", data={"same": "true", "replaces": "none"}, headers={"HX-Request": "true"})
        assert r.status_code == 200
        assert "set-cookie" not in r.headers  # the same player as the page's cookie
        assert count(app, Player) == 1
        with Session(app.state.db_engine) as s:
            (player,) = s.exec(select(Player)).all()
        assert f'"X-CSRF-Token": "{services_csrf(app, player.id)}"' in page.text
        assert c.post("/prefs", data={"fast_play": "true"}).status_code == 200  # redirected back to the page
        assert count(app, Player) == 1


def services_csrf(app: FastAPI, player_id: str) -> str:
    from app.security import csrf_token

    return csrf_token(app.state.settings.secret_key, player_id)


def test_preferences_store_the_player(app: FastAPI, client: TestClient) -> None:
    client.get("/")
    assert client.post("/prefs", data={"fast_play": "true"}, headers={"HX-Request": "true"}).status_code == 204
    with Session(app.state.db_engine) as s:
        (player,) = s.exec(select(Player)).all()
        assert player.fast_play is True


# ---- rate limits ---------------------------------------------------------------------------------

@pytest.fixture
def limited(database_url: str) -> Settings:
    return Settings(database_url=database_url, secret_key="test-secret", games_per_minute=1.0, games_burst=3,
                    players_per_hour=1.0, players_burst=2)


def limited_app(settings: Settings, create: bool = True) -> FastAPI:
    app = create_app(settings)
    if create:
        SQLModel.metadata.create_all(app.state.db_engine)
    return app


def test_new_games_beyond_the_burst_get_429_with_retry_after(limited: Settings) -> None:
    app = limited_app(limited)
    try:
        with TestClient(app) as c:
            with_token(c, app)
            for _ in range(3):
                assert c.post("/api/v1/games", json={"difficulty": "easy"}).status_code == 201
            r = c.post("/api/v1/games", json={"difficulty": "easy"})
            assert r.status_code == 429 and r.json()["error"] == "rate_limited"
            assert 1 <= int(r.headers["retry-after"]) <= 60
            # the page: the table as it is, with the message, and the same Retry-After
            page = c.post("/game/new", data={"same": "true"}, headers={"HX-Request": "true"})
            assert page.status_code == 429 and int(page.headers["retry-after"]) >= 1
            assert page.text.lstrip().startswith('<section id="table"') and "too quickly" in page.text
            assert count(app, GameRecord) == 3
    finally:
        app.state.db_engine.dispose()


def test_new_players_from_one_address_are_limited(limited: Settings) -> None:
    app = limited_app(limited)
    try:
        codes = []
        for _ in range(4):
            with TestClient(app) as c:  # a new cookieless client each time, from the same address
                codes.append(c.post("/api/v1/games", json={"difficulty": "easy"}).status_code)
        assert codes == [201, 201, 429, 429]
        assert count(app, Player) == 2
    finally:
        app.state.db_engine.dispose()


def test_the_limit_is_shared_by_server_processes_on_one_database(limited: Settings) -> None:
    one, two = limited_app(limited), limited_app(limited, create=False)
    try:
        with TestClient(one) as a, TestClient(two) as b:
            with_token(a, one)
            with_token(b, two)
            assert a.post("/api/v1/games", json={"difficulty": "easy"}).status_code == 201
            cookie = a.cookies.get("hearts_player")
            assert cookie
            b.cookies.set("hearts_player", cookie)  # the balancer sends the next requests elsewhere
            assert b.post("/api/v1/games", json={"difficulty": "easy"}).status_code == 201
            assert a.post("/api/v1/games", json={"difficulty": "easy"}).status_code == 201
            assert b.post("/api/v1/games", json={"difficulty": "easy"}).status_code == 429
    finally:
        one.state.db_engine.dispose()
        two.state.db_engine.dispose()


def test_the_bucket_refills_with_time(session: Session) -> None:
    for _ in range(2):
        limits.take(session, "game", "192.0.2.1", per_second=0.5, burst=2, now=1000.0)
    with pytest.raises(limits.RateLimitedError) as refused:
        limits.take(session, "game", "192.0.2.1", per_second=0.5, burst=2, now=1000.5)
    assert refused.value.retry_after == 2
    limits.take(session, "game", "192.0.2.1", per_second=0.5, burst=2, now=1002.5)  # one token back
    limits.take(session, "game", "192.0.2.2", per_second=0.5, burst=2, now=1000.5)  # another client


def test_clients_are_told_apart_by_address_and_an_ipv6_household_by_its_64() -> None:
    assert limits.client_key({"client": ("192.0.2.7", 5000)}) == "192.0.2.7"
    assert limits.client_key({"client": ("2001:db8:1:2:aaaa::1", 1)}) == limits.client_key(
        {"client": ("2001:db8:1:2:bbbb::9", 1)}) == "2001:db8:1:2::/64"
    assert limits.client_key({"client": ("::ffff:192.0.2.7", 1)}) == "192.0.2.7"


# ---- retention ---------------------------------------------------------------------------------

def _aged(session: Session, days: float, **player: object) -> Player:
    p = services.create_player(session)
    p.created_at = utcnow() - timedelta(days=days)
    session.add(p)
    session.commit()
    return p


def _age_games(session: Session, player: Player, days: float) -> None:
    for g in session.exec(select(GameRecord).where(GameRecord.player_id == player.id)).all():
        g.updated_at = g.created_at = utcnow() - timedelta(days=days)
        session.add(g)
    session.commit()


def _fill(app: FastAPI) -> dict[str, str]:
    """Players and games of every age and state; returns who is who."""
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        idle = _aged(s, 400)
        services.start_game(s, idle, Rules(passing=False, max_rounds=1), "easy")
        s.add(Record(player_id=idle.id, difficulty="easy", played=3, won=1))
        s.commit()
        _age_games(s, idle, 300)
        regular = _aged(s, 400)
        old = services.start_game(s, regular, Rules(), "easy").record.id
        services.start_game(s, regular, Rules(), "easy")  # abandons the first
        recent = services.start_game(s, regular, Rules(), "easy").record.id  # abandons the second, plays on
        _age_games(s, regular, 200)
        s.exec(update(GameRecord).where(col(GameRecord.id) == recent).values(updated_at=utcnow()))
        s.commit()
        newcomer = _aged(s, 2)
        rl = RateBucket(key="game:192.0.2.9", tokens=1.0, updated=0.0)
        s.add(rl)
        s.commit()
        return {"idle": idle.id, "regular": regular.id, "old": old, "recent": recent, "newcomer": newcomer.id}


def test_retention_removes_idle_players_and_unfinished_games_with_their_records(app: FastAPI) -> None:
    who = _fill(app)
    dry = retention.clean(app.state.db_engine, days=180, dry_run=True)
    assert (dry.games, dry.players) == (3, 1)
    removed = retention.clean(app.state.db_engine, days=180)
    assert (removed.games, removed.players, removed.records, removed.buckets) == (3, 1, 1, 1)
    with Session(app.state.db_engine) as s:
        assert s.get(Player, who["idle"]) is None
        assert s.exec(select(Record).where(Record.player_id == who["idle"])).all() == []
        assert s.get(Player, who["regular"]) is not None and s.get(Player, who["newcomer"]) is not None
        assert s.get(GameRecord, who["old"]) is None and s.get(GameRecord, who["recent"]) is not None
    assert retention.clean(app.state.db_engine, days=180).games == 0  # nothing more to do


def test_retention_runs_as_a_command(app: FastAPI, settings: Settings, tmp_path: Path) -> None:
    _fill(app)
    env = {**os.environ, "DATABASE_URL": settings.database_url, "DATA_DIR": str(tmp_path), "SECRET_KEY": "x"}
    out = subprocess.run([sys.executable, "-m", "app.retention", "--days", "180"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True)
    assert "removed 3 unfinished games, 1 idle players" in out.stdout
    assert count(app, Player) == 2


def test_the_server_runs_the_clean_up_on_its_schedule(app: FastAPI, settings: Settings) -> None:
    _fill(app)
    timely = Settings(database_url=settings.database_url, secret_key="s", retention_interval_hours=1.0)

    async def one_round() -> None:
        task = asyncio.create_task(retention.every(app.state.db_engine, timely, first_delay=0))
        for _ in range(200):
            await asyncio.sleep(0.05)
            if count(app, Player) == 2:
                break
        task.cancel()

    asyncio.run(one_round())
    assert count(app, Player) == 2 and count(app, GameRecord) == 1  # the regular player's game in progress
