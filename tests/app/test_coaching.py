"""Practice games, Hint, Undo and the review of a hand through the page's routes (issue 12)."""

from __future__ import annotations

import random
import re

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app import coaching, services
from app.models import GameRecord, HandReview, Player, Record
from app.review_view import CHART_H, PAD, score_chart
from engine import Game, Phase, Rules, dumps, loads
from engine.bots.coach import hint as coach_hint
from engine.moves import PassMove, PlayMove
from engine.referee import move_rng
from engine.rules import rule_options

from ..bots.test_coach import BLUNDER_DEAL
from .helpers import stored
from .test_routes import HX, version_of


def deal(client: TestClient, practice: bool, difficulty: str = "easy", replaces: str = "none") -> GameRecord:
    """A standard game from the options dialog at ``difficulty``, practice or not."""
    data = {"difficulty": difficulty, "replaces": replaces}
    for o in rule_options(Rules):
        value = getattr(Rules(), o.name)
        if o.kind is bool:
            if value:
                data[o.name] = "true"
        else:
            data[o.name] = "" if value is None else str(value)
    if practice:
        data["practice"] = "true"
    r = client.post("/game/new", data=data, headers=HX)
    assert r.status_code == 200, r.text
    game_id = re.search(r'data-game="(\w+)"', r.text)
    assert game_id
    return stored(client.app, game_id.group(1))  # type: ignore[arg-type]


def test_the_practice_option_deals_a_practice_game_with_hint_and_undo(client: TestClient) -> None:
    rec = deal(client, practice=True)
    assert rec.practice
    page = client.get("/").text
    assert "data-hint" in page and "data-undo" in page and 'class="practice"' in page
    counted = deal(client, practice=False, replaces=rec.id)
    assert not counted.practice
    assert "data-hint" not in client.get("/").text


def test_a_hint_highlights_hards_choice_from_the_persons_view_and_changes_nothing(client: TestClient) -> None:
    rec = deal(client, practice=True)
    game = loads(rec.record)
    expected = coach_hint(game.view(rec.seat), move_rng(game))
    r = client.post("/game/hint", data={"version": rec.version}, headers=HX)
    assert r.status_code == 200, r.text
    hinted = re.findall(r'class="card in-hand[^"]*hinted[^"]*" data-card="(\w+)"', r.text)
    assert sorted(hinted) == sorted(expected.cards) and len(hinted) == 3
    assert 'class="hint-text"' in r.text
    after = stored(client.app, rec.id)  # type: ignore[arg-type]
    assert (after.version, after.record) == (rec.version, rec.record)


def test_hint_and_undo_are_refused_in_a_game_that_counts(client: TestClient) -> None:
    rec = deal(client, practice=False)
    for path in ("/game/hint", "/game/undo"):
        r = client.post(path, data={"version": rec.version}, headers=HX)
        assert r.status_code == 422 and "only for practice games" in r.text
    assert stored(client.app, rec.id).record == rec.record  # type: ignore[arg-type]


def test_undo_takes_back_the_last_card_and_a_stale_or_repeated_undo_is_refused(client: TestClient) -> None:
    rec = deal(client, practice=True)
    game = loads(rec.record)
    cards = sorted(game.view(rec.seat).hand.codes())[:3]
    r = client.post("/game/pass", data={"version": rec.version, "cards": cards}, headers=HX)
    passed = stored(client.app, rec.id)  # type: ignore[arg-type]
    g = loads(passed.record)
    if g.phase is Phase.PLAY and g.turn == rec.seat:
        card = g.legal_cards()[0].code()
        client.post("/game/play", data={"version": passed.version, "card": card}, headers=HX)
    played = stored(client.app, rec.id)  # type: ignore[arg-type]
    moves = loads(played.record).moves
    cut = coaching.undo_point(moves, rec.seat)
    assert cut is not None
    r = client.post("/game/undo", data={"version": played.version}, headers=HX)
    assert r.status_code == 200, r.text
    undone = stored(client.app, rec.id)  # type: ignore[arg-type]
    assert loads(undone.record).moves == moves[:cut]
    assert undone.version == played.version + 1 == version_of(r.text)
    # the same click again (a double click) names the old version: refused, nothing changes
    again = client.post("/game/undo", data={"version": played.version}, headers=HX)
    assert again.status_code == 409
    assert stored(client.app, rec.id).record == undone.record  # type: ignore[arg-type]
    # undo as often as you like, back to the pass
    version = undone.version
    while coaching.undo_point(loads(stored(client.app, rec.id).record).moves, rec.seat) is not None:  # type: ignore[arg-type]
        r = client.post("/game/undo", data={"version": version}, headers=HX)
        assert r.status_code == 200
        version = version_of(r.text)
    first = loads(stored(client.app, rec.id).record)  # type: ignore[arg-type]
    assert first.phase is Phase.PASS and not any(isinstance(m, PassMove) and m.seat == rec.seat for m in first.moves)
    r = client.post("/game/undo", data={"version": version}, headers=HX)
    assert r.status_code == 422 and "nothing of yours to take back" in r.text


def finish_hand(session: Session, player: Player, first_cards: list[str]) -> GameRecord:
    """Play the person's ``first_cards``, then their first legal card, until the hand is over."""
    rec = services.current_game(session, player)
    assert rec is not None
    queue = list(first_cards)
    while True:
        game = loads(rec.record)
        if game.phase is not Phase.PLAY:
            return rec
        card = queue.pop(0) if queue else game.legal_cards()[0].code()
        rec = services.play_card(session, player, rec.id, rec.version, card).record


def test_the_review_rates_a_planted_blunder_and_is_kept_with_the_game(app: FastAPI, client: TestClient) -> None:
    first = deal(client, practice=True)  # the client's player, with a game on the table
    with Session(app.state.db_engine, expire_on_commit=False) as s:
        player = s.get(Player, first.player_id)
        assert player is not None
        game = Game(Rules(passing=False), seed=3, deals=[BLUNDER_DEAL])
        # the planted deal: after the 2♣ the person holds the Q♠ with three low spades, and
        # the Q♠ would win their own trick
        out = services.start_game(s, player, Rules(passing=False), "medium", practice=True, replaces=first.id)
        rec = s.get(GameRecord, out.record.id)
        assert rec is not None
        rec.record, rec.version = dumps(game), game.move_count
        s.add(rec)
        s.commit()
        services.GAMES.clear()
        done = finish_hand(s, player, ["2C", "QS"])
    assert loads(done.record).phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
    r = client.get("/game/review?hand=1", headers=HX)
    assert r.status_code == 200, r.text
    steps = re.findall(r'<section class="review-step( rated-(\w+))?"', r.text)
    assert len(steps) == 13  # no pass in this hand: one step per trick
    assert steps[1][1] == "blunder" and "Blunder" in r.text, re.findall(r"<h3>.*?</h3>", r.text)
    assert re.search(r"Better: the (two|six|seven) of spades", r.text)
    with Session(app.state.db_engine) as s:
        kept = s.get(HandReview, (done.id, 0))
        assert kept is not None and '"blunder"' in kept.data
        # the kept review is what a second look shows (not computed again)
        kept.data = kept.data.replace('"blunder"', '"mistake"')
        s.add(kept)
        s.commit()
    again = client.get("/game/review?hand=1", headers=HX)
    assert "rated-mistake" in again.text and "rated-blunder" not in again.text
    # a hand that is not finished cannot be reviewed
    assert client.get("/game/review?hand=2", headers=HX).status_code == 422


def test_practice_games_stay_out_of_the_records(app: FastAPI, session: Session) -> None:
    player = services.create_player(session)
    out = services.start_game(session, player, Rules(target_score=1), "easy", practice=True)
    rec = out.record
    rng = random.Random(1)
    while rec.status == "active":
        game = loads(rec.record)
        view = game.view(rec.seat)
        if game.phase is Phase.PASS:
            rec = services.pass_cards(session, player, rec.id, rec.version, view.hand.codes()[:3]).record
        elif game.phase is Phase.PLAY:
            rec = services.play_card(session, player, rec.id, rec.version, rng.choice(view.legal.codes())).record
        elif game.phase is Phase.MOON_CHOICE:
            rec = services.choose_moon(session, player, rec.id, rec.version, False).record
        else:
            rec = services.next_round(session, player, rec.id, rec.version).record
    assert rec.status == "finished"
    assert session.exec(select(Record).where(Record.player_id == player.id)).all() == []
    assert coaching.practice_games(session, player) == 1
    assert not any(isinstance(m, PlayMove) and m.seat not in range(4) for m in loads(rec.record).moves)


def test_the_api_offers_practice_hint_undo_and_review(client: TestClient) -> None:
    r = client.post("/api/v1/games", json={"difficulty": "easy", "practice": True})
    assert r.status_code == 201 and r.json()["practice"] is True
    game = r.json()
    gid, version = game["game_id"], game["version"]
    hint = client.post(f"/api/v1/games/{gid}/hint", json={"version": version})
    assert hint.status_code == 200, hint.text
    body = hint.json()
    assert len(body["cards"]) == 3 and body["reason"].startswith("pass_") and body["text"].startswith("Hint:")
    passed = client.post(f"/api/v1/games/{gid}/pass", json={"version": version, "cards": body["cards"]}).json()
    undone = client.post(f"/api/v1/games/{gid}/undo", json={"version": passed["version"]})
    assert undone.status_code == 200 and undone.json()["version"] == passed["version"] + 1
    assert undone.json()["view"]["phase"] == "pass" and undone.json()["view"]["passed"] is None
    stale = client.post(f"/api/v1/games/{gid}/undo", json={"version": passed["version"]})
    assert stale.status_code == 409 and stale.json()["error"] == "stale_version"
    review = client.get(f"/api/v1/games/{gid}/hands/1/review")
    assert review.status_code == 422 and review.json()["error"] == "not_reviewable"
    counted = client.post("/api/v1/games", json={"difficulty": "easy", "replaces": gid}).json()
    refused = client.post(f"/api/v1/games/{counted['game_id']}/hint", json={"version": counted["version"]})
    assert refused.status_code == 422 and refused.json()["error"] == "practice_only"


def test_the_score_chart_draws_each_players_total_after_every_hand() -> None:
    game = Game(Rules(passing=False), seed=5)
    assert score_chart(game.view(0)) is None  # nothing to draw before two hands
    while len(game.round_points) < 2:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        elif game.phase is Phase.MOON_CHOICE:
            game.choose_moon(game.to_act[0], False)
        else:
            game.play(game.turn, game.legal_cards()[0])  # type: ignore[arg-type]
    chart = score_chart(game.view(0))
    assert chart is not None and len(chart.lines) == 4
    totals = [sum(p[s] for p in game.round_points) for s in range(4)]
    for line, total in zip(chart.lines, totals, strict=True):
        points = line.points.split()
        assert len(points) == 3  # the start and two hands
        top_y = float(points[-1].split(",")[1])
        # the highest total is drawn at the top, a total of 0 at the bottom
        if total == max(totals):
            assert top_y == PAD
        if total == 0:
            assert top_y == CHART_H - PAD
    assert chart.lines[0].you and "You: " in chart.summary
