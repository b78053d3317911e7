"""From a PlayerView to what the page shows: seat names, positions, card faces, text.

Nothing here decides a rule: legal cards, scores and turns arrive computed in the view.
The playback frames are built from the views the service recorded after each move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine import Card, Phase, PlayerView, Suit
from engine import events as ev
from engine.moves import PlayMove
from engine.rules import PassDirection, Rules

from .services import PERSON, Step

SEAT_NAMES: dict[int, tuple[str, ...]] = {
    3: ("You", "West", "East"),
    4: ("You", "West", "North", "East"),
    5: ("You", "West", "North-west", "North-east", "East"),
    6: ("You", "West", "North-west", "North", "North-east", "East"),
}
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "S": "spades", "H": "hearts"}
PASS_TEXT = {
    PassDirection.LEFT: "to the left", PassDirection.RIGHT: "to the right", PassDirection.ACROSS: "across",
    PassDirection.SECOND_LEFT: "two seats to the left", PassDirection.SECOND_RIGHT: "two seats to the right",
}
PAUSE_PLAY = "play"
PAUSE_TRICK = "trick"


def seat_names(players: int) -> tuple[str, ...]:
    return SEAT_NAMES[players]


def _angle(seat: int, players: int) -> float:
    """Where a seat sits around the table: the person at the bottom, the others from the
    left across the top to the right, in playing (clockwise) order."""
    if seat == PERSON:
        return -90.0
    return 180.0 - (seat - 1) * 180.0 / (players - 2)


@dataclass(frozen=True)
class CardFace:
    code: str
    rank: str
    suit: str
    name: str
    """Full English name with a capital, e.g. "Queen of spades" (the button's accessible name)."""
    red: bool
    symbol: str

    @classmethod
    def of(cls, card: Card) -> CardFace:
        name = card.name()
        return cls(card.code(), card.code()[:-1], card.code()[-1], name[0].upper() + name[1:],
                   card.suit in (Suit.HEARTS, Suit.DIAMONDS), card.symbol())


@dataclass(frozen=True)
class HandCard:
    face: CardFace
    legal: bool
    received: bool


@dataclass(frozen=True)
class SeatPlate:
    seat: int
    name: str
    cards: int
    total: int
    taken: int
    x: float
    y: float
    turn: bool
    dealer: bool

    @property
    def side(self) -> str:
        return "left" if self.x < 15 else "right" if self.x > 85 else "top"


@dataclass(frozen=True)
class TrickCard:
    seat: int
    face: CardFace
    x: float
    y: float
    winner: bool
    order: int


def _seat_xy(seat: int, players: int, radius_x: float, radius_y: float) -> tuple[float, float]:
    a = math.radians(_angle(seat, players))
    return round(50 + radius_x * math.cos(a), 1), round(50 - radius_y * math.sin(a), 1)


def hand_cards(view: PlayerView) -> list[HandCard]:
    legal = view.legal
    received = view.received if (view.received and view.first_trick and view.phase is Phase.PLAY) else None
    marked = list(received) if received else []
    out = []
    for c in view.hand:
        is_received = c in marked
        if is_received:
            marked.remove(c)  # with two decks only as many copies as were received
        out.append(HandCard(CardFace.of(c), c in legal, is_received))
    return out


def status_text(view: PlayerView, names: tuple[str, ...]) -> str:
    if view.phase is Phase.PASS:
        if view.passes_chosen[PERSON]:
            return "Waiting for the others to pass"
        return f"Pass three cards {PASS_TEXT[view.pass_direction]}"
    if view.phase is Phase.PLAY:
        if view.turn == PERSON:
            if not view.trick and view.first_trick and view.first_lead is not None:
                return f"Your turn: lead the {view.first_lead.name()}"
            return "Your turn"
        return f"{names[view.turn or 0]} is thinking…"
    if view.phase is Phase.MOON_CHOICE:
        if view.pending_shooter == PERSON:
            return "You shot the moon! Choose how to score it"
        return f"{names[view.pending_shooter or 0]} shot the moon"
    if view.phase is Phase.ROUND_OVER:
        return "Hand over"
    winner = view.winner
    return "You won the game!" if winner == PERSON else f"Game over: {names[winner or 0]} wins"


def points_text(p: int) -> str:
    return f"{p} point" if abs(p) == 1 else f"{p} points"


def trick_cards(view: PlayerView, shown: tuple[int, tuple[Card, ...], int | None] | None) -> list[TrickCard]:
    """The cards in the middle of the table: the trick being played, or a finished one
    held for a moment (``shown`` = leader, cards, winner)."""
    n = view.players
    if shown is None:
        if view.trick_leader is None or not view.trick:
            return []
        leader, cards, winner = view.trick_leader, view.trick, None
    else:
        leader, cards, winner = shown
    out = []
    for i, c in enumerate(cards):
        seat = (leader + i) % n
        x, y = _seat_xy(seat, n, 15, 19)
        out.append(TrickCard(seat, CardFace.of(c), x, y, seat == winner, i))
    return out


def describe_event(e: ev.Event, names: tuple[str, ...]) -> str:
    if isinstance(e, ev.CardPlayed):
        who = "You play" if e.seat == PERSON else f"{names[e.seat]} plays"
        return f"{who} the {e.card.name()}."
    if isinstance(e, ev.HeartsBroken):
        return "Hearts are broken."
    if isinstance(e, ev.TrickWon):
        who = "You take" if e.winner == PERSON else f"{names[e.winner]} takes"
        return f"{who} the trick ({points_text(e.points)})."
    if isinstance(e, ev.TrickCancelled):
        return "The trick cancels out; its cards stay on the table."
    if isinstance(e, ev.PassesExchanged):
        return "The cards have been passed."
    if isinstance(e, ev.MoonShot):
        who = "You shoot" if e.seat == PERSON else f"{names[e.seat]} shoots"
        return f"{who} the moon!"
    if isinstance(e, ev.RoundScored):
        parts = ", ".join(f"{names[s]} {p}" for s, p in enumerate(e.points))
        return f"Hand {e.round_index + 1} scores: {parts}."
    if isinstance(e, ev.ExtraRound):
        return "The lowest totals are tied: one more hand."
    if isinstance(e, ev.GameOver):
        return "You win the game!" if e.winner == PERSON else f"{names[e.winner]} wins the game."
    if isinstance(e, ev.RoundStarted):
        return f"Hand {e.round_index + 1} is dealt."
    return ""


@dataclass(frozen=True)
class Frame:
    """One moment of the playback after an action: the table as the person saw it then."""

    view: PlayerView
    shown: tuple[int, tuple[Card, ...], int | None] | None
    say: str
    pause: str
    shuffling: bool = False
    """A new deal: the table is shown for a moment with "Shuffling the deck" and no hand."""


def frames(steps: list[Step], names: tuple[str, ...], final: PlayerView, dealt: bool = False) -> list[Frame]:
    """The plays to show one at a time; a finished trick is held with its winner.
    ``dealt``: the action dealt a new game, shown first as a shuffle."""
    out: list[Frame] = []
    if dealt:
        out.append(Frame(final, None, "Shuffling the deck.", PAUSE_TRICK, shuffling=True))
    for step in steps:
        if any(isinstance(e, ev.RoundStarted) for e in step.events):
            out.append(Frame(step.view, None, "Shuffling the deck.", PAUSE_TRICK, shuffling=True))
        if not isinstance(step.move, PlayMove):
            continue
        say = " ".join(t for t in (describe_event(e, names) for e in step.events
                                   if not isinstance(e, ev.RoundScored | ev.GameOver | ev.ExtraRound)) if t)
        done = next((e for e in step.events if isinstance(e, ev.TrickWon | ev.TrickCancelled)), None)
        if done is not None:
            winner = done.winner if isinstance(done, ev.TrickWon) else None
            out.append(Frame(step.view, (done.leader, done.cards, winner), say, PAUSE_TRICK))
        else:
            out.append(Frame(step.view, None, say, PAUSE_PLAY))
    if out and out[-1].pause == PAUSE_PLAY:
        # the final table shows this moment anyway
        last = out.pop()
        out.append(Frame(last.view, last.shown, last.say, ""))
    return out


def final_announcement(steps: list[Step], view: PlayerView, names: tuple[str, ...]) -> str:
    tail = [describe_event(e, names) for s in steps for e in s.events
            if isinstance(e, ev.RoundScored | ev.ExtraRound | ev.GameOver | ev.PassesExchanged | ev.RoundStarted)]
    return " ".join([t for t in tail if t] + [status_text(view, names) + "."])


def table_context(view: PlayerView, *, shown: tuple[int, tuple[Card, ...], int | None] | None = None,
                  frame: bool = False, shuffling: bool = False) -> dict[str, Any]:
    """Everything the table block needs to draw one moment of the game."""
    n = view.players
    names = seat_names(n)
    turn_seat = view.turn if view.phase is Phase.PLAY else view.pending_shooter
    plates = []
    for s in range(1, n):
        x, y = _seat_xy(s, n, 39, 39)
        plates.append(SeatPlate(s, names[s], view.hand_sizes[s], view.totals[s], view.taken_points[s],
                                x, y, turn_seat == s and shown is None, view.dealer == s))
    hand = [] if shuffling else hand_cards(view)
    last_round = None
    if view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER) and view.round_points:
        pts = view.round_points[-1]
        shooter = view.shooters[-1]
        last_round = {
            "number": len(view.round_points),
            "rows": [{"name": names[s], "points": pts[s], "total": view.totals[s],
                      "best": view.totals[s] == min(view.totals)} for s in range(n)],
            "shooter": names[shooter] if shooter is not None else None,
            "person_shot": shooter == PERSON,
        }
    return {
        "v": view,
        "names": names,
        "plates": plates,
        "hand": hand,
        "hand_columns": max(len(hand) - 1, 0),
        "trick": [] if shuffling else trick_cards(view, shown),
        "trick_done": shown is not None,
        "status": "Shuffling the deck…" if shuffling else status_text(view, names) if shown is None else "",
        "shuffling": shuffling,
        "frame": frame,
        "phase": view.phase.value,
        "my_turn": view.my_turn and not frame,
        "person_total": view.totals[PERSON],
        "person_taken": view.taken_points[PERSON],
        "person_turn": turn_seat == PERSON and shown is None,
        "last_round": last_round,
        "round_number": view.round_index + 1,
        "pass_text": PASS_TEXT.get(view.pass_direction, ""),
        "received_from": names[view.received_from] if view.received_from is not None else None,
        "winner_name": names[view.winner] if view.winner is not None else None,
        "moon": view.moon_options() if view.phase is Phase.MOON_CHOICE and view.pending_shooter == PERSON else None,
    }


SHORT_NAMES = {"North-west": "NW", "North-east": "NE"}


def score_sheet(view: PlayerView) -> dict[str, Any]:
    names = seat_names(view.players)
    return {"names": names, "short": [SHORT_NAMES.get(n, n) for n in names],
            "rows": [list(p) for p in view.round_points], "totals": list(view.totals),
            "shooters": list(view.shooters)}


def trick_history(view: PlayerView) -> list[dict[str, Any]]:
    names = seat_names(view.players)
    n = view.players
    out = []
    for t in view.tricks:
        out.append({
            "number": t.number + 1,
            "leader": names[t.leader],
            "cards": [{"face": CardFace.of(c), "seat": names[t.seat_of(i, n)], "winner": t.seat_of(i, n) == t.winner}
                      for i, c in enumerate(t.cards)],
            "winner": names[t.winner] if t.winner is not None else None,
            "points": t.points,
            "carried": len(t.carried),
        })
    return out


def rules_lines(rules: Rules) -> list[str]:
    return rules.describe()
