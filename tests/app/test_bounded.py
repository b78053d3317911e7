"""Bounded work (issue 9 items 1 and 2, SPEC §8): a burst never locks the server up, a full
server answers 503 with Retry-After at once, /healthz answers throughout and says what does
not work, a dead bot worker is replaced without an error, and a killed server leaves no
processes behind."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from app import deps
from app.models import Player as Player_
from app.thinking import Thinker
from engine import Game, Rules, dumps

from .helpers import held
from .live import LiveServer, Player

BURST = 300


@pytest.fixture
def small_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """A real server with few places, so a burst of a few hundred requests overfills it."""
    with LiveServer(tmp_path / "bounded", database_url=database_url,
                    env={"MAX_ACTIVE_REQUESTS": "4", "QUEUE_TIMEOUT": "0.5", "GAMES_PER_MINUTE": "0"}) as s:
        yield s


async def _burst(server: LiveServer, cookie: str, token: str, games: list[dict[str, Any]]) -> tuple[
        list[httpx.Response | BaseException], list[int]]:
    headers = {"cookie": f"{Player.COOKIE}={cookie}", "X-CSRF-Token": token}
    limits = httpx.Limits(max_connections=BURST + 10, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=60, limits=limits) as client:
        health: list[int] = []
        stop = asyncio.Event()

        async def watch() -> None:
            async with httpx.AsyncClient(base_url=server.url, timeout=10) as probe:
                while not stop.is_set():
                    health.append((await probe.get("/healthz")).status_code)
                    await asyncio.sleep(0.05)

        def request(i: int) -> Any:
            kind = i % 4
            if kind == 0:
                return client.get("/api/v1/records")
            if kind == 1:
                return client.get("/")
            if kind == 2:
                game = games[i % len(games)]
                return client.post(f"/api/v1/games/{game['game_id']}/play",
                                   json={"version": game["version"], "card": game["view"]["legal"][0]})
            return client.get("/api/v1/games/current")

        watcher = asyncio.create_task(watch())
        answers = await asyncio.gather(*(request(i) for i in range(BURST)), return_exceptions=True)
        stop.set()
        await watcher
        return answers, health


def test_a_burst_gets_fast_answers_never_a_500_and_healthz_answers_throughout(small_server: LiveServer) -> None:
    me = Player(small_server)
    me.get("/api/v1/records")
    games = []
    for _ in range(3):  # games of other players, to play on during the burst
        other = Player(small_server)
        r = other.post("/api/v1/games", json={"difficulty": "easy", "passing": False})
        assert r.status_code == 201
        games.append(r.json())
    assert me.cookie and me.token
    answers, health = asyncio.run(_burst(small_server, me.cookie, me.token, games))
    failures = [a for a in answers if isinstance(a, BaseException)]
    assert failures == []
    codes = Counter(a.status_code for a in answers if isinstance(a, httpx.Response))
    assert not {c for c in codes if c >= 500} - {503}, codes  # no 500, ever
    assert codes[200] > 0, codes
    for a in answers:
        assert isinstance(a, httpx.Response)
        if a.status_code == 503:
            assert int(a.headers["retry-after"]) > 0
            assert a.headers["cache-control"] == "no-store"
        if a.request.url.path.startswith("/api/") and a.status_code == 503:
            assert a.json()["error"] == "busy"
    assert health and set(health) == {200}, Counter(health)
    # and the server is itself again at once: nothing is left holding a connection or a thread
    assert me.get("/api/v1/records", timeout=5).status_code == 200
    assert httpx.get(small_server.url + "/healthz", timeout=5).json()["requests"] == {"active": 0, "waiting": 0}


def test_an_htmx_request_turned_away_gets_503_with_retry_after(small_server: LiveServer) -> None:
    async def flood() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=small_server.url, timeout=60,
                                     limits=httpx.Limits(max_connections=BURST)) as client:
            # the whole page: heavy enough that 300 of them overfill 4 places on any machine
            return await asyncio.gather(*(client.get("/", headers={"HX-Request": "true"})
                                          for _ in range(BURST)))

    answers = asyncio.run(flood())
    busy = [a for a in answers if a.status_code == 503]
    assert {a.status_code for a in answers} <= {200, 503}
    assert busy, "the burst never filled the server; the test proved nothing"
    assert all(int(a.headers["retry-after"]) > 0 for a in busy)


def test_the_player_dependency_holds_no_connection_into_the_route(app: FastAPI, client: TestClient) -> None:
    """The cause of the lock-up: a connection held across the thread-pool hop from the
    dependencies to the route.  After the player is resolved, the session's transaction
    is over and its connection is back in the pool."""
    client.post("/api/v1/games", json={"difficulty": "easy"})
    seen: dict[str, Any] = {}
    real = deps.get_player

    def spying(request: Request, session: deps.SessionDep, settings: deps.SettingsDep) -> Player_:
        player = real(request, session, settings)
        seen["in_transaction"] = session.in_transaction()
        seen["checked_out"] = held(app.state.db_engine.pool)  # not the tables' watch's
        return player

    app.dependency_overrides[deps.get_player] = spying
    try:
        assert client.get("/api/v1/records").status_code == 200
    finally:
        app.dependency_overrides.clear()
    assert seen == {"in_transaction": False, "checked_out": 0}


# ---- the bot pool ----------------------------------------------------------------------------

def _worker_pids(thinker: Thinker) -> list[int]:
    pool = thinker._pool
    assert pool is not None
    return list(pool._processes)  # type: ignore[attr-defined]


def _kill_and_wait(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)


def test_a_killed_worker_is_replaced_and_the_next_search_still_answers() -> None:
    record = dumps(Game(Rules(), seed=21))
    thinker = Thinker(workers=1)
    try:
        first = thinker.moves(record, "hard")
        assert first is not None and len(first) == 3
        (pid,) = _worker_pids(thinker)
        _kill_and_wait(pid)
        for _ in range(100):  # the pool's manager thread notices the death
            if thinker.state() == "broken":
                break
            time.sleep(0.05)
        assert thinker.state() == "broken"
        again = thinker.moves(record, "hard")  # was: BrokenProcessPool raised from submit()
        assert again == first  # from a new pool, the same decision
        assert thinker.state() == "ok" and _worker_pids(thinker) != [pid]
    finally:
        thinker.close()


def test_healthz_reports_a_broken_bot_pool_and_hard_games_go_on(app: FastAPI, client: TestClient) -> None:
    app.state.thinker.close()
    app.state.thinker = Thinker(workers=1)
    r = client.post("/api/v1/games", json={"difficulty": "hard"})
    assert r.status_code == 201
    assert client.get("/healthz").json()["bots"] == "ok"
    (pid,) = _worker_pids(app.state.thinker)
    _kill_and_wait(pid)
    for _ in range(100):
        if app.state.thinker.state() == "broken":
            break
        time.sleep(0.05)
    h = client.get("/healthz")
    assert h.status_code == 503 and h.json() == {**h.json(), "status": "degraded", "bots": "broken"}
    # the person never sees the dead worker: the next Hard action is served
    game = r.json()
    body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
    assert client.post(f"/api/v1/games/{game['game_id']}/pass", json=body).status_code == 200
    assert client.post("/api/v1/games", json={"difficulty": "hard"}).status_code == 201
    assert client.get("/healthz").status_code == 200
    app.state.thinker.close()


def _descendants(pid: int) -> set[int]:
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for c in map(int, children):
                if c not in out:
                    out.add(c)
                    todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_killed_server_leaves_no_bot_processes_behind(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "orphans", bot_workers=2)
    server.start()
    try:
        me = Player(server)
        assert me.post("/api/v1/games", json={"difficulty": "hard"}).status_code == 201
        assert server.proc is not None
        helpers = _descendants(server.proc.pid)
        # a worker (started on demand), the forkserver that started it and the resource tracker
        assert len(helpers) >= 3, helpers
        server.kill()
        for _ in range(200):
            if not any(_alive(p) for p in helpers):
                break
            time.sleep(0.05)
        left = sorted(p for p in helpers if _alive(p))
        for p in left:  # do not leave them to the next test either
            os.kill(p, signal.SIGKILL)
        assert left == [], f"still running after the server was killed: {left}"
    finally:
        server.stop()
