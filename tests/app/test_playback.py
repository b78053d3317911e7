"""An action's answer: the final table once, the playback's moments as the parts they change,
the side panels as swaps for after the playback."""

from __future__ import annotations

import random
import re
import statistics
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import presenter
from app.presenter import PlaybackFrame, Table
from app.services import Step
from engine import Game, Phase, PlayerView, Rules
from engine.bots import get_bot
from engine.moves import PlayMove
from engine.referee import computer_turns
from tools.loadtest import page_action

HX = {"HX-Request": "true"}
FRAME = re.compile(r'<template class="frame"[^>]*>(.*?)</template>', re.S)
PART = re.compile(r'data-part="([^"]+)"')
OVER = re.compile(r'<section id="table"[^>]*data-phase="game_over"')
LINE = '<template class="deferred" data-target="#tricks .trick-list" data-swap="beforeend">'


def shown(t: Table) -> dict[str, Any]:
    """What each part of the table shows, as the page has it while the playback runs."""
    parts: dict[str, Any] = {
        "center": (t.trick, t.shuffling, t.pass_hint), "status": (t.status, t.my_turn),
        "info": (t.round_number, t.hearts_broken), "strip": t.strip, "felt": (t.phase, t.last_say, t.score_say),
        "hand": tuple((h.face.code, h.received) for h in t.hand),
    }
    for s in (*t.others, t.me):
        parts[f"plate-{s.seat}"] = (s.name, s.cards, s.total, s.taken, s.turn)
    for s in t.others:
        parts[f"backs-{s.seat}"] = min(s.cards, 6)
    return parts


def apply(parts: dict[str, Any], f: PlaybackFrame) -> None:
    """A moment's changes, as static/app.js applies them to the table on the screen."""
    t = f.table
    new = shown(t)
    for name in ("center", "status", "info", "strip", "felt", "hand"):
        if getattr(f, name):
            parts[name] = new[name]
    if f.added:
        # the cards are added; the center then says whether the trick is over, and who took it
        trick, shuffling, hint = parts["center"]
        assert len(trick.cards) + len(f.added) == len(t.trick.cards) and not f.center
        for a, b in zip(trick.cards + f.added, t.trick.cards, strict=True):
            assert (a.seat, a.face, a.x, a.y, a.say) == (b.seat, b.face, b.x, b.y, b.say)
        parts["center"] = new["center"]
    for s in f.plates:
        parts[f"plate-{s.seat}"] = new[f"plate-{s.seat}"]
    for s in f.backs:
        parts[f"backs-{s.seat}"] = new[f"backs-{s.seat}"]


def steps_of(game: Game, seat: int) -> list[Step]:
    """The person at ``seat`` plays their first legal card; the computer players answer."""
    card = game.legal_cards()[0]
    steps = [Step(PlayMove(seat, card), tuple(game.play(seat, card)), game.view(seat))]
    return steps + [Step(s.move, s.events, game.view(seat))
                    for s in computer_turns(game, get_bot("medium"), frozenset({seat}))]


def test_each_moment_changes_exactly_what_differs_from_the_one_before() -> None:
    for seat in (0, 2):
        game = Game(Rules(passing=False), seed=11)
        list(computer_turns(game, get_bot("medium"), frozenset({seat})))
        checked = 0
        while game.phase is Phase.PLAY:
            before = game.view(seat)
            steps = steps_of(game, seat)
            page = presenter.build_page(game.view(seat), steps, before=before)
            # the page starts from the table the person acted on, holding the final hand
            parts = shown(presenter.build_table(before))
            parts["hand"] = shown(page.table)["hand"]
            for f in page.frames:
                apply(parts, f)
                assert parts == shown(f.table)
                checked += 1
        assert checked > 20


def _play_a_game(client: TestClient) -> list[str]:
    rng = random.Random(4)
    html = client.get("/").text
    answers = []
    while (action := page_action(html, rng)) is not None:
        path, form = action
        r = client.post(path, data=form, headers=HX)
        assert r.status_code == 200, r.text[:300]
        answers.append((path, r.text))
        html = r.text
    return answers  # type: ignore[return-value]


def test_a_moment_sends_only_parts_and_the_panels_only_what_changed(app: FastAPI, client: TestClient) -> None:
    answers: list[tuple[str, str]] = _play_a_game(client)  # type: ignore[assignment]
    assert OVER.search(answers[-1][1])
    plays = [html for path, html in answers if path == "/game/play"]
    added = 0
    for path, html in answers:
        stage = html.split('<template class="frame"', 1)[0]
        for frame in FRAME.findall(html):
            # no whole table in a moment, and every part it sends is one the table has
            assert 'class="felt' not in frame and 'class="hand-form' not in frame
            for part in PART.findall(frame):
                assert part == "felt" or f'data-part="{part}"' in stage, (path, part)
            added += "data-add" in frame
        if path == "/game/new":
            assert 'data-base="final"' in html
        elif FRAME.search(html):
            assert 'data-base="previous"' in html
    assert added > 10
    # the trick list grows by the tricks an answer adds; the score sheet comes when a hand is scored
    grown = [html for html in plays if LINE in html]
    assert grown and all(html.count("<li>") >= 1 for html in grown)
    for html in plays:
        scored = bool(re.search(r"Hand \d+ is over", html) or OVER.search(html))
        assert ('data-target="#sheet"' in html) == scored
    # the answer to a card played, before compression
    sizes = [len(html.encode()) for html in plays]
    assert statistics.median(sizes) <= 15_000, statistics.median(sizes)


def test_every_moment_is_told_from_the_viewers_seat() -> None:
    game = Game(Rules(passing=False), seed=3)
    seat = 2
    list(computer_turns(game, get_bot("medium"), frozenset({seat})))
    before = game.view(seat)
    page = presenter.build_page(game.view(seat), steps_of(game, seat), before=before)
    assert page.base == "previous" and page.frames
    for f in page.frames:
        assert f.table.me.seat == seat and f.table.me.name == "You"
        assert all(c.say.startswith(("You:", "West:", "North:", "East:")) for c in f.table.trick.cards)
    view: PlayerView = game.view(seat)
    assert presenter.build_page(view).frames == ()
