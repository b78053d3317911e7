"""The errors the engine raises; all are ``ValueError``s with a message naming the rule."""

from __future__ import annotations


class HeartsError(ValueError):
    """Base class of every engine error."""


class IllegalMoveError(HeartsError):
    """A move the rules forbid here; the state is left untouched.

    ``rule`` is a short stable key (``"must_follow"``, ``"hearts_not_broken"``, …) for
    programs; the message is the sentence for people ("must follow clubs").
    """

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class NotYourTurnError(IllegalMoveError):
    """The seat is not the one (or not one of those) to act."""

    def __init__(self, message: str = "not your turn") -> None:
        super().__init__(message, "not_your_turn")


class WrongPhaseError(IllegalMoveError):
    """The move does not belong to the game's current phase."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "wrong_phase")


class InvalidMoveError(HeartsError):
    """Text that does not describe a move at all (unparseable)."""


class CorruptRecordError(HeartsError):
    """A saved game that cannot be loaded: bad schema, or a move that does not replay."""
