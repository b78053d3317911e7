"""Values shared by the true state and a seat's view: the phase of a game and a finished trick.

They live apart from :mod:`engine.state` and :mod:`engine.view` so that each of those
may use them without importing the other (the view never needs the true state).
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from .cards import Card


class Phase(Enum):
    """What the game waits for: passes, a card, the shooter's choice, the next deal, nothing."""

    PASS = "pass"
    PLAY = "play"
    MOON_CHOICE = "moon_choice"
    ROUND_OVER = "round_over"
    GAME_OVER = "game_over"


class Trick(NamedTuple):
    """A finished trick. ``winner`` is ``None`` for a cancelled trick (Cancellation)."""

    number: int
    leader: int
    cards: tuple[Card, ...]
    winner: int | None
    points: int
    carried: tuple[Card, ...] = ()

    def seat_of(self, position: int, players: int) -> int:
        return (self.leader + position) % players
