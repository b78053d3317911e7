"""Imagining where the unseen cards are: deals consistent with one seat's view.

A sample gives every other seat exactly as many cards as it holds, never a card of a
suit it has shown void in, gives the pass target the cards we passed it that it has not
played yet, and puts the right number of cards aside (Cancellation with 3, 5 or 6
players).  The unseen cards are dealt one at a time to a seat chosen in proportion to
its remaining room, which is a uniform deal when nobody is void.  With voids the suits
with the fewest possible holders go first; should that still run into a dead end three
times, a Hall check (every group of suits must fit in the seats that may hold them)
guides each card instead.  Given a ``tilt`` (what the passes tell, :mod:`.passinfo`), each
card goes to a seat in proportion to its room times the card's weight there.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from ..cards import HEARTS, LOW, QUEEN_OF_SPADES, Suit, add_to, iter_cards
from ..view import PlayerView

T = TypeVar("T")

DUMPED_FIRST = (1 << int(QUEEN_OF_SPADES)) | (HEARTS & ~((1 << (13 * int(Suit.HEARTS) + 9)) - 1))
"""The cards a player void in the led suit throws first: the Q♠ and the J♥ and above."""
INFER_TRIES = 4
"""Samples tried before one that breaks the inference from discards is accepted anyway."""


def discard_inference(view: PlayerView) -> list[int]:
    """Per seat, the cards it probably does not hold: a seat that discarded a card worth no
    points (after the first trick, single deck) while void would have thrown the Q♠ or a
    high heart instead, had it held one still unplayed."""
    n = view.players
    avoid = [0] * n
    if view.rules.cancellation:
        return avoid
    pen = view.rules.penalty_mask
    pts = view.rules.card_points
    unplayed = view.unseen.mask & LOW & DUMPED_FIRST
    tricks = [(t.leader, t.cards) for t in view.tricks[1:]]
    if view.tricks and view.trick and view.trick_leader is not None:
        tricks.append((view.trick_leader, view.trick))
    for leader, cards in tricks:
        led = cards[0] // 13
        for i, c in enumerate(cards[1:], 1):
            if c // 13 != led and not pen >> c & 1 and not pts[c]:
                avoid[(leader + i) % n] |= unplayed
    avoid[view.seat] = 0
    return avoid


def _shuffle(cards: list[T], bits: Callable[[int], int]) -> None:
    """``random.Random.shuffle(cards)`` with the same draws (``bits``: the generator's
    ``getrandbits``), without its calls per card: the sampler's hot path."""
    for i in range(len(cards) - 1, 0, -1):
        m = i + 1
        k = m.bit_length()
        j = bits(k)
        while j >= m:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _weighted(options: list[int], room: list[int], total: int, rng: random.Random) -> int:
    """One of the seats ``options``, each as likely as the room it has left (``total``, the
    sum of that room, is not 0); the card being dealt goes there."""
    r = rng.randrange(total)
    for s in options:
        r -= room[s]
        if r < 0:
            return s
    raise AssertionError("total is more than the seats' room")


class DealSampler:
    """Samples the other seats' hands for one view (prepared once, sampled many times).

    With ``infer``, samples that give a seat a card it probably does not hold (see
    :func:`discard_inference`) are tried again, up to ``INFER_TRIES`` times."""

    def __init__(self, view: PlayerView, infer: bool = False,
                 tilt: list[list[float]] | None = None) -> None:
        n = view.players
        self.tilt = tilt
        """Per card and seat, how much likelier a deal giving the card to the seat is
        (:func:`~.passinfo.pass_tilt`); each card is then dealt in proportion to it."""
        me = view.seat
        self.n = n
        self.me = me
        self.double = view.rules.cancellation
        fixed = [0] * n
        fixed[me] = view.hand.mask
        target = view.pass_target
        if target is not None and view.passed_still_held:
            fixed[target] = view.passed_still_held.mask
        self.fixed = fixed
        self.avoid = [a & ~f for a, f in zip(discard_inference(view), fixed, strict=True)] if infer else [0] * n
        self.inferring = any(self.avoid)
        # slots 0..n-1 are seats, slot n is the cards set aside
        room = [0] * (n + 1)
        for s in range(n):
            if s != me:
                room[s] = view.hand_sizes[s] - fixed[s].bit_count()
        self.cards = list(iter_cards(view.unseen.mask))
        room[n] = len(self.cards) - sum(room[:n])
        if room[n] < 0 or any(r < 0 for r in room):
            raise ValueError("the view's card counts do not add up")
        self.room = room
        allowed = [0, 0, 0, 0]
        for suit in range(4):
            for s in range(n + 1):
                if room[s] and (s == n or suit not in view.voids[s]):
                    allowed[suit] |= 1 << s
        self.allowed = allowed
        self.options = [[s for s in range(n + 1) if allowed[su] >> s & 1] for su in range(4)]
        """Per suit, the slots that may take its cards."""
        self.by_suit = [[c for c in self.cards if c // 13 == suit] for suit in range(4)]
        self.constrained = any(allowed[suit] != allowed[0] for suit in range(4)) or any(
            not allowed[suit] >> s & 1 for suit in range(4) for s in range(n + 1) if room[s])
        # suits in order of fewest seats that may hold them: place the hardest first
        self.order = sorted(range(4), key=lambda su: (allowed[su].bit_count(), su))
        self.unions = [0] * 16
        for sub in range(1, 16):
            u = 0
            for su in range(4):
                if sub >> su & 1:
                    u |= allowed[su]
            self.unions[sub] = u
        if not self._feasible([len(x) for x in self.by_suit], room):
            raise ValueError("no deal of the unseen cards fits the known voids")

    def _feasible(self, left: list[int], room: list[int]) -> bool:
        for sub in range(1, 16):
            need = 0
            for su in range(4):
                if sub >> su & 1:
                    need += left[su]
            if not need:
                continue
            u = self.unions[sub]
            cap = 0
            s = 0
            while u:
                if u & 1:
                    cap += room[s]
                u >>= 1
                s += 1
            if need > cap:
                return False
        return True

    def sample(self, rng: random.Random) -> list[int]:
        """Every seat's hand (our own included) in one deal consistent with the view."""
        if not self.inferring:
            return self._sample(rng)
        avoid = self.avoid
        for _ in range(INFER_TRIES - 1):
            hands = self._sample(rng)
            if not any(h & a for h, a in zip(hands, avoid, strict=True)):
                return hands
        return self._sample(rng)

    def _sample(self, rng: random.Random) -> list[int]:
        if self.tilt is not None:
            for _ in range(3):
                dealt = self._tilted(rng)
                if dealt is not None:
                    return dealt
            return self._checked(rng)
        n = self.n
        hands = self.fixed[:]
        double = self.double
        room = self.room[:]
        if not self.constrained:
            cards = self.cards[:]
            _shuffle(cards, rng.getrandbits)
            i = 0
            for s in range(n):
                k = room[s]
                for c in cards[i:i + k]:
                    hands[s] = add_to(hands[s], c, double)
                i += k
            return hands
        for _ in range(3):  # quick tries without the Hall check; dead ends are rare
            dealt = self._greedy(rng)
            if dealt is not None:
                return dealt
        return self._checked(rng)

    def _greedy(self, rng: random.Random) -> list[int] | None:
        # (the draws of rng.shuffle and of _weighted's rng.randrange, written out: this loop
        # is a third of a Hard decision's time; tests/bots/test_sim.py holds them equal)
        n = self.n
        hands = self.fixed[:]
        double = self.double
        room = self.room[:]
        bits = rng.getrandbits
        for su in self.order:
            cards = self.by_suit[su][:]
            _shuffle(cards, bits)
            options = self.options[su]
            for c in cards:
                total = 0
                for s in options:
                    total += room[s]
                if not total:
                    return None
                k = total.bit_length()
                r = bits(k)
                while r >= total:
                    r = bits(k)
                for s in options:
                    r -= room[s]
                    if r < 0:
                        break
                room[s] -= 1
                if s < n:
                    hands[s] = add_to(hands[s], c, True) if double else hands[s] | 1 << c
        return hands

    def _tilted(self, rng: random.Random) -> list[int] | None:
        """One deal with each card given to a seat in proportion to its room and its weight
        in ``tilt`` (the cards set aside: weight 1); ``None`` at a dead end."""
        n = self.n
        tilt = self.tilt
        assert tilt is not None
        hands = self.fixed[:]
        room = self.room[:]
        rand = rng.random
        for su in self.order:
            cards = self.by_suit[su][:]
            _shuffle(cards, rng.getrandbits)
            options = self.options[su]
            for c in cards:
                w = tilt[c]
                weights = [room[s] * (w[s] if s < n else 1.0) for s in options]
                total = sum(weights)
                if total <= 0:
                    return None
                r = rand() * total
                s = options[-1]
                for o, x in zip(options, weights, strict=True):
                    r -= x
                    if r < 0 and x > 0:
                        s = o
                        break
                if not room[s]:
                    return None
                room[s] -= 1
                if s < n:
                    hands[s] = add_to(hands[s], c, self.double)
        return hands

    def _checked(self, rng: random.Random) -> list[int]:
        n = self.n
        hands = self.fixed[:]
        double = self.double
        room = self.room[:]
        left = [len(x) for x in self.by_suit]
        for su in self.order:
            cards = self.by_suit[su][:]
            _shuffle(cards, rng.getrandbits)
            allowed = self.allowed[su]
            for c in cards:
                left[su] -= 1
                options = [s for s in range(n + 1) if allowed >> s & 1 and room[s]]
                while True:
                    s = _weighted(options, room, sum(room[s] for s in options), rng)
                    room[s] -= 1
                    if len(options) == 1 or self._feasible(left, room):
                        break
                    room[s] += 1
                    options.remove(s)
                if s < n:
                    hands[s] = add_to(hands[s], c, double)
        return hands
