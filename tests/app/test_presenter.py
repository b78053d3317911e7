"""What the page says about a game, decided in the presenter (issue 10): signed numbers, the
person's place, whether a game is in progress, what was passed."""

from __future__ import annotations

import pytest

from app import i18n, presenter
from engine import Game, Phase, Rules

from .helpers import first_legal, moon_game, tie_broken_game


def test_numbers_use_a_true_minus_sign_and_signed_points_never_read_plus_minus() -> None:
    assert [i18n.number(n) for n in (-26, -1, 0, 7)] == ["−26", "−1", "0", "7"]
    assert [i18n.signed(n) for n in (-10, 0, 3)] == ["−10", "+0", "+3"]
    assert str(i18n.number_html(-36)) == "<bdi>−36</bdi>" and i18n.number_html(5) == "5"
    assert i18n.number_html(None) == "–"


@pytest.mark.parametrize(("totals", "text"), [
    ((10, 20, 30, 40), ""), ((20, 10, 30, 40), "You finished 2nd"), ((30, 10, 20, 40), "You finished 3rd"),
    ((40, 10, 20, 30), "You finished 4th"), ((50, 10, 20, 30, 40), "You finished 5th"),
    ((60, 10, 20, 30, 40, 50), "You finished 6th"), ((20, 10, 20, 40), "You tied for 2nd place"),
    ((40, 10, 20, 40), "You tied for 3rd place"), ((30, 10, 20, 25, 30), "You tied for 4th place"),
    ((50, 10, 20, 30, 50, 40), "You tied for 5th place"),
])
def test_the_persons_place_at_the_end_of_a_game(totals: tuple[int, ...], text: str) -> None:
    assert presenter.place_text(totals) == text


def test_a_tie_broken_by_the_last_hand_ranks_its_winner_alone_first() -> None:
    # the person (0) and West (1) tie at 40; West scored less in the last hand and wins
    assert presenter.place_of((40, 40, 60, 70), 1, winner=1) == 1
    assert presenter.place_of((40, 40, 60, 70), 0, winner=1) == 2
    assert presenter.place_text((40, 40, 60, 70), winner=1) == "You finished 2nd"
    assert presenter.place_text((40, 40, 40, 70), winner=2) == "You tied for 2nd place"
    assert presenter.place_text((40, 40, 60, 70), winner=0) == ""
    # the whole table: West (1) and East (3) each shoot the moon once, so they tie at 26; East
    # scored 0 in the last hand and wins, West is second
    game = tie_broken_game()
    rules = game.rules
    result = presenter.round_result(game.view(0), presenter.seat_names(4))
    assert result is not None
    assert [(c.name, c.place) for c in result.columns] == [("East", 1), ("West", 2), ("You", 3), ("North", 3)]
    assert result.tie_note == "Tied for the lowest total: the lower score in the last hand wins."
    assert presenter.rules_lines(rules)[-1] == "ties broken by the last hand"


def test_a_game_is_in_progress_once_the_person_has_done_something_until_it_is_over() -> None:
    game = Game(Rules(), seed=4)
    assert not presenter.in_progress(game.view(0))  # dealt, nothing done: nothing to lose
    game.pass_cards(0, list(game.hand(0))[:3])
    assert presenter.in_progress(game.view(0))
    no_pass = Game(Rules(passing=False), seed=4)
    while no_pass.turn != 0:
        no_pass.play(no_pass.turn, no_pass.legal_cards()[0])  # type: ignore[arg-type]
    assert not presenter.in_progress(no_pass.view(0))  # the others have played, the person not yet
    no_pass.play(0, first_legal(no_pass.view(0)))
    assert presenter.in_progress(no_pass.view(0))
    over = moon_game(max_rounds=1)
    while over.phase is Phase.PLAY:
        over.play(over.turn, over.legal_cards()[0])  # type: ignore[arg-type]
    assert over.phase is Phase.GAME_OVER and not presenter.in_progress(over.view(0))


def test_after_a_scored_hand_a_seat_shows_its_total_alone() -> None:
    game = moon_game(shooters_choice=True)
    while game.phase is Phase.PLAY:
        game.play(game.turn, game.legal_cards()[0])  # type: ignore[arg-type]
    assert presenter.build_table(game.view(0)).me.taken == 26  # the choice is still to make
    game.choose_moon(0, True)
    table = presenter.build_table(game.view(0))
    assert table.me.total == -26 and table.me.taken == 0
    assert all(p.taken == 0 for p in table.others)


def test_the_pass_strip_says_what_went_where_and_a_hand_without_passing() -> None:
    game = Game(Rules(), seed=4)
    mine = list(game.hand(0))[:3]
    for seat in range(4):
        game.pass_cards(seat, mine if seat == 0 else list(game.hand(seat))[:3])
    names = presenter.seat_names(4)
    strip = presenter.pass_strip(game.view(0), names)
    assert strip and not strip.no_pass and strip.passed_to == "West" and strip.received_from == "East"
    assert [f.code for f in strip.passed] == [c.code() for c in mine] and len(strip.received) == 3
    while game.round_index < 3:
        if game.phase is Phase.PASS:
            game.pass_cards(game.to_act[0], list(game.hand(game.to_act[0]))[:3])
        elif game.phase is Phase.PLAY:
            game.play(game.turn, game.legal_cards()[0])  # type: ignore[arg-type]
        else:
            game.next_round()
    assert presenter.pass_strip(game.view(0), names) == presenter.PassStrip(no_pass=True)
    assert presenter.pass_strip(Game(Rules(passing=False), seed=1).view(0), names) is None  # Cutthroat
