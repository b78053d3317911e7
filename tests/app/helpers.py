"""Deals and moves shared by the app tests."""

from __future__ import annotations

from engine import FULL_DECK, CardSet, Game, PlayerView, Rules
from engine.cards import CLUBS

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
