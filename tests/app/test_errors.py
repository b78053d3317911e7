"""Refusals in one place (app/errors.py): one status and key per error, the page and the API
told alike, drawn with the request's own database session."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.orm import Session as OrmSession

from app.errors import (
    BadChoiceError,
    GameClosedError,
    GameNotFoundError,
    StaleGameError,
    StaleStateError,
    refusal,
)
from engine import Game, Rules, RulesError
from engine.errors import IllegalMoveError, NotYourTurnError

from .test_routes import HX, current, new_game


@contextmanager
def sessions_used() -> Iterator[set[int]]:
    """The sessions that began a transaction meanwhile (any session, however it was made),
    except the server's own background work (the tables' watch runs every half second)."""
    seen: set[int] = set()

    def began(session: Any, transaction: Any, connection: Any) -> None:
        if "background" not in session.info:
            seen.add(id(session))

    event.listen(OrmSession, "after_begin", began)
    try:
        yield seen
    finally:
        event.remove(OrmSession, "after_begin", began)


def test_each_error_has_one_status_and_key() -> None:
    game = Game(Rules(passing=False), seed=1)
    try:
        game.play((game.turn + 1) % 4, game.legal_cards()[0])
    except NotYourTurnError as exc:
        out_of_turn = exc
    cases = {
        GameNotFoundError("no game 'x'"): (404, "game_not_found", "No game 'x'"),
        StaleStateError(5, 4): (409, "stale_version", None),
        GameClosedError("finished"): (409, "game_finished", "This game is over; start a new one"),
        StaleGameError(): (409, "stale_version", None),
        out_of_turn: (409, "not_your_turn", None),
        IllegalMoveError("must follow clubs", "must_follow"): (422, "must_follow", "Must follow clubs"),
        RulesError("players must be 3, 4, 5 or 6, not 7"): (422, "bad_options", "Players must be 3, 4, 5 or 6, not 7"),
        BadChoiceError("the moon choice is add or subtract"): (422, "invalid", None),
    }
    for exc, (status, key, message) in cases.items():
        r = refusal(exc)
        assert (r.status, r.key) == (status, key), exc
        assert message is None or r.message == message


@pytest.mark.parametrize("path", ["/game/play", "/api/v1/games/{id}/play"])
def test_a_refused_action_is_answered_with_the_requests_one_session(app: FastAPI, client: TestClient,
                                                                    path: str) -> None:
    data = new_game(client, passing=False)
    rec, view = current(app, client)
    stale = rec.version - 1  # a late click: refused with the game as it is now
    with sessions_used() as seen:
        if path.startswith("/api/"):
            r = client.post(path.format(id=data["game_id"]), json={"version": stale, "card": "2C"})
            assert r.status_code == 409 and r.json()["game"]["version"] == rec.version
        else:
            r = client.post(path, data={"version": stale, "card": "2C"}, headers=HX)
            assert r.status_code == 409 and f'data-version="{rec.version}"' in r.text
    assert len(seen) == 1


def test_the_page_and_the_api_refuse_bad_options_alike(client: TestClient) -> None:
    page = client.post("/game/new", data={"difficulty": "easy", "target_score": "0"}, headers=HX)
    api = client.post("/api/v1/games", json={"difficulty": "easy", "target_score": 0})
    assert page.status_code == api.status_code == 422
    assert api.json() == {"error": "bad_options",
                          "detail": "Target_score must be a whole number from 1 to 10000, not 0"}
    assert "Target_score must be a whole number from 1 to 10000, not 0" in page.text
