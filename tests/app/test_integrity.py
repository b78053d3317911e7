"""Integrity: the version guard under real concurrency, 409s that carry the current
state, no transaction held while computer players think, Hard thinking in worker processes."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, col, select

from app import services
from app.models import GameRecord, Player
from app.thinking import Thinker
from engine import Game, Phase, Rules, dumps, loads

from .helpers import race
from .live import LiveServer, next_action
from .live import Player as LivePlayer


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """The real server on the test's database (SQLite, and PostgreSQL when configured)."""
    with LiveServer(tmp_path / "integrity", database_url=database_url) as s:
        yield s


def stored(server: LiveServer, game_id: str) -> GameRecord:
    from sqlmodel import create_engine

    engine = create_engine(server.database_url)
    try:
        with Session(engine) as s:
            rec = s.get(GameRecord, game_id)
            assert rec is not None
            s.expunge(rec)
            return rec
    finally:
        engine.dispose()


def test_two_tabs_hammering_one_game_store_exactly_one_legal_game(server: LiveServer) -> None:
    """Two clients of the same player (two tabs) race on every action of a whole game.
    Every accepted action moved the version from the one it named; together they cover
    the stored move log exactly, without gap or overlap, and the log replays as a legal game."""
    first = LivePlayer(server)
    r = first.post("/api/v1/games", json={"difficulty": "medium", "seed": 99, "max_rounds": 2})
    assert r.status_code == 201, r.text
    game_id = r.json()["game_id"]
    start_version = r.json()["version"]
    second = LivePlayer(server, first.cookie, first.token)  # the same browser: one cookie, one token

    accepted: list[tuple[int, int]] = []
    refused: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()

    def hammer(tab: LivePlayer, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(2000):
            state = tab.get(f"/api/v1/games/{game_id}").json()
            action = next_action(state, rng)
            if action is None:
                return
            path, body = action
            resp = tab.post(f"/api/v1/games/{game_id}/{path}", json=body)
            with lock:
                if resp.status_code == 200:
                    accepted.append((body["version"], resp.json()["version"]))
                elif resp.status_code == 409:
                    refused.append(body["version"])
                    # the refusal shows the game as it is now, already past the stale version
                    assert resp.json()["game"]["version"] > body["version"]
                else:
                    errors.append(f"{resp.status_code} {resp.text[:200]}")

    tabs = [threading.Thread(target=hammer, args=(tab, n)) for n, tab in enumerate((first, second))]
    for t in tabs:
        t.start()
    for t in tabs:
        t.join()

    assert errors == []
    assert refused, "the two tabs never collided; the test proved nothing"
    rec = stored(server, game_id)
    game = loads(rec.record)  # replays and checks every stored move
    assert game.phase is Phase.GAME_OVER
    assert rec.version == game.move_count
    # the accepted actions tile the log from the deal to the end: no move lost or doubled
    spans = sorted(accepted)
    assert spans[0][0] == start_version
    for (_, end), (begin, _) in zip(spans, spans[1:], strict=False):
        assert end == begin
    assert spans[-1][1] == rec.version
    assert rec.status == "finished"


def test_a_stale_api_action_gets_409_with_the_game_as_it_is(server: LiveServer) -> None:
    tab = LivePlayer(server)
    game = tab.post("/api/v1/games", json={"seed": 5}).json()
    path, body = next_action(game) or ("", {})
    ok = tab.post(f"/api/v1/games/{game['game_id']}/{path}", json=body)
    assert ok.status_code == 200
    again = tab.post(f"/api/v1/games/{game['game_id']}/{path}", json=body)  # a retry after a timeout
    assert again.status_code == 409
    assert again.json()["error"] == "stale_version"
    assert again.json()["game"] == {**ok.json(), "events": []}
    assert tab.get(f"/api/v1/games/{game['game_id']}").json()["version"] == ok.json()["version"]


# ---- computer players never hold a transaction; the version is checked when storing ------

def _person_to_play(session: Session) -> tuple[Player, GameRecord]:
    player = services.create_player(session)
    out = services.start_game(session, player, Rules(passing=False), "easy", seed=3)
    assert out.game.phase is Phase.PLAY and out.game.turn == services.SOLO_SEAT
    return player, out.record


def test_a_slow_computer_player_holds_no_lock_and_loses_a_race_cleanly(app: FastAPI,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """While the computer players of one action think, another request on the same game
    is stored (it would wait for the write lock if the first held a transaction); when the
    slow one finishes, the version check refuses it and nothing of it is stored."""
    engine = app.state.db_engine
    with Session(engine, expire_on_commit=False) as s:
        player, rec = _person_to_play(s)
        version = rec.version
        card = next(iter(loads(rec.record).legal_cards())).code()

    thinking = threading.Event()
    other_stored = threading.Event()
    real_run_bots = services.run_bots

    def slow_run_bots(game: Game, difficulty: str, *seats: Any) -> list[services.Step]:
        if threading.current_thread().name == "slow":
            thinking.set()
            assert other_stored.wait(30), "the other request could not store while a bot was thinking"
        return real_run_bots(game, difficulty, *seats)

    monkeypatch.setattr(services, "run_bots", slow_run_bots)
    outcome: dict[str, Any] = {}

    def slow_action() -> None:
        with Session(engine, expire_on_commit=False) as s:
            try:
                services.play_card(s, s.get(Player, player.id), None, version, card)  # type: ignore[arg-type]
                outcome["result"] = "stored"
            except services.StaleStateError:
                outcome["result"] = "stale"

    t = threading.Thread(target=slow_action, name="slow")
    t.start()
    assert thinking.wait(30)
    with Session(engine, expire_on_commit=False) as s:
        # the same click from another tab, with its computer players answering at once
        fast = services.play_card(s, s.get(Player, player.id), None, version, card)  # type: ignore[arg-type]
    other_stored.set()
    t.join()

    assert outcome["result"] == "stale"
    with Session(engine) as s:
        final = s.get(GameRecord, rec.id)
        assert final is not None
        assert final.version == fast.record.version
        assert final.record == fast.record.record


def test_starting_a_game_computes_the_passes_before_taking_the_write_lock(app: FastAPI,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    engine = app.state.db_engine
    with Session(engine, expire_on_commit=False) as s:
        player = services.create_player(s)
        bystander = services.create_player(s)
    written = threading.Event()
    real_run_bots = services.run_bots

    def slow_run_bots(game: Game, difficulty: str, *seats: Any) -> list[services.Step]:
        if threading.current_thread().name == "slow":
            # another player's write must get through while these passes are chosen
            with Session(engine) as other:
                services.set_preferences(other, other.get(Player, bystander.id), fast_play=True)  # type: ignore[arg-type]
            written.set()
        return real_run_bots(game, difficulty, *seats)

    monkeypatch.setattr(services, "run_bots", slow_run_bots)

    def start() -> None:
        with Session(engine, expire_on_commit=False) as s:
            services.start_game(s, s.get(Player, player.id), Rules(), "medium", seed=1)  # type: ignore[arg-type]

    t = threading.Thread(target=start, name="slow")
    t.start()
    t.join()
    assert written.is_set()
    with Session(engine) as s:
        assert len(s.exec(select(GameRecord).where(col(GameRecord.player_id) == player.id)).all()) == 1


# ---- Hard thinks in worker processes -----------------------------------------------------

def test_hard_thinks_in_a_worker_process_and_decides_as_it_would_in_the_web_process() -> None:
    game = Game(Rules(), seed=21)
    inline = [s.move.code() for s in services.run_bots(loads(dumps(game)), "hard")]
    # the same decisions, however long a loaded machine makes them take (at load 8 the pool's
    # start and three Hard passes once took longer than the server's 20 s cap)
    thinker = Thinker(workers=1, timeout=600)
    try:
        pooled = thinker.moves(dumps(game), "hard")
        assert thinker._pool is not None  # a process pool really did the work
    finally:
        thinker.close()
    assert pooled == inline
    assert len(inline) == 3  # the three computer players' passes


class _SaturatedPool(Thinker):
    def moves(self, record: str, difficulty: str, people: AbstractSet[int] = frozenset({0})) -> list[str] | None:
        return None  # what a pool that did not answer within the time budget gives


def test_when_the_pool_does_not_answer_in_time_the_game_still_moves(session: Session) -> None:
    player = services.create_player(session)
    out = services.start_game(session, player, Rules(), "hard", seed=4,
                              ctx=services.Context(thinker=_SaturatedPool(workers=1)))
    game = loads(out.record.record)
    assert len(game.moves) == 3 and all(m.seat != services.SOLO_SEAT for m in game.moves)  # type: ignore[union-attr]


def test_the_app_sends_hard_thinking_to_its_pool(app: FastAPI, client: TestClient) -> None:
    calls: list[str] = []

    class Counting(Thinker):
        def moves(self, record: str, difficulty: str, people: AbstractSet[int] = frozenset({0})) -> list[str] | None:
            calls.append(difficulty)
            return super().moves(record, difficulty, people)

    app.state.thinker.close()
    app.state.thinker = Counting(workers=1)
    r = client.post("/api/v1/games", json={"difficulty": "hard", "seed": 8})
    assert r.status_code == 201
    assert calls == ["hard"]
    client.post("/api/v1/games", json={"difficulty": "medium", "seed": 8})
    assert calls == ["hard"]  # Medium thinks in microseconds: no trip to the pool
    app.state.thinker.close()


def test_a_finished_game_is_counted_once_even_when_stored_twice_concurrently(app: FastAPI) -> None:
    """The record update rides in the same transaction as the version-guarded store."""
    engine = app.state.db_engine
    with Session(engine, expire_on_commit=False) as s:
        player = services.create_player(s)
        out = services.start_game(s, player, Rules(passing=False, max_rounds=1), "easy", seed=2, practice=False)
        rec_id = out.record.id
    results: list[str] = []

    def finish() -> None:
        with Session(engine, expire_on_commit=False) as s:
            p = s.get(Player, player.id)
            assert p is not None
            try:
                while True:
                    rec = services.find_game(s, p, rec_id)
                    g = loads(rec.record)
                    if g.is_over:
                        break
                    if g.phase is Phase.ROUND_OVER:  # a tie for the lowest total plays on
                        services.next_round(s, p, rec_id, rec.version)
                    elif g.phase is Phase.MOON_CHOICE:
                        services.choose_moon(s, p, rec_id, rec.version, False)
                    else:
                        services.play_card(s, p, rec_id, rec.version, sorted(g.legal_cards())[0].code())
                results.append("done")
            except services.StaleStateError:
                results.append("stale")

    race(finish, 2)
    with Session(engine) as s:
        rows = services.records(s, s.get(Player, player.id))  # type: ignore[arg-type]
        assert sum(r.played for r in rows) == 1
        assert s.get(GameRecord, rec_id).status == "finished"  # type: ignore[union-attr]


# ---- a new game is dealt once, however often it is asked for from the same table ----------

def test_a_double_click_on_new_game_deals_once(app: FastAPI, client: TestClient) -> None:
    hx = {"HX-Request": "true"}
    page = client.get("/").text
    form = {"same": "true", "replaces": "none"}
    assert 'name="replaces" value="none"' in page
    first = client.post("/game/new", data=form, headers=hx)
    second = client.post("/game/new", data=form, headers=hx)
    assert first.status_code == 200
    assert second.status_code == 409 and 'class="error"' in second.text  # with the table just dealt
    dealt = client.get("/api/v1/games/current").json()["game_id"]
    assert f'name="replaces" value="{dealt}"' not in first.text  # the button appears only at game over
    with Session(app.state.db_engine) as s:
        assert len(s.exec(select(GameRecord)).all()) == 1
    # from the game on the table, a new game replaces it once
    again = {"same": "true", "replaces": dealt}
    assert client.post("/game/new", data=again, headers=hx).status_code == 200
    assert client.post("/game/new", data=again, headers=hx).status_code == 409
    with Session(app.state.db_engine) as s:
        games = s.exec(select(GameRecord)).all()
        assert len(games) == 2 and sorted(g.status for g in games) == ["abandoned", "active"]


def test_two_simultaneous_new_games_from_one_table_deal_once(app: FastAPI) -> None:
    engine = app.state.db_engine
    with Session(engine, expire_on_commit=False) as s:
        player = services.create_player(s)
        table = services.start_game(s, player, Rules(), "easy", seed=1).record.id
    barrier = threading.Barrier(2)
    results: list[str] = []

    def deal(seed: int) -> None:
        with Session(engine, expire_on_commit=False) as s:
            p = s.get(Player, player.id)
            assert p is not None
            barrier.wait()
            try:
                services.start_game(s, p, Rules(), "easy", seed=seed, replaces=table)
                results.append("dealt")
            except services.StaleGameError:
                results.append("stale")

    threads = [threading.Thread(target=deal, args=(n,)) for n in (2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["dealt", "stale"]
    with Session(engine) as s:
        live = [g for g in s.exec(select(GameRecord)).all() if g.status != "abandoned"]
        assert len(live) == 1 and live[0].id != table


def test_the_api_deals_once_for_a_repeated_request(client: TestClient) -> None:
    first = client.post("/api/v1/games", json={"seed": 1, "replaces": ""})
    assert first.status_code == 201
    repeat = client.post("/api/v1/games", json={"seed": 1, "replaces": ""})
    assert repeat.status_code == 409 and repeat.json()["game"]["game_id"] == first.json()["game_id"]
    nxt = client.post("/api/v1/games", json={"seed": 2, "replaces": first.json()["game_id"]})
    assert nxt.status_code == 201
    assert client.post("/api/v1/games", json={"replaces": first.json()["game_id"]}).status_code == 409
