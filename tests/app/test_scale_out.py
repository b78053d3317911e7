"""Scaling out: two app processes on one database serve one game, request by request.

This is what a load balancer without sticky sessions does: every request may land on
another process, and nothing but the database (and the shared secret key) ties them
together.  Runs on a SQLite file always and on PostgreSQL when TEST_DATABASE_URL is set.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from engine import loads
from tools.loadtest import app_server, keep_token, next_action

API = "/api/v1"


def stored_moves(database_url: str, game_id: str) -> list[str]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            record = conn.execute(text("SELECT record FROM game WHERE id = :id"), {"id": game_id}).scalar_one()
    finally:
        engine.dispose()
    return [m.code() for m in loads(record).moves]


def without_events(game: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in game.items() if k != "events"}


def test_two_processes_sharing_one_database_serve_one_game_alternately(database_url: str, tmp_path: Path) -> None:
    rng = random.Random(6)
    with app_server(database_url, tmp_path / "a") as a, \
            app_server(database_url, tmp_path / "b", migrate_first=False) as b:
        servers = itertools.cycle((a, b))
        with httpx.Client(timeout=60) as client:
            keep_token(client, client.get(f"{next(servers)}{API}/records"))
            r = client.post(f"{next(servers)}{API}/games",
                            json={"difficulty": "medium", "target_score": 30})
            assert r.status_code == 201, r.text
            game = r.json()
            acked: list[tuple[int, str]] = []
            actions = 0
            while game["status"] == "active":
                path, body, move = next_action(game, rng)
                here, there = next(servers), next(servers)
                r = client.post(f"{here}{path}", json=body)
                assert r.status_code == 200, r.text
                answer = r.json()
                assert answer["version"] > game["version"]
                acked.append((game["version"], move.code()))
                # the other process sees the new state at once, and refuses the same
                # request again (a retry through the balancer) without applying it twice
                seen = client.get(f"{there}{API}/games/{game['game_id']}").json()
                assert without_events(seen) == without_events(answer)
                again = client.post(f"{there}{path}", json=body)
                # (the repeat of the move that ended the game finds it finished)
                assert again.status_code == 409 and again.json()["error"] in ("stale_version", "game_finished")
                game = answer
                actions += 1
            assert game["status"] == "finished"
            for server in (a, b):
                lines = {line["difficulty"]: line for line in client.get(f"{server}{API}/records").json()}
                assert lines["medium"]["played"] == 1
    moves = stored_moves(database_url, game["game_id"])
    assert len(moves) == game["version"]
    assert all(moves[v] == code for v, code in acked)
    assert actions > 20  # several hands, passing included, went back and forth
