"""Deals and moves shared by the app tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from fastapi import FastAPI
from sqlalchemy.pool import QueuePool
from sqlmodel import Session

from app.models import GameRecord
from engine import FULL_DECK, CardSet, Game, Phase, PlayerView, Rules
from engine.cards import CLUBS
from tests.engine.helpers import deal, play_policy

ALL_CLUBS = CardSet.from_mask(CLUBS)
OTHERS = FULL_DECK - ALL_CLUBS


def moon_game(**rule_changes: object) -> Game:
    """No passing; the person (seat 0) holds every club, so leads the 2♣ and wins every
    trick: the others throw away all their hearts and the Q♠, and the person shoots the moon."""
    rest = list(OTHERS)
    deal = [ALL_CLUBS, CardSet(rest[0::3]), CardSet(rest[1::3]), CardSet(rest[2::3])]
    rules = Rules(passing=False, **rule_changes)  # type: ignore[arg-type]
    return Game(rules, seed=7, deals=[deal])


def first_legal(view: PlayerView) -> str:
    return next(iter(view.legal)).code()


def three_cards(view: PlayerView) -> list[str]:
    return [c.code() for c in list(view.hand)[:3]]


def tie_broken_game() -> Game:
    """West (1) and East (3) each shoot the moon once, so they tie at 26 with North and the
    person at 52; East scored 0 in the last hand and wins, West is second."""
    rules = Rules(passing=False, target_score=50, last_hand_breaks_ties=True)
    clubs = " ".join(f"{r}C" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
    game = Game(rules, seed=1, deals=[deal(rules, "", clubs), deal(rules, "", "", "", clubs)])
    play_policy(game, high={1})
    game.next_round()
    play_policy(game, high={3})
    assert game.phase is Phase.GAME_OVER and game.totals == [52, 26, 52, 26] and game.winner == 3
    return game


def stored(app: FastAPI, game_id: str) -> GameRecord:
    """The game's row as the database holds it now, detached from its session."""
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, game_id)
        assert rec is not None
        s.expunge(rec)
        return rec


def race(target: Callable[[], None], n: int) -> None:
    """``target`` in ``n`` threads started together; returns when every one has finished."""
    threads = [threading.Thread(target=target) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def held(pool: QueuePool, wait: float = 10.0) -> int:
    """The connections checked out of ``pool`` that stay out: the fewest seen within ``wait``
    seconds (at once when none).  The tables' watch borrows one every half second for a
    moment, and a page's session is closed a moment after its body was sent: on a loaded
    machine CI saw those moments.  A connection a request kept stays counted."""
    fewest = pool.checkedout()
    deadline = time.monotonic() + wait
    while fewest and time.monotonic() < deadline:
        time.sleep(0.01)
        fewest = min(fewest, pool.checkedout())
    return fewest
