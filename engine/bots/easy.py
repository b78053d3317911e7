"""Easy: a beginner who knows the rules — quick and loose, never absurd.

It passes its three highest cards, ducks a trick with points in it when it happens to
be able to, gets rid of the Q♠ or a heart when it cannot follow, and otherwise plays a
random legal card.
"""

from __future__ import annotations

import random

from ..cards import HEARTS, LOW, QUEEN_OF_SPADES, SUIT_MASK, Card, CardSet, add_card, cards_of, iter_cards
from ..values import Phase
from ..view import PlayerView
from .base import BaseBot, check_view

REMEMBERS = 0.7
"""How often Easy remembers to duck a trick with points or to dump the Q♠ or a heart: a
beginner who knows the idea but forgets it three times in ten."""


class EasyBot(BaseBot):
    name = "easy"

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        check_view(view, Phase.PASS)
        ranked = sorted(iter_cards(view.hand.mask), key=lambda c: (c % 13, rng.random()), reverse=True)
        m = 0
        for c in ranked[:3]:
            m = add_card(m, c)
        return CardSet.from_mask(m)

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        check_view(view, Phase.PLAY)
        legal = view.legal.mask & LOW
        cards = cards_of(legal)
        if not cards:
            raise ValueError("it is not this seat's turn to play")
        if len(cards) == 1:
            return cards[0]
        trick = view.trick
        if trick:
            led = trick[0] // 13
            if legal & SUIT_MASK[led] == legal:
                pen = view.rules.penalty_mask
                if any(pen >> c & 1 for c in trick) and rng.random() < REMEMBERS:
                    best = max(c for c in trick if c // 13 == led)
                    under = [c for c in cards if c < best]
                    return max(under) if under else min(cards)
            elif rng.random() < REMEMBERS:
                if legal >> QUEEN_OF_SPADES & 1:
                    return Card(QUEEN_OF_SPADES)
                hearts = cards_of(legal & HEARTS)
                if hearts:
                    return hearts[-1]
        elif len(cards) > 1 and QUEEN_OF_SPADES in cards:
            cards = tuple(c for c in cards if c != QUEEN_OF_SPADES)  # leading the queen is absurd
        return rng.choice(cards)
