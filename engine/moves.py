"""Moves: the four kinds of decision, each printable and parseable.

Codes (used in saved games and logs): ``"2 pass QS AH KH"``, ``"1 play 10H"``,
``"0 moon add"`` / ``"0 moon subtract"``, ``"next"``.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card, CardSet
from .errors import InvalidMoveError


class PassMove(NamedTuple):
    seat: int
    cards: CardSet

    def code(self) -> str:
        return f"{self.seat} pass {self.cards}"


class PlayMove(NamedTuple):
    seat: int
    card: Card

    def code(self) -> str:
        return f"{self.seat} play {self.card}"


class MoonMove(NamedTuple):
    """Shooter's choice: ``subtract`` the moon from one's own total instead of adding it
    to everyone else's."""
    seat: int
    subtract: bool

    def code(self) -> str:
        return f"{self.seat} moon {'subtract' if self.subtract else 'add'}"


class NextRound(NamedTuple):
    def code(self) -> str:
        return "next"


Move = PassMove | PlayMove | MoonMove | NextRound


def parse_move(code: str) -> Move:
    """Parse a move code; raises :class:`InvalidMoveError` on anything malformed."""
    if not isinstance(code, str):
        raise InvalidMoveError(f"a move code must be text, not {type(code).__name__}")
    parts = code.split()
    try:
        if parts == ["next"]:
            return NextRound()
        seat_text, kind, *rest = parts
        if not seat_text.isdigit() or len(seat_text) > 1:
            raise ValueError(f"bad seat {seat_text!r}")
        seat = int(seat_text)
        if kind == "play" and len(rest) == 1:
            return PlayMove(seat, Card(rest[0]))
        if kind == "pass" and rest:
            return PassMove(seat, CardSet(rest))
        if kind == "moon" and rest in (["add"], ["subtract"]):
            return MoonMove(seat, rest == ["subtract"])
    except ValueError as exc:
        raise InvalidMoveError(f"not a move: {code!r} ({exc})") from None
    raise InvalidMoveError(f"not a move: {code!r}")
