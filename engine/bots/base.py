"""What a computer player is: three decisions, each from a PlayerView and a random source.

A bot gets nothing but the seat's :class:`~engine.view.PlayerView` (what a person at
the table would know) and an injected :class:`random.Random`, and answers with a legal
choice.  Given the same view and the same random state it answers the same.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..cards import LOW, Card, CardSet
from ..moves import MoonMove, Move, PassMove, PlayMove
from ..values import Phase
from ..view import PlayerView
from .policy import moon_subtract
from .sim import SimRound


@runtime_checkable
class Bot(Protocol):
    name: str

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        """The three cards to pass (only while ``view.phase`` is the pass)."""
        ...

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        """The card to play (only when it is this seat's turn to play)."""
        ...

    def choose_moon(self, view: PlayerView, rng: random.Random) -> bool:
        """Shooter's choice: ``True`` to subtract the moon from one's own total."""
        ...


def check_view(view: object, phase: Phase | None = None) -> PlayerView:
    """Refuse anything but a PlayerView: a bot must never be handed the true state."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"a computer player decides from a PlayerView, not {type(view).__name__}")
    if phase is not None and view.phase is not phase:
        raise ValueError(f"asked for a {phase.value} decision in the {view.phase.value} phase")
    return view


class BaseBot:
    """Shared plumbing: the moon choice, and :meth:`decide` for whatever the view asks."""

    name = "base"

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        raise NotImplementedError

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        raise NotImplementedError

    def choose_moon(self, view: PlayerView, rng: random.Random) -> bool:
        check_view(view, Phase.MOON_CHOICE)
        shooter = view.pending_shooter if view.pending_shooter is not None else view.seat
        return moon_subtract(view.totals, shooter, view.moon_value, view.rules.target_score)

    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        """The move this seat makes now (pass, play or moon choice)."""
        check_view(view)
        phase = view.phase
        if phase is Phase.PASS:
            return PassMove(view.seat, self.choose_pass(view, rng))
        if phase is Phase.PLAY:
            return PlayMove(view.seat, self.choose_play(view, rng))
        if phase is Phase.MOON_CHOICE:
            return MoonMove(view.seat, self.choose_moon(view, rng))
        raise ValueError(f"nothing for a player to decide in the {phase.value} phase")


def view_round(view: PlayerView) -> SimRound:
    """The round as the seat sees it, other hands empty: enough for the heuristics, which
    read only the seat's own hand, the table and the cards still out."""
    hands = [0] * view.players
    hands[view.seat] = view.hand.mask
    st = SimRound.from_view(view, hands, share=False)
    st.inplay = (view.unseen.mask | view.passed_still_held.mask | st.played | view.hand.mask) & LOW
    st.moon_value = view.moon_value
    return st
