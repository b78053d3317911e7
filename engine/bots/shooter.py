"""Shooter: an arena opponent that goes for the moon whenever it is plausible.

Not a difficulty level offered to players: it exists so the arena can measure how well the
others stop a moon (``python -m engine.arena --seats hard,shooter,shooter,shooter``).  It
keeps its high cards when the deal looks strong enough, then takes every trick it can for
as long as nobody else has taken a penalty card and its hand still looks good enough;
otherwise it plays like Medium.  It decides from its own view only, like every bot.
"""

from __future__ import annotations

import random

from ..cards import CARDS, LOW, SUIT_MASK, Card, CardSet, add_card, iter_cards
from ..rules import Rules
from ..values import Phase
from ..view import PlayerView
from .base import BaseBot, check_view, view_round
from .policy import choose_card, choose_pass_mask, expected_winners, only_taker, shoot_card
from .sim import SimRound

PASS_STRENGTH = (11, 20)
"""Go for the moon from the deal when the expected winners make up 11/20 of the hand."""
PLAY_STRENGTH = (1, 2)
"""Keep going while the expected winners make up half of what is left in the hand."""


def going_for_moon(st: SimRound, me: int) -> bool:
    """Nobody else has taken a penalty card and our hand still looks strong enough."""
    if not only_taker(st, me):
        return False
    if st.t.double:
        return False  # two decks: cancelled tricks make a moon a lottery
    hand = st.hands[me] & LOW
    out = st.inplay & ~st.played & ~hand
    size = hand.bit_count()
    if not size:
        return False
    num, den = PLAY_STRENGTH
    if st.pen_taken[me]:
        num, den = 2, 5  # already collecting: keep trying a little longer
    return expected_winners(hand, out) * den >= size * num


def moon_pass(hand: int, rules: Rules) -> int | None:
    """The three lowest cards when the hand is worth a moon attempt, else ``None``."""
    low = hand & LOW
    if rules.cancellation or low.bit_count() != hand.bit_count():
        return None
    out = ((1 << 52) - 1) & ~low
    num, den = PASS_STRENGTH
    ranked = sorted(iter_cards(low), key=lambda c: (c % 13, -(low & SUIT_MASK[c // 13]).bit_count(), c))
    chosen = ranked[:3]
    rest = low
    m = 0
    for c in chosen:
        rest ^= 1 << c
        m = add_card(m, c)
    if expected_winners(rest, out) * den >= rest.bit_count() * num:
        return m
    return None


class ShooterBot(BaseBot):
    name = "shooter"

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        check_view(view, Phase.PASS)
        m = moon_pass(view.hand.mask, view.rules)
        if m is None:
            m = choose_pass_mask(view.hand.mask, view.rules, view.pass_direction)
        return CardSet.from_mask(m)

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        check_view(view, Phase.PLAY)
        if not view.legal:
            raise ValueError("it is not this seat's turn to play")
        st = view_round(view)
        if going_for_moon(st, view.seat):
            return CARDS[shoot_card(st)]
        return CARDS[choose_card(st)]
