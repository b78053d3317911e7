"""Shooter: an arena opponent that goes for the moon whenever it is plausible.

Not a difficulty level offered to players: it exists so the arena can measure how well the
others stop a moon (``python -m engine.arena --seats hard,shooter,shooter,shooter``).  It
keeps its high cards when the deal looks strong enough, then takes every trick it can for
as long as nobody else has taken a penalty card and its hand still looks good enough;
otherwise it plays like Medium.  It decides from its own view only, like every bot.
"""

from __future__ import annotations

from ..cards import LOW, SUIT_MASK, add_card, iter_cards
from ..rules import PassDirection, Rules
from .medium import MediumBot
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


def shooter_pass(hand: int, rules: Rules, direction: PassDirection) -> int:
    """A shooter's pass: :func:`moon_pass` when the hand is worth a moon attempt, otherwise
    the careful player's (Hard imagines its opponents that may shoot passing so too)."""
    m = moon_pass(hand, rules)
    return choose_pass_mask(hand, rules, direction) if m is None else m


class ShooterBot(MediumBot):
    """Medium, except that it goes for the moon whenever it is plausible."""

    name = "shooter"

    def pass_mask(self, hand: int, rules: Rules, direction: PassDirection) -> int:
        return shooter_pass(hand, rules, direction)

    def card(self, st: SimRound, seat: int) -> int:
        return shoot_card(st) if going_for_moon(st, seat) else choose_card(st)
