"""PlayerView: everything one seat may know, and nothing else.

Computer players and the page receive only this.  The true state builds it
(:meth:`engine.state.Game.view`, also reached as :meth:`PlayerView.of`) by copying the
seat's own hand and the public record of the game (tricks, scores) and deriving what a
careful player would work out from it (voids, unseen cards) — never another seat's cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .cards import Card, CardSet, Suit, add_card
from .rules import PassDirection, Rules
from .values import Phase, Trick


class SeesSeats(Protocol):
    """Anything that can tell one seat what it may know: the referee's
    :class:`~engine.state.Game` (named structurally, so this module never imports the
    true state)."""

    def view(self, seat: int) -> PlayerView: ...


@dataclass(frozen=True)
class PlayerView:
    seat: int
    rules: Rules
    phase: Phase
    round_index: int
    dealer: int
    pass_direction: PassDirection
    hand: CardSet
    """The seat's cards now."""
    passed: CardSet | None
    """The three cards this seat passed (or has chosen to pass), if any."""
    pass_target: int | None
    received: CardSet | None
    """The cards this seat received, once passes have been exchanged."""
    received_from: int | None
    passes_chosen: tuple[bool, ...]
    """Which seats have chosen their pass (not what they chose)."""
    tricks: tuple[Trick, ...]
    """Every finished trick of this round, with leader, cards and winner."""
    trick: tuple[Card, ...]
    """Cards on the table in the current trick, in play order from ``trick_leader``."""
    trick_leader: int | None
    pot: tuple[Card, ...]
    """Cancellation: cards of cancelled tricks waiting for the next trick's winner."""
    turn: int | None
    legal: CardSet
    """The cards this seat may play now (empty unless it is this seat's turn to play)."""
    first_lead: Card | None
    hearts_broken: bool
    hand_sizes: tuple[int, ...]
    taken_points: tuple[int, ...]
    """Points each seat has taken in tricks this round (before any moon)."""
    totals: tuple[int, ...]
    round_points: tuple[tuple[int, ...], ...]
    shooters: tuple[int | None, ...]
    voids: tuple[frozenset[Suit], ...]
    """Suits each seat is known to hold no more of."""
    unseen: CardSet
    """Cards this seat has not seen: held by others or set aside, never its own,
    played, or passed by it (those it knows are with ``pass_target``)."""
    passed_still_held: CardSet
    """Cards this seat passed that the receiver has not played yet."""
    moon_value: int
    """The penalty points a moon is worth this round.  While cards set aside unseen could
    hide penalty cards and play goes on, it is the moon if none were set aside (the true
    value would reveal them); once play is over, the round's true value."""
    pending_shooter: int | None
    winner: int | None
    set_aside: int
    """How many cards were dealt to nobody this round (Cancellation with 3, 5, 6 players)."""

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def my_turn(self) -> bool:
        if self.phase is Phase.PASS:
            return not self.passes_chosen[self.seat]
        if self.phase is Phase.MOON_CHOICE:
            return self.pending_shooter == self.seat
        return self.turn == self.seat

    @property
    def led_suit(self) -> Suit | None:
        return Suit(self.trick[0] // 13) if self.trick else None

    @property
    def first_trick(self) -> bool:
        return not self.tricks

    def played_cards(self) -> CardSet:
        m = 0
        for t in self.tricks:
            for c in t.cards:
                m = add_card(m, c)
        for c in self.trick:
            m = add_card(m, c)
        return CardSet.from_mask(m)

    def moon_options(self) -> dict[str, tuple[int, ...]]:
        """Shooter's choice: the round's points under each choice."""
        v = self.moon_value
        s = self.pending_shooter
        if s is None:
            return {}
        tp = self.taken_points
        return {"add": tuple(p - v if i == s else p + v for i, p in enumerate(tp)),
                "subtract": tuple(p - 2 * v if i == s else p for i, p in enumerate(tp))}

    @classmethod
    def of(cls, game: SeesSeats, seat: int) -> PlayerView:
        """What ``seat`` may know of ``game``: the same as ``game.view(seat)``."""
        return game.view(seat)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (card codes as strings)."""
        def cs(s: CardSet | None) -> list[str] | None:
            return None if s is None else s.codes()

        def cl(cards: tuple[Card, ...]) -> list[str]:
            return [c.code() for c in cards]

        return {
            "seat": self.seat, "rules": self.rules.to_dict(), "phase": self.phase.value,
            "round_index": self.round_index, "dealer": self.dealer,
            "pass_direction": self.pass_direction.value, "hand": cs(self.hand),
            "passed": cs(self.passed), "pass_target": self.pass_target,
            "received": cs(self.received), "received_from": self.received_from,
            "passes_chosen": list(self.passes_chosen),
            "tricks": [{"number": t.number, "leader": t.leader, "cards": cl(t.cards), "winner": t.winner,
                        "points": t.points, "carried": cl(t.carried)} for t in self.tricks],
            "trick": cl(self.trick), "trick_leader": self.trick_leader, "pot": cl(self.pot),
            "turn": self.turn, "legal": cs(self.legal),
            "first_lead": self.first_lead.code() if self.first_lead is not None else None,
            "hearts_broken": self.hearts_broken, "hand_sizes": list(self.hand_sizes),
            "taken_points": list(self.taken_points), "totals": list(self.totals),
            "round_points": [list(p) for p in self.round_points], "shooters": list(self.shooters),
            "voids": [sorted(s.letter for s in v) for v in self.voids],
            "unseen": cs(self.unseen), "passed_still_held": cs(self.passed_still_held),
            "moon_value": self.moon_value, "pending_shooter": self.pending_shooter,
            "winner": self.winner, "set_aside": self.set_aside,
        }


