"""The referee's loop: computer players move until a person must, with reproducible randomness."""

from __future__ import annotations

import logging
import random

import pytest

from engine import CardSet, Game, MoonMove, Move, PassMove, Phase, PlayerView, PlayMove, Rules
from engine.bots import EasyBot, MediumBot
from engine.referee import computer_turns, move_rng, next_computer_seat


class Spy:
    """Plays like Medium and remembers what it was given."""

    def __init__(self) -> None:
        self.views: list[object] = []
        self.draws: list[tuple[int, float]] = []
        self.medium = MediumBot()

    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        self.views.append(view)
        state = rng.getstate()
        self.draws.append((view.seat, rng.random()))
        rng.setstate(state)
        return self.medium.decide(view, rng)


def test_without_people_the_computer_players_finish_the_round() -> None:
    game = Game(Rules(), seed=3)
    steps = list(computer_turns(game, MediumBot()))
    assert game.phase is Phase.ROUND_OVER
    assert [s.move for s in steps] == game.moves
    assert len(steps) == 4 + 52 and not any(s.stood_in for s in steps)
    assert all(s.seconds >= 0 for s in steps)
    assert list(computer_turns(game, MediumBot())) == []  # nothing to do between rounds


def test_computer_seats_pass_then_stop_when_a_person_must_act() -> None:
    game = Game(Rules(), seed=3)
    steps = list(computer_turns(game, MediumBot(), people={2}))
    # while passing nobody waits for the person; then it is the person's pass
    assert [s.seat for s in steps] == [0, 1, 3]
    assert game.to_act == (2,)
    game.apply(PassMove(2, CardSet(list(game.hand(2))[:3])))
    for step in computer_turns(game, MediumBot(), people={2}):
        assert step.seat != 2
    assert game.phase is Phase.PLAY and game.turn == 2


def test_several_people_at_one_table() -> None:
    game = Game(Rules(passing=False), seed=8)
    people = {0, 2}
    while game.phase is Phase.PLAY:
        for step in computer_turns(game, EasyBot(), people):
            assert step.seat in (1, 3)
        if game.phase is not Phase.PLAY:
            break
        assert game.turn in people and next_computer_seat(game, people) is None
        game.play(game.turn, game.legal_cards()[0])  # type: ignore[arg-type]
    assert game.phase is Phase.ROUND_OVER


def test_players_per_seat_see_only_their_own_view() -> None:
    game = Game(Rules(), seed=5)
    spies = {seat: Spy() for seat in range(4)}
    list(computer_turns(game, spies))
    for seat, spy in spies.items():
        assert spy.views and all(type(v) is PlayerView and v.seat == seat for v in spy.views)  # type: ignore[attr-defined]


def test_each_move_draws_from_the_game_seed_and_the_move_number() -> None:
    game = Game(Rules(), seed="table-7")
    spy = Spy()
    steps = list(computer_turns(game, spy))
    for n, (seat, draw) in enumerate(spy.draws):
        assert draw == random.Random(f"table-7/bot/{n}").random()
        assert seat == steps[n].seat
    assert move_rng(game).random() == random.Random(f"table-7/bot/{game.move_count}").random()
    # the same game decided again (another process, a replay) gives the same moves
    again = Game(Rules(), seed="table-7")
    assert [s.move for s in computer_turns(again, MediumBot())] == [s.move for s in steps]


class Broken:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer(view) if callable(self.answer) else self.answer  # type: ignore[no-any-return]


@pytest.mark.parametrize("answer", [
    RuntimeError("a bug in the player"),
    lambda v: PlayMove(v.seat, (v.hand - v.legal).codes()[0] if v.hand - v.legal else v.legal.codes()[0]),
    lambda v: PlayMove((v.seat + 1) % 4, next(iter(v.legal))),
    lambda v: PlayMove(bool(v.seat) if v.seat == 1 else v.seat, next(iter(v.legal))),
    lambda v: MoonMove(v.seat, True),
    lambda v: "1 play QS",
], ids=["raises", "not-legal", "other-seat", "bool-seat", "wrong-kind", "not-a-move"])
def test_a_failing_player_is_logged_and_a_legal_move_stands_in(answer: object,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    game = Game(Rules(passing=False), seed=11)
    with caplog.at_level(logging.ERROR, logger="engine.referee"):
        steps = list(computer_turns(game, Broken(answer)))
    assert game.phase is Phase.ROUND_OVER and len(steps) == 52
    stood_in = [s for s in steps if s.stood_in]
    assert stood_in and all(s.move.seat == s.seat for s in steps)  # type: ignore[union-attr]
    assert any("stands in" in r.getMessage() for r in caplog.records)
    again = Game(Rules(passing=False), seed=11)
    assert [s.move for s in computer_turns(again, Broken(answer))] == [s.move for s in steps]


class OneForTrue(MediumBot):
    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        if view.phase is Phase.MOON_CHOICE:
            return MoonMove(view.seat, 1)  # type: ignore[arg-type]
        return super().decide(view, rng)


def test_a_moon_choice_must_be_a_real_bool() -> None:
    # seat 0 holds every club and leads them all: it takes every card, a sure moon
    by_suit = [" ".join(f"{r}{s}" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()) for s in "CDSH"]
    game = Game(Rules(passing=False, shooters_choice=True), seed=1, deals=[by_suit])
    steps = list(computer_turns(game, OneForTrue()))
    assert isinstance(steps[-1].move, MoonMove) and steps[-1].stood_in
    assert type(steps[-1].move.subtract) is bool and game.shooters == [0]
