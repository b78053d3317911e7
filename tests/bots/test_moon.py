"""Issue 14: the shooter opponent, Hard's moon defence, its passes and its budget."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from engine import Game, Phase, Rules
from engine.bots.base import view_round
from engine.bots.hard import HardBot, high_stakes
from engine.bots.medium import MediumBot
from engine.bots.policy import (
    MOON_THREAT_SHARE,
    QS_BIT,
    expected_winners,
    hard_pass_candidates,
    moon_threat,
    only_taker,
    pass_candidates,
)
from engine.bots.shooter import ShooterBot, going_for_moon, moon_pass
from engine.cards import CardSet, parse_card
from engine.referee import computer_turns
from engine.rules import PassDirection


def mask(text: str) -> int:
    return CardSet(text).mask


# A round without passing where seat 0 has taken every penalty card so far (the Q♠ and a
# heart), leads the 8♦, seat 1 (void) throws the A♥ on it and seat 2 follows with the 2♦:
# seat 3 holds 3♦ 5♦ 6♦ 7♦ 10♦, and only the 10♦ takes the trick, for one point, and ends
# the moon that seat 0's hand (♦A K, ♥K Q J, ♠A K J) is otherwise well on the way to.
MOON_HANDS = [
    "3C AC KC QC 8D AD KD KH QH JH AS KS JS",
    "AH TH 9H 8H 7H QS TS 9S 8S 7S 6S 5S 4S",
    "2C 4C 5C 6C 7C 2D 4D 9D JD QD 2H 3H 2S",
    "8C 9C TC JC 3D 5D 6D 7D TD 4H 5H 6H 3S",
]
MOON_MOVES = [(2, "2C"), (3, "8C"), (0, "AC"), (1, "4S"), (0, "KC"), (1, "QS"), (2, "4C"), (3, "9C"),
              (0, "QC"), (1, "TH"), (2, "5C"), (3, "TC"), (0, "8D"), (1, "AH"), (2, "2D")]


def moon_position() -> Game:
    g = Game(Rules(passing=False), seed=1, deals=[MOON_HANDS])
    for seat, card in MOON_MOVES:
        g.play(seat, card)
    return g


def test_hard_takes_the_cheap_stop_of_a_moon() -> None:
    view = moon_position().view(3)
    assert str(view.legal) == str(CardSet("3D 5D 6D 7D TD"))
    assert view.taken_points == (14, 0, 0, 0)
    for seed in range(3):
        assert HardBot().choose_play(view, random.Random(seed)) == parse_card("TD")


def test_hard_before_issue_14_ducked_the_same_trick() -> None:
    """The yardstick (seat type hard0) still plays as Hard did: it lets the moon run."""
    view = moon_position().view(3)
    assert HardBot(classic=True).choose_play(view, random.Random(0)) == parse_card("3D")


def test_the_position_is_a_moon_threat_with_high_stakes() -> None:
    g = moon_position()
    assert high_stakes(g.view(3))
    st = view_round(g.view(0))
    assert going_for_moon(st, 0)  # seat 0, seen from its own view, would keep going


def test_shooter_goes_for_the_moon_only_while_nobody_else_has_points() -> None:
    g = moon_position()
    g.play(3, "3D")  # seat 0 takes the A♥ too
    view = g.view(0)
    st = view_round(view)
    assert going_for_moon(st, 0)
    card = ShooterBot().choose_play(view, random.Random(1))
    # it leads a sure winner (the A♦ or K♦ clears the diamonds, the A♠/K♠ the spades…)
    assert card in CardSet("AD KD AS KS")
    st.pen_taken[2] = 1  # once someone else holds a penalty card, no moon
    assert not going_for_moon(st, 0)


def test_shooter_passes_its_lowest_cards_with_a_strong_hand() -> None:
    strong = mask("AC KC QC JC AD KD QD AH KH QH JH 2S 3S")
    assert moon_pass(strong, Rules()) == mask("2S 3S JC")
    weak = mask("2C 5C 9C 3D 7D TD 4H 6H 8H 2S 5S 9S QS")
    assert moon_pass(weak, Rules()) is None
    g = Game(Rules(), seed=3)
    g.hands[0] = weak  # a weak hand passes like Medium
    view = g.view(0)
    assert ShooterBot().choose_pass(view, random.Random(0)) == MediumBot().choose_pass(view, random.Random(0))


def test_expected_winners_counts_top_cards_and_long_suits() -> None:
    out = ((1 << 52) - 1) & ~mask("AC KC QC 2D")
    assert expected_winners(mask("AC KC QC 2D"), out) == 3
    # seven hearts from the ace down: the others hold six between them, all lower
    hearts = mask("AH KH QH 5H 4H 3H 2H")
    assert expected_winners(hearts, ((1 << 52) - 1) & ~hearts) == 7
    # the careful player counts only sure winners: the Q♥ under a K♥ still out is not one
    aq = mask("AH QH")
    assert expected_winners(aq, ((1 << 52) - 1) & ~aq) == 2
    assert expected_winners(aq, ((1 << 52) - 1) & ~aq, sure=True) == 1
    assert expected_winners(hearts, ((1 << 52) - 1) & ~hearts, sure=True) == 3


def test_expected_winners_agrees_with_its_definition_on_random_hands() -> None:
    """The count walks the hand's bits; written here the plain way (each suit's cards from
    the top) it must give the same on any hand and any cards out."""
    def by_the_book(hand: int, out: int, sure: bool) -> int:
        winners = 0
        for suit in range(4):
            mine = sorted((c for c in range(13 * suit, 13 * suit + 13) if hand >> c & 1), reverse=True)
            theirs = [c for c in range(13 * suit, 13 * suit + 13) if out >> c & 1]
            top = sum(1 for i, c in enumerate(mine) if sum(t > c for t in theirs) <= (0 if sure else i))
            winners += top if sure or top * 2 < len(theirs) else len(mine)
        return winners

    rng = random.Random(14)
    for _ in range(2000):
        cards = rng.sample(range(52), 52)
        hand = sum(1 << c for c in cards[:rng.randrange(14)])
        out = sum(1 << c for c in cards[13:13 + rng.randrange(40)])
        for sure in (False, True):
            assert expected_winners(hand, out, sure) == by_the_book(hand, out, sure)


def test_moon_threat_and_only_taker_agree_with_their_definitions() -> None:
    """Both read the penalty cards each seat has taken from their sum; seat by seat, the
    plain way, they must say the same for any counts at any table size."""
    def threat_by_the_book(taken: list[int], points: list[int], moon_value: int, me: int) -> int:
        takers = [s for s, k in enumerate(taken) if k]
        if len(takers) != 1 or takers[0] == me:
            return -1
        num, den = MOON_THREAT_SHARE
        return takers[0] if points[takers[0]] * den >= moon_value * num else -1

    rng = random.Random(15)
    for _ in range(3000):
        n = rng.randint(3, 6)
        taken = [rng.choice((0, 0, 0, 1, 2, 5)) for _ in range(n)]
        points = [k * rng.randint(1, 3) for k in taken]
        st = SimpleNamespace(pen_taken=taken, pen_points=points, moon_value=rng.choice((26, 36, 52)))
        for me in range(n):
            assert moon_threat(st, me) == threat_by_the_book(taken, points, st.moon_value, me)
            assert only_taker(st, me) == all(not k for s, k in enumerate(taken) if s != me)


def test_shooters_shoot_the_moon_against_medium() -> None:
    """Three shooters against Medium over a few deals: they do shoot (the arena opponent
    that measures moon defence must really try), deterministically from the seed."""
    moons = []
    for seed in range(12):
        g = Game(Rules(), seed=f"shoot {seed}")
        players = {0: MediumBot(), 1: ShooterBot(), 2: ShooterBot(), 3: ShooterBot()}
        for _ in computer_turns(g, players):
            pass
        assert g.phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
        moons.append(g.shooters[-1])
    assert any(s is not None and s != 0 for s in moons)


def test_hard_can_pass_the_queen_across() -> None:
    hand = mask("QS 2C 3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 6D")  # a singleton Q♠
    old = pass_candidates(hand, Rules(), PassDirection.ACROSS)
    new = hard_pass_candidates(hand, Rules(), PassDirection.ACROSS)
    assert not any(m & QS_BIT for m in old)  # Hard before issue 14 never even tried
    assert any(m & QS_BIT for m in new)
    assert new[0] == old[0]  # the careful player's pass is still among them, first
    assert all(m.bit_count() == 3 and m & ~hand == 0 for m in new)


def test_new_hard_is_deterministic_for_a_seed_in_passes_and_plays() -> None:
    g = Game(Rules(), seed=21)
    view = g.view(1)
    bot = HardBot(budget=3000, pass_budget=4000)
    assert len({bot.choose_pass(view, random.Random(4)) for _ in range(2)}) == 1
    pos = moon_position().view(3)
    assert len({HardBot(budget=3000).choose_play(pos, random.Random(9)) for _ in range(2)}) == 1


@pytest.mark.parametrize("classic", [False, True])
def test_hard_plays_whole_rounds_against_shooters(classic: bool) -> None:
    g = Game(Rules(), seed="vs shooters")
    players = {0: HardBot(budget=1500, pass_budget=1500, classic=classic), 1: ShooterBot(), 2: ShooterBot(),
               3: ShooterBot()}
    steps = list(computer_turns(g, players))
    assert not any(s.stood_in for s in steps)
    assert sum(g.round_points[-1]) in (26, 78)


def test_a_free_discard_says_the_seat_has_no_queen_or_high_heart() -> None:
    from engine.bots.sampling import DealSampler, discard_inference
    g = moon_position()
    g.play(3, "3D")
    # seat 1 threw the 4♠ on the first trick (no points allowed there: no inference), the
    # Q♠, the 10♥ and the A♥ later (all worth points): nothing to infer about it yet
    assert discard_inference(g.view(3)) == [0, 0, 0, 0]
    g = Game(Rules(passing=False), seed=1, deals=[MOON_HANDS])
    for seat, card in [(2, "2C"), (3, "8C"), (0, "AC"), (1, "4S"), (0, "KC"), (1, "5S")]:
        g.play(seat, card)  # seat 1, void in clubs, throws a spade worth nothing
    view = g.view(3)
    avoid = discard_inference(view)
    assert avoid[1] == mask("QS JH QH KH AH") and avoid[0] == avoid[2] == avoid[3] == 0
    sampler = DealSampler(view, infer=True)
    rng = random.Random(2)
    held = sum(bool(sampler.sample(rng)[1] & avoid[1]) for _ in range(50))
    plain = DealSampler(view)
    held_plain = sum(bool(plain.sample(rng)[1] & avoid[1]) for _ in range(50))
    assert held < held_plain  # the inference moves those cards away from seat 1


def test_outcome_weighs_a_moon_and_near_the_end_the_leader() -> None:
    from engine.bots.rollouts import utility
    totals = [40, 30, 60, 50]  # nobody near 100: the moon weight alone decides
    moon = [26, 0, 26, 26]
    take_17 = [17, 0, 9, 0]
    assert utility(moon, totals, 0, 100, 26) > utility(take_17, totals, 0, 100, 26)  # the old measure let it run
    assert utility(moon, totals, 0, 100, 26, shooter=1, aware=True) < utility(take_17, totals, 0, 100, 26, aware=True)
    near = [70, 50, 60, 74]  # the game may end this round: seat 1, the leader, counts double
    to_leader = utility([0, 10, 0, 0], near, 0, 100, 26, aware=True)
    to_other = utility([0, 0, 10, 0], near, 0, 100, 26, aware=True)
    assert to_leader == 5.0 and to_other == 2.5
    assert utility([0, 10, 0, 0], near, 0, 100, 26) == utility([0, 0, 10, 0], near, 0, 100, 26)


def test_outcome_near_the_end_counts_the_rounds_moon_value() -> None:
    """Whether the game may end this round depends on the round's moon, not on 26: with
    two decks (a moon of 52) a leader at 55 may reach 100 this round, with one deck not."""
    from engine.bots.rollouts import utility
    totals = [50, 40, 45, 55]
    one_deck = [utility([0, 0, 0, 10], totals, 0, 100, 26, aware=True),
                utility([0, 10, 0, 0], totals, 0, 100, 26, aware=True)]
    two_decks = [utility([0, 0, 0, 10], totals, 0, 100, 52, aware=True),
                 utility([0, 10, 0, 0], totals, 0, 100, 52, aware=True)]
    assert one_deck[0] == one_deck[1]  # nobody can reach 100: points to anyone count alike
    assert two_decks[0] < two_decks[1]  # seat 1 leads the game: its points count more
    assert two_decks == [2.5, 5.0]


def test_hard0_keeps_the_budget_it_was_measured_with() -> None:
    """The arena's yardstick thinks as long as Hard did before issue 14, whatever Hard's
    default budget becomes, and explicit settings win over both."""
    from engine.bots.hard import BUDGET, CLASSIC_BUDGET
    old = HardBot(classic=True)
    new = HardBot()
    assert (old.budget, old.pass_budget, old.max_samples) == CLASSIC_BUDGET == (40000, 60000, 400)
    assert (new.budget, new.pass_budget, new.max_samples) == BUDGET
    mine = HardBot(budget=500, pass_budget=600, max_samples=7, classic=True)
    assert (mine.budget, mine.pass_budget, mine.max_samples) == (500, 600, 7)


def test_the_opponent_model_follows_what_the_table_has_shown() -> None:
    from engine.bots.hard import HUNT_PRIOR, MOON_PRIOR, QUIET_MOON_WEIGHT, OpponentModel
    from engine.bots.rollouts import MOON_WEIGHT
    # nothing shown yet (the pass): every opponent may try the moon or hunt, with the priors
    g = Game(Rules(), seed=21)
    m = OpponentModel.of(g.view(1))
    assert m.shoot == (MOON_PRIOR, 0.0, MOON_PRIOR, MOON_PRIOR) and m.hunt == (HUNT_PRIOR, 0.0, HUNT_PRIOR, HUNT_PRIOR)
    assert m.moon_weight == QUIET_MOON_WEIGHT
    # seat 0 has taken every penalty card so far: it is shooting, a moon weighs fully, and
    # the others cannot shoot any more
    m = OpponentModel.of(moon_position().view(3))
    assert m.shoot == (1.0, 0.0, 0.0, 0.0) and m.moon_weight == MOON_WEIGHT
    # once the points are spread nobody can shoot, and the weight is back to quiet
    g = moon_position()
    g.play(3, "TD")
    m = OpponentModel.of(g.view(1))
    assert m.shoot == (0.0, 0.0, 0.0, 0.0) and m.moon_weight == QUIET_MOON_WEIGHT


def test_a_passer_who_gave_us_a_high_card_is_not_imagined_shooting() -> None:
    from engine.bots.hard import MOON_PRIOR, OpponentModel
    g = Game(Rules(), seed=1, deals=[MOON_HANDS])
    assert g.view(0).pass_direction is PassDirection.LEFT
    passes = ["QC KC AC", "AH TH 9H", "2C 4C 5C", "8C 9C TC"]
    for seat, cards in enumerate(passes):
        g.pass_cards(seat, cards)
    from_1 = OpponentModel.of(g.view(2))  # seat 1 passed it the A♥: a shooter keeps that
    assert from_1.shoot == (MOON_PRIOR, 0.0, 0.0, MOON_PRIOR)
    from_2 = OpponentModel.of(g.view(3))  # seat 2 passed it three low clubs: no sign
    assert from_2.shoot == (MOON_PRIOR, MOON_PRIOR, MOON_PRIOR, 0.0)


def test_the_model_draws_each_deals_opponents_from_the_seed() -> None:
    from engine.bots.hard import OpponentModel
    m = OpponentModel((0.0, 0.5, 1.0, 0.25), (0.0, 0.5, 0.5, 1.0), 2.0)
    draws = [m.draw(random.Random(7)) for _ in range(2)]
    assert draws[0] == draws[1]  # reproducible
    many = [m.draw(random.Random(i)) for i in range(400)]
    assert all(sh & 0b101 == 0b100 and hu & 0b1001 == 0b1000 and w == 2.0 for sh, hu, w in many)
    share = sum(sh >> 1 & 1 for sh, _, _ in many) / len(many)
    assert 0.4 < share < 0.6  # seat 1 is imagined shooting in about half the deals


def test_a_draw_uses_the_same_random_numbers_whatever_the_chances() -> None:
    # the pass imagines every opponent trying the moon (PASS_MOON_PRIOR), the play a quarter
    # of them: the sampled deals that follow the draw must not change with that
    from engine.bots.hard import OpponentModel
    sure = OpponentModel((0.0, 1.0, 1.0, 1.0), (0.0, 0.5, 0.5, 0.5), 2.0)
    some = OpponentModel((0.0, 0.25, 0.25, 0.25), (0.0, 0.5, 0.5, 0.5), 2.0)
    r1, r2 = random.Random(5), random.Random(5)
    assert sure.draw(r1)[0] == 0b1110
    some.draw(r2)
    assert r1.random() == r2.random()


def test_hard_imagines_a_shooter_passing_as_one() -> None:
    from engine.bots.hard import PASS_MOON_PRIOR, OpponentModel
    from engine.bots.policy import choose_pass_mask
    from engine.bots.shooter import shooter_pass
    strong = mask("AC KC QC JC AD KD QD AH KH QH JH 2S 3S")
    weak = mask("2C 5C 9C 3D 7D TD 4H 6H 8H 2S 5S 9S QS")
    left = PassDirection.LEFT
    assert shooter_pass(strong, Rules(), left) == moon_pass(strong, Rules())
    assert shooter_pass(strong, Rules(), left) != choose_pass_mask(strong, Rules(), left)
    assert shooter_pass(weak, Rules(), left) == choose_pass_mask(weak, Rules(), left)
    # at the pass every opponent may be one who tries the moon (the passer of the view excepted)
    m = OpponentModel.of(Game(Rules(), seed=21).view(1), PASS_MOON_PRIOR)
    assert m.shoot == (1.0, 0.0, 1.0, 1.0)


STOPPER_HANDS = [
    "AC KC QC JC TC 9C 8C AD KD QD JD TD 9D",
    "AH 5H 4H 2S 3S 4S 5S 6S 7S 2D 3D 4D 5D",
    "2C 3C 4C 5C 6C 7C 8S 9S TS JS QS KS AS",
    "2H 3H 6H 7H 8H 9H TH JH QH KH 6D 7D 8D",
]


def test_hards_own_rollouts_keep_the_heart_that_stops_a_moon() -> None:
    """Void in clubs under a lone runner of tricks, the careful player throws its highest
    heart; Hard imagines itself keeping the A♥, the one card sure to win a heart trick
    (else its rollouts throw it at the next chance, and keeping it now looks worth nothing)."""
    from engine.bots.policy import choose_card, stopper
    g = Game(Rules(passing=False), seed=1, deals=[STOPPER_HANDS])
    for seat, card in [(2, "2C"), (3, "6D"), (0, "AC"), (1, "2S"), (0, "KC")]:
        g.play(seat, card)
    st = view_round(g.view(1))
    hand = st.hands[1]
    out = st.inplay & ~st.played & ~hand
    assert stopper(hand, out) == mask("AH")
    assert choose_card(st) == parse_card("AH")
    assert choose_card(st, guard=True) == parse_card("5H")
    # once someone else has taken points there is no moon to stop: the guard lets go
    st.pen_taken[3] = 1
    assert choose_card(st, guard=True) == parse_card("AH")
    # the K♥ stops nothing while the A♥ is out
    assert stopper(mask("KH 2H"), out | mask("AH")) == 0 and stopper(mask("KH 2H"), out) == mask("KH")
