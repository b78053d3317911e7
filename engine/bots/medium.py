"""Medium: a careful player's habits (see :mod:`engine.bots.policy`)."""

from __future__ import annotations

import random

from ..cards import CARDS, Card, CardSet
from ..values import Phase
from ..view import PlayerView
from .base import BaseBot, check_view, view_round
from .policy import choose_card, choose_pass_mask


class MediumBot(BaseBot):
    name = "medium"

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        check_view(view, Phase.PASS)
        return CardSet.from_mask(choose_pass_mask(view.hand.mask, view.rules, view.pass_direction))

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        check_view(view, Phase.PLAY)
        if not view.legal:
            raise ValueError("it is not this seat's turn to play")
        st = view_round(view)
        return CARDS[choose_card(st)]
