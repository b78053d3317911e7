"""Reviewing a hand: every decision one seat made in it, rated from that seat's view.

The game is replayed from its move log (:mod:`engine.persist`); at each of the seat's
passes and plays of the hand, the position is the seat's :class:`~engine.view.PlayerView`
just before it acted, and :func:`engine.bots.coach.rate` rates the move it made.  The
hidden cards are never read: the coach samples them.
"""

from __future__ import annotations

from .bots.coach import MAX_SECONDS, SAMPLES, Rating, rate, review_rng
from .moves import NextRound, PassMove, PlayMove
from .persist import game_to_dict, loads
from .state import Game


def hand_count(game: Game) -> int:
    """How many hands of ``game`` are finished (scored), and so can be reviewed."""
    return len(game.round_points)


def hand_moves(record: str, hand: int) -> list[str]:
    """The move codes of hand ``hand`` (0-based) of a saved game: the review's cache key."""
    game = loads(record)
    out: list[str] = []
    index = 0
    for m in game.moves:
        if isinstance(m, NextRound):
            index += 1
            continue
        if index == hand:
            out.append(m.code())
    return out


def review_hand(record: str, seat: int, hand: int, samples: int = SAMPLES,
                max_seconds: float = MAX_SECONDS) -> list[Rating]:
    """Rate every pass and play of ``seat`` in hand ``hand`` (0-based) of the saved game
    ``record``; the hand must be finished."""
    done = loads(record)
    if not 0 <= hand < hand_count(done):
        raise ValueError(f"hand {hand + 1} is not finished yet" if hand >= 0 else "no such hand")
    moves = done.moves
    game = Game(done.rules, seed=done.seed, deals=_deals(done))
    out: list[Rating] = []
    index = 0
    for m in moves:
        if isinstance(m, NextRound):
            index += 1
            if index > hand:
                break
        elif index == hand and isinstance(m, PassMove | PlayMove) and m.seat == seat:
            view = game.view(seat)
            out.append(rate(view, m, review_rng(done.seed, game.move_count), samples, max_seconds))
        game.apply(m)
    return out


def _deals(game: Game) -> list[list[str]] | None:
    """The game's explicit deals as its saved form has them (None: dealt from the seed)."""
    deals: list[list[str]] | None = game_to_dict(game).get("deals")
    return deals
