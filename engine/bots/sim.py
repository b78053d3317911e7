"""A compact, fast simulator of the play of one round, for the computer players' rollouts.

The referee is :class:`engine.state.Game`; this module re-implements just the play phase
(legal cards, tricks, cancellation, scoring, the moon) on plain int masks, with no events,
no move objects and no checks, because Hard plays thousands of simulated cards per
decision.  ``tests/bots/test_sim.py`` checks it against the engine move by move.

It never sees a Game: a round starts either from dealt hands (:meth:`SimRound.start`) or
from a seat's :class:`~engine.view.PlayerView` plus hands imagined for the other seats
(:meth:`SimRound.from_view`; a search that imagines many deals of one view reads it once,
with :func:`view_dealer`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..cards import HEARTS, LOW, SUIT_MASK, remove_card
from ..rules import Rules

if TYPE_CHECKING:
    from ..view import PlayerView

CLUBS_MASK = SUIT_MASK[0]


class Table:
    """Per-rules constants, computed once per :class:`Rules` value."""

    __slots__ = ("rules", "n", "double", "pts", "pen_mask", "breaks", "first_forbidden",
                 "may_lead_hearts", "shooters_choice", "target", "omnibus", "spot")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = rules.players
        self.double = rules.cancellation
        self.pts = rules.card_points
        self.pen_mask = rules.penalty_mask
        self.breaks = rules.breaks_hearts
        self.first_forbidden = rules.first_trick_forbidden
        self.may_lead_hearts = rules.no_breaking
        self.shooters_choice = rules.shooters_choice
        self.target = rules.target_score
        self.omnibus = rules.omnibus
        self.spot = rules.spot_hearts


_TABLES: dict[Rules, Table] = {}


def table(rules: Rules) -> Table:
    t = _TABLES.get(rules)
    if t is None:
        t = _TABLES[rules] = Table(rules)
    return t


class SimRound:
    """The play phase of one round: every seat's hand, the trick, what each seat has taken.

    ``played`` and ``inplay`` are distinct-card masks (the low 52 bits) used by the
    heuristics to tell which cards are still out; ``pen_taken``/``pen_points`` count only
    the hearts and the Q♠ (for the moon), ``taken`` is the round score before any moon.
    """

    __slots__ = ("t", "hands", "trick", "leader", "turn", "led", "best", "best_seat", "broken",
                 "ntricks", "first_lead", "tmask", "taken", "pen_taken", "pen_points", "pot", "played",
                 "inplay", "pen_in_play", "moon_value", "done", "shooter")

    t: Table
    hands: list[int]
    trick: list[int]
    leader: int
    turn: int
    led: int
    best: int
    best_seat: int
    broken: bool
    ntricks: int
    first_lead: int
    tmask: int
    """Distinct cards of the current trick."""
    taken: list[int]
    pen_taken: list[int]
    pen_points: list[int]
    pot: list[int]
    played: int
    inplay: int
    pen_in_play: int
    moon_value: int
    done: bool
    shooter: int

    # ---- construction ------------------------------------------------------------------

    def __init__(self) -> None:
        """An empty shell: :meth:`start`, :meth:`from_view` and :meth:`copy` fill it in (a
        plain ``__init__`` rather than ``__new__``, so that the module also compiles with
        mypyc, ``tools/native.py``)."""

    @classmethod
    def start(cls, rules: Rules, hands: Sequence[int], dealer: int) -> SimRound:
        """The first trick of a round whose hands (after any pass) are ``hands``."""
        t = table(rules)
        n = t.n
        st = cls()
        st.t = t
        st.hands = list(hands)
        clubs = 0
        for h in hands:
            clubs |= h & CLUBS_MASK
        start = dealer + 1
        if clubs:
            low = clubs & -clubs
            st.first_lead = low.bit_length() - 1
            leader = next(s % n for s in range(start, start + n) if hands[s % n] & low)
        else:
            st.first_lead = -1
            leader = start % n
        st.leader = st.turn = leader
        st.trick = []
        st.tmask = 0
        st.led = -1
        st.best = -1
        st.best_seat = leader
        st.broken = False
        st.ntricks = 0
        st.taken = [0] * n
        st.pen_taken = [0] * n
        st.pen_points = [0] * n
        st.pot = []
        st.played = 0
        st.done = False
        st.shooter = -1
        st._count_in_play(list(hands))
        return st

    @classmethod
    def from_view(cls, view: PlayerView, hands: Sequence[int], share: bool = True) -> SimRound:
        """The round as ``view`` sees it, with ``hands`` as every seat's cards now
        (the viewer's own hand and imagined hands for the others).  ``share`` false: the
        one round made from this view, which need not be copied from a shared reading."""
        if share:
            return view_dealer(view)(hands)
        st = cls._read(view)
        st.hands = list(hands)
        st._count_in_play(hands, (st.inplay, st.pen_in_play, st.moon_value))
        return st

    @classmethod
    def _read(cls, view: PlayerView) -> SimRound:
        """The round as ``view`` sees it with every hand empty: its ``inplay``,
        ``pen_in_play`` and ``moon_value`` count only the cards played so far."""
        t = table(view.rules)
        n = t.n
        pts = t.pts
        pen = t.pen_mask
        st = cls()
        st.t = t
        st.hands = [0] * n
        st.trick = [int(c) for c in view.trick]
        st.ntricks = len(view.tricks)
        st.first_lead = -1 if view.first_lead is None else int(view.first_lead)
        st.broken = view.hearts_broken
        st.taken = list(view.taken_points)
        pen_taken = [0] * n
        pen_points = [0] * n
        gone: list[int] = []
        played = 0
        for tr in view.tricks:
            for c in tr.cards:
                bit = 1 << c
                gone.append(bit)
                played |= bit
            w = tr.winner
            if w is not None:
                for c in tr.cards + tr.carried:
                    if pen >> c & 1:
                        pen_taken[w] += 1
                        pen_points[w] += pts[c]
        st.tmask = 0
        for x in st.trick:
            gone.append(1 << x)
            played |= 1 << x
            st.tmask |= 1 << x
        st.pen_taken = pen_taken
        st.pen_points = pen_points
        st.pot = [int(c) for c in view.pot]
        st.played = played
        leader = view.trick_leader if view.trick_leader is not None else 0
        st.leader = leader
        st.turn = view.turn if view.turn is not None else leader
        st.led = -1
        st.best = -1
        st.best_seat = leader
        for i, x in enumerate(st.trick):
            if i == 0:
                st.led = x // 13
                st.best = x
            elif x // 13 == st.led and x > st.best:
                st.best = x
                st.best_seat = (leader + i) % n
        st.done = False
        st.shooter = -1
        st._count_in_play(gone)
        return st

    def _count_in_play(self, masks: Sequence[int], before: tuple[int, int, int] = (0, 0, 0)) -> None:
        """``inplay``, ``pen_in_play`` and ``moon_value`` of the cards in ``masks`` and
        those counted ``before``."""
        t = self.t
        pen = t.pen_mask
        pts = t.pts
        inplay, k, value = before
        for m in masks:
            inplay |= m
            p = m & pen
            if p:
                for c in _bits(p):
                    k += 1
                    value += pts[c]
            hp = (m >> 52) & pen
            if hp:
                for c in _bits(hp):
                    k += 1
                    value += pts[c]
        self.inplay = inplay & LOW
        self.pen_in_play = k
        self.moon_value = value

    def copy(self) -> SimRound:
        st = SimRound()
        (st.t, st.tmask, st.leader, st.turn, st.led, st.best, st.best_seat, st.broken, st.ntricks, st.first_lead,
         st.played, st.inplay, st.pen_in_play, st.moon_value, st.done, st.shooter) = (
            self.t, self.tmask, self.leader, self.turn, self.led, self.best, self.best_seat, self.broken,
            self.ntricks, self.first_lead, self.played, self.inplay, self.pen_in_play, self.moon_value, self.done,
            self.shooter)
        st.hands, st.trick, st.taken = self.hands[:], self.trick[:], self.taken[:]
        st.pen_taken, st.pen_points, st.pot = self.pen_taken[:], self.pen_points[:], self.pot[:]
        return st

    # ---- rules ---------------------------------------------------------------------------

    def legal(self) -> int:
        """Mask of the cards the seat to play may play (same rules as the engine)."""
        hand = self.hands[self.turn] & LOW
        if self.trick:
            follow = hand & SUIT_MASK[self.led]
            if follow:
                return follow
            if not self.ntricks:
                safe = hand & ~self.t.first_forbidden
                if safe:
                    return safe
            return hand
        if not self.ntricks and self.first_lead >= 0:
            return 1 << self.first_lead
        if not self.broken and not self.t.may_lead_hearts:
            rest = hand & ~HEARTS
            if rest:
                return rest
        return hand

    def play(self, card: int) -> None:
        """Play ``card`` (assumed legal) for the seat to play."""
        t = self.t
        seat = self.turn
        bit = 1 << card
        if t.double:
            self.hands[seat] = remove_card(self.hands[seat], card)
        else:
            self.hands[seat] ^= bit
        trick = self.trick
        if trick:
            if card // 13 == self.led and card > self.best:
                self.best = card
                self.best_seat = seat
        else:
            self.led = card // 13
            self.best = card
            self.best_seat = seat
        if not self.broken and t.breaks & bit:
            self.broken = True
        self.played |= bit
        self.tmask |= bit
        trick.append(card)
        if len(trick) == t.n:
            self._end_trick()
        else:
            self.turn = (seat + 1) % t.n

    def _end_trick(self) -> None:
        t = self.t
        n = t.n
        cards = self.trick
        leader = self.leader
        last = not self.hands[leader]
        winner = self.best_seat
        if t.double:
            live = -1
            pos = -1
            led = self.led
            for i, c in enumerate(cards):
                if c // 13 == led and cards.count(c) == 1 and c > live:
                    live = c
                    pos = i
            if pos >= 0:
                winner = (leader + pos) % n
            elif last:
                winner = leader
            else:
                self.pot.extend(cards)
                self.trick = []
                self.tmask = 0
                self.ntricks += 1
                self.led = -1
                self.best = -1
                self.turn = leader
                return
        pts = t.pts
        pen = t.pen_mask
        got = 0
        k = 0
        pp = 0
        for c in cards:
            got += pts[c]
            if pen >> c & 1:
                k += 1
                pp += pts[c]
        if self.pot:
            for c in self.pot:
                got += pts[c]
                if pen >> c & 1:
                    k += 1
                    pp += pts[c]
            self.pot = []
        self.taken[winner] += got
        if k:
            self.pen_taken[winner] += k
            self.pen_points[winner] += pp
        self.trick = []
        self.tmask = 0
        self.ntricks += 1
        self.led = -1
        self.best = -1
        if last:
            self.done = True
            self.turn = -1
            if self.pen_in_play:
                for s in range(n):
                    if self.pen_taken[s] == self.pen_in_play:
                        self.shooter = s
            return
        self.leader = self.turn = winner
        self.best_seat = winner

    # ---- scoring ---------------------------------------------------------------------------

    def points(self, subtract: bool = False) -> list[int]:
        """The round's points by seat once play is over (the moon applied; ``subtract`` is the
        shooter's choice)."""
        s = self.shooter
        if s < 0:
            return self.taken[:]
        v = self.moon_value
        if subtract:
            return [p - 2 * v if i == s else p for i, p in enumerate(self.taken)]
        return [p - v if i == s else p + v for i, p in enumerate(self.taken)]


def view_dealer(view: PlayerView) -> Callable[[Sequence[int]], SimRound]:
    """``SimRound.from_view(view, hands)`` for the many deals a search samples for one view:
    the view is read and its played cards counted once; a deal copies that round and
    counts only its hands (they may hold different cards from one deal to the next: with
    two decks, the cards left out of the deal are unknown)."""
    read = SimRound._read(view)
    gone = (read.inplay, read.pen_in_play, read.moon_value)
    double = read.t.double
    # with one deck every deal of a view holds the same cards (those not yet played), so
    # the count of the last deal serves the next when its hands hold the same cards
    seen = -1
    counted = gone

    def deal(hands: Sequence[int]) -> SimRound:
        nonlocal seen, counted
        st = read.copy()
        st.hands = list(hands)
        if double:
            st._count_in_play(hands, gone)
            return st
        union = 0
        for h in hands:
            union |= h
        if union != seen:
            st._count_in_play(hands, gone)
            seen, counted = union, (st.inplay, st.pen_in_play, st.moon_value)
        else:
            st.inplay, st.pen_in_play, st.moon_value = counted
        return st

    return deal


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
