"""Hard's information-set tree (:mod:`.hardis` describes the search): its nodes, the moves
of a node, one search grown over sampled deals, and whether the root's choice is settled.

Plain functions and one small class over :class:`~engine.bots.sim.SimRound`, apart from
Hard's bot class, so that the loop of every play decision can be compiled with the
rollouts (``tools/native.py``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from ..cards import LOW
from .policy import choose_card
from .rollouts import opponent_card, outcome, play_out_aware
from .sim import SimRound

SETTLED_EVERY = 16
"""Iterations between two looks at whether the root's choice is settled (and at the CPU
time spent)."""


class Node:
    """A node of the tree: the seat that played the card leading to it, how often it was
    visited, the sum of that seat's utilities and how often it was available."""

    __slots__ = ("seat", "n", "w", "avail", "children")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.n = 0
        self.w = 0.0
        self.avail = 0
        self.children: dict[int, Node] = {}


def moves_of(st: SimRound) -> list[int]:
    """The legal cards of the seat to play in ``st``, one per run of cards that play the
    same (the lowest): same suit, same points, no card still out between them (cards
    on the table count as out).  One deck only; with two every card is its own move."""
    legal = st.legal()
    cards = []
    m = legal
    while m:
        low = m & -m
        cards.append(low.bit_length() - 1)
        m ^= low
    t = st.t
    if len(cards) < 2 or t.double:
        return cards
    hand = st.hands[st.turn] & LOW
    out = (st.inplay & ~st.played & ~hand) | st.tmask
    pts = t.pts
    keep = [cards[0]]
    p = cards[0]
    for c in cards[1:]:
        if c // 13 == p // 13 and pts[c] == pts[p] and not out & ((1 << c) - (1 << (p + 1))):
            p = c
            continue
        keep.append(c)
        p = c
    return keep


def grow(deal: Callable[[list[int]], SimRound], sample: Callable[[random.Random], list[int]],
         habits: Callable[[random.Random], tuple[int, int, float]], wary_seats: Callable[[], int], me: int,
         totals: Sequence[int], target: int, root_moves: list[int], iterations: int, c: float,
         policy_first: bool, opponents_tree: bool, dump: bool, self_hunt: bool, max_seconds: float,
         rng: random.Random) -> Node:
    """Grow the tree from the root's moves ``root_moves`` over at most ``iterations`` sampled
    deals (``sample`` draws the hidden hands, ``deal`` makes the round of them, ``habits`` and
    ``wary_seats`` the imagined opponents' of each deal; the rest as :class:`~.hardis.HardISBot`'s
    settings); the root."""
    log = math.log
    sqrt = math.sqrt
    root = Node(-1)
    start = time.thread_time()
    for i in range(iterations):
        if i and not i % SETTLED_EVERY and (settled(root, iterations - i)
                                             or time.thread_time() - start > max_seconds):
            break
        st = deal(sample(rng))
        shooters, hunters, moon_weight = habits(rng)
        wary = wary_seats()
        node = root
        path = []
        while not st.done:
            children = node.children
            if not opponents_tree and node is not root and st.turn != me:
                card = opponent_card(st, shooters, hunters, dump, me, wary)
                child = children.get(card)
                if child is None:
                    child = children[card] = Node(st.turn)
                st.play(card)
                node = child  # followed, not counted: only this seat's choices are searched
                continue
            moves = root_moves if node is root else moves_of(st)
            untried = [m for m in moves if m not in children]
            if untried:
                if policy_first:
                    mine = st.turn == me
                    pick = choose_card(st, self_hunt and mine, guard=mine, dump=dump)
                    if pick not in untried:
                        pick = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                else:
                    pick = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = Node(st.turn)
                children[pick] = child
                for m in moves:
                    ch = children.get(m)
                    if ch is not None:
                        ch.avail += 1
                st.play(pick)
                path.append(child)
                break
            best = None
            best_v = -math.inf
            best_m = -1
            for m in moves:
                ch = children[m]
                ch.avail += 1
                v = ch.w / ch.n + c * sqrt(log(ch.avail) / ch.n)
                if v > best_v:
                    best_v = v
                    best = ch
                    best_m = m
            assert best is not None
            st.play(best_m)
            path.append(best)
            node = best
        play_out_aware(st, me, shooters, hunters, dump, self_hunt, wary)
        # the utility of each seat with a node on the path (Hard's own alone unless the
        # opponents are searched too): the others' would be computed for nothing
        value: dict[int, float] = {}
        for ch in path:
            s = ch.seat
            u = value.get(s)
            if u is None:
                u = value[s] = (outcome(st, totals, s, target, True, moon_weight) if s == me
                                else outcome(st, totals, s, target, False))
            ch.n += 1
            ch.w += u
    return root


def settled(root: Node, left: int) -> bool:
    """Whether the root's most visited child stays the most visited whatever the ``left``
    iterations do (each adds one visit to one child): the choice is then made."""
    first = second = 0
    for ch in root.children.values():
        if ch.n > first:
            first, second = ch.n, first
        elif ch.n > second:
            second = ch.n
    return first - second > left


def rank(node: Node | None) -> tuple[int, float]:
    if node is None or not node.n:
        return (0, -math.inf)
    return (node.n, node.w / node.n)
