"""What the pass tells about the other hands: where the unseen cards went, weighed per seat.

A player passes its most dangerous cards, so the three cards a seat passed us say what it
did *not* keep: one that passed the A♠ and K♠ but not the Q♠ seldom held her, one that passed
three low clubs held no high hearts.  And every other seat passed too: its passes moved its
dangerous cards on.  A uniform deal of the unseen cards (what :class:`~.sampling.DealSampler`
does alone) knows none of this.

:func:`pass_tilt` imagines the deal before the passes.  The seat that passed to us is one of
two kinds.  A careful passer kept ten cards none of which the careful player's pass
(:func:`~.policy.card_scores`) rates clearly more dangerous than the card it passed at the
same choice (within ``SLACK``: a person is not the policy; the check follows the policy's
three choices, made one at a time as the hand shrinks).  One going for the moon (one passer
in ten, ``PASSER_MOON``) passed its three lowest cards from a hand worth the attempt
(:func:`~.shooter.moon_pass`) and kept the high ones: without it a passer of three low cards
was read as holding no high heart, and Hard suffered more moons against the shooters
(issue 14's twenty-eighth session).  The other seats hold any hand of the deck and pass as
the careful player does.  Over ``POOL`` such imagined deals of each kind it
counts where each unseen card ended after the passes, weighs the kinds by how likely each
is to pass what we got, and returns, per card and seat, how much likelier the card is there
than a uniform deal says; the sampler deals each card in proportion to that weight and the
seat's room.

One deck, three or four players (``MAX_PLAYERS``; the card taken out for three is known to all
and dealt to nobody); not Cancellation's two decks, where a card may be in two hands.  The
pool is made once per round and seat (cached), from a generator seeded by what the seat
knows, so decisions stay reproducible.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import lru_cache

from ..cards import LOW, QUEEN_OF_SPADES, iter_cards
from ..rules import PassDirection, Rules
from ..view import PlayerView
from .policy import card_scores, choose_pass_mask
from .shooter import moon_pass

SLACK = 4
"""How much more dangerous (in :func:`~.policy.card_scores` points) a card the passer kept
may be than the one it passed at the same choice: a heart rank and a third, or two ranks of
a plain suit.  Against players who pass as the careful player does, a tighter slack tells
more (0: 0.047 nats a card better than a uniform deal, 4: 0.041, 8: 0.035, 12: 0.029; 150
deals), but a person is not that player."""
MAX_PLAYERS = 4
"""The most players for which the pass is read.  With five or six the pass told little (over
60 rounds after careful passes the true seat of an unseen card gained 0.033 and 0.013 nats,
against 0.042 with four and 0.074 with three), Hard gained nothing against 4 or 5 Medium
(+0.03 [−0.26, +0.31] over 60 deals, −0.08 [−0.53, +0.37] over 50), and the pool raised a
decision's p95 from 0.33 to 0.46 s and 0.31 to 0.41 s of CPU, the hands being short.  Three
players: +0.35 [−0.26, +0.97] against 2 Medium over 200 deals, within the noise but of the size
of four players' gain, where the pass tells more (docs/strength.md, issue 14's twenty-ninth
session)."""
POOL = 400
"""Imagined deals before the passes counted for one round, per kind of passer."""
TRIES = 12000
"""Deals tried at most per kind of passer (its hand is rejected until it fits the pass)."""
PRIOR = 20.0
"""Uniform deals mixed into each card's count: a card seen at a seat in no deal of a small
pool is not ruled out."""
QS = int(QUEEN_OF_SPADES)
PASSER_MOON = 0.1
"""The weight of the passer going for the moon before its pass is seen.  With Hard's
``MOON_PRIOR`` (0.25), and the other seats passing as shooters with it too, Hard lost 0.68
points a round to its careful-only reading against Medium (100 deals, seed 8); with 0.1 and the
others careful, it played Medium's rounds as the careful-only reading did (192 rounds of 192),
and against the shooters it suffered as many moons as Hard with a uniform deal (10.21 and 10.00
per 100 rounds) where the careful-only reading suffered 1.67 more per 100 than this (120 and 90
deals of seed 9; docs/strength.md, issue 14's twenty-eighth session)."""


def pass_tilt(view: PlayerView) -> list[list[float]] | None:
    """Per card (0–51), per seat, the weight of a deal giving the card to the seat; ``None``
    when the pass tells nothing here (no pass, a variant the pool does not cover)."""
    rules = view.rules
    n = view.players
    if (n > MAX_PLAYERS or rules.cancellation or view.received is None or view.passed is None
            or view.pass_target is None or view.received_from is None):
        return None
    me = view.seat
    mine = view.hand.mask
    for t in view.tricks:
        for i, c in enumerate(t.cards):
            if (t.leader + i) % n == me:
                mine |= 1 << int(c)
    if view.trick_leader is not None:
        for i, c in enumerate(view.trick):
            if (view.trick_leader + i) % n == me:
                mine |= 1 << int(c)
    got = view.received.mask
    gave = view.passed.mask
    before = (mine & ~got) | gave
    if before.bit_count() != rules.hand_size or got.bit_count() != 3 or before & got:
        return None
    off = (view.pass_target - me) % n
    return _tilt(rules, view.pass_direction, me, off, before, got, gave)


def _fits(kept: int, got: int, rules: Rules, direction: PassDirection) -> bool:
    """Whether the careful player's pass, holding ``kept`` and ``got``, could have been ``got``
    within ``SLACK``: at each of its three choices (scores change as the hand shrinks) the
    most dangerous card left of ``got`` is within ``SLACK`` of every card of ``kept``."""
    hand = kept | got
    for _ in range(3):
        best_got = best_kept = None
        for v, c in card_scores(hand, rules, direction):
            if got >> c & 1:
                if best_got is None or v > best_got[0]:
                    best_got = (v, c)
            elif best_kept is None or v > best_kept:
                best_kept = v
        assert best_got is not None and best_kept is not None
        if best_kept > best_got[0] + SLACK:
            return False
        hand &= ~(1 << best_got[1])
    return True


def _score_range(card: int, rules: Rules) -> tuple[int, int]:
    """The least and the most :func:`~.policy.card_scores` may rate ``card`` in any hand."""
    lo = hi = None
    for extra in (0, 1, 4, 5, 7):  # suit lengths that reach every branch of card_scores
        suit = card // 13
        same = [c for c in range(13 * suit, 13 * suit + 13) if c != card]
        others = [c for c in range(52) if c // 13 != suit]
        for qs in (False, True):
            hand = 1 << card
            for c in same[:extra]:
                hand |= 1 << c
            if qs and card != QS and suit == QS // 13:
                hand |= 1 << QS
            for c in others[:13 - hand.bit_count()]:
                hand |= 1 << c
            for direction in (PassDirection.LEFT, PassDirection.ACROSS):
                v = next(v for v, c in card_scores(hand, rules, direction) if c == card)
                lo = v if lo is None else min(lo, v)
                hi = v if hi is None else max(hi, v)
    assert lo is not None and hi is not None
    return lo, hi


@lru_cache(maxsize=16)
def _ranges(rules: Rules) -> list[tuple[int, int]]:
    return [_score_range(c, rules) for c in range(52)]


@lru_cache(maxsize=256)
def _tilt(rules: Rules, direction: PassDirection, me: int, off: int, before: int, got: int,
          gave: int) -> list[list[float]] | None:
    n = rules.players
    size = rules.hand_size
    src = (me - off) % n
    target = (me + off) % n
    unknown = [int(c) for c in iter_cards(rules.deck_mask & ~before & ~got)]
    rng = random.Random(f"pass:{me}:{off}:{before}:{got}")
    ranges = _ranges(rules)
    # a careful passer kept no card whose least score is above what the least dangerous card
    # it passed can score at most; one going for the moon kept every card above the highest
    # it passed (the exact checks follow, hand by hand)
    bound = min(ranges[c][1] for c in iter_cards(got)) + SLACK
    top = max(c % 13 for c in iter_cards(got))
    kinds = []
    for prior, keepable, fits in (
            (1 - PASSER_MOON, [c for c in unknown if ranges[c][0] <= bound],
             lambda kept: _fits(kept, got, rules, direction)),
            (PASSER_MOON, [c for c in unknown if c % 13 >= top],
             lambda kept: moon_pass(kept | got, rules) == got)):
        counts, found, tries = _pool(rng, rules, direction, me, src, off, unknown, keepable, got, gave, fits)
        if found and prior > 0:
            # how likely this kind of passer passes ``got``: the share of all its possible
            # kept hands that fit, those outside ``keepable`` never do
            likely = found / tries * math.comb(len(keepable), size - 3) / math.comb(len(unknown), size - 3)
            kinds.append((prior * likely, counts, found))
    if not kinds:
        return None
    weight = sum(w for w, _, _ in kinds)
    pool = sum(found for _, _, found in kinds)
    room = [0.0] * n
    for s in range(n):
        if s != me:
            room[s] = size - (3.0 if s == target else 0.0)
    total = sum(room)
    tilt = [[1.0] * n for _ in range(52)]
    for c in unknown:
        for s in range(n):
            if s != me:
                share = room[s] / total
                seen = sum(w / weight * counts[c][s] / found for w, counts, found in kinds)
                tilt[c][s] = (pool * seen + PRIOR * share) / (pool + PRIOR) / share
    return tilt


def _pool(rng: random.Random, rules: Rules, direction: PassDirection, me: int, src: int, off: int,
          unknown: list[int], keepable: list[int], got: int, gave: int,
          fits: Callable[[int], bool]) -> tuple[list[list[int]], int, int]:
    """Imagined deals before the passes in which the passer's kept cards (all but the three it
    passed), drawn from ``keepable``, ``fit`` its pass; the others pass as the careful player
    does.  Per card and seat, how many deals put the card there after the passes; how many
    deals fit; how many were tried."""
    n = rules.players
    size = rules.hand_size
    keep = size - 3
    others = [s for s in range(n) if s not in (me, src)]
    counts = [[0] * n for _ in range(52)]
    if len(keepable) < keep:
        return counts, 0, 0
    keepable = keepable[:]
    found = tries = 0
    shuffle = rng.shuffle
    while tries < TRIES and found < POOL:
        tries += 1
        shuffle(keepable)
        kept = 0
        for c in keepable[:keep]:
            kept |= 1 << c
        if not fits(kept):
            continue
        rest = [c for c in unknown if not kept >> c & 1]
        shuffle(rest)
        pre = [0] * n
        pre[src] = kept | got
        for k, s in enumerate(others):
            m = 0
            for c in rest[size * k:size * k + size]:
                m |= 1 << c
            pre[s] = m
        passes = [0] * n
        passes[me] = gave
        passes[src] = got
        for s in others:
            passes[s] = choose_pass_mask(pre[s], rules, direction)
        for s in range(n):
            if s == me:
                continue
            post = (pre[s] & ~passes[s]) | passes[(s - off) % n]
            for c in iter_cards(post & LOW & ~gave):
                counts[c][s] += 1
        found += 1
    return counts, found, tries
