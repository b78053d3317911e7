"""Variants and random positions shared by the bot tests."""

from __future__ import annotations

import random
from collections import Counter

from engine import Game, Phase, Rules
from engine.bots import BaseBot
from engine.bots.medium import MediumBot
from engine.cards import iter_cards
from engine.errors import IllegalMoveError
from engine.referee import computer_turns

VARIANTS: dict[str, Rules] = {
    "standard": Rules(),
    "three": Rules(players=3),
    "five": Rules(players=5),
    "six": Rules(players=6),
    "cutthroat": Rules(passing=False),
    "omnibus-spot": Rules(omnibus=True, spot_hearts=True),
    "house": Rules(omnibus=True, shooters_choice=True, queen_breaks_hearts=True),
    "loose": Rules(no_breaking=True, points_on_first_trick=True, shooters_choice=True),
    "cancellation": Rules(cancellation=True),
    "cancellation-three": Rules(players=3, cancellation=True, omnibus=True),
    "cancellation-five": Rules(players=5, cancellation=True, shooters_choice=True, points_on_first_trick=True),
    "cancellation-six": Rules(players=6, cancellation=True, spot_hearts=True),
}


def mask_of(cards: Counter[int]) -> int:
    m = 0
    for c, k in cards.items():
        m |= 1 << c
        if k == 2:
            m |= 1 << (c + 52)
    return m


def counter(mask: int) -> Counter[int]:
    return Counter(int(c) for c in iter_cards(mask))


class Recorder:
    """A game played by bots, remembering every round's deal so it can be rebuilt."""

    def __init__(self, rules: Rules, seed: int, bot: BaseBot | None = None) -> None:
        self.game = Game(rules, seed=seed)
        self.deals: list[list[int]] = [list(self.game.dealt)]
        self.bot = bot or MediumBot()
        self._turns = computer_turns(self.game, self.bot)

    def step(self) -> None:
        """One move: a computer player's, or the next deal once a round is over."""
        g = self.game
        if g.phase is Phase.ROUND_OVER:
            g.next_round()
            self.deals.append(list(g.dealt))
            self._turns = computer_turns(g, self.bot)
            return
        next(self._turns)

    def advance_to_random_decision(self, rng: random.Random, max_rounds: int = 2) -> bool:
        """Play on to a random decision point (pass, play or moon choice); False if the game ended."""
        steps = rng.randrange(0, 70)
        for _ in range(steps):
            if self.game.is_over or self.game.round_index >= max_rounds:
                break
            self.step()
        while not self.game.is_over and self.game.phase is Phase.ROUND_OVER:
            self.step()
        return not self.game.is_over


def redeal(rec: Recorder, seat: int, rng: random.Random, tries: int = 200) -> Game | None:
    """A different game that gives ``seat`` exactly the same view as ``rec.game`` now: the
    hidden cards (other hands, cards set aside, the other seats' passes) dealt anew in a
    way consistent with everything ``seat`` has seen.  ``None`` if no such deal was found."""
    g = rec.game
    rules = g.rules
    n = g.players
    exchanged = g.phase is not Phase.PASS
    played: list[Counter[int]] = [Counter() for _ in range(n)]
    for t in g.tricks:
        for i, c in enumerate(t.cards):
            played[(t.leader + i) % n][int(c)] += 1
    for i, c in enumerate(g.trick):
        played[(g.leader + i) % n][int(c)] += 1  # type: ignore[operator]
    d = g.pass_direction
    target = d.target(seat, n)
    fixed = [Counter[int]() for _ in range(n)]
    fixed[seat] = counter(g.hands[seat])
    if exchanged and g.passes[seat] is not None and target != seat:
        still = counter(g.passes[seat]) - played[target]  # type: ignore[arg-type]
        fixed[target] = still
    pool: list[int] = []
    sizes = [0] * (n + 1)
    for s in range(n):
        if s != seat:
            rest = counter(g.hands[s]) - fixed[s]
            pool.extend(rest.elements())
            sizes[s] = sum(rest.values())
    dealt_all: Counter[int] = Counter()
    for h in g.dealt:
        dealt_all += counter(h)
    aside = Counter(rules.deck) - dealt_all
    pool.extend(aside.elements())
    sizes[n] = sum(aside.values())
    voids = g.voids
    for _ in range(tries):
        rng.shuffle(pool)
        now: list[Counter[int]] = []
        i = 0
        ok = True
        for s in range(n):
            part = Counter(pool[i:i + sizes[s]]) if s != seat else Counter()
            i += sizes[s] if s != seat else 0
            if any(voids[s] >> (c // 13) & 1 for c in part):
                ok = False
            now.append(part + fixed[s])
        if not ok:
            continue
        alt = _rebuild(rec, seat, now, played, rng)
        if alt is not None and alt.view(seat).to_dict() == g.view(seat).to_dict():
            return alt
    return None


def _rebuild(rec: Recorder, seat: int, now: list[Counter[int]], played: list[Counter[int]],
             rng: random.Random) -> Game | None:
    g = rec.game
    n = g.players
    d = g.pass_direction
    passing = d.offset(n) != 0
    post = [now[s] + played[s] for s in range(n)]
    passes: list[Counter[int] | None] = [None] * n
    if g.phase is Phase.PASS:
        pre = post
        for x in range(n):
            if g.passes[x] is not None:
                passes[x] = counter(g.passes[x]) if x == seat else Counter(rng.sample(list(pre[x].elements()), 3))  # type: ignore[arg-type]
    else:
        if passing:
            for x in range(n):
                t = d.target(x, n)
                if x == seat:
                    passes[x] = counter(g.passes[x])  # type: ignore[arg-type]
                elif t == seat:
                    passes[x] = counter(g.received[seat])
                else:
                    passes[x] = Counter(rng.sample(list(post[t].elements()), 3))
            pre = [post[x] - passes[d.source(x, n)] + passes[x] for x in range(n)]  # type: ignore[operator]
        else:
            pre = post
    deals = rec.deals[:g.round_index] + [[mask_of(h) for h in pre]]
    try:
        alt = Game(g.rules, seed=g.seed, deals=deals)
        round_moves = _moves_of_round(g)
        for m in g.moves[:len(g.moves) - len(round_moves)]:
            alt.apply(m)
        from engine.moves import PassMove
        for m in round_moves:
            if isinstance(m, PassMove) and m.seat != seat:
                alt.pass_cards(m.seat, [c for c in passes[m.seat].elements()])  # type: ignore[union-attr]
            else:
                alt.apply(m)
    except (IllegalMoveError, ValueError):
        return None
    return alt


def _moves_of_round(g: Game) -> list:  # type: ignore[type-arg]
    from engine.moves import NextRound
    moves = g.moves
    for i in range(len(moves) - 1, -1, -1):
        if isinstance(moves[i], NextRound):
            return moves[i + 1:]
    return moves
