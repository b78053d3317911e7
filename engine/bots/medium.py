"""Medium: a careful player's habits (see :mod:`engine.bots.policy`)."""

from __future__ import annotations

import random

from ..cards import CARDS, Card, CardSet
from ..rules import PassDirection, Rules
from ..values import Phase
from ..view import PlayerView
from .base import BaseBot, check_view, view_round
from .policy import choose_card, choose_pass_mask
from .sim import SimRound


class MediumBot(BaseBot):
    name = "medium"

    def pass_mask(self, hand: int, rules: Rules, direction: PassDirection) -> int:
        """The three cards to pass, as a mask of ``hand``."""
        return choose_pass_mask(hand, rules, direction)

    def card(self, st: SimRound, seat: int) -> int:
        """The card for ``seat`` to play in the round ``st`` (its own view of it)."""
        return choose_card(st)

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        check_view(view, Phase.PASS)
        return CardSet.from_mask(self.pass_mask(view.hand.mask, view.rules, view.pass_direction))

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        check_view(view, Phase.PLAY)
        if not view.legal:
            raise ValueError("it is not this seat's turn to play")
        return CARDS[self.card(view_round(view), view.seat)]
