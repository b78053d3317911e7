"""Crash safety: the real server is killed with SIGKILL again and again while a player
plays through the JSON API, in every phase of the game, and restarted on the same
SQLite file.  After each restart the game is exactly where the last acknowledged action
left it, or one action further when the killed request had already been committed (its
answer lost); a retry of the lost request is then applied once or refused as stale, and
every finished game is counted in the records exactly once."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, create_engine, select

from app.deps import player_id_from_cookie
from app.models import GameRecord, Record
from engine import loads

from .live import SECRET, LiveServer, Player, next_action

TARGETS = ("pass", "mid_trick", "round_end", "game_end")
# kill k lands in the moment TARGETS[k % 4], timed by k % 3 (two random moments in the
# request, one right after its commit): 12 kills meet each moment with each timing once
KILLS = 12
RULES = {"difficulty": "easy", "max_rounds": 2}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with LiveServer(tmp_path / "crash") as s:
        yield s


def category(game: dict[str, Any]) -> str:
    """Which kind of moment the person's next action is."""
    view = game["view"]
    if view["phase"] == "pass":
        return "pass"
    if view["phase"] == "play" and len(view["hand"]) == 1:
        # the last card of a hand: it ends the round, and in the last round the game
        last = view["round_index"] + 1 >= (view["rules"]["max_rounds"] or 0)
        return "game_end" if last else "round_end"
    if view["phase"] == "play" and view["trick"]:
        return "mid_trick"
    if view["phase"] == "round_over":
        return "round_end"
    return "other"


def stored_log(server: LiveServer, game_id: str) -> tuple[list[str], int, str]:
    """The stored game's move codes (replayed and checked by loads), version and status."""
    engine = create_engine(server.database_url)
    try:
        with Session(engine) as s:
            rec = s.get(GameRecord, game_id)
            assert rec is not None
            game = loads(rec.record)
            assert game.move_count == rec.version
            return [m.code() for m in game.moves], rec.version, rec.status
    finally:
        engine.dispose()


def test_sigkill_in_every_phase_loses_nothing_and_counts_games_once(server: LiveServer) -> None:
    rng = random.Random(20261129)
    me = Player(server)
    finished: set[str] = set()
    latencies: list[float] = [0.02]
    kills = {t: 0 for t in TARGETS}
    outcomes = {"acknowledged": 0, "stored_unacknowledged": 0, "not_stored": 0}

    def new_game() -> dict[str, Any]:
        # dealt by the server: a game from a chosen seed is practice and would not be counted
        r = me.post("/api/v1/games", json=RULES)
        assert r.status_code == 201, r.text
        return r.json()

    def act(game: dict[str, Any], action: tuple[str, dict[str, Any]]) -> httpx.Response:
        path, body = action
        start = time.perf_counter()
        r = me.post(f"/api/v1/games/{game['game_id']}/{path}", json=body)
        latencies.append(time.perf_counter() - start)  # what a kill has to land inside
        return r

    game = new_game()
    for k in range(KILLS):
        target = TARGETS[k % len(TARGETS)]
        # play on, acknowledged, up to the moment to crash in
        while True:
            if game["view"]["phase"] == "game_over":
                finished.add(game["game_id"])
                game = new_game()
                continue
            if category(game) == target:
                break
            action = next_action(game, rng)
            assert action is not None
            r = act(game, action)
            assert r.status_code == 200, r.text
            game = r.json()

        before, version, _ = stored_log(server, game["game_id"])
        action = next_action(game, rng)
        assert action is not None
        path, body = action
        answer: dict[str, Any] = {}

        def send(url: str = f"/api/v1/games/{game['game_id']}/{path}", body: dict[str, Any] = body,
                 answer: dict[str, Any] = answer) -> None:
            try:
                answer["response"] = me.post(url, json=body, timeout=10)
            except httpx.TransportError:
                pass  # the server died mid-request: no acknowledgement

        sender = threading.Thread(target=send)
        sender.start()
        if k % 3 == 2:
            # right after the commit, while the answer is still being written
            _wait_for_commit(server, game["game_id"], version)
        else:
            # sometimes before the request lands, sometimes mid-request, sometimes after the answer
            typical = sorted(latencies)[len(latencies) // 2]
            threading.Event().wait(rng.uniform(0.3, 1.6) * typical)
        server.kill()
        sender.join()
        kills[target] += 1
        server.start()

        after, stored_version, status = stored_log(server, game["game_id"])
        assert after[:len(before)] == before, "an acknowledged move was lost or changed"
        current = me.get(f"/api/v1/games/{game['game_id']}")
        assert current.status_code == 200
        now = current.json()
        assert now["version"] == stored_version
        response = answer.get("response")
        if response is not None and response.status_code == 200:
            outcomes["acknowledged"] += 1
            acked = response.json()
            assert stored_version == acked["version"] and now["view"] == acked["view"]
            game = now
        elif stored_version == version:
            outcomes["not_stored"] += 1
            assert now["view"] == game["view"], "a request that was not stored changed the game"
            # the player retries the lost request: it is applied now, once
            retry = act(game, action)
            assert retry.status_code == 200, retry.text
            game = retry.json()
        else:
            outcomes["stored_unacknowledged"] += 1
            # committed but the answer was lost: the person's move comes first, then only the
            # computer players' moves (in the same action), and a retry is refused as stale
            new = after[len(before):]
            assert new[0] == _person_code(path, body)
            assert all(not m.startswith("0 ") for m in new[1:])
            retry = act(game, action)
            assert retry.status_code == 409 and retry.json()["game"]["version"] == stored_version
            game = now

    # finish the last game, so every game this player had ends counted or abandoned
    while game["view"]["phase"] != "game_over":
        action = next_action(game, rng)
        assert action is not None
        r = act(game, action)
        assert r.status_code == 200, r.text
        game = r.json()
    finished.add(game["game_id"])

    assert all(kills[t] >= KILLS // len(TARGETS) for t in TARGETS), kills
    # both sides of the crash were exercised: requests lost before their commit, and
    # requests committed (answered, or killed while the answer was being written)
    assert outcomes["not_stored"] and outcomes["acknowledged"] + outcomes["stored_unacknowledged"], outcomes
    pid = player_id_from_cookie(_settings(), me.cookie)
    engine = create_engine(server.database_url)
    try:
        with Session(engine) as s:
            games = s.exec(select(GameRecord).where(GameRecord.player_id == pid)).all()
            done = {g.id for g in games if g.status == "finished"}
            assert done == finished
            for g in games:
                assert loads(g.record).is_over == (g.status == "finished")
            played = sum(r.played for r in s.exec(select(Record).where(Record.player_id == pid)).all())
            assert played == len(finished)
    finally:
        engine.dispose()
    with sqlite3.connect(server.database_url.removeprefix("sqlite:///")) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _wait_for_commit(server: LiveServer, game_id: str, version: int) -> None:
    db = sqlite3.connect(server.database_url.removeprefix("sqlite:///"), timeout=10)
    try:
        deadline = time.monotonic() + 15  # a bound for a broken server, not a timing
        while time.monotonic() < deadline:
            row = db.execute("SELECT version FROM game WHERE id = ?", (game_id,)).fetchone()
            if row[0] != version:
                return
    finally:
        db.close()
    raise AssertionError(f"the action was never stored ({game_id} {version})")


def _person_code(path: str, body: dict[str, Any]) -> str:
    from engine import CardSet

    if path == "pass":
        return f"0 pass {CardSet(body['cards'])}"
    if path == "play":
        return f"0 play {body['card']}"
    if path == "moon":
        return f"0 moon {'subtract' if body['subtract'] else 'add'}"
    return "next"


def _settings() -> Any:
    from app.config import Settings

    return Settings(database_url="sqlite://", secret_key=SECRET)
