"""How Hard imagines the rest of a round and judges its outcome: the rollouts.

Every seat's later cards are the careful player's (:mod:`.policy`), with the habits Hard
imagines its opponents to have (shooting the moon, hunting the queen, giving the Q♠ to a K♠
or A♠; :class:`~engine.bots.hard.OpponentModel` draws them per sampled deal), and the finished
round is scored as Hard's utility: the others' points minus its own, a moon by someone else
counted as worse than its points, the opponent nearest to winning weighted more once the game
may end this round, plus a bonus or a penalty when the round ends the game.  Hard's flat
search (:mod:`.hard`), its tree search (:mod:`.hardis`) and the coach's ratings
(:mod:`.coach`) all play their rollouts with these functions: the hot path of every Hard
decision, kept in a module of plain functions over :class:`~engine.bots.sim.SimRound`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import multiset_add, multiset_sub
from ..rules import PassDirection
from .policy import choose_card, moon_subtract, shoot_card
from .shooter import going_for_moon
from .sim import SimRound

GAME_END_WEIGHT = 10.0
"""Points of score margin a won (or lost) game is worth on top of the round's margin."""
MOON_WEIGHT = 8.0
"""Points of margin a moon shot by someone else costs on top of its points: the rollouts
cannot play the shooter's opponents perfectly, and a missed stop costs 26 at once."""
LEADER_WEIGHT = 2.0
"""Once the game may end this round, the points of the opponent nearest to winning count
this many times as much as another opponent's."""


def utility(points: Sequence[int], totals: Sequence[int], me: int, target: int, moon_value: int,
            shooter: int = -1, aware: bool = False, moon_weight: float = MOON_WEIGHT) -> float:
    """Our outcome of a round's ``points``; with ``aware``, the moon and the game leader
    weigh more (see the module's description).  ``moon_value`` is the round's moon (26 with
    one deck, more with Omnibus or two decks): the game may end this round once someone's
    total and it reach the target."""
    n = len(points)
    mine = points[me]
    if aware and n > 2 and max(totals) + moon_value >= target:
        lead = min(t for i, t in enumerate(totals) if i != me)
        wsum = 0.0
        acc = 0.0
        for i in range(n):
            if i != me:
                w = LEADER_WEIGHT if totals[i] == lead else 1.0
                wsum += w
                acc += w * points[i]
        u = acc / wsum - mine
    else:
        u = (sum(points) - mine) / (n - 1) - mine
    if aware and shooter >= 0 and shooter != me:
        u -= moon_weight
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
    return outcome(st, totals, me, target, False)


def after_passes(hands: Sequence[int], passes: Sequence[int], direction: PassDirection,
                 double: bool) -> list[int]:
    """Each seat's hand once every seat's pass has reached its target (``double``: two
    decks, where a hand may hold a card twice)."""
    n = len(hands)
    after = [multiset_sub(h, p) for h, p in zip(hands, passes, strict=True)]
    for s, p in enumerate(passes):
        t = direction.target(s, n)
        after[t] = multiset_add(after[t], p) if double else after[t] | p
    return after


def play_out_aware(st: SimRound, me: int, shooters: int = -1, hunters: int = -1, dump: bool = False,
                   hunt: bool = False, wary: int = 0) -> None:
    """Play ``st`` to the end of the hand as Hard imagines it: ``me`` carefully, the
    opponents in ``shooters`` (a mask of seats; all by default) shooting the moon when it
    is plausible, those in ``hunters`` hunting the queen, all of them careful otherwise;
    with ``dump``, every seat last to play on a spade trick won by another's K♠ or A♠ gives
    it the Q♠; with ``hunt``, ``me`` hunts the queen too (leads low spades while the K♠ or A♠
    it holds are outnumbered by its spades below her); the opponents in ``wary`` (a mask of
    seats) keep their penalty cards off ``me``'s tricks once ``me`` nears a moon
    (``policy.choose_card``'s ``wary``)."""
    play = st.play
    while not st.done:
        if st.turn == me:
            play(choose_card(st, hunt, guard=True, dump=dump))
        else:
            play(opponent_card(st, shooters, hunters, dump, me, wary))


def opponent_card(st: SimRound, shooters: int, hunters: int, dump: bool = False, watch: int = -1,
                  wary: int = 0) -> int:
    """The card Hard expects from the opponent whose turn it is in ``st``, in its rollouts and its
    tree alike: a shooter's while the opponent is in ``shooters``, has taken every penalty
    card so far and its hand still looks strong enough, else a careful player's (hunting the
    queen if it is in ``hunters``; ``dump`` as in :func:`play_out_aware`; wary of the seat
    ``watch`` nearing a moon if it is in ``wary``, as in ``policy.choose_card``)."""
    s = st.turn
    if shooters >> s & 1:
        pen_taken = st.pen_taken
        k = pen_taken[s]
        # going_for_moon checks k == sum(pen_taken) too; testing it here first spares the call
        # on the rollouts' hot path (1-2 % of their time, issue 14's twenty-fourth session)
        if k and k == sum(pen_taken) and going_for_moon(st, s):
            return shoot_card(st)
    return choose_card(st, bool(hunters >> s & 1), dump=dump, wary=watch if wary >> s & 1 else -1)


def rollout_aware(st: SimRound, totals: Sequence[int], me: int, target: int,
                  habits: tuple[int, int, float] = (-1, -1, MOON_WEIGHT), dump: bool = False,
                  hunt: bool = False, wary: int = 0) -> float:
    """Like :func:`rollout`, but the simulated opponents shoot the moon and hunt the queen
    (``habits``: the seats that may shoot, those that hunt, and the moon's weight; see
    :class:`~engine.bots.hard.OpponentModel`), and the outcome is judged with the moon and the game leader in
    mind; ``dump``, ``hunt`` and ``wary`` as in :func:`play_out_aware`."""
    shooters, hunters, moon_weight = habits
    play_out_aware(st, me, shooters, hunters, dump, hunt, wary)
    return outcome(st, totals, me, target, True, moon_weight)


def outcome(st: SimRound, totals: Sequence[int], me: int, target: int, aware: bool,
            moon_weight: float = MOON_WEIGHT) -> float:
    """Our utility of the finished round ``st``: a moon is scored with the shooter's choice
    as the shooter would make it (when the rules offer one)."""
    subtract = False
    if st.shooter >= 0 and st.t.shooters_choice:
        subtract = moon_subtract(totals, st.shooter, st.moon_value, target)
    return utility(st.points(subtract), totals, me, target, st.moon_value, st.shooter, aware, moon_weight)
