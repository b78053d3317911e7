"""The person is a seat, not seat 0: a table built for a viewer at seat 2 names, places and
tells everything from that seat, and the page shows nobody else's hand."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session

from app import presenter, services
from app.models import GameRecord, Player
from engine import CardSet, Game, Phase, Rules, loads

from .helpers import tie_broken_game

VIEWER = 2
HX = {"HX-Request": "true"}


def test_seat_names_are_relative_to_the_viewer_in_play_order() -> None:
    assert presenter.seat_names(4, VIEWER) == ("North", "East", "You", "West")
    assert presenter.seat_names(3, 1) == ("East", "You", "West")
    assert presenter.short_names(6, 4) == ("NW", "N", "NE", "E", "You", "W")


def test_the_table_for_seat_2_while_passing() -> None:
    game = Game(Rules(), seed=4)
    table = presenter.build_table(game.view(VIEWER))
    assert (table.me.seat, table.me.name, table.me.you) == (VIEWER, "You", True)
    assert [(o.seat, o.name) for o in table.others] == [(3, "West"), (0, "North"), (1, "East")]
    assert [o.side for o in table.others] == ["left", "top", "right"]
    assert [h.face.code for h in table.hand] == game.hand(VIEWER).codes()
    assert table.hand_mode == "pass" and table.pass_hint and table.status == "Pass three cards to the left"
    # seat 0 choosing its pass changes nothing for the viewer
    game.pass_cards(0, list(game.hand(0))[:3])
    assert presenter.build_table(game.view(VIEWER)).hand_mode == "pass"
    mine = list(game.hand(VIEWER))[:3]
    game.pass_cards(VIEWER, mine)
    waiting = presenter.build_table(game.view(VIEWER))
    assert waiting.hand_mode == "wait" and not waiting.pass_hint and waiting.in_progress
    assert waiting.status == "Waiting for the others to pass"
    for seat in (1, 3):
        game.pass_cards(seat, list(game.hand(seat))[:3])
    strip = presenter.build_table(game.view(VIEWER)).strip
    # passing left from seat 2 goes to seat 3, the viewer's West; seat 1 (East) passes to the viewer
    assert strip is not None and strip.passed_to == "West" and strip.received_from == "East"
    assert [f.code for f in strip.passed] == [c.code() for c in mine]


def test_the_table_for_seat_2_while_playing() -> None:
    game = Game(Rules(passing=False), seed=4)
    seen_turn = seen_other = False
    while game.phase is Phase.PLAY:
        table = presenter.build_table(game.view(VIEWER))
        assert [h.face.code for h in table.hand] == game.hand(VIEWER).codes()
        if game.turn == VIEWER:
            seen_turn = True
            assert table.hand_mode == "play" and table.me.turn and table.status.startswith("Your turn")
            assert {h.face.code for h in table.hand if h.legal} == {c.code() for c in game.legal_cards()}
        else:
            seen_other = True
            assert table.hand_mode == "wait" and not any(h.legal for h in table.hand)
            name = table.names[game.turn]  # type: ignore[index]
            assert table.status == f"{name} is thinking…"
            assert name == ("North", "East", "You", "West")[game.turn]  # type: ignore[index]
        game.play(game.turn, game.legal_cards()[0])  # type: ignore[arg-type]
        if game.tricks and not game.trick and game.phase is Phase.PLAY:
            t = game.tricks[-1]
            held = presenter.trick_view(game.view(VIEWER), (t.leader, t.cards, t.winner),
                                        presenter.seat_names(4, VIEWER))
            assert held.done and held.winner == t.winner
            assert held.caption == ("You take the trick" if t.winner == VIEWER else
                                    f"{presenter.seat_names(4, VIEWER)[t.winner]} takes the trick")  # type: ignore[index]
    assert seen_turn and seen_other


@pytest.mark.parametrize(("viewer", "title", "place", "status"), [
    (3, "You won the game!", "", "You won the game!"),
    (2, "West wins the game", "You tied for 3rd place", "Game over: West wins"),
    (1, "North wins the game", "You finished 2nd", "Game over: North wins"),
])
def test_the_winner_is_told_relative_to_the_viewer(viewer: int, title: str, place: str, status: str) -> None:
    game = tie_broken_game()
    table = presenter.build_table(game.view(viewer))
    assert table.result is not None and table.result.title == title and table.status == status
    assert table.result.place_text == place
    assert [c.you for c in table.result.columns] == [c.seat == viewer for c in table.result.columns]
    sheet = presenter.score_sheet(game.view(viewer))
    assert sheet.names[viewer] == "You" and sheet.totals == (52, 26, 52, 26)
    # the second hand's moon was East's (seat 3)
    assert [c.shot for c in sheet.rows[1]] == [False, False, False, True]


# ---- the whole path: a stored game where the person sits at seat 2 ------------------------------

def _player_of(app: FastAPI, client: TestClient) -> str:
    r = client.post("/api/v1/games", json={"seed": 3})
    assert r.status_code == 201
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, r.json()["game_id"])
        assert rec is not None
        return rec.player_id


def test_a_stored_game_at_seat_2_plays_and_shows_only_that_seat(app: FastAPI, client: TestClient) -> None:
    pid = _player_of(app, client)
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        player = s.get(Player, pid)
        assert player is not None
        out = services.start_game(s, player, Rules(), "medium", seed=4, seat=VIEWER)
        assert out.record.seat == VIEWER and out.view.seat == VIEWER
        # the computer players at seats 0, 1 and 3 have chosen their passes; the person has not
        assert out.game.phase is Phase.PASS and out.game.to_act == (VIEWER,)
        with pytest.raises(ValueError, match="seat"):
            services.start_game(s, player, Rules(players=3), "medium", seed=4, seat=3)
    html = client.get("/").text
    assert re.search(r'class="seat me[^"]*" data-seat="2"', html)
    names = re.findall(r'<strong class="name">([^<]+)</strong>', html)
    assert names == ["West", "North", "East", "You"]
    game = out.game
    shown = set(re.findall(r'data-(?:card|select)="(\d{0,1}[0-9JQKA]{1,2}[CDSH])"', html))
    assert shown == set(game.hand(VIEWER).codes())
    for seat in (0, 1, 3):
        assert not shown & set(game.hand(seat).codes())
    version = int(re.search(r'data-version="(\d+)"', html).group(1))  # type: ignore[union-attr]
    cards = game.hand(VIEWER).codes()[:3]
    r = client.post("/game/pass", data={"version": version, "cards": cards}, headers=HX)
    assert r.status_code == 200, r.text
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, out.record.id)
        assert rec is not None and rec.seat == VIEWER
        stored = loads(rec.record)
    assert stored.view(VIEWER).passed == CardSet(cards)
    # play on until the hand is over, always from seat 2 and always seeing seat 2's cards
    while stored.phase is Phase.PLAY:
        assert stored.turn == VIEWER
        table = client.get("/table", headers=HX).text
        buttons = dict(re.findall(r'<button type="submit" name="card" value="([^"]+)"([^>]*)>', table))
        legal = {c.code() for c in stored.legal_cards()}
        assert set(buttons) == set(stored.hand(VIEWER).codes())
        assert {code for code, rest in buttons.items() if "disabled" not in rest} == legal
        r = client.post("/game/play", data={"version": stored.move_count, "card": sorted(legal)[0]}, headers=HX)
        assert r.status_code == 200, r.text
        with Session(app.state.db_engine) as s:
            rec = s.get(GameRecord, out.record.id)
            assert rec is not None
            stored = loads(rec.record)
        shown = set(re.findall(r'data-card="([^"]+)"', r.text))
        for seat in (0, 1, 3):
            assert not shown & set(stored.hand(seat).codes()), "another seat's hidden cards"
    assert stored.phase in (Phase.ROUND_OVER, Phase.MOON_CHOICE, Phase.GAME_OVER)
    final = client.get("/").text
    assert re.search(r'class="seat me[^"]*" data-seat="2"', final)
    assert "Hand 1 is over" in final or "shot the moon" in final
