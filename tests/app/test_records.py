"""Records are earned and counted once (issue 9 items 5 and 6, issue 10 item 8): practice
games never count, a moon counts when it is shot (not at game end), never twice, and a
finished or abandoned game is read-only, even against a racing request."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app import services
from app.models import GameRecord, Player, Record
from engine import Game, Phase, Rules, dumps, loads

from .helpers import moon_game, race, stored


def records_of(app: FastAPI, player_id: str) -> dict[str, Record]:
    with Session(app.state.db_engine) as s:
        return {r.difficulty: r for r in s.exec(select(Record).where(Record.player_id == player_id)).all()}


def a_game(app: FastAPI, game: Game, practice: bool = False, difficulty: str = "easy") -> tuple[Player, GameRecord]:
    """A stored player whose current game is ``game`` (a deal the test chose)."""
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        player = services.create_player(s)
        rec = GameRecord(id=services.new_id(), player_id=player.id, difficulty=difficulty, record=dumps(game),
                         version=game.move_count, practice=practice)
        s.add(rec)
        s.commit()
        return player, rec


def play_first_legal(app: FastAPI, player: Player, game_id: str, until: Phase) -> GameRecord:
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        p = s.get(Player, player.id)
        assert p is not None
        while True:
            rec = services.find_game(s, p, game_id)
            game = loads(rec.record)
            if game.phase is until or game.is_over:
                return rec
            if game.phase is Phase.ROUND_OVER:
                services.next_round(s, p, game_id, rec.version)
            elif game.phase is Phase.MOON_CHOICE:
                services.choose_moon(s, p, game_id, rec.version, False)
            else:
                services.play_card(s, p, game_id, rec.version, sorted(game.legal_cards())[0].code())


# ---- moons ------------------------------------------------------------------------------------

def test_a_moon_counts_when_it_is_shot_not_at_game_end(app: FastAPI) -> None:
    player, rec = a_game(app, moon_game(max_rounds=3))
    done = play_first_legal(app, player, rec.id, until=Phase.ROUND_OVER)
    assert not loads(done.record).is_over  # two more hands to go
    assert records_of(app, player.id)["easy"].moons == 1
    assert records_of(app, player.id)["easy"].played == 0  # the game is not over
    final = play_first_legal(app, player, rec.id, until=Phase.GAME_OVER)
    shot = loads(final.record).shooters.count(services.SOLO_SEAT)
    line = records_of(app, player.id)["easy"]
    assert (line.played, line.moons) == (1, shot)  # the first moon was not counted again at the end
    assert stored(app, rec.id).moons_counted == shot


def test_a_moon_with_shooters_choice_counts_once_when_shot(app: FastAPI) -> None:
    player, rec = a_game(app, moon_game(shooters_choice=True, max_rounds=2))
    play_first_legal(app, player, rec.id, until=Phase.MOON_CHOICE)
    assert records_of(app, player.id)["easy"].moons == 1  # shot: counted before the choice
    play_first_legal(app, player, rec.id, until=Phase.ROUND_OVER)
    assert records_of(app, player.id)["easy"].moons == 1


def test_two_racing_requests_on_the_moon_shooting_card_count_it_once(app: FastAPI) -> None:
    player, rec = a_game(app, moon_game(max_rounds=3))
    # up to the last card of the hand
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        p = s.get(Player, player.id)
        assert p is not None
        while len(loads(services.find_game(s, p, rec.id).record).hand(services.SOLO_SEAT)) > 1:
            r = services.find_game(s, p, rec.id)
            services.play_card(s, p, rec.id, r.version, sorted(loads(r.record).legal_cards())[0].code())
        last = services.find_game(s, p, rec.id)
    card = sorted(loads(last.record).legal_cards())[0].code()
    barrier = threading.Barrier(3)
    results: list[str] = []

    def send() -> None:
        with Session(app.state.db_engine, expire_on_commit=False) as s:
            p = s.get(Player, player.id)
            assert p is not None
            barrier.wait()
            try:
                services.play_card(s, p, rec.id, last.version, card)
                results.append("stored")
            except services.StaleStateError:
                results.append("stale")

    race(send, 3)
    assert sorted(results) == ["stale", "stale", "stored"]
    assert records_of(app, player.id)["easy"].moons == 1


def test_a_retried_request_after_a_lost_answer_does_not_count_the_moon_again(app: FastAPI, client: TestClient) -> None:
    client.post("/api/v1/games", json={"difficulty": "easy"})  # the player, with a game to replace
    game_id = client.get("/api/v1/games/current").json()["game_id"]
    game = moon_game(max_rounds=3)
    with Session(app.state.db_engine) as s:
        row = s.get(GameRecord, game_id)
        assert row is not None
        row.record, row.version = dumps(game), game.move_count
        s.add(row)
        s.commit()
    data: dict[str, Any] = client.get(f"/api/v1/games/{game_id}").json()
    while data["view"]["phase"] == "play":
        body = {"version": data["version"], "card": data["view"]["legal"][0]}
        r = client.post(f"/api/v1/games/{game_id}/play", json=body)
        assert r.status_code == 200
        if r.json()["view"]["phase"] != "play":
            again = client.post(f"/api/v1/games/{game_id}/play", json=body)  # the retry
            assert again.status_code == 409
        data = r.json()
    moons = {line["difficulty"]: line["moons"] for line in client.get("/api/v1/records").json()}
    assert moons["easy"] == 1


def test_a_practice_moon_never_counts(app: FastAPI) -> None:
    player, rec = a_game(app, moon_game(max_rounds=1), practice=True)
    play_first_legal(app, player, rec.id, until=Phase.GAME_OVER)
    assert records_of(app, player.id) == {}


# ---- abandoned and finished games are read-only ---------------------------------------------

def test_an_abandoned_game_takes_no_moves_through_the_api(client: TestClient, app: FastAPI) -> None:
    first = client.post("/api/v1/games", json={"difficulty": "easy", "passing": False}).json()
    client.post("/api/v1/games", json={"difficulty": "easy"})
    before = stored(app, first["game_id"])
    assert before.status == "abandoned"
    r = client.post(f"/api/v1/games/{first['game_id']}/play",
                    json={"version": first["version"], "card": first["view"]["legal"][0]})
    assert r.status_code == 409 and r.json()["error"] == "game_abandoned"
    after = stored(app, first["game_id"])
    assert (after.status, after.version, after.record) == ("abandoned", before.version, before.record)
    assert client.get(f"/api/v1/games/{first['game_id']}").json()["status"] == "abandoned"


def test_a_play_racing_a_new_game_never_brings_the_old_game_back(app: FastAPI,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The play on A reads A as active; while its computer players move, "New game"
    abandons A; the play's store must then fail instead of writing "active" back."""
    engine = app.state.db_engine
    with Session(engine, expire_on_commit=False) as s:
        player = services.create_player(s)
        a = services.start_game(s, player, Rules(passing=False), "easy", seed=3).record
    card = sorted(loads(a.record).legal_cards())[0].code()
    thinking, abandoned = threading.Event(), threading.Event()
    real_run_bots = services.run_bots

    def slow_run_bots(game: Game, difficulty: str, *seats: Any) -> list[services.Step]:
        if threading.current_thread().name == "play":
            thinking.set()
            assert abandoned.wait(30)
        return real_run_bots(game, difficulty, *seats)

    monkeypatch.setattr(services, "run_bots", slow_run_bots)
    outcome: dict[str, str] = {}

    def play() -> None:
        with Session(engine, expire_on_commit=False) as s:
            p = s.get(Player, player.id)
            assert p is not None
            try:
                services.play_card(s, p, a.id, a.version, card)
                outcome["play"] = "stored"
            except services.StaleStateError as exc:
                outcome["play"] = type(exc).__name__

    t = threading.Thread(target=play, name="play")
    t.start()
    assert thinking.wait(30)
    with Session(engine, expire_on_commit=False) as s:
        p = s.get(Player, player.id)
        assert p is not None
        b = services.start_game(s, p, Rules(), "easy").record
    abandoned.set()
    t.join()
    assert outcome["play"] == "GameClosedError"
    assert stored(app, a.id).status == "abandoned" and stored(app, a.id).version == a.version
    with Session(engine) as s:
        live = s.exec(select(GameRecord).where(GameRecord.player_id == player.id,
                                               GameRecord.status == "active")).all()
        assert [g.id for g in live] == [b.id]
