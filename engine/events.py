"""What happened: applying a move returns a list of these, in order.

They are plain named tuples so the page can animate them and announce them to
screen readers without knowing the engine's internals.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card
from .rules import PassDirection


class RoundStarted(NamedTuple):
    round_index: int
    dealer: int
    pass_direction: PassDirection


class CardsPassed(NamedTuple):
    """One seat has chosen its pass (the cards are revealed only to that seat)."""
    seat: int


class PassesExchanged(NamedTuple):
    """Every seat has chosen: cards changed hands in ``direction``."""
    direction: PassDirection


class CardPlayed(NamedTuple):
    seat: int
    card: Card


class HeartsBroken(NamedTuple):
    seat: int
    card: Card


class TrickWon(NamedTuple):
    """``winner`` takes ``cards`` (those of the trick plus any carried over)."""
    number: int
    leader: int
    cards: tuple[Card, ...]
    winner: int
    points: int
    carried: tuple[Card, ...] = ()


class TrickCancelled(NamedTuple):
    """Cancellation: no card of the led suit survived; the cards wait on the table
    for the next trick's winner and ``leader`` leads again."""
    number: int
    leader: int
    cards: tuple[Card, ...]


class MoonShot(NamedTuple):
    seat: int
    value: int


class MoonChoiceNeeded(NamedTuple):
    """Shooter's choice: ``seat`` must decide how the moon is scored."""
    seat: int
    value: int


class RoundScored(NamedTuple):
    round_index: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    shooter: int | None


class ExtraRound(NamedTuple):
    """The game would end but the lowest total is tied: one more round."""
    tied: tuple[int, ...]


class GameOver(NamedTuple):
    winner: int
    totals: tuple[int, ...]


Event = (RoundStarted | CardsPassed | PassesExchanged | CardPlayed | HeartsBroken | TrickWon
         | TrickCancelled | MoonShot | MoonChoiceNeeded | RoundScored | ExtraRound | GameOver)
