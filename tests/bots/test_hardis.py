"""Hard's play: an information-set tree search over its own cards (issue 14, eighth session)."""

from __future__ import annotations

import random

import pytest

from engine import Game, Phase, Rules
from engine.arena import SEAT_TYPES, make_player
from engine.bots import get_bot, hardis, tree
from engine.bots.hard import HardBot
from engine.bots.hardis import HardISBot
from engine.bots.sampling import DealSampler
from engine.bots.sim import SimRound
from engine.bots.tree import Node, moves_of, settled
from engine.cards import CardSet, parse_card

from .helpers import VARIANTS, Recorder, redeal
from .test_bots import HONESTY_VARIANTS
from .test_moon import moon_position


def small() -> HardISBot:
    return HardISBot(is_budget=2000, min_iterations=8, max_iterations=60, pass_budget=400, min_samples=2,
                     max_samples=4)


def test_it_is_the_servers_hard_and_passes_as_the_flat_search() -> None:
    assert isinstance(get_bot("hard"), HardISBot) and get_bot("hard").name == "hard"
    assert not get_bot("hard").opponents_tree  # type: ignore[attr-defined]
    for kind, cls in (("hard", HardISBot), ("hardis", HardISBot), ("hardflat", HardBot)):
        assert kind in SEAT_TYPES
        assert type(make_player(kind, Game(Rules(), seed=1), None, 1000)) is cls
    assert make_player("hardis", Game(Rules(), seed=1), None, 1000).name == "hardis"
    assert make_player("hardis", Game(Rules(), seed=1), None, 1000).opponents_tree  # type: ignore[attr-defined]
    assert make_player("hard", Game(Rules(), seed=1), 5000, 1000).is_budget == 5000  # type: ignore[attr-defined]
    rec = Recorder(Rules(), 4)
    view = rec.game.view(0)
    assert view.phase is Phase.PASS
    assert HardISBot().choose_pass(view, random.Random(2)) == HardBot().choose_pass(view, random.Random(2))


@pytest.mark.parametrize("variant", ["standard", "three", "five", "house", "cancellation", "cancellation-six"])
def test_it_plays_only_legal_cards_through_whole_rounds(variant: str) -> None:
    rules = VARIANTS[variant]
    game = Game(rules, seed=f"hardis {variant}")
    bot = small()
    rng = random.Random(variant)
    while game.phase is not Phase.ROUND_OVER and not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        if game.phase is Phase.PLAY:
            card = bot.choose_play(view, rng)
            assert card in game.legal_cards()
            game.play(seat, card)
        elif game.phase is Phase.PASS:
            game.pass_cards(seat, bot.choose_pass(view, rng))
        else:
            game.choose_moon(seat, bot.choose_moon(view, rng))


def test_the_same_seed_gives_the_same_card() -> None:
    rec = Recorder(Rules(), 11)
    while rec.game.phase is not Phase.PLAY or len(rec.game.tricks) < 3:
        rec.step()
    view = rec.game.view(rec.game.turn)  # type: ignore[arg-type]
    picks = set()
    visits = set()
    for _ in range(3):
        bot = HardISBot(is_budget=8000)
        picks.add(bot.choose_play(view, random.Random(3)))
        root = bot.search(view, sorted(int(c) for c in view.legal), random.Random(3))
        visits.add(tuple(sorted((m, ch.n, round(ch.w, 9)) for m, ch in root.children.items())))
    assert len(picks) == 1 and len(visits) == 1


@pytest.mark.parametrize("variant", HONESTY_VARIANTS)
def test_its_choices_do_not_depend_on_hidden_cards(variant: str) -> None:
    """As tests/bots/test_bots.py checks every bot: re-deal what the seat cannot see,
    consistently with its view; the same seed gives the same play."""
    rules = VARIANTS[variant]
    rng = random.Random("hardis honesty " + variant)
    plays = 0
    redeals = 0
    for seed in range(60):
        rec = Recorder(rules, seed)
        if not rec.advance_to_random_decision(rng):
            continue
        g = rec.game
        if g.phase is not Phase.PLAY or len(g.legal_cards()) < 2:
            continue
        seat = g.to_act[0]
        choice = small().decide(g.view(seat), random.Random(seed))
        plays += 1
        for _ in range(2):
            alt = redeal(rec, seat, rng)
            if alt is None:
                continue
            redeals += 1
            assert small().decide(alt.view(seat), random.Random(seed)) == choice, seed
        if plays >= 6:
            break
    assert plays >= 4 and redeals >= 6, (plays, redeals)


def test_it_cannot_receive_a_game() -> None:
    with pytest.raises(TypeError):
        small().choose_play(Game(Rules(), seed=1), random.Random(1))  # type: ignore[arg-type]


def test_it_takes_the_cheap_stop_of_a_moon() -> None:
    """The position of tests/bots/test_moon.py: only the 10♦ takes the trick (one point) and
    ends a moon well on its way."""
    view = moon_position().view(3)
    assert str(view.legal) == str(CardSet("3D 5D 6D 7D TD"))
    for seed in range(3):
        assert HardISBot().choose_play(view, random.Random(seed)) == parse_card("TD")


def test_cards_that_play_the_same_are_one_move() -> None:
    view = moon_position().view(3)
    st = SimRound.from_view(view, DealSampler(view).sample(random.Random(1)))
    # 5♦ 6♦ 7♦ play the same (the 4♦ is out below them, the 8♦ on the table above them)
    assert moves_of(st) == [int(parse_card(c)) for c in ("3D", "5D", "TD")]


def visits(root: Node) -> int:
    return sum(ch.n for ch in root.children.values())


def test_it_searches_only_its_own_cards() -> None:
    view = moon_position().view(3)
    bot = HardISBot()
    root = bot.search(view, [int(parse_card(c)) for c in ("3D", "5D", "TD")], random.Random(0))
    seats = set()
    stack = list(root.children.values())
    while stack:
        node = stack.pop()
        if node.n:
            seats.add(node.seat)
        stack.extend(node.children.values())
    assert seats == {3}
    for seed in range(3):
        assert bot.choose_play(view, random.Random(seed)) == parse_card("TD")


def test_a_choice_is_settled_when_no_other_card_can_catch_up() -> None:
    root = Node(-1)
    for card, n in ((1, 10), (2, 3), (3, 1)):
        root.children[card] = Node(0)
        root.children[card].n = n
    assert settled(root, 6) and not settled(root, 7)
    root.children[4] = Node(0)
    root.children[4].n = 10
    assert not settled(root, 0)  # a tie is never settled


def test_it_stops_once_the_choice_is_settled_and_plays_the_same_card(monkeypatch: pytest.MonkeyPatch) -> None:
    view = moon_position().view(3)
    cands = [int(parse_card(c)) for c in ("3D", "5D", "TD")]
    bot = HardISBot(is_budget=10**9, max_iterations=600)
    early = bot.search(view, cands, random.Random(4))
    monkeypatch.setattr(tree, "settled", lambda root, left: False)
    full = bot.search(view, cands, random.Random(4))
    assert visits(full) == 600 and visits(early) < 600
    assert max(cands, key=lambda m: tree.rank(early.children.get(m))) == int(parse_card("TD"))
    assert max(cands, key=lambda m: tree.rank(full.children.get(m))) == int(parse_card("TD"))


def test_a_search_ends_at_its_cpu_cap() -> None:
    view = moon_position().view(3)
    cands = [int(parse_card(c)) for c in ("3D", "5D", "TD")]
    root = HardISBot(max_seconds=0.0).search(view, cands, random.Random(0))
    assert visits(root) == tree.SETTLED_EVERY


def test_the_cap_on_iterations_goes_with_the_budget_unless_given() -> None:
    assert HardISBot().max_iterations == hardis.MAX_ITERATIONS
    before = HardISBot(is_budget=hardis.FORMER_BUDGET)
    assert before.max_iterations == hardis.FORMER_MAX_ITERATIONS
    assert HardISBot(is_budget=hardis.IS_BUDGET * 3).max_iterations == hardis.MAX_ITERATIONS * 3
    assert HardISBot(is_budget=10, min_iterations=8).max_iterations == 8  # floored at the minimum
    assert HardISBot(is_budget=10, max_iterations=600).max_iterations == 600  # given: kept
