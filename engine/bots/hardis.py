"""Hard's play: an information-set tree search over its own cards (issue 14, eighth session).

The play search Hard had before (:class:`~engine.bots.hard.HardBot`, the arena's
``hardflat``, still the coach's hints and ratings) judges each candidate card by
careful-policy rollouts on sampled deals: a flat Monte Carlo, in which every later card of
every seat, Hard's own included, is the careful policy's.  This player searches a tree
instead, the single-observer information-set MCTS of Cowling, Powley and Whitehouse (2012):

- every iteration samples a deal of the unseen cards consistent with the seat's view (Hard's
  :class:`~engine.bots.sampling.DealSampler`), each card given to a seat as likely as what
  the passes tell makes it (:mod:`~engine.bots.passinfo`: the seat that passed to us kept
  nothing more dangerous than what it passed, the others passed their dangerous cards on;
  issue 14's twenty-eighth session), and the habits of its opponents (Hard's
  :class:`~engine.bots.hard.OpponentModel`);
- it descends one tree whose nodes are keyed by the cards played since the decision; at a
  node of its own seat only the cards legal in this iteration's deal are eligible, and
  among them it picks by UCB with availability counts (a child's exploration term counts
  the iterations in which it could have been chosen, not the parent's visits); cards that
  play the same (a run of one suit with no other card out between them, worth the same)
  are one move.  The opponents play as in Hard's rollouts (the careful policy with the
  drawn habits), so the tree searches the seat's own later cards inside Hard's model of
  the opponents;
- it adds one node, then finishes the round as Hard's rollouts do (:func:`~.rollouts.play_out_aware`)
  and scores the result as Hard does (:func:`~engine.bots.rollouts.outcome`, Hard's game-aware
  utility);
- it plays the card most visited at the root, and stops as soon as no other card can
  catch up with it in the iterations left (the choice is then settled; the card is the
  same as without stopping).

``HardISBot(opponents_tree=True)`` (the arena's ``hardis``) also searches the opponents'
cards, each by UCB for its own margin of the round; it lost a point a round against
Medium (docs/strength.md, eighth session).

The budget is counted, as Hard's, in simulated card plays (each iteration costs the cards
still to play in the round), so a decision is reproducible for a seed; a safety cap in CPU
seconds (``max_seconds``, as Hard's) ends a search on a far slower machine.  The pass is
Hard's.
"""

from __future__ import annotations

import random
from typing import Any

from ..view import PlayerView
from .hard import HardBot
from .passinfo import pass_tilt
from .sampling import DealSampler
from .sim import view_dealer
from .tree import Node, grow, rank

FORMER_BUDGET = 60000
FORMER_MAX_ITERATIONS = 2000
"""The search of the eighth to sixteenth sessions: simulated card plays per play decision,
and the cap on its iterations."""
SEARCH = 1.8
"""How many times the former search a decision gets.  Twice gained against Medium and
against IS-MCTS, both within the noise, with moons unchanged, but spent 1.0 s and more of
CPU at p95 against players who try to shoot (where fewer decisions settle early).  1.8
times spends 0.87-0.92 of twice's p95 there; with the faster deal sampler of the eighteenth
session its p95 against 3 shooters is 0.86 s of CPU, side by side with 0.98 s before it
(about 0.91 s on a quiet core of that session's machine; on the faster machine of the
twenty-third session 0.54 s on a quiet core, and the eighteenth's code 0.58 s beside it).
Four times gained more against Medium but not against IS-MCTS, with more moons suffered
(docs/strength.md, seventeenth, eighteenth and twenty-third sessions).  ``HARD_BUDGET``
sets the app's (README)."""
IS_BUDGET = round(FORMER_BUDGET * SEARCH)
"""Simulated card plays per play decision."""
MIN_ITERATIONS = 64
MAX_ITERATIONS = round(FORMER_MAX_ITERATIONS * SEARCH)
"""Bounds on the iterations of one decision (late in a round an iteration is cheap)."""
UCB_C = 10.0
"""The exploration constant of UCB, in points of utility.  Against a search of the same
model eight times as long, over 162 decisions, Hard's choice lost 0.18 points a decision
with 5, 0.031 with 10 and 0.026 with 20 (a random candidate 1.86; docs/strength.md, issue
14's twenty-fourth session)."""


class HardISBot(HardBot):
    """Hard: Hard's passing, an information-set tree search for the play (see the module)."""

    name = "hard"

    def __init__(self, is_budget: int = IS_BUDGET, min_iterations: int = MIN_ITERATIONS,
                 max_iterations: int | None = None, c: float = UCB_C, policy_first: bool = True,
                 opponents_tree: bool = False, dump: bool = True, read_passes: bool = True,
                 **kwargs: Any) -> None:
        kwargs.setdefault("pass_dump", dump)
        kwargs.setdefault("self_hunt", True)
        super().__init__(**kwargs)
        if opponents_tree:
            self.name = "hardis"
        self.is_budget = is_budget
        self.min_iterations = min_iterations
        if max_iterations is None:
            # the cap goes with the budget: FORMER_BUDGET is the former search, cap and all
            max_iterations = max(min_iterations, MAX_ITERATIONS * is_budget // IS_BUDGET)
        self.max_iterations = max_iterations
        self.c = c
        self.policy_first = policy_first
        """Expand the careful policy's card first among a node's untried cards (otherwise
        one at random)."""
        self.opponents_tree = opponents_tree
        """The opponents' cards in the tree are chosen by UCB for their own margin; without
        it they are the careful policy's with the drawn habits, as in Hard's rollouts (the
        tree then searches only this seat's own cards: Hard)."""
        self.read_passes = read_passes
        """The tree's deals give each unseen card to a seat as likely as what the passes tell
        makes it (:func:`~.passinfo.pass_tilt`), not uniformly (docs/strength.md, issue 14's
        twenty-eighth session); the arena's ``hard27`` does not."""
        self.dump = dump
        """Every seat in the tree and its rollouts, last to play on a spade trick won by
        another seat's K♠ or A♠, gives that seat the Q♠ (``policy.choose_card``'s ``dump``).
        The careful policy keeps her there, and a Hard that imagined its opponents so played
        its own K♠ and A♠ into her against players who do not miss the gift (IS-MCTS, people):
        docs/strength.md, issue 14's twenty-second session.  Unless ``pass_dump`` is given, the
        pass's rollouts do the same (IS-MCTS gave her there 20 times in 20; issue 14's
        twenty-fifth session)."""

    def choose_among(self, view: PlayerView, cands: list[int], rng: random.Random) -> int:
        """The card to play among the candidates ``cands``: the tree search's most visited."""
        root = self.search(view, cands, rng)
        return max(cands, key=lambda m: rank(root.children.get(m)))

    def search(self, view: PlayerView, cands: list[int], rng: random.Random) -> Node:
        """Run the tree search from ``view`` over the root's moves ``cands``; the root."""
        sampler = DealSampler(view, infer=True, tilt=pass_tilt(view) if self.read_passes else None)
        cost = max(1, sum(view.hand_sizes))
        iterations = min(self.max_iterations, max(self.min_iterations, self.is_budget // cost))
        return grow(view_dealer(view), sampler.sample, self.habits(view), self.wary_seats(view), view.seat,
                    view.totals, view.rules.target_score, cands, iterations, self.c, self.policy_first,
                    self.opponents_tree, self.dump, self.self_hunt, self.max_seconds, rng)
