"""What the passes tell Hard about the hidden hands (engine.bots.passinfo), and the sampler
dealing by it."""

from __future__ import annotations

import math
import random
from functools import lru_cache

import pytest

from engine import Game, Phase, Rules
from engine.bots.medium import MediumBot
from engine.bots.passinfo import _tilt, pass_tilt
from engine.bots.sampling import DealSampler
from engine.cards import parse_card
from engine.referee import computer_turns
from engine.view import PlayerView

QS = int(parse_card("QS"))


def _after_passes(game: Game) -> Game:
    for _ in computer_turns(game, MediumBot()):
        if game.phase is Phase.PLAY:
            break
    return game


@lru_cache(maxsize=4)
def _passed_deals(players: int = 4, count: int = 100) -> list[tuple[Game, PlayerView, list[list[float]]]]:
    """Rounds after the careful player's passes (no hold rounds), seen by seat 0, with the tilt."""
    out = []
    for k in range(count):
        game = _after_passes(Game(Rules(players=players), seed=f"tilt {k}"))
        if game.phase is not Phase.PLAY or game.pass_direction.name == "NONE":
            continue
        view = game.view(0)
        tilt = pass_tilt(view)
        assert tilt is not None
        out.append((game, view, tilt))
    return out


def _room(view: PlayerView) -> dict[int, int]:
    """The unseen cards each other seat holds after the passes."""
    size = view.rules.hand_size
    return {s: size - (3 if s == view.pass_target else 0) for s in range(view.players) if s != view.seat}


def _share(view: PlayerView, tilt: list[list[float]], card: int, seat: int) -> float:
    """The chance of ``card`` being with ``seat`` by the tilt (each seat's room times its weight)."""
    room = _room(view)
    return room[seat] * tilt[card][seat] / sum(room[s] * tilt[card][s] for s in room)


def test_a_passer_that_gave_the_high_spades_but_not_the_queen_is_less_likely_to_hold_her() -> None:
    # a careful player short in spades passes the Q♠ before the A♠ or K♠: one that passed us
    # the A♠ or K♠ and not her holds her less often than its share of the unseen cards
    shares = []
    high = (1 << int(parse_card("AS"))) | (1 << int(parse_card("KS")))
    for _, view, tilt in _passed_deals():
        got = view.received
        assert got is not None and view.received_from is not None
        if got.mask >> QS & 1 or not got.mask & high or view.hand.mask >> QS & 1:
            continue
        room = _room(view)
        shares.append(_share(view, tilt, QS, view.received_from) - room[view.received_from] / sum(room.values()))
    assert len(shares) >= 20
    assert sum(shares) / len(shares) < -0.03


@pytest.mark.parametrize(("players", "deals", "cards", "gain"),
                         [(4, 100, 200, 0.03), (3, 50, 100, 0.1)])
def test_the_tilt_tells_where_the_cards_went_better_than_a_uniform_deal(
        players: int, deals: int, cards: int, gain: float) -> None:
    # over deals passed by the careful player, the true seat of each key card (the Q♠, A♠,
    # K♠, A♥, K♥) after the passes is likelier under the tilt than under a uniform deal, in
    # nats a card (the longer the hands, the more the pass tells)
    keys = [int(parse_card(c)) for c in ("QS", "AS", "KS", "AH", "KH")]
    tilted = uniform = 0.0
    count = 0
    for game, view, tilt in _passed_deals(players, deals):
        room = _room(view)
        for c in keys:
            if view.hand.mask >> c & 1:
                continue
            at = next(s for s in room if game.hands[s] >> c & 1)
            tilted += math.log(_share(view, tilt, c, at))
            uniform += math.log(room[at] / sum(room.values()))
            count += 1
    assert count > cards
    assert tilted / count > uniform / count + gain


def test_no_tilt_without_a_pass_with_two_decks_or_more_than_four_players() -> None:
    cases = [(Rules(), True), (Rules(passing=False), False), (Rules(players=3), True),
             (Rules(players=3, passing=False), False), (Rules(players=5), False),
             (Rules(players=6), False), (Rules(cancellation=True), False)]
    for rules, tilted in cases:
        game = _after_passes(Game(rules, seed=1))
        assert game.phase is Phase.PLAY
        view = game.view(0)
        assert (pass_tilt(view) is not None) is tilted
    # a hold round (the fourth of four players) passes nothing
    game = Game(Rules(), seed=1)
    while game.round_index < 3:
        for _ in computer_turns(game, MediumBot()):
            pass
        game.next_round()
    assert game.pass_direction.name == "NONE" and game.phase is Phase.PLAY
    assert pass_tilt(game.view(0)) is None


def test_the_tilt_is_the_same_for_the_same_knowledge() -> None:
    game = _after_passes(Game(Rules(), seed="same"))
    view = game.view(0)
    first = pass_tilt(view)
    _tilt.cache_clear()
    assert pass_tilt(view) == first


def _mid_views(count: int, rng: random.Random, players: int = 4) -> list[PlayerView]:
    views = []
    for k in range(count):
        game = Game(Rules(players=players), seed=f"mid {k}")
        stop = rng.randrange(4, 45)
        for i, _ in enumerate(computer_turns(game, MediumBot())):
            if i >= stop or game.phase is not Phase.PASS and game.phase is not Phase.PLAY:
                break
        if game.phase is Phase.PLAY and game.turn is not None:
            views.append(game.view(game.turn))
    return views


@pytest.mark.parametrize("players", [4, 3])
def test_a_tilted_deal_fits_the_view(players: int) -> None:
    """Every deal the tilted sampler gives holds the seat's own hand, the right number of cards
    per seat, none of a suit a seat has shown void in, the passed cards still unplayed with
    their receiver, and every unseen card exactly once."""
    rng = random.Random("fits")
    checked = 0
    for view in _mid_views(40, rng, players):
        tilt = pass_tilt(view)
        if tilt is None:
            continue
        sampler = DealSampler(view, infer=True, tilt=tilt)
        for _ in range(20):
            hands = sampler.sample(rng)
            assert hands[view.seat] == view.hand.mask
            seen = 0
            for s, h in enumerate(hands):
                assert h.bit_count() == view.hand_sizes[s]
                assert not seen & h
                seen |= h
                for suit in view.voids[s]:
                    assert not h >> (13 * int(suit)) & 0x1FFF
            assert seen == view.hand.mask | view.unseen.mask | view.passed_still_held.mask
            if view.pass_target is not None:
                assert hands[view.pass_target] & view.passed_still_held.mask == view.passed_still_held.mask
            checked += 1
    assert checked >= 200


def test_the_sampler_deals_a_card_where_the_tilt_puts_it() -> None:
    game = _after_passes(Game(Rules(), seed="where"))
    view = game.view(0)
    assert not view.hand.mask >> QS & 1 and view.pass_target is not None
    tilt = [[1.0] * 4 for _ in range(52)]
    tilt[QS] = [1.0, 1.0, 1.0, 1.0]
    other = next(s for s in (1, 2, 3) if s != view.pass_target)
    tilt[QS][other] = 40.0
    rng = random.Random(3)
    tilted = DealSampler(view, tilt=tilt)
    plain = DealSampler(view)
    there = sum(tilted.sample(rng)[other] >> QS & 1 for _ in range(400))
    there_plain = sum(plain.sample(rng)[other] >> QS & 1 for _ in range(400))
    assert there > 320 and there_plain < 200


def _record_tilts(monkeypatch: pytest.MonkeyPatch, module: object) -> list[list[list[float]] | None]:
    """The tilt of every sampler ``module`` makes from now on, in order."""
    tilts: list[list[list[float]] | None] = []

    class Recording(DealSampler):
        def __init__(self, view: PlayerView, infer: bool = False,
                     tilt: list[list[float]] | None = None) -> None:
            tilts.append(tilt)
            super().__init__(view, infer, tilt)

    monkeypatch.setattr(module, "DealSampler", Recording)
    return tilts


def _choice_after_passes(seed: str) -> tuple[Game, PlayerView]:
    """A game after the careful player's passes, at the first play with three legal cards or more."""
    game = _after_passes(Game(Rules(), seed=seed))
    for _ in computer_turns(game, MediumBot()):
        if len(game.view(game.to_act[0]).legal) > 2:
            break
    return game, game.view(game.to_act[0])


def test_the_servers_hard_deals_by_the_passes_and_hard27_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.arena import make_player
    from engine.bots import get_bot, hardis

    tilts = _record_tilts(monkeypatch, hardis)
    game, view = _choice_after_passes("server")
    rng = random.Random(1)
    small = {"is_budget": 2000, "min_iterations": 8, "max_iterations": 40}
    hardis.HardISBot(**small).choose_play(view, rng)  # type: ignore[arg-type]
    hardis.HardISBot(read_passes=False, **small).choose_play(view, rng)  # type: ignore[arg-type]
    assert tilts[0] == pass_tilt(view) and tilts[0] is not None and tilts[1] is None
    assert get_bot("hard").read_passes  # type: ignore[attr-defined]
    assert not make_player("hard27", game, None, 10).read_passes  # type: ignore[attr-defined]


def test_a_passer_of_low_cards_may_be_going_for_the_moon(monkeypatch: pytest.MonkeyPatch) -> None:
    # seat 3 holds the A♥ in a hand worth a moon and passes seat 0 its three lowest cards, as a
    # shooter does: read as a careful passer only, it held no high heart (the A♥ less likely
    # with it than a uniform deal says); with the passer going for the moon among the kinds
    # imagined, the A♥ is likelier with it than with anyone
    from engine.bots import passinfo
    from engine.bots.shooter import ShooterBot

    game = Game(Rules(), seed="moon 175")
    for _ in computer_turns(game, ShooterBot()):
        if game.phase is Phase.PLAY:
            break
    view = game.view(0)
    assert view.received_from == 3 and game.hands[3] >> int(parse_card("AH")) & 1
    assert view.received is not None and view.received.mask == sum(
        1 << int(parse_card(c)) for c in ("2C", "7C", "5H"))
    ah = int(parse_card("AH"))
    both = pass_tilt(view)
    assert both is not None and both[ah][3] > 1.5
    monkeypatch.setattr(passinfo, "PASSER_MOON", 0.0)
    _tilt.cache_clear()
    careful = pass_tilt(view)
    _tilt.cache_clear()
    assert careful is not None and careful[ah][3] < 1.0


def test_the_review_rates_a_play_on_the_deals_hards_tree_uses(monkeypatch: pytest.MonkeyPatch) -> None:
    # a hint is the server's Hard's card, chosen on deals tilted by the passes: the review
    # rates the same position on the same kind of deals, so the two judge alike
    from engine.bots import coach

    tilts = _record_tilts(monkeypatch, coach)
    _, view = _choice_after_passes("review")
    coach.rate_play(view, next(iter(view.legal)), random.Random(1), samples=8)
    assert tilts and tilts[0] is not None and tilts[0] == pass_tilt(view)
