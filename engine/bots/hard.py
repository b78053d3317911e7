"""Hard: counts the cards, imagines the hidden hands, simulates, and plays the best card.

For a play it samples deals of the unseen cards consistent with its view
(:class:`~engine.bots.sampling.DealSampler`), and for each deal plays every candidate card
followed by the rest of the round, then picks the card with the best average outcome.

In those rollouts its own seat plays the careful player's policy, except that it never
throws its moon stopper (its highest heart when no heart still out is above it) on a trick
won so far by a seat that may still shoot the moon: a Hard that imagined itself throwing it
at the next chance saw no worth in keeping it now; and the server's Hard (``self_hunt``)
imagines itself hunting the queen as its opponents may, leading low spades while it holds
more of them than the K♠ and A♠.  The simulated opponents play the careful policy too, with
two habits of stronger players: one who has taken every penalty card so far keeps going for
the moon while its hand allows (so Hard sees that nobody else will stop it), and one
holding the A♠ or K♠ with more low spades leads them to flush the Q♠ out; in the play's
tree search and the server's Hard's pass every seat also gives the Q♠ to a spade trick
another seat wins with the K♠ or A♠ when it plays last (the careful player keeps her).  How
many opponents have those habits is fitted to what the table has shown Hard
(:class:`OpponentModel`): before anyone has taken a penalty card only some of the imagined
opponents try the moon, and a moon weighs fully only once one of them has taken every
penalty card so far.  The outcome is judged on the game score: the others' points minus its
own, a moon by someone else counted as worse than its points (``MOON_WEIGHT``), the
opponent nearest to winning weighted more once the game may end this round, plus a bonus or
a penalty when the round ends the game with it winning or losing.

Passes are chosen by the same search over candidate passes drawn from every card (the Q♠
across included), not by fixed habits.

The budget is a number of simulated card plays, so a decision is reproducible for a given
seed; it grows when the stakes are high (a moon threat, penalty cards on the table) and
when the best two cards are still close, up to ``EXTEND`` times the base.  A cap on the
deciding thread's CPU time only guards against a machine far slower than expected; it is
CPU time, not wall-clock time, so that a busy machine (other processes taking the cores)
does not cut a search short and change the choice.

``HardBot(classic=True)`` is Hard as it was before these changes (issue 14), kept as the
arena's yardstick (seat type ``hard0``).

The server's Hard (:class:`~engine.bots.hardis.HardISBot`) passes with this search and
plays with a tree search built on its sampler, opponent model, rollouts and outcome; this
flat search of the play stays the coach's (a hint, a review's rating of every card) and
the arena's ``hardflat``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..cards import CARDS, LOW, QUEEN_OF_SPADES, SUIT_MASK, Card, CardSet, parse_card
from ..values import Phase
from ..view import PlayerView
from .base import BaseBot, check_view, view_round
from .policy import choose_pass_mask, hard_pass_candidates, pass_candidates
from .rollouts import MOON_WEIGHT, after_passes, rollout, rollout_aware
from .sampling import DealSampler
from .shooter import moon_pass, shooter_pass
from .sim import SimRound, view_dealer

T = TypeVar("T")
DROP_Z = 3.0
"""A candidate is dropped when its mean is this many standard errors below the leader's."""
DROP_AFTER = 24
"""Nor before this many sampled deals: the rare costly outcomes (a moon, the Q♠) come up in
one deal in five or fewer, and 8 deals (the old threshold, ``classic``) missed them often
enough to drop the only card that stops a moon (the 10♦ of the moon test, with 1 seed in 6)."""
STAKES = 2
"""Budget factor when the stakes are high: a moon threat, or penalty cards on the table."""
EXTEND = 3
"""The budget may grow to this many times the base while the best two are still close."""
PASS_EXTEND = 2
"""The same for the pass, which is the slowest decision already."""
CLOSE = 0.5
"""Two candidates are close while the leader's mean is less than this many points ahead."""
BUDGET = (40000, 60000, 400)
"""Hard's default budget: simulated card plays for a play and for the pass, and sampled deals
at most.  A larger one (100,000 / 80,000 / 1,000) was tried in issue 14's second session:
2.5 times the CPU per decision and no gain measured (docs/strength.md), so the server keeps
this one.  Against every candidate judged on the same 4,000 sampled deals, the pass at this
budget loses 0.18 points a pass, at twice it 0.08 (a random candidate 1.44; issue 14's
twenty-fourth session): under 0.1 point a round for a pass twice as slow."""
CLASSIC_BUDGET = (40000, 60000, 400)
"""The same before issue 14 (``classic``): the arena's yardstick keeps it."""
MOON_PRIOR = 0.25
"""The chance that Hard imagines an opponent as one who tries the moon whenever its hand
allows, before the table has shown anything.  Every opponent trying made a simulated
opponent shoot in 10.6% of rounds (3,000 random deals, a left pass), where Medium and
IS-MCTS shot in 0.3% and 2% of their rounds against Hard (docs/strength.md): the search
then spent its cards on stopping moons that were not coming."""
HUNT_PRIOR = 0.8
"""The same for an opponent who leads low spades to flush the Q♠ out.  IS-MCTS-1000, leading
with the K♠ or A♠ and more low spades while the Q♠ was out, led a low spade 61 times in 75
(81 %; the careful policy 3 in 75; 150 rounds of four IS-MCTS, issue 14's twenty-fifth
session), and a person who knows the game does too; 0.5 (before that session) imagined too
few hunters."""
HUNT_PRIOR_BEFORE = 0.5
"""``HUNT_PRIOR`` before issue 14's twenty-fifth session (the arena's ``hard24``)."""
PASS_MOON_PRIOR = 1.0
"""``MOON_PRIOR`` for the pass, where nothing has shown yet who tries: every opponent may
be one who tries the moon whenever its hand allows (and passes as one, :func:`~engine.bots.shooter.shooter_pass`).
What Hard passes decides whether it keeps a card that can stop a moon; with 0.25, and every
imagined opponent passing carefully, an imagined shooter seldom had the hand to shoot.  Against
3 shooters this took 0.67 moons per 100 rounds off (two seeds, paired, within the noise), at
no cost in margin against them or Medium (docs/strength.md, issue 14's thirteenth session)."""
QUIET_MOON_WEIGHT = 2.0
"""``MOON_WEIGHT`` while no opponent has shown a moon threat (one has taken every penalty
card so far)."""
STRONG_CARDS = sum(1 << int(parse_card(c)) for c in ("AC", "AD", "AS", "KS", "QS", "AH", "KH", "QH", "JH"))
"""Cards a player going for the moon keeps: the aces, the Q♠ K♠ and the hearts from the J
up; one who passed us one of them is not trying."""


class OpponentModel:
    """What Hard expects of each opponent in its rollouts, fitted to what the table has
    shown it (its own view only): per seat, the chance that it tries the moon whenever its
    hand allows and the chance that it hunts the queen, and how much a moon by someone else
    weighs.  Each sampled deal draws which opponents do (:meth:`draw`), from the decision's
    random generator, so a decision stays reproducible for its seed.

    - Nobody has taken a penalty card yet: each opponent may try the moon with
      ``MOON_PRIOR``, except one that passed us a card a shooter keeps (``STRONG_CARDS``).
    - One opponent has taken every penalty card so far: it may (certainly); the others
      cannot anyway (a moon needs every penalty card), and a moon weighs ``MOON_WEIGHT``,
      otherwise only ``QUIET_MOON_WEIGHT``.
    - An opponent that has led a spade this round hunts the queen; the others with
      ``HUNT_PRIOR`` (Hard's ``hunt_prior``).
    """

    __slots__ = ("shoot", "hunt", "moon_weight")

    def __init__(self, shoot: Sequence[float], hunt: Sequence[float], moon_weight: float) -> None:
        self.shoot = tuple(shoot)
        self.hunt = tuple(hunt)
        self.moon_weight = moon_weight

    @classmethod
    def of(cls, view: PlayerView, prior: float = MOON_PRIOR, hunt_prior: float = HUNT_PRIOR) -> OpponentModel:
        n = view.players
        me = view.seat
        pen = view.rules.penalty_mask
        taken = [0] * n
        spade_lead = [False] * n
        spades = SUIT_MASK[int(QUEEN_OF_SPADES) // 13]
        for tr in view.tricks:
            if tr.winner is not None:
                for c in tr.cards + tr.carried:
                    if pen >> int(c) & 1:
                        taken[tr.winner] += 1
            if tr.cards and spades >> int(tr.cards[0]) & 1:
                spade_lead[tr.leader] = True
        if view.trick and view.trick_leader is not None and spades >> int(view.trick[0]) & 1:
            spade_lead[view.trick_leader] = True
        total = sum(taken)
        gave_strong = (view.received_from if view.received is not None
                       and view.received.mask & LOW & STRONG_CARDS else None)
        shoot = [0.0] * n
        hunt = [0.0] * n
        threat = False
        for s in range(n):
            if s == me:
                continue
            if total:
                if taken[s] == total:
                    shoot[s] = 1.0
                    threat = True
            elif s != gave_strong:
                shoot[s] = prior
            hunt[s] = 1.0 if spade_lead[s] else hunt_prior
        return cls(shoot, hunt, MOON_WEIGHT if threat else QUIET_MOON_WEIGHT)

    def draw(self, rng: random.Random) -> tuple[int, int, float]:
        """The habits of one sampled deal: the mask of seats that may shoot, that of the
        queen hunters, and the moon's weight."""
        shooters = hunters = 0
        for s, (p, h) in enumerate(zip(self.shoot, self.hunt, strict=True)):
            # one number drawn for every seat with a chance, a sure one too: the sampled deals
            # that follow do not change with the chances (the pass's and the play's differ)
            if p > 0.0 and (rng.random() < p or p >= 1.0):
                shooters |= 1 << s
            if h >= 1.0 or (h > 0.0 and rng.random() < h):
                hunters |= 1 << s
        return shooters, hunters, self.moon_weight


def high_stakes(view: PlayerView) -> bool:
    """A moon threat (one other seat has taken every penalty card so far) or penalty cards
    on the table: where a wrong card costs most."""
    st = view_round(view)
    if st.tmask & st.t.pen_mask:
        return True
    holders = [s for s, k in enumerate(st.pen_taken) if k]
    return len(holders) == 1 and holders[0] != view.seat


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

    def __init__(self, budget: int | None = None, pass_budget: int | None = None, min_samples: int = 8,
                 max_samples: int | None = None, max_seconds: float = 3.0, classic: bool = False,
                 model: bool = True, hunt_prior: float = HUNT_PRIOR, pass_dump: bool = False,
                 self_hunt: bool = False, wary: bool = False, wary_every: int = 1) -> None:
        self.classic = classic
        """Hard as before issue 14: every seat's rollouts by the careful policy, the round's
        margin only, passes among Medium's favourite cards, a fixed budget."""
        defaults = CLASSIC_BUDGET if classic else BUDGET
        self.budget = defaults[0] if budget is None else budget
        """Simulated card plays per decision (the time budget, reproducibly)."""
        self.pass_budget = defaults[1] if pass_budget is None else pass_budget
        """Simulated card plays for choosing the pass."""
        self.min_samples = min_samples
        self.max_samples = defaults[2] if max_samples is None else max_samples
        """Sampled deals at most per decision (late in a round rollouts are cheap: this bounds
        the work there)."""
        self.max_seconds = max_seconds
        """Safety cap in CPU seconds of the deciding thread: stop sampling early on a machine
        far slower than expected (CPU time, so other processes' load changes nothing)."""
        self.model = model
        """Fit the rollouts' opponents to what the table has shown (:class:`OpponentModel`);
        without it every opponent may shoot and hunt, and a moon always weighs
        ``MOON_WEIGHT`` (Hard of issue 14's second session, the arena's ``hard1``)."""
        self.hunt_prior = hunt_prior
        """The chance that an opponent that has not led a spade yet hunts the queen."""
        self.pass_dump = pass_dump
        """In the pass's rollouts every seat last to play on a spade trick won by another's K♠
        or A♠ gives that seat the Q♠ (:func:`~.rollouts.play_out_aware`'s ``dump``)."""
        self.self_hunt = self_hunt
        """In its rollouts this seat hunts the queen as its imagined opponents may: it leads
        its low spades while they outnumber the K♠ and A♠ it holds, as IS-MCTS does with long
        spades (the server's Hard, :class:`~engine.bots.hardis.HardISBot`; issue 14's
        thirty-first session).  The flat search (the coach's, the arena's ``hardflat``)
        keeps the careful player's leads."""
        self.wary = wary
        """In its rollouts and its tree the opponents keep their penalty cards off this seat's
        tricks once it nears a moon (``policy.choose_card``'s ``wary``): IS-MCTS and people who
        have seen one shot do, where the careful player feeds a moon it does not see coming.
        Off in the server's Hard: −0.00 [−0.34, +0.33] against IS-MCTS over 600 deals, −0.03
        [−0.39, +0.32] against Medium over 240, −0.28 [−0.52, −0.04] against the shooters over
        342 with as many moons (the arena's ``hardwary``; docs/strength.md, issue 14's
        thirty-third and thirty-fourth sessions)."""
        self.wary_every = wary_every
        """With ``wary``, the opponents are wary in one sampled deal of every ``wary_every``
        (all of them; in the others none is): a table of players who feed a moon (Medium)
        and one of players who do not (IS-MCTS) both in the model.  Two (the arena's
        ``hardwh``) did no better than either: −0.18 against IS-MCTS, −0.39 against Medium."""

    def wary_seats(self, view: PlayerView) -> Callable[[], int]:
        """Who is wary of this seat's moon in each next sampled deal of its rollouts and tree (a
        mask of opponents: all of them in one deal of every ``wary_every``, else none)."""
        seats = ((1 << view.rules.players) - 1) & ~(1 << view.seat) if self.wary else 0
        every = self.wary_every
        count = -1

        def draw() -> int:
            nonlocal count
            count += 1
            return seats if not count % every else 0

        return draw

    def habits(self, view: PlayerView, prior: float = MOON_PRIOR) -> Callable[[random.Random], tuple[int, int, float]]:
        """How the rollouts' opponents of one sampled deal behave (see :class:`OpponentModel`)."""
        if self.classic or not self.model:
            return lambda r: (-1, -1, MOON_WEIGHT)  # draws nothing: the same stream as before
        return OpponentModel.of(view, prior, self.hunt_prior).draw

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        """Simulate the round after each of a few promising passes (the others passing and
        playing as careful players) and keep the pass that does best."""
        check_view(view, Phase.PASS)
        rules = view.rules
        direction = view.pass_direction
        if self.classic:
            cands = pass_candidates(view.hand.mask, rules, direction)
        else:
            cands = hard_pass_candidates(view.hand.mask, rules, direction)
            moon = moon_pass(view.hand.mask, rules)
            if moon is not None and moon not in cands:
                cands.append(moon)  # keep the high cards: a moon attempt
        if len(cands) == 1:
            return CardSet.from_mask(cands[0])
        me = view.seat
        totals = view.totals
        target = rules.target_score
        sampler = DealSampler(view, infer=not self.classic)
        double = rules.cancellation
        habits = self.habits(view, PASS_MOON_PRIOR)
        wary_seats = self.wary_seats(view)

        def sample(r: random.Random) -> tuple[list[int], list[int], tuple[int, int, float], int]:
            hands = sampler.sample(r)
            how = habits(r)
            # an opponent that may shoot passes as a shooter would (its high cards kept)
            passes = [shooter_pass(h, rules, direction) if not self.classic and s != me and how[0] >> s & 1
                      else choose_pass_mask(h, rules, direction) for s, h in enumerate(hands)]
            return hands, passes, how, wary_seats()

        def evaluate(base: tuple[list[int], list[int], tuple[int, int, float], int], j: int) -> float:
            hands, passes, how, wary = base
            passes = passes[:]
            passes[me] = cands[j]
            after = after_passes(hands, passes, direction, double)
            st = SimRound.start(rules, after, view.dealer)
            if self.classic:
                return rollout(st, totals, me, target)
            return rollout_aware(st, totals, me, target, how, self.pass_dump, self.self_hunt, wary)

        best = self._search(len(cands), len(rules.deck), self.pass_budget, sample, evaluate, rng,
                            1 if self.classic else PASS_EXTEND)
        return CardSet.from_mask(cands[best])

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        check_view(view, Phase.PLAY)
        legal = view.legal.mask & LOW
        if not legal:
            raise ValueError("it is not this seat's turn to play")
        cands = candidates(view, legal)
        if len(cands) == 1:
            return CARDS[cands[0]]
        return CARDS[self.choose_among(view, cands, rng)]

    def choose_among(self, view: PlayerView, cands: list[int], rng: random.Random) -> int:
        """The card to play among the candidates ``cands`` (two or more): the flat search."""
        sampler = DealSampler(view, infer=not self.classic)
        me = view.seat
        totals = view.totals
        target = view.rules.target_score

        habits = self.habits(view)
        deal = view_dealer(view)
        wary_seats = self.wary_seats(view)

        def sample(r: random.Random) -> tuple[SimRound, tuple[int, int, float], int]:
            return deal(sampler.sample(r)), habits(r), wary_seats()

        def evaluate(base: tuple[SimRound, tuple[int, int, float], int], j: int) -> float:
            st = base[0].copy()
            st.play(cands[j])
            if self.classic:
                return rollout(st, totals, me, target)
            return rollout_aware(st, totals, me, target, base[1], hunt=self.self_hunt, wary=base[2])

        budget = self.budget
        extend = 1
        if not self.classic:
            extend = EXTEND
            if high_stakes(view):
                budget *= STAKES
                extend = max(1, EXTEND // STAKES)
        best = self._search(len(cands), sum(view.hand_sizes), budget, sample, evaluate, rng, extend)
        return cands[best]

    def _search(self, count: int, cost: int, budget: int, sample: Callable[[random.Random], T],
                evaluate: Callable[[T, int], float], rng: random.Random, extend: int = 1) -> int:
        """Evaluate ``count`` candidates on the same sampled deals until ``budget`` card
        plays are spent (``cost`` per rollout), dropping clear losers on the way; while the
        best two are still close, go on up to ``extend`` times the budget; the index of the
        best."""
        start = time.thread_time()
        drop_after = self.min_samples if self.classic else max(self.min_samples, DROP_AFTER)
        results: list[list[float]] = [[] for _ in range(count)]
        alive = list(range(count))
        spent = 0
        i = 0
        limit = budget * extend
        while i < self.max_samples and (i < self.min_samples or spent + len(alive) * cost <= budget or (
                spent + len(alive) * cost <= limit and _close(alive, results, i))):
            base = sample(rng)
            for j in alive:
                results[j].append(evaluate(base, j))
            spent += len(alive) * cost
            i += 1
            if i >= drop_after and i % 4 == 0 and len(alive) > 1:
                alive = _survivors(alive, results, i)
                if len(alive) == 1:
                    break
            if i >= self.min_samples and time.thread_time() - start > self.max_seconds:
                break
        return max(alive, key=lambda j: (sum(results[j]), -j))


def _close(alive: list[int], results: list[list[float]], n: int) -> bool:
    """Are the best two candidates so far within CLOSE points of each other?"""
    if len(alive) < 2 or not n:
        return False
    means = sorted((sum(results[j]) / n for j in alive), reverse=True)
    return means[0] - means[1] < CLOSE


def _survivors(alive: list[int], results: list[list[float]], n: int) -> list[int]:
    """Drop the candidates clearly worse than the leader so far (paired on the same deals):
    the budget they would have used goes to telling the close ones apart."""
    lead = max(alive, key=lambda j: (sum(results[j]), -j))
    ref = results[lead]
    keep = []
    for j in alive:
        if j == lead:
            keep.append(j)
            continue
        d = [a - b for a, b in zip(results[j][:n], ref[:n], strict=True)]
        m = sum(d) / n
        var = sum((x - m) ** 2 for x in d) / (n - 1)
        if m < -0.05 and m + DROP_Z * math.sqrt(var / n) < 0:
            continue
        keep.append(j)
    return keep
