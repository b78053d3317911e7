"""Shared helpers for the engine tests: exact deals, scripted play, random play, snapshots."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine import (
    Card,
    CardSet,
    Game,
    MoonMove,
    Move,
    NextRound,
    PassMove,
    Phase,
    PlayerView,
    PlayMove,
    Rules,
    dumps,
)
from engine.cards import add_card, iter_cards, multiset_sub
from engine.events import Event

NO_PASS = Rules(passing=False)


def deck_mask(rules: Rules) -> int:
    """The round's deck as a multiset mask (two copies of each card for Cancellation)."""
    m = 0
    for c in rules.deck:
        m = add_card(m, c)
    return m


def deal(rules: Rules, *hands: str, aside: str = "") -> list[CardSet]:
    """Complete partial hands into a full deal.

    The listed cards stay where they are put; ``aside`` names cards to leave undealt
    (Cancellation with 3, 5 or 6 players); every other card of the deck fills the hands
    in ascending order, seat 0 first, so a test can predict who holds what.
    """
    n = rules.players
    given = [CardSet(h).mask for h in hands] + [0] * (n - len(hands))
    rest = multiset_sub(deck_mask(rules), CardSet(aside).mask)
    for h in given:
        if multiset_sub(h, rest):
            raise ValueError(f"{CardSet.from_mask(h)} is not available in this deck")
        rest = multiset_sub(rest, h)
    pool = list(iter_cards(rest))
    out = []
    for h in given:
        need = rules.hand_size - h.bit_count()
        if need < 0:
            raise ValueError(f"{CardSet.from_mask(h)} is more than {rules.hand_size} cards")
        for c in pool[:need]:
            h = add_card(h, c)
        pool = pool[need:]
        out.append(CardSet.from_mask(h))
    if len(pool) + len(CardSet(aside)) != len(rules.deck) - n * rules.hand_size:
        raise ValueError("the deal does not use the deck as expected")
    return out


def game_with(rules: Rules, *hands: str, aside: str = "", more: int = 0) -> Game:
    """A game whose first round is dealt as :func:`deal` describes (``more`` extra
    rounds repeat that deal)."""
    d = deal(rules, *hands, aside=aside)
    return Game(rules, seed=1, deals=[d] * (1 + more))


def play(game: Game, cards: str) -> list[Event]:
    """Play the given cards in turn order, whoever is to play."""
    events: list[Event] = []
    for code in cards.split():
        assert game.turn is not None, f"nobody is to play {code}"
        events += game.play(game.turn, code)
    return events


def play_lowest(game: Game, count: int = 1) -> list[Event]:
    """``count`` times, the seat to play plays its lowest legal card."""
    events: list[Event] = []
    for _ in range(count):
        assert game.turn is not None, "nobody is to play"
        events += game.play(game.turn, game.legal_cards()[0])
    return events


def play_tricks(game: Game, *tricks: str) -> list[Event]:
    events: list[Event] = []
    for t in tricks:
        events += play(game, t)
    return events


def random_move(game: Game, rng: random.Random) -> Move:
    """A uniformly chosen legal move of some seat that may act."""
    if game.phase is Phase.PASS:
        seat = rng.choice(game.to_act)
        return PassMove(seat, CardSet(rng.sample(list(iter_cards(game.hands[seat])), 3)))
    if game.phase is Phase.PLAY:
        return PlayMove(game.turn, rng.choice(game.legal_cards()))  # type: ignore[arg-type]
    if game.phase is Phase.MOON_CHOICE:
        return MoonMove(game.pending_shooter, rng.random() < 0.5)  # type: ignore[arg-type]
    if game.phase is Phase.ROUND_OVER:
        return NextRound()
    raise AssertionError("the game is over")


def play_round(game: Game, rng: random.Random) -> list[Event]:
    """Random legal moves until the round is scored (or the moon choice is pending)."""
    events: list[Event] = []
    start = game.round_index
    while game.round_index == start and game.phase in (Phase.PASS, Phase.PLAY):
        events += game.apply(random_move(game, rng))
    return events


def play_policy(game: Game, high: frozenset[int] | set[int] = frozenset()) -> list[Event]:
    """Play until the round's play ends: seats in ``high`` play their highest legal card,
    the others their lowest (a fixed policy, so scripted deals play out predictably)."""
    events: list[Event] = []
    while game.phase is Phase.PLAY:
        legal = game.legal_cards()
        seat: int = game.turn  # type: ignore[assignment]
        events += game.play(seat, legal[-1] if seat in high else legal[0])
    return events


def assert_refused(game: Game, act: Callable[[], object], error: type[Exception], match: str | None = None,
                   rule: str | None = None) -> None:
    """``act`` raises ``error`` (its message matching ``match``, its ``rule`` when given)
    and changes nothing observable about ``game``."""
    before = snapshot(game)
    with pytest.raises(error, match=match) as info:
        act()
    if rule is not None:
        assert getattr(info.value, "rule", None) == rule
    assert snapshot(game) == before


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything observable about a game, to show an error changed nothing."""
    return (
        dumps(game),
        [game.view(s).to_dict() for s in range(game.players)],
        game.phase, game.to_act, game.legal_mask, list(game.hands), list(game.passes),
        list(game.trick), list(game.tricks), list(game.totals), game.hearts_broken, list(game.voids),
    )


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card(c) for c in text.split())


def seat_views(rules: Rules, seeds: int, moves: int, rng: random.Random) -> Iterator[tuple[Game, PlayerView]]:
    """Every seat's view at every moment of ``seeds`` random games of ``rules`` (each cut
    after ``moves`` moves), with the game it is a view of."""
    for seed in range(seeds):
        g = Game(rules, seed=seed)
        while not g.is_over and g.move_count < moves:
            for seat in range(g.players):
                yield g, g.view(seat)
            g.apply(random_move(g, rng))
