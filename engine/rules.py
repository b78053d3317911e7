"""Rules: every option of the game as one documented flag, plus named presets."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import Any, Final, get_args, get_type_hints

from .cards import CARDS, HEARTS, JACK_OF_DIAMONDS, LOW, PENALTY, QUEEN_OF_SPADES, Rank, Suit, add_card


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


def N_(message: str) -> str:
    """Marks an English message that the app shows translated (``make messages`` collects it
    from this file); the engine itself always speaks English."""
    return message


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """:func:`N_` for a message with a plural form; ``%(num)s`` is the number."""
    return singular, plural


@dataclass(frozen=True)
class Option:
    """All that is said about one option of :class:`Rules`, in one place.  The new-game
    form, the API's schema and parsing, the arena's flags, :meth:`Rules.describe`, the
    page's rules line, the checks of ``Rules(...)`` and README's table come from it."""

    label: str
    """The new-game form's label (translated by the app)."""
    help: str
    """What it does, for developers: the API schema, the arena's ``--help``, README."""
    summary: str | tuple[str, str]
    """The rules line's words: for a flag, shown when it differs from the standard game;
    for a number, singular and plural with ``%(num)s`` (translated by the app)."""
    values: tuple[int, ...] = ()
    """A number's only values (a choice)."""
    low: int = 0
    high: int = -1
    """A number's bounds (both included) when it has no ``values``; a number needs one or
    the other (:func:`rule_options` says so when the class is first used)."""
    suggested: tuple[int, ...] = ()
    """Values the form offers beside a free number."""
    empty: str = ""
    """What an empty number (``None``) means, as the form's placeholder says it."""


def option(default: Any, about: Option) -> Any:
    """A field of :class:`Rules` with its :class:`Option`."""
    return dataclasses.field(default=default, metadata={"option": about})


@dataclass(frozen=True)
class RuleOption:
    """One field of a rules class with its :class:`Option`: what the forms and flags are built from."""

    name: str
    kind: type
    """``bool`` or ``int``."""
    default: Any
    optional: bool
    """A number that may be ``None``."""
    about: Option

    @property
    def is_flag(self) -> bool:
        return self.kind is bool

    @property
    def minimum(self) -> int:
        return self.about.values[0] if self.about.values else self.about.low

    @property
    def maximum(self) -> int:
        return self.about.values[-1] if self.about.values else self.about.high

    def check(self, value: Any) -> None:
        """Raise :class:`RulesError` unless ``value`` is one this option takes."""
        about = self.about
        if self.kind is bool:
            if not isinstance(value, bool):
                raise RulesError(f"{self.name} must be true or false, not {value!r}")
        elif self.optional and value is None:
            return
        elif about.values:
            if type(value) is not int or value not in about.values:
                allowed = ", ".join(map(str, about.values[:-1])) + f" or {about.values[-1]}"
                raise RulesError(f"{self.name} must be {allowed}, not {value!r}")
        elif type(value) is not int or not about.low <= value <= about.high:
            allowed = (f"empty ({about.empty or 'none'}) or {about.low} to {about.high}" if self.optional
                       else f"a whole number from {about.low} to {about.high}")
            raise RulesError(f"{self.name} must be {allowed}, not {value!r}")

    def summary(self, value: Any) -> tuple[str | tuple[str, str], int | None] | None:
        """The rules line's message for ``value`` and its number, or None when nothing is said."""
        if self.kind is bool:
            return (self.about.summary, None) if value != self.default else None
        return None if value is None else (self.about.summary, value)


_OPTIONS: dict[type, tuple[RuleOption, ...]] = {}


def rule_options(cls: type[Rules] | None = None) -> tuple[RuleOption, ...]:
    """The options of ``cls`` (:class:`Rules` or a subclass), in field order."""
    cls = Rules if cls is None else cls
    known = _OPTIONS.get(cls)
    if known is not None:
        return known
    hints = get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        about = f.metadata.get("option")
        if about is None:
            continue
        hint = hints[f.name]
        args = [a for a in get_args(hint) if a is not type(None)]
        kind = args[0] if args else hint
        if kind not in (bool, int):
            raise TypeError(f"{cls.__name__}.{f.name}: an option is a bool or an int, not {hint}")
        if kind is int and not about.values and about.low > about.high:
            raise TypeError(f"{cls.__name__}.{f.name}: a number option needs its values or its low and high")
        out.append(RuleOption(f.name, kind, f.default, len(args) < len(get_args(hint)), about))
    _OPTIONS[cls] = tuple(out)
    return _OPTIONS[cls]


@dataclass(frozen=True)
class Rules:
    """The options of one game (SPEC.md §3).  The defaults are the standard game."""

    players: int = option(4, Option(
        N_("Players"), "How many play. 3: the 2♦ is left out; 5: the 2♦ and 2♠; 6: the four 3s (25-point rounds).",
        NP_("%(num)s player", "%(num)s players"), values=tuple(PASS_CYCLES)))
    target_score: int = option(100, Option(
        N_("Target score"), "The game ends after the round in which a total reaches this.",
        NP_("to %(num)s point", "to %(num)s points"), low=1, high=10_000, suggested=(50, 100, 200)))
    max_rounds: int | None = option(None, Option(
        N_("Hands"), "Rounds to play at most (None: no limit); whichever limit comes first ends the game.",
        NP_("at most %(num)s hand", "at most %(num)s hands"), low=1, high=1000, empty=N_("no limit")))
    passing: bool = option(True, Option(
        N_("Pass three cards (off: “Cutthroat”)"),
        "Pass three cards before each round (left, right, across, none…); off is the no-pass \"Cutthroat\" game.",
        N_("no passing")))
    omnibus: bool = option(False, Option(
        N_("Omnibus: J♦ scores −10"), "The J♦ scores −10 for whoever takes it (no part in shooting the moon).",
        N_("J♦ −10")))
    spot_hearts: bool = option(False, Option(
        N_("Spot hearts: hearts score face value"), "Hearts score face value: 2..10, J 11, Q 12, K 13, A 14.",
        N_("spot hearts")))
    queen_breaks_hearts: bool = option(False, Option(
        N_("Q♠ breaks hearts"), "Playing the Q♠ also breaks hearts.", N_("Q♠ breaks hearts")))
    no_breaking: bool = option(False, Option(
        N_("No breaking: lead hearts any time"), "Hearts (and the Q♠) may be led at any time.", N_("no breaking")))
    points_on_first_trick: bool = option(False, Option(
        N_("Points allowed on the first trick"), "Hearts and the Q♠ may be played on the first trick.",
        N_("points on the first trick")))
    shooters_choice: bool = option(False, Option(
        N_("Shooter’s choice (subtract the moon)"),
        "A moon shooter may instead subtract the moon from their own total.", N_("shooter’s choice")))
    cancellation: bool = option(False, Option(
        N_("Cancellation Hearts (two decks)"),
        "Cancellation Hearts: two decks; identical cards in a trick cancel each other.",
        N_("Cancellation (two decks)")))
    last_hand_breaks_ties: bool = option(False, Option(
        N_("A tie at the end goes to the lower score in the last hand"),
        "A tie for the lowest total at the end goes to whoever of the tied scored less in the last hand "
        "(seed 001); off, or when that is tied too, one more hand is played.",
        N_("ties broken by the last hand")))

    def __post_init__(self) -> None:
        for o in rule_options(type(self)):
            o.check(getattr(self, o.name))

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

    @cached_property
    def deck_mask(self) -> int:
        """:attr:`deck` as a multiset mask (a second copy on the high bits)."""
        mask = 0
        for c in self.deck:
            mask = add_card(mask, c)
        return mask

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

    def describe(self, say: Callable[[str], str] = str,
                 say_n: Callable[[str, str, int], str] | None = None) -> list[str]:
        """Short descriptions of the game: its numbers and what differs from the standard.
        In English, or through ``say`` and ``say_n`` (gettext and ngettext, which fills in
        ``%(num)s``): the app's rules line in the player's language."""
        out = []
        for o in rule_options(type(self)):
            said = o.summary(getattr(self, o.name))
            if said is None:
                continue
            text, num = said
            if isinstance(text, str):
                out.append(say(text))
            elif say_n is not None:
                out.append(say_n(text[0], text[1], num or 0))
            else:
                out.append(text[num != 1] % {"num": num})
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
