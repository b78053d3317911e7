"""Rules: every option of the game as one documented flag, plus named presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any, Final

from .cards import CARDS, HEARTS, JACK_OF_DIAMONDS, LOW, PENALTY, QUEEN_OF_SPADES, Rank, Suit


class RulesError(ValueError):
    """Rules that do not describe a playable game (e.g. 7 players)."""


class PassDirection(Enum):
    """Where the three passed cards go; ``offset`` is in seats to the left (clockwise)."""

    LEFT = "left"
    RIGHT = "right"
    ACROSS = "across"
    SECOND_LEFT = "second left"
    SECOND_RIGHT = "second right"
    NONE = "none"

    def offset(self, players: int) -> int:
        return {"left": 1, "right": -1, "across": players // 2, "second left": 2,
                "second right": -2, "none": 0}[self.value]

    def target(self, seat: int, players: int) -> int:
        """The seat that receives ``seat``'s cards."""
        return (seat + self.offset(players)) % players

    def source(self, seat: int, players: int) -> int:
        """The seat whose cards ``seat`` receives."""
        return (seat - self.offset(players)) % players


_L, _R, _A = PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS
_L2, _R2, _N = PassDirection.SECOND_LEFT, PassDirection.SECOND_RIGHT, PassDirection.NONE
PASS_CYCLES: Final = {
    3: (_L, _R, _N),
    4: (_L, _R, _A, _N),
    5: (_L, _R, _L2, _R2, _N),
    6: (_L, _R, _L2, _R2, _A, _N),
}
TARGET_PRESETS: Final = (50, 100, 200)


@dataclass(frozen=True)
class Rules:
    """The options of one game (SPEC.md §3).  The defaults are the standard game."""

    players: int = 4
    """3, 4, 5 or 6.  3 players: 2♦ out; 5: 2♦ and 2♠ out; 6: the four 3s out."""
    target_score: int = 100
    """The game ends after the round in which a total reaches this (presets 50/100/200)."""
    max_rounds: int | None = None
    """Rounds to play at most (``None``: unlimited); whichever limit comes first ends the game."""
    passing: bool = True
    """Pass three cards before each round; off is the no-pass "Cutthroat" game."""
    omnibus: bool = False
    """The J♦ scores −10 for whoever takes it (no part in shooting the moon)."""
    spot_hearts: bool = False
    """Hearts score face value: 2..10, J 11, Q 12, K 13, A 14."""
    queen_breaks_hearts: bool = False
    """Playing the Q♠ also breaks hearts."""
    no_breaking: bool = False
    """Hearts (and the Q♠) may be led at any time."""
    points_on_first_trick: bool = False
    """Hearts and the Q♠ may be played on the first trick."""
    shooters_choice: bool = False
    """A moon shooter may instead subtract the moon from their own total."""
    cancellation: bool = False
    """Cancellation Hearts: two decks; identical cards in a trick cancel each other."""
    last_hand_breaks_ties: bool = False
    """A tie for the lowest total at the end goes to whoever of the tied scored less in the
    last hand (seed 001); off, or when that is tied too, one more hand is played."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("bool",) and not isinstance(v, bool):
                raise RulesError(f"{f.name} must be true or false, not {v!r}")
        if type(self.players) is not int or self.players not in PASS_CYCLES:
            raise RulesError(f"players must be 3, 4, 5 or 6, not {self.players!r}")
        if type(self.target_score) is not int or not 1 <= self.target_score <= 10_000:
            raise RulesError(f"target_score must be a whole number from 1 to 10000, not {self.target_score!r}")
        if self.max_rounds is not None and (type(self.max_rounds) is not int or not 1 <= self.max_rounds <= 1000):
            raise RulesError(f"max_rounds must be empty (unlimited) or 1 to 1000, not {self.max_rounds!r}")

    # ---- derived facts (computed once per Rules value) ---------------------------------

    @cached_property
    def removed(self) -> int:
        """Mask of the cards taken out of the deck for this number of players."""
        if self.cancellation:
            return 0
        c = CARDS
        if self.players == 3:
            return 1 << c[13 * Suit.DIAMONDS]
        if self.players == 5:
            return 1 << c[13 * Suit.DIAMONDS] | 1 << c[13 * Suit.SPADES]
        if self.players == 6:
            return sum(1 << (13 * s + Rank.THREE) for s in range(4))
        return 0

    @cached_property
    def deck(self) -> tuple[int, ...]:
        """The cards shuffled for a round, sorted; twice over for Cancellation."""
        one = tuple(c for c in range(52) if not self.removed >> c & 1)
        return one + one if self.cancellation else one

    @property
    def decks(self) -> int:
        return 2 if self.cancellation else 1

    @cached_property
    def hand_size(self) -> int:
        return len(self.deck) // self.players

    @cached_property
    def card_points(self) -> tuple[int, ...]:
        """Points for taking each card (index = card)."""
        pts = [0] * 52
        for r in range(13):
            pts[13 * Suit.HEARTS + r] = r + 2 if self.spot_hearts else 1
        pts[QUEEN_OF_SPADES] = 13
        if self.omnibus:
            pts[JACK_OF_DIAMONDS] = -10
        return tuple(pts)

    @cached_property
    def penalty_mask(self) -> int:
        """Hearts and the Q♠ still in the deck."""
        return PENALTY & ~self.removed & LOW

    @cached_property
    def moon_value(self) -> int:
        """Points of every heart and Q♠ in one deck (two decks: counted per deal)."""
        return sum(self.card_points[c] for c in range(52) if self.penalty_mask >> c & 1)

    @cached_property
    def first_trick_forbidden(self) -> int:
        """Cards that may not be played to the first trick (unless nothing else is held)."""
        return 0 if self.points_on_first_trick else self.penalty_mask

    @cached_property
    def breaks_hearts(self) -> int:
        """Cards whose play breaks hearts."""
        return HEARTS | (1 << QUEEN_OF_SPADES if self.queen_breaks_hearts else 0)

    def pass_direction(self, round_index: int) -> PassDirection:
        """The pass of round ``round_index`` (0-based)."""
        if not self.passing:
            return PassDirection.NONE
        cycle = PASS_CYCLES[self.players]
        return cycle[round_index % len(cycle)]

    # ---- (de)serialisation --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        if not isinstance(data, dict):
            raise RulesError("rules must be an object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(unknown)}")
        return cls(**data)

    def replace(self, **changes: Any) -> Rules:
        return dataclasses.replace(self, **changes)

    def describe(self) -> list[str]:
        """Short English descriptions of what differs from the standard game."""
        out = [f"{self.players} players", f"to {self.target_score} points"]
        if self.max_rounds:
            out.append(f"at most {self.max_rounds} rounds")
        labels = {
            "passing": ("", "no passing"), "omnibus": ("J♦ −10", ""),
            "spot_hearts": ("spot hearts", ""), "queen_breaks_hearts": ("Q♠ breaks hearts", ""),
            "no_breaking": ("no breaking", ""), "points_on_first_trick": ("points on the first trick", ""),
            "shooters_choice": ("shooter's choice", ""), "cancellation": ("Cancellation (two decks)", ""),
            "last_hand_breaks_ties": ("ties broken by the last hand", ""),
        }
        for name, (on, off) in labels.items():
            text = on if getattr(self, name) else off
            if text:
                out.append(text)
        return out


STANDARD: Final = Rules()
PRESETS: Final[dict[str, Rules]] = {
    "standard": STANDARD,
    "omnibus": Rules(omnibus=True),
    "spot": Rules(spot_hearts=True),
    "cutthroat": Rules(passing=False),
    "black-maria": Rules(players=3),
    "five": Rules(players=5),
    "six": Rules(players=6),
    "cancellation": Rules(cancellation=True),
    "house": Rules(omnibus=True, shooters_choice=True, queen_breaks_hearts=True),
}
