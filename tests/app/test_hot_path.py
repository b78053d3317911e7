"""What an action costs the server, kept from creeping back (docs/benchmarks.md, "CPU per
action"): the thread-pool hops, the token read once, the session closed, the answer
serialised once, the views and the garbage collector.  Counts, never timings."""

from __future__ import annotations

import dataclasses
import functools
import gc
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlmodel import Session

from app import security, services
from app.models import GameRecord
from app.routers.api import GameOut, game_json, game_out
from engine import Phase, PlayerView, Rules

from .helpers import first_legal, held, three_cards


def playing(client: TestClient) -> dict[str, Any]:
    """A new game of the client's player, passed, so that it is the person's turn to play."""
    game = client.post("/api/v1/games", json={"seed": 5}).json()
    game = client.post(f"/api/v1/games/{game['game_id']}/pass",
                       json={"version": game["version"], "cards": game["view"]["hand"][:3]}).json()
    assert game["view"]["phase"] == "play" and game["view"]["turn"] == 0
    return game


def hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the functions the app runs in the thread pool, from now on."""
    seen: list[str] = []
    original = anyio.to_thread.run_sync

    async def counting(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        inner = func.func if isinstance(func, functools.partial) else func
        seen.append(getattr(inner, "__name__", repr(inner)))
        return await original(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    return seen


def test_an_action_makes_one_thread_pool_hop(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # the player's lookup and the route's work together (app.deps.as_player): the CSRF check
    # and the session's close (nothing to roll back) run on the event loop, and the answer
    # is serialised in the hop
    game = playing(client)
    seen = hops(monkeypatch)
    r = client.post(f"/api/v1/games/{game['game_id']}/play",
                    json={"version": game["version"], "card": game["view"]["legal"][0]})
    assert r.status_code == 200, r.text
    assert seen == ["lookup_and_work"], seen


def test_an_action_reads_its_player_and_game_in_one_statement(app: FastAPI, client: TestClient) -> None:
    game = playing(client)
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement.split(None, 1)[0].upper())

    event.listen(app.state.db_engine, "before_cursor_execute", seen)
    try:
        r = client.post(f"/api/v1/games/{game['game_id']}/play",
                        json={"version": game["version"], "card": game["view"]["legal"][0]})
        assert r.status_code == 200, r.text
        assert statements == ["SELECT", "UPDATE"], statements
        statements.clear()
        assert client.get(f"/api/v1/games/{game['game_id']}").json()["version"] == r.json()["version"]
        assert statements == ["SELECT"], statements
        # another player's game is not theirs, read together or not
        statements.clear()
        other = TestClient(app)
        r = other.post(f"/api/v1/games/{game['game_id']}/play", json={"version": 0, "card": "QS"})
        assert r.status_code == 404 and r.json()["error"] == "game_not_found"
    finally:
        event.remove(app.state.db_engine, "before_cursor_execute", seen)


def test_a_stale_action_is_answered_from_its_own_hop(
        app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = playing(client)
    card = game["view"]["legal"][0]
    now = client.post(f"/api/v1/games/{game['game_id']}/play", json={"version": game["version"], "card": card}).json()
    seen = hops(monkeypatch)
    r = client.post(f"/api/v1/games/{game['game_id']}/play", json={"version": game["version"], "card": card})
    assert r.status_code == 409 and r.json()["error"] == "stale_version"
    # the game as it is now, read in the refused action's hop (not again by the handler, and
    # no hop for the session's close: the hop rolled its transaction back)
    assert r.json()["game"] == {**now, "events": []}
    assert seen == ["lookup_and_work"], seen
    # an unknown game: refused in its hop too
    r = client.post("/api/v1/games/nope/play", json={"version": 0, "card": card})
    assert r.status_code == 404 and r.json()["error"] == "game_not_found"
    assert seen == ["lookup_and_work"] * 2, seen
    assert held(app.state.db_engine.pool) == 0


def test_reading_a_game_makes_one_hop_and_ends_its_own_transaction(
        app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = playing(client)
    seen = hops(monkeypatch)
    for path in ("/api/v1/games/current", f"/api/v1/games/{game['game_id']}"):
        r = client.get(path)
        assert r.status_code == 200 and r.json()["version"] == game["version"]
    # the player's lookup and the game's read in one transaction, ended in the hop: nothing
    # is left for the session's close to roll back in a hop of its own
    assert seen == ["lookup_and_work", "lookup_and_work"], seen
    assert held(app.state.db_engine.pool) == 0


def test_a_read_that_leaves_a_transaction_open_still_closes_it_off_the_event_loop(
        app: FastAPI, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    playing(client)
    seen = hops(monkeypatch)
    assert client.get("/api/v1/records").status_code == 200
    # the records' read began a transaction the route did not end: its rollback waits for
    # the database, so the close goes to the thread pool
    assert "close" in seen
    assert held(app.state.db_engine.pool) == 0


def test_every_answer_gives_its_connection_back(app: FastAPI, client: TestClient) -> None:
    game = playing(client)
    pool = app.state.db_engine.pool
    base = f"/api/v1/games/{game['game_id']}"
    answers = [
        client.post(base + "/play", json={"version": game["version"], "card": game["view"]["legal"][0]}),
        client.post(base + "/play", json={"version": game["version"], "card": game["view"]["legal"][0]}),  # stale
        client.post(base + "/play", json={"version": "x", "card": "QS"}),  # malformed
        client.get(base),
        client.get("/api/v1/records"),
        client.get("/"),
    ]
    assert [a.status_code for a in answers] == [200, 409, 422, 200, 200, 200]
    assert held(pool) == 0


def test_the_answer_is_the_game_out_schema_serialised_once(app: FastAPI, client: TestClient) -> None:
    r = client.post("/api/v1/games", json={"seed": 9})
    assert r.status_code == 201 and r.headers["content-type"] == "application/json"
    out = GameOut.model_validate_json(r.content)
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, out.game_id)
        assert rec is not None
        assert out.version == rec.version and out.status == rec.status == "active" and out.practice
        assert out.view == PlayerView.of(services.load_game(rec), rec.seat).to_dict()
    r = client.post(f"/api/v1/games/{out.game_id}/pass", json={"version": out.version, "cards": out.view["hand"][:3]})
    assert r.status_code == 200
    assert GameOut.model_validate_json(r.content).model_dump() == r.json()


def test_the_answer_is_byte_for_byte_what_the_schema_model_would_write(session: Session) -> None:
    # the answer is written without building a GameOut (api.game_json): the same bytes as
    # the model's JSON, through a whole hand, a moon choice's variant and a finished game
    for rules in (Rules(), Rules(shooters_choice=True, target_score=26)):
        p = services.create_player(session)
        out = services.start_game(session, p, rules, "medium", seed=11)
        while True:
            assert game_json(out) == game_out(out).model_dump_json().encode()
            if out.record.status != "active":
                break
            view = out.view
            if view.phase is Phase.PASS:
                out = services.pass_cards(session, p, None, out.record.version, three_cards(view))
            elif view.phase is Phase.PLAY:
                out = services.play_card(session, p, None, out.record.version, first_legal(view))
            elif view.phase is Phase.MOON_CHOICE:
                out = services.choose_moon(session, p, None, out.record.version, True)
            else:
                out = services.next_round(session, p, None, out.record.version)
        assert out.record.status == "finished"


def test_the_players_token_is_checked_once_per_request(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = playing(client)
    checked: list[str] = []
    original = security.read_token

    def counting(secret_key: str, value: str | None, max_age: float) -> Any:
        if value is not None:
            checked.append(value)
        return original(secret_key, value, max_age)

    monkeypatch.setattr(security, "read_token", counting)
    r = client.post(f"/api/v1/games/{game['game_id']}/play",
                    json={"version": game["version"], "card": game["view"]["legal"][0]})
    assert r.status_code == 200
    # the CSRF check and the player dependency both asked; the signature was checked once
    assert len(checked) == 1
    # and a wrong CSRF token is still refused for the player the cookie names
    r = client.post(f"/api/v1/games/{game['game_id']}/play", headers={"X-CSRF-Token": "forged"},
                    json={"version": r.json()["version"], "card": r.json()["view"]["legal"][0]})
    assert r.status_code == 403


def test_an_outcomes_view_is_the_view_of_its_game(session: Session) -> None:
    p = services.create_player(session)
    out = services.start_game(session, p, Rules(), "medium", seed=3)
    assert out.view == PlayerView.of(out.game, out.seat)
    out = services.pass_cards(session, p, None, out.record.version, three_cards(out.view))
    for _ in range(6):
        assert out.steps
        assert out.view == PlayerView.of(out.game, out.seat) == out.steps[-1].view
        out = services.play_card(session, p, None, out.record.version, first_legal(out.view))
    assert services.Outcome(out.record, out.game).view == PlayerView.of(out.game, out.seat)


def test_what_the_app_loaded_is_out_of_the_collectors_sight_while_it_serves(app: FastAPI) -> None:
    assert gc.get_freeze_count() == 0
    with TestClient(app) as client:
        assert gc.get_freeze_count() > 0
        assert client.get("/healthz").status_code == 200
    assert gc.get_freeze_count() == 0


def test_a_remembered_signature_still_ages_and_a_tampered_token_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    key, max_age = "a-secret", 1000.0
    token = security.player_token(key, "someone")
    found = security.read_token(key, token, max_age)
    assert found is not None and found[0] == "someone"
    assert security.read_token(key, token, max_age) == found  # the second read is the remembered one
    assert security.read_token("another-secret", token, max_age) is None
    # a character of the signature changed (its first: the last one's low bits may be base64's padding,
    # which decodes to the same signature)
    at = token.rindex(".") + 1
    assert security.read_token(key, token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1:], max_age) is None
    issued = found[1]
    assert issued is not None
    monkeypatch.setattr(security.time, "time", lambda: issued + max_age + 2)
    assert security.read_token(key, token, max_age) is None  # too old now, though its signature is known
    monkeypatch.setattr(security.time, "time", lambda: issued - 5)
    assert security.read_token(key, token, max_age) is None  # issued in the future


def test_an_action_without_views_draws_only_the_outcomes(session: Session) -> None:
    # the JSON API's context: the steps carry no view and the outcome's is drawn once, at
    # the end, the same as with every view drawn
    p = services.create_player(session)
    bare = dataclasses.replace(services.HERE, views=False)
    out = services.start_game(session, p, Rules(), "medium", seed=3, ctx=bare)
    assert out.view == PlayerView.of(out.game, out.seat)
    out = services.pass_cards(session, p, None, out.record.version, three_cards(out.view), bare)
    for _ in range(6):
        assert out.steps and all(s.view is None for s in out.steps) and out.before is None
        assert out.view == PlayerView.of(out.game, out.seat)
        out = services.play_card(session, p, None, out.record.version, first_legal(out.view), bare)


def test_an_api_move_draws_the_persons_view_once(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    game = playing(client)
    drawn: list[int] = []
    original = PlayerView.of

    def counting(game: Any, seat: int) -> PlayerView:
        drawn.append(seat)
        return original(game, seat)

    monkeypatch.setattr(PlayerView, "of", counting)
    r = client.post(f"/api/v1/games/{game['game_id']}/play",
                    json={"version": game["version"], "card": game["view"]["legal"][0]})
    assert r.status_code == 200 and len(r.json()["events"]) > 1
    assert drawn == [0]
