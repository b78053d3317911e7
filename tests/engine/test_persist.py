"""Saving and loading: exact round trips, and tampered records rejected with a clear error."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import (
    PRESETS,
    SCHEMA_VERSION,
    CorruptRecordError,
    Game,
    InvalidMoveError,
    MoonMove,
    NextRound,
    PassMove,
    PlayMove,
    Rules,
    dumps,
    game_from_dict,
    game_to_dict,
    loads,
    parse_move,
)
from engine.cards import Card, CardSet

from .helpers import NO_PASS, game_with, play, random_move


def same_state(a: Game, b: Game) -> None:
    assert dumps(a) == dumps(b)
    assert a.moves == b.moves
    assert a.totals == b.totals and a.round_points == b.round_points
    assert a.phase is b.phase and a.to_act == b.to_act and a.legal_mask == b.legal_mask
    assert a.hands == b.hands and a.trick == b.trick and a.tricks == b.tricks
    assert a.winner == b.winner
    for seat in range(a.players):
        assert a.view(seat).to_dict() == b.view(seat).to_dict()


def random_game(rules: Rules, seed: int, moves: int) -> Game:
    g = Game(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if g.is_over:
            break
        g.apply(random_move(g, rng))
    return g


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("moves", [0, 2, 37, 140])
def test_round_trip_restores_exactly_the_same_state(name: str, moves: int) -> None:
    g = random_game(PRESETS[name], seed=sorted(PRESETS).index(name) * 1000 + moves, moves=moves)
    back = loads(dumps(g))
    same_state(g, back)
    assert back.seed == g.seed and back.rules == g.rules


def test_a_loaded_game_plays_on_like_the_original() -> None:
    g = random_game(PRESETS["house"], seed=11, moves=60)
    back = loads(dumps(g))
    rng_a, rng_b = random.Random(5), random.Random(5)
    for _ in range(80):
        if g.is_over:
            break
        ea = g.apply(random_move(g, rng_a))
        eb = back.apply(random_move(back, rng_b))
        assert ea == eb
    same_state(g, back)


def test_round_trip_of_a_finished_game() -> None:
    g = random_game(Rules(target_score=30, shooters_choice=True), seed=3, moves=10_000)
    assert g.is_over
    back = loads(dumps(g))
    same_state(g, back)
    assert back.winner == g.winner is not None


def test_round_trip_of_explicit_deals_and_a_string_seed() -> None:
    g = game_with(NO_PASS, "2C", "", "", "QS")
    play(g, "2C")
    data = game_to_dict(g)
    assert "QS" in data["deals"][0][3].split() and len(data["deals"][0]) == 4
    back = game_from_dict(json.loads(json.dumps(data)))
    same_state(g, back)
    s = Game(PRESETS["cancellation"], seed="table 7")
    same_state(s, loads(dumps(s)))


def test_record_holds_schema_rules_seed_and_move_codes() -> None:
    g = Game(NO_PASS, seed=42)
    g.play(g.turn, "2C")  # type: ignore[arg-type]
    data = json.loads(dumps(g))
    assert data["schema"] == SCHEMA_VERSION
    assert data["rules"] == NO_PASS.to_dict()
    assert data["seed"] == 42
    assert data["moves"] == [f"{g.moves[0].seat} play 2C"]  # type: ignore[union-attr]


@pytest.mark.parametrize(("code", "move"), [
    ("2 pass QS KH AH", PassMove(2, CardSet("AH QS KH"))),
    ("1 play 10H", PlayMove(1, Card("10H"))),
    ("0 moon add", MoonMove(0, False)),
    ("3 moon subtract", MoonMove(3, True)),
    ("next", NextRound()),
])
def test_move_codes_parse_and_print_both_ways(code: str, move: object) -> None:
    assert parse_move(code) == move
    assert parse_move(code).code() == code


@pytest.mark.parametrize("code", ["", "play", "1 play", "1 play ZZ", "x play 2C", "12 play 2C", "1 moon maybe",
                                  "1 jump 2C", "1 pass", "1 pass QS QS QS", "next round"])
def test_bad_move_codes_are_invalid(code: str) -> None:
    with pytest.raises(InvalidMoveError, match="not a move"):
        parse_move(code)


def test_non_text_move_code_is_invalid() -> None:
    with pytest.raises(InvalidMoveError, match="must be text"):
        parse_move(7)  # type: ignore[arg-type]


# ---- tampered records --------------------------------------------------------------------

def good_record() -> dict[str, Any]:
    g = random_game(Rules(), seed=8, moves=30)
    return json.loads(dumps(g))


def test_an_inserted_illegal_move_is_rejected_naming_the_move() -> None:
    data = good_record()
    # after the four passes the holder of the 2♣ must lead it; any other card is illegal
    passed = loads(json.dumps({**data, "moves": data["moves"][:4]}))
    seat = passed.turn
    assert seat is not None
    held = passed.hand(seat)
    bad = next(c for c in held if c != Card("2C"))
    data["moves"].insert(4, f"{seat} play {bad}")
    with pytest.raises(CorruptRecordError, match=rf"move 5 \('{seat} play {bad}'\) does not replay: the first trick"):
        loads(json.dumps(data))


def test_a_move_out_of_turn_is_rejected() -> None:
    data = good_record()
    data["moves"][10], data["moves"][11] = data["moves"][11], data["moves"][10]
    with pytest.raises(CorruptRecordError, match="move 11 .* does not replay: not your turn"):
        loads(json.dumps(data))


def test_a_duplicated_pass_is_rejected() -> None:
    data = good_record()
    data["moves"].insert(1, data["moves"][0])
    with pytest.raises(CorruptRecordError, match="move 2 .* does not replay: you have already passed"):
        loads(json.dumps(data))


def test_a_garbled_move_code_is_rejected() -> None:
    data = good_record()
    data["moves"][6] = "2 play the ace"
    with pytest.raises(CorruptRecordError, match="move 7 .* does not replay: not a move"):
        loads(json.dumps(data))


@pytest.mark.parametrize(("change", "message"), [
    ({"schema": 2}, "unsupported saved-game schema 2"),
    ({"schema": None}, "unsupported saved-game schema None"),
    ({"schema": True}, "unsupported saved-game schema True"),
    ({"rules": {"players": 7}}, "bad rules in saved game: players must be 3, 4, 5 or 6"),
    ({"rules": {"jokers": True}}, "bad rules in saved game: unknown rule option"),
    ({"rules": "standard"}, "bad rules in saved game: rules must be an object"),
    ({"seed": None}, "no valid seed"),
    ({"seed": True}, "no valid seed"),
    ({"moves": "1 play 2C"}, "no move list"),
    ({"moves": [3]}, "move 1 .* does not replay"),
    ({"deals": [["2C"]]}, "bad deals in saved game"),
    ({"deals": 5}, "bad deals in saved game"),
])
def test_a_record_with_bad_fields_is_rejected(change: dict[str, Any], message: str) -> None:
    data = {**good_record(), **change}
    with pytest.raises(CorruptRecordError, match=message):
        loads(json.dumps(data))


def test_a_record_without_rules_is_rejected() -> None:
    data = good_record()
    del data["rules"]
    with pytest.raises(CorruptRecordError, match="bad rules in saved game"):
        game_from_dict(data)


@pytest.mark.parametrize("text", ["", "{", "not json", "[1, 2]", "42", "null", '"game"'])
def test_garbage_is_rejected(text: str) -> None:
    with pytest.raises(CorruptRecordError, match="a saved game must be"):
        loads(text)


def test_a_record_replayed_under_other_rules_is_rejected() -> None:
    data = good_record()
    data["rules"] = Rules(players=5).to_dict()
    with pytest.raises(CorruptRecordError, match="does not replay"):
        loads(json.dumps(data))


def test_corrupt_record_error_is_an_engine_error() -> None:
    from engine import HeartsError
    assert issubclass(CorruptRecordError, HeartsError)


def test_a_copied_game_is_equal_and_independent() -> None:
    from engine import PRESETS, Game

    game = Game(PRESETS["cancellation"], seed=5, deals=None)
    twin = game.copy()
    assert dumps(twin) == dumps(game)
    for seat in range(game.players):
        twin.pass_cards(seat, list(twin.hand(seat))[:3])
    assert twin.phase.value == "play" and game.phase.value == "pass"
    assert all(p is None for p in game.passes)
    assert dumps(game.copy()) == dumps(game)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_stored_move_codes_are_each_moves_own_code(name: str) -> None:
    # dumps spells plays from a table of codes it keeps: the same text as each move's code()
    for seed in range(3):
        g = random_game(PRESETS[name], seed=seed, moves=400)
        codes = game_to_dict(g)["moves"]
        assert codes == [m.code() for m in g.moves]
        assert [parse_move(c) for c in codes] == g.moves
        assert {c.split()[-1] if c == "next" else c.split()[1] for c in codes} >= {"play", "next"}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_dumps_spelt_bit_by_bit_is_the_whole_record_spelt_at_once(name: str) -> None:
    # dumps spells only the moves added since it last spelt the game (a copy included): the
    # text is still the record's JSON written whole, after any number of moves
    rng = random.Random(name)
    games = [Game(PRESETS[name], seed=rng.randrange(1000))]
    games.append(game_with(NO_PASS, "2C", "", "", "QS"))
    for g in games:
        while not g.is_over and g.move_count < 700:
            g.apply(random_move(g, rng))
            if rng.random() < 0.15:
                whole = json.dumps(game_to_dict(g), separators=(",", ":"), ensure_ascii=False)
                assert dumps(g) == whole
                if rng.random() < 0.2 and not g.is_over:
                    twin = g.copy()
                    twin.apply(random_move(twin, rng))
                    assert dumps(g) == whole and dumps(twin) != whole
        assert dumps(loads(dumps(g))) == dumps(g)
