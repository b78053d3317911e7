"""Hard: counts the cards, imagines the hidden hands, simulates, and plays the best card.

For a play it samples deals of the unseen cards consistent with its view
(:class:`~engine.bots.sampling.DealSampler`), and for each deal plays every candidate card
followed by the rest of the round with the careful player's policy for all seats (moon
attempts and moon defence included), then picks the card with the best average outcome.
The outcome is judged on the game score: the others' points minus its own, plus a bonus
or a penalty when the round ends the game with it winning or losing.

The budget is a number of simulated card plays, so a decision is reproducible for a given
seed; a wall-clock cap only guards against a machine far slower than expected.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from ..cards import CARDS, LOW, Card, CardSet
from ..view import PlayerView
from .base import BaseBot, check_view
from .policy import choose_card, choose_pass_mask, moon_subtract
from .sampling import DealSampler
from .sim import SimRound

GAME_END_WEIGHT = 10.0
"""Points of score margin a won (or lost) game is worth on top of the round's margin."""


def utility(points: Sequence[int], totals: Sequence[int], me: int, target: int) -> float:
    n = len(points)
    mine = points[me]
    u = (sum(points) - mine) / (n - 1) - mine
    if max(t + p for t, p in zip(totals, points, strict=True)) >= target:
        final = [t + p for t, p in zip(totals, points, strict=True)]
        low = min(final)
        u += GAME_END_WEIGHT if final[me] == low and final.count(low) == 1 else -GAME_END_WEIGHT
    return u


def rollout(st: SimRound, totals: Sequence[int], me: int, target: int) -> float:
    """Play ``st`` to the end of the round with the policy; our utility of the result."""
    play = st.play
    while not st.done:
        play(choose_card(st))
    subtract = False
    if st.shooter >= 0 and st.t.shooters_choice:
        subtract = moon_subtract(totals, st.shooter, st.moon_value, target)
    return utility(st.points(subtract), totals, me, target)


def candidates(view: PlayerView, legal: int) -> list[int]:
    """Legal cards with runs of equivalent cards folded: two cards of a suit with no card
    still out between them, worth the same points, play the same (one deck only)."""
    cards = [c for c in range(52) if legal >> c & 1]
    if view.rules.cancellation or len(cards) < 2:
        return cards
    pts = view.rules.card_points
    out = (view.unseen.mask | view.passed_still_held.mask) & LOW
    for on_table in view.trick:
        out |= 1 << on_table  # a card on the table still decides who wins: keep it between
    keep = [cards[0]]
    for c in cards[1:]:
        p = keep[-1]
        between = out & ((1 << c) - 1) & ~((1 << (p + 1)) - 1)
        if c // 13 == p // 13 and not between and pts[c] == pts[p]:
            continue
        keep.append(c)
    return keep


class HardBot(BaseBot):
    name = "hard"

    def __init__(self, budget: int = 12000, min_samples: int = 6, max_samples: int = 150,
                 max_seconds: float = 3.0) -> None:
        self.budget = budget
        """Simulated card plays per decision (the time budget, reproducibly)."""
        self.min_samples = min_samples
        self.max_samples = max_samples
        self.max_seconds = max_seconds
        """Wall-clock safety cap: stop sampling early on a badly overloaded machine."""

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        check_view(view, "pass")
        return CardSet.from_mask(choose_pass_mask(view.hand.mask, view.rules, view.pass_direction))

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        check_view(view, "play")
        legal = view.legal.mask & LOW
        if not legal:
            raise ValueError("it is not this seat's turn to play")
        cands = candidates(view, legal)
        if len(cands) == 1:
            return CARDS[cands[0]]
        start = time.perf_counter()
        sampler = DealSampler(view)
        me = view.seat
        totals = view.totals
        target = view.rules.target_score
        remaining = sum(view.hand_sizes)
        samples = self.budget // max(1, len(cands) * remaining)
        samples = max(self.min_samples, min(self.max_samples, samples))
        score = [0.0] * len(cands)
        for i in range(samples):
            base = SimRound.from_view(view, sampler.sample(rng))
            for j, c in enumerate(cands):
                st = base.copy()
                st.play(c)
                score[j] += rollout(st, totals, me, target)
            if i >= self.min_samples and time.perf_counter() - start > self.max_seconds:
                break
        best = max(range(len(cands)), key=lambda j: (score[j], -j))
        return CARDS[cands[best]]

