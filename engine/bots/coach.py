"""The coach: Hard's search turned on the person's own decisions, from their view only.

:func:`rate` answers, for one decision (a card to play or three cards to pass), the
expected points the seat takes in this hand after each candidate, on the same sampled
deals of the unseen cards (:class:`~engine.bots.sampling.DealSampler`, Hard's sampler,
which after a pass deals them as the passes make likely: :mod:`~.passinfo`) and the same
rollouts as Hard (the simulated opponents shoot the moon and hunt the queen).
The decision is labelled by the points it loses against the best candidate
(:data:`LABELS`).  :func:`review_hand` rates every decision of one seat in one hand of a
game by replaying its move log; :func:`hint` is Hard's own choice with one reason, as
codes the app translates (:func:`reason`).

Everything here reads a :class:`~engine.view.PlayerView`: the hidden cards are sampled,
never looked at.  The budget per decision is a number of sampled deals, cut short by a
cap on the deciding thread's CPU time, so a review is reproducible on an idle machine
and bounded on a busy one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cards import CARDS, LOW, Card, CardSet, Suit, multiset_sub
from ..moves import PassMove, PlayMove
from ..rules import PassDirection
from ..values import Phase
from ..view import PlayerView
from .base import view_round
from .hard import HardBot, candidates
from .hardis import HardISBot
from .passinfo import pass_tilt
from .policy import choose_pass_mask, hard_pass_candidates, moon_subtract
from .rollouts import after_passes, play_out_aware
from .sampling import DealSampler
from .shooter import moon_pass
from .sim import SimRound, view_dealer

LABELS: tuple[tuple[float, str], ...] = ((0.25, "best"), (1.0, "good"), (2.5, "inaccuracy"), (5.0, "mistake"))
"""A decision losing less than the first number of expected points (against the best
candidate) gets the label beside it; 5 points or more is a ``blunder``."""
BLUNDER = "blunder"
FORCED = "forced"
"""Only one legal card: nothing to rate."""

SAMPLES = 160
"""Sampled deals per decision (every candidate is played out on each)."""
MAX_SECONDS = 0.5
"""The time budget per decision: CPU seconds of the deciding thread."""
MAX_WALL_SECONDS = 0.6
"""And wall-clock seconds, so that on a machine busy with other work a hand's review (up
to 14 decisions) still answers within about ten seconds, with fewer deals, so less
precisely (docs/review.md has the figures)."""
MIN_SAMPLES = 8
WALL_MIN_SAMPLES = 32
"""The wall-clock cap only stops a search after this many deals: enough that a clear
blunder (the Q♠ thrown on one's own trick) is still rated one on a busy machine."""


def label(lost: float) -> str:
    """The word for a decision that loses ``lost`` expected points."""
    for limit, name in LABELS:
        if lost < limit:
            return name
    return BLUNDER


@dataclass(frozen=True)
class Rating:
    """One decision rated: what was chosen, the best candidate, and their expected points."""

    kind: str
    """``"play"`` or ``"pass"``."""
    trick: int
    """The trick's number (1..) for a play, 0 for the pass."""
    chosen: tuple[str, ...]
    """The card codes the person chose (one for a play, the pass's cards)."""
    best: tuple[str, ...]
    """The candidate with the fewest expected points (the same as ``chosen`` when it was best)."""
    chosen_points: float
    best_points: float
    """The points the person is expected to take in the hand after each."""
    label: str
    """The word for the difference (:func:`label`): ``best``, ``good``, …, ``blunder``."""
    samples: int
    """The deals the rating imagined."""
    seconds: float
    """The CPU seconds it took."""

    @property
    def lost(self) -> float:
        return max(0.0, self.chosen_points - self.best_points)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "trick": self.trick, "chosen": list(self.chosen), "best": list(self.best),
                "chosen_points": round(self.chosen_points, 3), "best_points": round(self.best_points, 3),
                "label": self.label, "samples": self.samples, "seconds": round(self.seconds, 4)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rating:
        return cls(d["kind"], int(d["trick"]), tuple(d["chosen"]), tuple(d["best"]), float(d["chosen_points"]),
                   float(d["best_points"]), d["label"], int(d["samples"]), float(d["seconds"]))


def _points(st: SimRound, totals: tuple[int, ...], me: int, target: int) -> float:
    """Play ``st`` to the end of the hand as Hard imagines it; the points ``me`` takes."""
    play_out_aware(st, me)
    subtract = False
    if st.shooter >= 0 and st.t.shooters_choice:
        subtract = moon_subtract(totals, st.shooter, st.moon_value, target)
    return float(st.points(subtract)[me])


def _search(count: int, sample: Callable[[random.Random], Any], evaluate: Callable[[Any, int], float],
            rng: random.Random, samples: int, max_seconds: float) -> tuple[list[float], int]:
    """Mean of ``evaluate`` per candidate over common sampled deals, and how many deals."""
    start, wall = time.thread_time(), time.perf_counter()
    sums = [0.0] * count
    n = 0
    while n < samples:
        base = sample(rng)
        for j in range(count):
            sums[j] += evaluate(base, j)
        n += 1
        if n >= MIN_SAMPLES and time.thread_time() - start > max_seconds:
            break
        if n >= WALL_MIN_SAMPLES and time.perf_counter() - wall > MAX_WALL_SECONDS:
            break
    return [s / n for s in sums], n


def rate_play(view: PlayerView, card: Card, rng: random.Random, samples: int = SAMPLES,
              max_seconds: float = MAX_SECONDS) -> Rating:
    """Rate playing ``card`` now (it must be legal) against the best legal card."""
    start = time.perf_counter()
    legal = view.legal.mask & LOW
    if not legal >> card & 1:
        raise ValueError(f"{card.code()} is not a legal card in this position")
    trick = len(view.tricks) + 1
    cands = candidates(view, legal)
    if len(cands) == 1 or not legal & (legal - 1):
        return Rating("play", trick, (card.code(),), (card.code(),), 0.0, 0.0, FORCED, 0,
                      time.perf_counter() - start)
    if int(card) not in cands:
        cands.append(int(card))
    # the unseen cards dealt as the passes make likely, as Hard's tree deals them (its hint)
    sampler = DealSampler(view, infer=True, tilt=pass_tilt(view))
    me, totals, target = view.seat, view.totals, view.rules.target_score

    deal = view_dealer(view)

    def sample(r: random.Random) -> SimRound:
        return deal(sampler.sample(r))

    def evaluate(base: SimRound, j: int) -> float:
        st = base.copy()
        st.play(cands[j])
        return _points(st, totals, me, target)

    means, n = _search(len(cands), sample, evaluate, rng, samples, max_seconds)
    mine = means[cands.index(int(card))]
    best = min(range(len(cands)), key=lambda j: (means[j], j))
    if means[best] >= mine:
        best = cands.index(int(card))  # a tie goes to the card played
    lost = max(0.0, mine - means[best])
    return Rating("play", trick, (card.code(),), (CARDS[cands[best]].code(),), mine, means[best], label(lost), n,
                  time.perf_counter() - start)


def rate_pass(view: PlayerView, cards: CardSet, rng: random.Random, samples: int = SAMPLES,
              max_seconds: float = MAX_SECONDS) -> Rating:
    """Rate passing ``cards`` now against the passes Hard considers."""
    start = time.perf_counter()
    if view.phase is not Phase.PASS or view.pass_direction is PassDirection.NONE:
        raise ValueError("there is no pass to rate in this position")
    rules = view.rules
    direction = view.pass_direction
    hand = view.hand.mask
    chosen = cards.mask
    cands = hard_pass_candidates(hand, rules, direction)
    moon = moon_pass(hand, rules)
    if moon is not None and moon not in cands:
        cands.append(moon)
    if chosen not in cands:
        cands.append(chosen)
    me, totals, target = view.seat, view.totals, rules.target_score
    sampler = DealSampler(view, infer=True)
    double = rules.cancellation

    def sample(r: random.Random) -> tuple[list[int], list[int]]:
        hands = sampler.sample(r)
        return hands, [choose_pass_mask(h, rules, direction) for h in hands]

    def evaluate(base: tuple[list[int], list[int]], j: int) -> float:
        hands, passes = base
        passes = passes[:]
        passes[me] = cands[j]
        after = after_passes(hands, passes, direction, double)
        return _points(SimRound.start(rules, after, view.dealer), totals, me, target)

    means, n = _search(len(cands), sample, evaluate, rng, samples, max_seconds)
    mine = means[cands.index(chosen)]
    best = min(range(len(cands)), key=lambda j: (means[j], j))
    if means[best] >= mine:
        best = cands.index(chosen)
    lost = max(0.0, mine - means[best])
    return Rating("pass", 0, tuple(CardSet.from_mask(chosen).codes()), tuple(CardSet.from_mask(cands[best]).codes()),
                  mine, means[best], label(lost), n, time.perf_counter() - start)


def rate(view: PlayerView, move: PassMove | PlayMove, rng: random.Random, samples: int = SAMPLES,
         max_seconds: float = MAX_SECONDS) -> Rating:
    """Rate the seat's ``move`` (a pass or a play) from ``view``, the position it was made in."""
    if isinstance(move, PassMove):
        return rate_pass(view, move.cards, rng, samples, max_seconds)
    return rate_play(view, move.card, rng, samples, max_seconds)


def review_rng(seed: object, move_number: int) -> random.Random:
    """The review's random source for the decision at ``move_number`` of a game: seeded by
    the game, never by the time, so a review is the same on every server."""
    return random.Random(f"{seed}/review/{move_number}")


# ---- hints: Hard's choice and why ---------------------------------------------------------------

@dataclass(frozen=True)
class Hint:
    """Hard's choice for the seat now, and the reason as a code with its values (the app
    says it in the player's language)."""

    cards: tuple[str, ...]
    reason: str
    values: dict[str, Any]


def hint(view: PlayerView, rng: random.Random, bot: HardBot | None = None) -> Hint:
    """What Hard would do in the seat's place (pass or play), and why."""
    hard = bot if bot is not None else HardISBot()
    if view.phase is Phase.PASS:
        chosen = hard.choose_pass(view, rng)
        code, values = pass_reason(view, chosen)
        return Hint(tuple(chosen.codes()), code, values)
    if view.phase is not Phase.PLAY or view.turn != view.seat:
        raise ValueError("it is not this seat's turn to pass or play")
    card = hard.choose_play(view, rng)
    code, values = play_reason(view, card)
    return Hint((card.code(),), code, values)


QS = Card("QS")
HIGH_SPADES = CardSet(["AS", "KS"])


def _moon_threat(view: PlayerView) -> int | None:
    """Another seat that has taken every penalty card so far (at least two points)."""
    holders = [s for s, p in enumerate(view.taken_points) if p > 0]
    if len(holders) == 1 and holders[0] != view.seat and view.taken_points[holders[0]] >= 2:
        return holders[0]
    return None


def pass_reason(view: PlayerView, chosen: CardSet) -> tuple[str, dict[str, Any]]:
    """Why pass these three: the queen, high spades, high hearts, a suit emptied, or a moon."""
    hand = view.hand
    moon = moon_pass(hand.mask, view.rules)
    if moon is not None and chosen.mask == moon:
        return "pass_moon", {}
    if QS in chosen:
        return "pass_queen", {}
    if any(c in chosen for c in HIGH_SPADES) and QS not in hand:
        return "pass_high_spades", {}
    left = CardSet.from_mask(multiset_sub(hand.mask, chosen.mask))
    for suit in (Suit.CLUBS, Suit.DIAMONDS):
        if len(hand.suit(suit)) and not len(left.suit(suit)):
            return "pass_void", {"suit": suit.letter}
    hearts = [c for c in chosen if c.suit is Suit.HEARTS]
    if hearts:
        return "pass_hearts", {}
    return "pass_high", {}


def play_reason(view: PlayerView, card: Card) -> tuple[str, dict[str, Any]]:
    """Why play ``card`` now, in the first words that fit the position."""
    legal = view.legal
    seat = view.seat
    if len(legal) == 1:
        if view.first_trick and not view.trick and card == view.first_lead:
            return "lead_first", {"card": card.code()}
        return "only_card", {"card": card.code()}
    threat = _moon_threat(view)
    led = view.led_suit
    st = view_round(view)
    if not view.trick:
        if threat is not None and card.suit is not Suit.HEARTS:
            return "moon_lead", {"seat": threat}
        void_seat = next((s for s in range(view.players) if s != seat and card.suit in view.voids[s]), None)
        if void_seat is not None and card.suit is not Suit.HEARTS:
            return "lead_void", {"seat": void_seat, "suit": card.suit.letter}
        if card.suit is Suit.SPADES and QS in view.unseen and card < QS:
            return "smoke_queen", {}
        return "lead_low", {"suit": card.suit.letter}
    points_on_table = sum(view.rules.card_points[c] for c in view.trick)
    if led is not None and card.suit is not led:
        if threat is not None and card.suit is Suit.HEARTS and st.best_seat != threat:
            return "moon_spoil", {"seat": threat}
        if card == QS:
            return "dump_queen", {"suit": led.letter}
        if card.suit is Suit.HEARTS:
            return "dump_heart", {"suit": led.letter}
        return "discard_high", {"suit": led.letter}
    best = st.best
    last = len(view.trick) == view.players - 1
    if threat is not None and card > best and st.best_seat == threat:
        return "moon_take", {"seat": threat}
    if card < best:
        if points_on_table:
            return "duck_points", {"card": CARDS[best].code()}
        return "duck", {"card": CARDS[best].code()}
    if last and not points_on_table and card != QS:
        return "win_clean", {}
    return "cheapest", {}
