"""The rollout simulator agrees with the rules engine: legal cards, turns, points, moons."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from engine import PRESETS, Game, Phase, Rules
from engine.bots.sampling import DealSampler, _shuffle
from engine.bots.sim import SimRound, view_dealer
from engine.cards import LOW, add_to, cards_of, iter_cards

from ..engine.helpers import seat_views
from .helpers import VARIANTS


def _random_passes(game: Game, rng: random.Random) -> None:
    if game.phase is Phase.PASS:
        for s in range(game.players):
            game.pass_cards(s, rng.sample(list(iter_cards(game.hands[s])), 3))


def _play_both(game: Game, st: SimRound, rng: random.Random) -> None:
    while game.phase is Phase.PLAY:
        assert not st.done
        assert st.turn == game.turn
        assert st.legal() == game.legal_mask & LOW
        assert st.hands == game.hands
        card = rng.choice(cards_of(game.legal_mask))
        game.play(game.turn, card)  # type: ignore[arg-type]
        st.play(card)
    assert st.done
    assert st.taken == game.taken_points
    if game.phase is Phase.MOON_CHOICE:
        shooter = game.pending_shooter
        assert st.shooter == shooter
        subtract = rng.random() < 0.5
        game.choose_moon(shooter, subtract)  # type: ignore[arg-type]
        assert st.points(subtract) == list(game.round_points[-1])
    else:
        assert st.shooter == (-1 if game.shooters[-1] is None else game.shooters[-1])
        assert st.points() == list(game.round_points[-1])


def _mid_rounds(rules: Rules, rng: random.Random, seeds: int) -> Iterator[Game]:
    """Games after random passes and a random number of random cards (those whose round
    ended meanwhile left out)."""
    for seed in range(seeds):
        game = Game(rules, seed=seed)
        _random_passes(game, rng)
        for _ in range(rng.randrange(0, len(rules.deck) // 2)):
            if game.phase is not Phase.PLAY:
                break
            game.play(game.turn, rng.choice(cards_of(game.legal_mask)))  # type: ignore[arg-type]
        if game.phase is Phase.PLAY:
            yield game


def _fields(st: SimRound) -> dict[str, object]:
    return {name: getattr(st, name) for name in SimRound.__slots__}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sim_matches_engine_from_the_deal(variant: str) -> None:
    rules = VARIANTS[variant]
    rng = random.Random(variant)
    for seed in range(40):
        game = Game(rules, seed=seed)
        _random_passes(game, rng)
        st = SimRound.start(rules, game.hands, game.dealer)
        assert st.moon_value == game.moon_value
        _play_both(game, st, rng)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_sim_matches_engine_from_a_view_mid_round(variant: str) -> None:
    """A round rebuilt from a seat's view plus the true hands plays on exactly like the game."""
    rules = VARIANTS[variant]
    rng = random.Random("mid " + variant)
    for game in _mid_rounds(rules, rng, 40):
        st = SimRound.from_view(game.view(game.turn), game.hands)  # type: ignore[arg-type]
        assert st.moon_value == game.moon_value
        assert st.pen_in_play == game._penalty_in_play
        _play_both(game, st, rng)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_redealt_round_is_the_round_read_from_the_view(variant: str) -> None:
    """A search reads a view once and deals it many times: each deal is what a fresh reading
    of the view with those hands gives, playing one deal changes no other, and the true
    hands count the cards in play as the engine does."""
    rules = VARIANTS[variant]
    rng = random.Random("redeal " + variant)
    for game in _mid_rounds(rules, rng, 30):
        view = game.view(game.turn)  # type: ignore[arg-type]
        sampler = DealSampler(view, infer=True)
        deal = view_dealer(view)
        first = deal(sampler.sample(rng))
        kept = {name: value[:] if isinstance(value, list) else value for name, value in _fields(first).items()}
        first.play(cards_of(first.legal())[0])
        for _ in range(4):
            hands = sampler.sample(rng)
            got, expected = deal(hands), SimRound.from_view(view, hands)
            assert _fields(got) == _fields(expected)
        assert deal(kept["hands"]).hands == kept["hands"]
        again = deal(kept["hands"])
        assert _fields(again) == kept
        truth = deal(game.hands)  # type: ignore[arg-type]
        assert (truth.moon_value, truth.pen_in_play) == (game.moon_value, game._penalty_in_play)


def test_moons_occur_and_agree() -> None:
    """Random play rarely shoots the moon, so force one: one seat wins every trick."""
    from engine import Rules
    for rules in (Rules(), Rules(shooters_choice=True), Rules(players=5, omnibus=True, spot_hearts=True)):
        hands = None
        seen_moon = False
        for seed in range(300):
            game = Game(rules, seed=seed)
            rng = random.Random(seed)
            _random_passes(game, rng)
            hands = list(game.hands)
            st = SimRound.start(rules, hands, game.dealer)
            # the seat holding most high cards plays its highest, the others their lowest
            while game.phase is Phase.PLAY:
                legal = cards_of(game.legal_mask)
                card = legal[-1] if game.turn == 0 else legal[0]
                game.play(game.turn, card)  # type: ignore[arg-type]
                st.play(card)
            if game.phase is Phase.MOON_CHOICE:
                game.choose_moon(game.pending_shooter, False)  # type: ignore[arg-type]
            if game.shooters[-1] is not None:
                seen_moon = True
            assert st.points() == list(game.round_points[-1])
        assert seen_moon, rules


def _greedy_by_the_book(sampler: DealSampler, rng: random.Random) -> list[int] | None:
    """DealSampler._greedy written with random.Random's own shuffle and randrange."""
    hands = sampler.fixed[:]
    room = sampler.room[:]
    for su in sampler.order:
        cards = sampler.by_suit[su][:]
        rng.shuffle(cards)
        options = [s for s in range(sampler.n + 1) if sampler.allowed[su] >> s & 1]
        for c in cards:
            total = sum(room[s] for s in options)
            if not total:
                return None
            r = rng.randrange(total)
            for s in options:
                r -= room[s]
                if r < 0:
                    break
            room[s] -= 1
            if s < sampler.n:
                hands[s] = add_to(hands[s], c, sampler.double)
    return hands


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_samplers_draws_are_random_randoms_own(variant: str) -> None:
    """The sampler writes out shuffle and randrange for speed; the same seed must still give
    the same deals as random.Random's own (Hard's decisions depend on them)."""
    rules = VARIANTS[variant]
    rng = random.Random("draws " + variant)
    for game in _mid_rounds(rules, rng, 20):
        sampler = DealSampler(game.view(game.turn))  # type: ignore[arg-type]
        for seed in range(5):
            assert sampler._greedy(random.Random(seed)) == _greedy_by_the_book(sampler, random.Random(seed))
            cards, mine = list(range(seed * 7 + 2)), random.Random(seed)
            shuffled = cards[:]
            _shuffle(shuffled, mine.getrandbits)
            theirs = random.Random(seed)
            theirs.shuffle(cards)
            assert shuffled == cards and mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_round_read_alone_is_the_round_a_shared_reading_deals(name: str) -> None:
    # view_round reads its one round without the dealer a search shares between deals:
    # every field the same, in every preset, one deck or two
    for _, v in seat_views(PRESETS[name], 2, 250, random.Random(name)):
        if v.phase is Phase.PLAY:
            hands = [0] * v.players
            hands[v.seat] = v.hand.mask
            shared, alone = SimRound.from_view(v, hands), SimRound.from_view(v, hands, share=False)
            assert {k: getattr(shared, k) for k in SimRound.__slots__} == {
                k: getattr(alone, k) for k in SimRound.__slots__}
