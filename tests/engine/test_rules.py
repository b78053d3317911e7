"""Rules: validation, the deck and hand size per table, points, pass cycles, presets."""

from __future__ import annotations

from typing import Any

import pytest

from engine import PRESETS, STANDARD, Card, CardSet, PassDirection, Rules, RulesError
from engine.cards import HEARTS

L, R, A = PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS
L2, R2, N = PassDirection.SECOND_LEFT, PassDirection.SECOND_RIGHT, PassDirection.NONE


def test_standard_rules_are_the_default_game() -> None:
    r = Rules()
    assert r == STANDARD == PRESETS["standard"]
    assert (r.players, r.target_score, r.max_rounds, r.passing) == (4, 100, None, True)
    assert not any([r.omnibus, r.spot_hearts, r.queen_breaks_hearts, r.no_breaking,
                    r.points_on_first_trick, r.shooters_choice, r.cancellation, r.last_hand_breaks_ties])


def test_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        STANDARD.players = 5  # type: ignore[misc]


@pytest.mark.parametrize("players", [0, 1, 2, 7, 8, -4])
def test_unsupported_player_counts_are_a_clear_error(players: int) -> None:
    with pytest.raises(RulesError, match=rf"players must be 3, 4, 5 or 6, not {players}"):
        Rules(players=players)


@pytest.mark.parametrize("players", ["4", 4.0, True, None])
def test_player_count_must_be_a_whole_number(players: Any) -> None:
    with pytest.raises(RulesError, match="players must be 3, 4, 5 or 6"):
        Rules(players=players)


@pytest.mark.parametrize("target", [0, -5, 10_001, "100", 50.5, True, None])
def test_bad_target_score_is_rejected(target: Any) -> None:
    with pytest.raises(RulesError, match="target_score must be a whole number from 1 to 10000"):
        Rules(target_score=target)


@pytest.mark.parametrize("target", [1, 50, 100, 200, 10_000])
def test_any_target_score_in_range_is_accepted(target: int) -> None:
    assert Rules(target_score=target).target_score == target


@pytest.mark.parametrize("rounds", [0, -1, 1001, "3", 2.0, False])
def test_bad_max_rounds_is_rejected(rounds: Any) -> None:
    with pytest.raises(RulesError, match="max_rounds must be empty"):
        Rules(max_rounds=rounds)


@pytest.mark.parametrize("rounds", [None, 1, 7, 1000])
def test_max_rounds_may_be_unlimited_or_a_count(rounds: int | None) -> None:
    assert Rules(max_rounds=rounds).max_rounds == rounds


@pytest.mark.parametrize("flag", ["passing", "omnibus", "spot_hearts", "queen_breaks_hearts", "no_breaking",
                                  "points_on_first_trick", "shooters_choice", "cancellation",
                                  "last_hand_breaks_ties"])
def test_flags_must_be_booleans(flag: str) -> None:
    with pytest.raises(RulesError, match=rf"{flag} must be true or false, not 1"):
        Rules(**{flag: 1})  # type: ignore[arg-type]


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


def test_from_dict_round_trips_every_preset() -> None:
    for rules in PRESETS.values():
        assert Rules.from_dict(rules.to_dict()) == rules


def test_from_dict_names_unknown_options() -> None:
    with pytest.raises(RulesError, match="unknown rule option\\(s\\): jokers, trumps"):
        Rules.from_dict({"players": 4, "trumps": True, "jokers": 2})


def test_from_dict_validates_values_and_shape() -> None:
    with pytest.raises(RulesError, match="players must be 3, 4, 5 or 6, not 7"):
        Rules.from_dict({"players": 7})
    with pytest.raises(RulesError, match="rules must be an object"):
        Rules.from_dict([("players", 4)])  # type: ignore[arg-type]


def test_from_dict_fills_missing_options_with_the_standard_game() -> None:
    assert Rules.from_dict({"omnibus": True}) == Rules(omnibus=True)


def test_replace_validates_too() -> None:
    assert STANDARD.replace(players=5).players == 5
    with pytest.raises(RulesError):
        STANDARD.replace(players=7)


def deck_of(rules: Rules) -> CardSet:
    return CardSet(rules.deck)


def test_four_players_use_the_whole_deck_13_each() -> None:
    assert deck_of(STANDARD) == CardSet(range(52))
    assert STANDARD.hand_size == 13


def test_three_players_remove_the_two_of_diamonds_17_each() -> None:
    r = Rules(players=3)
    assert deck_of(r) == CardSet(range(52)) - CardSet("2D")
    assert r.hand_size == 17


def test_five_players_remove_two_of_diamonds_and_two_of_spades_10_each() -> None:
    r = Rules(players=5)
    assert deck_of(r) == CardSet(range(52)) - CardSet("2D 2S")
    assert r.hand_size == 10


def test_six_players_remove_the_four_threes_8_each() -> None:
    r = Rules(players=6)
    assert deck_of(r) == CardSet(range(52)) - CardSet("3C 3D 3S 3H")
    assert r.hand_size == 8
    assert not r.penalty_mask >> Card("3H") & 1


@pytest.mark.parametrize(("players", "hand"), [(3, 34), (4, 26), (5, 20), (6, 17)])
def test_cancellation_uses_two_whole_decks(players: int, hand: int) -> None:
    r = Rules(players=players, cancellation=True)
    assert len(r.deck) == 104
    assert CardSet(r.deck) == CardSet(list(range(52)) * 2)
    assert r.hand_size == hand
    assert r.decks == 2


@pytest.mark.parametrize(("rules", "total"), [
    (STANDARD, 26), (Rules(players=3), 26), (Rules(players=5), 26), (Rules(players=6), 25),
    (Rules(spot_hearts=True), 104 + 13), (Rules(players=6, spot_hearts=True), 104 - 3 + 13),
])
def test_penalty_points_in_one_deck(rules: Rules, total: int) -> None:
    pts = rules.card_points
    assert sum(pts[c] for c in rules.deck if rules.penalty_mask >> c & 1) == total


def test_card_points_standard_spot_and_omnibus() -> None:
    std = STANDARD.card_points
    assert std[Card("QS")] == 13
    assert all(std[c] == 1 for c in CardSet.from_mask(HEARTS))
    assert std[Card("JD")] == 0 and std[Card("AS")] == 0
    spot = Rules(spot_hearts=True).card_points
    assert [spot[Card(f"{r}H")] for r in ["2", "9", "10", "J", "Q", "K", "A"]] == [2, 9, 10, 11, 12, 13, 14]
    assert spot[Card("QS")] == 13
    assert Rules(omnibus=True).card_points[Card("JD")] == -10


def test_queen_breaks_hearts_option_changes_what_breaks_hearts() -> None:
    assert not STANDARD.breaks_hearts >> Card("QS") & 1
    assert Rules(queen_breaks_hearts=True).breaks_hearts >> Card("QS") & 1
    assert STANDARD.breaks_hearts >> Card("2H") & 1


def test_points_on_first_trick_option_lifts_the_first_trick_ban() -> None:
    assert STANDARD.first_trick_forbidden == STANDARD.penalty_mask
    assert Rules(points_on_first_trick=True).first_trick_forbidden == 0


@pytest.mark.parametrize(("players", "cycle"), [
    (3, [L, R, N]),
    (4, [L, R, A, N]),
    (5, [L, R, L2, R2, N]),
    (6, [L, R, L2, R2, A, N]),
])
def test_pass_cycles_repeat(players: int, cycle: list[PassDirection]) -> None:
    r = Rules(players=players)
    got = [r.pass_direction(i) for i in range(2 * len(cycle) + 1)]
    assert got == cycle + cycle + cycle[:1]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_no_passing_never_passes(players: int) -> None:
    r = Rules(players=players, passing=False)
    assert {r.pass_direction(i) for i in range(12)} == {N}


@pytest.mark.parametrize(("direction", "players", "seat", "target"), [
    (L, 4, 0, 1), (L, 4, 3, 0), (R, 4, 0, 3), (A, 4, 0, 2), (A, 4, 1, 3), (A, 6, 1, 4),
    (L2, 5, 0, 2), (L2, 5, 4, 1), (R2, 5, 0, 3), (R2, 6, 1, 5), (N, 4, 2, 2),
])
def test_pass_targets_and_sources(direction: PassDirection, players: int, seat: int, target: int) -> None:
    assert direction.target(seat, players) == target
    assert direction.source(target, players) == seat


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_pass_direction_of_a_cycle_is_a_permutation(players: int) -> None:
    for d in {Rules(players=players).pass_direction(i) for i in range(6)}:
        assert sorted(d.target(s, players) for s in range(players)) == list(range(players))


def test_presets_are_the_documented_variants() -> None:
    assert PRESETS["omnibus"].omnibus
    assert PRESETS["spot"].spot_hearts
    assert not PRESETS["cutthroat"].passing
    assert PRESETS["black-maria"].players == 3
    assert PRESETS["five"].players == 5
    assert PRESETS["six"].players == 6
    assert PRESETS["cancellation"].cancellation
    h = PRESETS["house"]
    assert h.omnibus and h.shooters_choice and h.queen_breaks_hearts


def test_describe_lists_what_differs() -> None:
    assert STANDARD.describe() == ["4 players", "to 100 points"]
    d = Rules(players=3, target_score=50, max_rounds=5, passing=False, omnibus=True).describe()
    assert d == ["3 players", "to 50 points", "at most 5 hands", "no passing", "J♦ −10"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_deck_mask_holds_every_card_of_the_deck(name: str) -> None:
    rules = PRESETS[name]
    assert CardSet.from_mask(rules.deck_mask).codes() == [Card(c).code() for c in sorted(rules.deck)]
    assert len(CardSet.from_mask(rules.deck_mask)) == len(rules.deck)
    double = Rules(cancellation=True, players=6)
    assert len(CardSet.from_mask(double.deck_mask)) == len(double.deck) == 104
