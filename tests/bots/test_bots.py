"""Every computer player: legal in every variant, honest, and unable to see the true state."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.bots
from engine import Game, Phase, Rules
from engine.bots import BOTS, BaseBot, get_bot
from engine.bots.hard import HardBot
from engine.cards import CardSet, multiset_sub
from engine.moves import PassMove, PlayMove

from .helpers import VARIANTS, Recorder, redeal


def small_hard() -> HardBot:
    return HardBot(budget=400, min_samples=2, max_samples=4)


def bots_under_test() -> dict[str, BaseBot]:
    return {"easy": get_bot("easy"), "medium": get_bot("medium"), "hard": small_hard()}


def test_registry() -> None:
    assert set(BOTS) == {"easy", "medium", "hard"}
    for name in BOTS:
        assert get_bot(name).name == name
        assert get_bot(name.upper()).name == name
    with pytest.raises(ValueError):
        get_bot("grandmaster")


def _check_and_apply(game: Game, bot: BaseBot, seat: int, rng: random.Random) -> None:
    view = game.view(seat)
    if game.phase is Phase.PASS:
        cards = bot.choose_pass(view, rng)
        assert isinstance(cards, CardSet) and len(cards) == 3
        assert multiset_sub(cards.mask, game.hands[seat]) == 0, "passes only cards it holds"
        game.pass_cards(seat, cards)
    elif game.phase is Phase.PLAY:
        card = bot.choose_play(view, rng)
        assert card in game.legal_cards()
        game.play(seat, card)
    else:
        subtract = bot.choose_moon(view, rng)
        assert isinstance(subtract, bool)
        game.choose_moon(seat, subtract)


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 10**6),
       lineup=st.lists(st.sampled_from(["easy", "medium", "hard"]), min_size=6, max_size=6))
def test_every_bot_makes_legal_moves_in_every_variant(variant: str, seed: int, lineup: list[str]) -> None:
    rules = VARIANTS[variant]
    game = Game(rules, seed=seed)
    bots = {"easy": get_bot("easy"), "medium": get_bot("medium"), "hard": small_hard()}
    rng = random.Random(seed)
    rounds = 0
    while not game.is_over and rounds < 2:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            rounds += 1
            continue
        seat = game.to_act[0]
        _check_and_apply(game, bots[lineup[seat]], seat, rng)


def test_each_bot_plays_whole_games_in_each_variant() -> None:
    """Not left to chance: every bot plays every seat of a short game in every variant,
    including the shooter's choice when a moon happens."""
    for name in sorted(VARIANTS):
        rules = VARIANTS[name].replace(target_score=40)
        for bot_name, bot in bots_under_test().items():
            game = Game(rules, seed=f"{name}/{bot_name}")
            rng = random.Random(name)
            while not game.is_over:
                if game.phase is Phase.ROUND_OVER:
                    game.next_round()
                    continue
                seat = game.to_act[0]
                _check_and_apply(game, bot, seat, rng)


def test_shooters_choice_is_decided_by_game_score() -> None:
    from engine.bots.policy import moon_subtract
    # adding 26 to the others ends the game with the shooter alone in the lead: add
    assert moon_subtract([60, 80, 90, 75], 0, 26, 100) is False
    # adding would end the game with someone else ahead: subtract
    assert moon_subtract([70, 40, 90, 75], 0, 26, 100) is True
    # nobody near the end, shooter behind: subtract
    assert moon_subtract([50, 10, 20, 30], 0, 26, 100) is True


# ---- honesty ------------------------------------------------------------------------------------


HONESTY_VARIANTS = ["standard", "three", "five", "six", "cutthroat", "house", "cancellation", "cancellation-five"]


@pytest.mark.parametrize("variant", HONESTY_VARIANTS)
def test_choices_do_not_depend_on_hidden_cards(variant: str) -> None:
    """Re-deal everything the seat cannot see (the other hands, the cards set aside and
    the other seats' passes) in ways consistent with its view; same seed, same choice."""
    rules = VARIANTS[variant]
    rng = random.Random("honesty " + variant)
    positions = 0
    redeals = 0
    kinds: set[str] = set()
    for seed in range(40):
        rec = Recorder(rules, seed)
        if not rec.advance_to_random_decision(rng):
            continue
        g = rec.game
        seat = g.to_act[0]
        view = g.view(seat)
        bots = bots_under_test()
        choices = {name: bot.decide(view, random.Random(seed)) for name, bot in bots.items()}
        positions += 1
        kinds.add(g.phase.value)
        for _ in range(2):
            alt = redeal(rec, seat, rng)
            if alt is None:
                continue
            redeals += 1
            alt_view = alt.view(seat)
            for name, bot in bots.items():
                assert bot.decide(alt_view, random.Random(seed)) == choices[name], (name, seed)
        if positions >= 10:
            break
    assert positions >= 8 and redeals >= 10, (positions, redeals)
    assert "play" in kinds


def test_redeal_really_moves_hidden_cards() -> None:
    """The honesty test is only as good as its re-deals: they must change other hands."""
    rng = random.Random(5)
    changed = 0
    for seed in range(20):
        rec = Recorder(Rules(), seed)
        if not rec.advance_to_random_decision(rng):
            continue
        g = rec.game
        if g.phase is not Phase.PLAY:
            continue
        seat = g.to_act[0]
        alt = redeal(rec, seat, rng)
        if alt is not None and alt.hands != g.hands:
            assert alt.hands[seat] == g.hands[seat]
            changed += 1
    assert changed >= 5


def test_hard_is_deterministic_for_a_seed() -> None:
    rec = Recorder(Rules(), 11)
    while rec.game.phase is not Phase.PLAY or len(rec.game.tricks) < 3:
        rec.step()
    view = rec.game.view(rec.game.turn)  # type: ignore[arg-type]
    bot = HardBot(budget=3000)
    picks = {bot.choose_play(view, random.Random(3)) for _ in range(3)}
    assert len(picks) == 1


# ---- no access to the true state ------------------------------------------------------------------


def test_bots_cannot_receive_a_game() -> None:
    game = Game(Rules(), seed=1)
    for bot in bots_under_test().values():
        for method in (bot.choose_pass, bot.choose_play, bot.choose_moon, bot.decide):
            with pytest.raises(TypeError):
                method(game, random.Random(1))  # type: ignore[arg-type]


def test_bots_package_does_not_import_the_true_state() -> None:
    """No module of engine.bots imports engine.state or names Game: they see views only."""
    root = Path(engine.bots.__file__).parent
    files = sorted(root.glob("*.py"))
    assert len(files) >= 7
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module not in ("state", "engine.state", "persist", "engine.persist"), path
                assert all(a.name != "Game" for a in node.names), path
            elif isinstance(node, ast.Import):
                assert all(a.name not in ("engine.state", "engine.persist") for a in node.names), path
            elif isinstance(node, ast.Name):
                assert node.id != "Game", path


def test_moves_are_the_right_kind() -> None:
    rec = Recorder(Rules(), 2)
    bot = get_bot("medium")
    g = rec.game
    assert isinstance(bot.decide(g.view(0), random.Random(0)), PassMove)
    while g.phase is not Phase.PLAY:
        rec.step()
    assert isinstance(bot.decide(g.view(g.turn), random.Random(0)), PlayMove)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        bot.choose_moon(g.view(0), random.Random(0))  # no moon to decide during play
