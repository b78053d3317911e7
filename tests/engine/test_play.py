"""Passing, the first lead, following, the first trick, breaking hearts, turns and errors."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine import (
    STANDARD,
    Card,
    CardSet,
    Game,
    IllegalMoveError,
    MoonMove,
    NextRound,
    NotYourTurnError,
    PassDirection,
    PassMove,
    Phase,
    PlayMove,
    Rules,
    Suit,
    WrongPhaseError,
    dumps,
    loads,
)
from engine import events as ev

from .helpers import NO_PASS, assert_refused, game_with, play, play_lowest, play_round, random_move, snapshot

# A plain deal for the standard game: seat 0 holds the 2♣, seat 3 nearly all the hearts.
PLAIN = [
    "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S 2H",
    "6C 7C 8C 9C 6D 7D 8D 9D 6S 7S 8S 9S 3H",
    "10C JC QC KC 10D JD QD KD 10S JS QS KS 4H",
    "AC AD AS 5H 6H 7H 8H 9H 10H JH QH KH AH",
]

# Seat 3 is void in clubs on the first trick and must win trick 2 with the A♦; it then
# leads holding the A♠ and nine hearts, after seat 0 discarded the Q♠ on trick 2.
QUEEN_DEAL = ("2C QS 2H 3H 4H", "", "", "KS AS AD 5H 6H 7H 8H 9H 10H JH QH KH AH")
QUEEN_TRICKS = ("2C JC 2S KS", "2D JD AD QS")


def plain_game(rules: Rules = STANDARD) -> Game:
    return Game(rules, seed=7, deals=[PLAIN])


# ---- passing -----------------------------------------------------------------------------

def test_a_round_with_passing_starts_in_the_pass_phase_with_everyone_to_act() -> None:
    g = plain_game()
    assert g.phase is Phase.PASS
    assert g.pass_direction is PassDirection.LEFT
    assert g.to_act == (0, 1, 2, 3)
    assert g.turn is None and g.legal_cards() == ()


def test_passing_is_simultaneous_hands_change_only_when_all_have_chosen() -> None:
    g = plain_game()
    events = g.pass_cards(0, "2C 3C 4C")
    assert events == [ev.CardsPassed(0)]
    assert g.hand(0) == CardSet(PLAIN[0])
    assert g.to_act == (1, 2, 3)
    assert g.view(1).received is None and g.view(1).hand == CardSet(PLAIN[1])
    assert g.view(0).passed == CardSet("2C 3C 4C")
    g.pass_cards(2, "QS KS 4H")
    g.pass_cards(3, "AH KH QH")
    assert [g.hand(s) for s in range(4)] == [CardSet(h) for h in PLAIN]
    events = g.pass_cards(1, "3H 9S 8S")
    assert events[0] == ev.CardsPassed(1)
    assert events[1] == ev.PassesExchanged(PassDirection.LEFT)
    assert g.phase is Phase.PLAY
    assert g.hand(1) == CardSet(PLAIN[1]) - CardSet("3H 9S 8S") | CardSet("2C 3C 4C")
    assert g.hand(3) == CardSet(PLAIN[3]) - CardSet("AH KH QH") | CardSet("QS KS 4H")
    assert g.hand(0) == CardSet(PLAIN[0]) - CardSet("2C 3C 4C") | CardSet("AH KH QH")
    assert g.received == [CardSet("AH KH QH").mask, CardSet("2C 3C 4C").mask,
                          CardSet("3H 9S 8S").mask, CardSet("QS KS 4H").mask]


def test_the_holder_of_the_two_of_clubs_after_passing_leads() -> None:
    g = plain_game()
    for seat, cards in enumerate(["2C 3C 4C", "6C 7C 8C", "10C JC QC", "AC AD AS"]):
        g.pass_cards(seat, cards)
    assert g.turn == 1 and g.legal_cards() == (Card("2C"),)


def test_cannot_pass_twice() -> None:
    g = plain_game()
    g.pass_cards(0, "2C 3C 4C")
    assert_refused(g, lambda: g.pass_cards(0, "5C 2D 3D"), NotYourTurnError, "you have already passed")


@pytest.mark.parametrize("cards", ["2C 3C", "2C 3C 4C 5C", "2C 3C AH", "2C 2C 3C", "", "2C 3C XX"])
def test_pass_exactly_three_cards_you_hold(cards: str) -> None:
    g = plain_game()
    assert_refused(g, lambda: g.pass_cards(0, cards), IllegalMoveError, "pass exactly 3 cards you hold", "pass_cards")


def test_passing_outside_the_pass_phase_is_the_wrong_phase() -> None:
    g = plain_game(NO_PASS)
    with pytest.raises(WrongPhaseError, match="not the time to pass"):
        g.pass_cards(0, "2C 3C 4C")


def test_playing_during_the_pass_is_the_wrong_phase() -> None:
    g = plain_game()
    assert_refused(g, lambda: g.play(0, "2C"), WrongPhaseError, "not the time to play")


def test_legal_moves_while_passing_are_every_three_card_choice() -> None:
    g = plain_game()
    moves = g.legal_moves(0)
    assert len(moves) == 286  # 13 choose 3
    assert all(isinstance(m, PassMove) and m.seat == 0 and len(m.cards) == 3 for m in moves)
    g.pass_cards(0, "2C 3C 4C")
    assert g.legal_moves(0) == []
    assert {m.seat for m in g.legal_moves() if isinstance(m, PassMove)} == {1}
    assert all(isinstance(m, PassMove) for m in g.legal_moves())


@pytest.mark.parametrize(("players", "cycle"), [
    (3, ["left", "right", "none"]),
    (4, ["left", "right", "across", "none"]),
    (5, ["left", "right", "second left", "second right", "none"]),
    (6, ["left", "right", "second left", "second right", "across", "none"]),
])
def test_pass_cycle_in_play_sends_cards_to_the_right_seat(players: int, cycle: list[str]) -> None:
    rules = Rules(players=players, target_score=10_000)
    g = Game(rules, seed=f"cycle-{players}")
    rng = random.Random(players)
    for round_index, name in enumerate(cycle + cycle[:1]):
        assert g.round_index == round_index
        d = g.pass_direction
        assert d.value == name
        if d is PassDirection.NONE:
            assert g.phase is Phase.PLAY
            assert [g.hands[s] for s in range(players)] == g.dealt
        else:
            assert g.phase is Phase.PASS
            dealt = list(g.hands)
            while g.phase is Phase.PASS:
                g.apply(random_move(g, rng))
            for s in range(players):
                t = d.target(s, players)
                passed = g.passes[s]
                assert passed is not None and g.received[t] == passed
                assert g.hands[t] == (dealt[t] & ~g.passes[t]) | passed
        play_round(g, rng)
        if g.phase is Phase.MOON_CHOICE:
            g.apply(random_move(g, rng))
        g.next_round()


def test_no_passing_goes_straight_to_play_every_round() -> None:
    g = Game(Rules(passing=False, target_score=10_000), seed=3)
    rng = random.Random(3)
    for _ in range(5):
        assert g.phase is Phase.PLAY and g.pass_direction is PassDirection.NONE
        play_round(g, rng)
        g.next_round()


# ---- the first lead ----------------------------------------------------------------------

def test_the_two_of_clubs_leads_the_first_trick() -> None:
    g = plain_game(NO_PASS)
    assert g.turn == 0 and g.leader == 0
    assert g.legal_cards() == (Card("2C"),)
    assert g.legal_moves() == [PlayMove(0, Card("2C"))]
    assert g.first_lead == Card("2C")


def test_leading_anything_else_first_names_the_rule() -> None:
    g = plain_game(NO_PASS)
    assert_refused(g, lambda: g.play(0, "3C"), IllegalMoveError, "the first trick is led with the 2♣", "first_lead")


@pytest.mark.parametrize("holder", [1, 2, 3])
def test_whoever_holds_the_two_of_clubs_leads(holder: int) -> None:
    hands = ["", "", "", ""]
    hands[holder] = "2C"
    g = game_with(NO_PASS, *hands)
    assert g.turn == holder and g.to_act == (holder,)


def test_lowest_club_in_play_leads_when_the_two_of_clubs_is_set_aside() -> None:
    rules = Rules(players=3, cancellation=True, passing=False)
    g = game_with(rules, "", "", "3C", aside="2C 2C")
    assert g.first_lead == Card("3C")
    # seat 0 takes the lowest cards first, so it holds the other 3♣ too; it is the first
    # holder clockwise from the dealer's (seat 2's) left
    assert g.hand(0).count("3C") == 1
    assert g.turn == 0 and g.legal_cards() == (Card("3C"),)


# ---- following and the first trick -------------------------------------------------------

def test_must_follow_the_led_suit() -> None:
    g = plain_game(NO_PASS)
    play(g, "2C")
    assert g.legal_cards() == tuple(Card(c) for c in ["6C", "7C", "8C", "9C"])
    assert_refused(g, lambda: g.play(1, "6D"), IllegalMoveError, "must follow clubs", "must_follow")


def test_playing_a_card_not_held_is_illegal() -> None:
    g = plain_game(NO_PASS)
    play(g, "2C")
    with pytest.raises(IllegalMoveError, match="you do not hold the ace of hearts") as info:
        g.play(1, "AH")
    assert info.value.rule == "not_in_hand"


def test_highest_card_of_the_led_suit_wins_and_leads_next() -> None:
    g = plain_game(NO_PASS)
    events = play(g, "2C 6C 10C AC")
    assert events[-1] == ev.TrickWon(0, 0, tuple(Card(c) for c in "2C 6C 10C AC".split()), 3, 0)
    assert g.turn == 3 and g.leader == 3
    events = play(g, "AD 2D 6D 10D")
    won = events[-1]
    assert isinstance(won, ev.TrickWon) and won.winner == 3


def test_off_suit_cards_never_win() -> None:
    g = game_with(NO_PASS, "2C", "", "", "AS KS")
    # fill gives seat 0 every club (2C..AC), so nobody else can follow
    assert g.hand(0).suit(0) == CardSet("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")
    events = play(g, "2C")
    events += play(g, g.legal_cards()[-1].code())
    events += play(g, g.legal_cards()[-1].code())
    events += play(g, "AS")
    won = events[-1]
    assert isinstance(won, ev.TrickWon) and won.winner == 0


def test_no_points_on_the_first_trick_when_holding_something_else() -> None:
    g = game_with(NO_PASS, *QUEEN_DEAL)
    play(g, "2C JC 2S")
    assert g.turn == 3
    assert g.legal_cards() == tuple(Card(c) for c in ["AD", "KS", "AS"])
    assert_refused(g, lambda: g.play(3, "5H"), IllegalMoveError, "no points on the first trick", "first_trick_points")


def test_queen_of_spades_is_also_barred_from_the_first_trick() -> None:
    g = game_with(NO_PASS, "2C 3C", "QS 2D", "")
    # seat 1 holds no club (seat 0 took the lowest cards), so it may discard, but not the Q♠
    assert not g.hand(1).suit(0)
    play(g, "2C")
    assert Card("QS") not in g.legal_cards() and Card("2D") in g.legal_cards()
    with pytest.raises(IllegalMoveError, match="no points on the first trick"):
        g.play(1, "QS")


def test_first_trick_hand_of_only_hearts_and_the_queen_may_play_any_of_them() -> None:
    hearts_and_queen = "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    g = game_with(NO_PASS, "2C", "", "", hearts_and_queen)
    play(g, "2C")
    play_lowest(g, 2)
    assert g.turn == 3
    assert CardSet(g.legal_cards()) == CardSet(hearts_and_queen)
    events = g.play(3, "QS")
    won = events[-1]
    assert isinstance(won, ev.TrickWon) and won.points == 13
    assert not g.hearts_broken  # the Q♠ does not break hearts by default
    # seat 3 showed it holds nothing but points: void in clubs, diamonds, and (one deck) spades
    assert g.view(0).voids[3] == frozenset({0, 1, 2})


def test_first_trick_hand_of_only_hearts_may_discard_a_heart_which_breaks_hearts() -> None:
    g = game_with(NO_PASS, "2C", "", "", "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    play(g, "2C")
    play_lowest(g, 2)
    events = g.play(3, "AH")
    assert ev.HeartsBroken(3, Card("AH")) in events
    assert g.hearts_broken


def test_points_on_first_trick_option_allows_hearts_and_the_queen() -> None:
    g = game_with(Rules(passing=False, points_on_first_trick=True), *QUEEN_DEAL)
    play(g, "2C JC 2S")
    assert CardSet(g.legal_cards()) == g.hand(3)
    events = g.play(3, "AH")
    assert ev.HeartsBroken(3, Card("AH")) in events
    won = events[-1]
    assert isinstance(won, ev.TrickWon) and won.points == 1 and won.winner == 1


# ---- breaking hearts ---------------------------------------------------------------------

def test_hearts_cannot_be_led_before_they_are_broken() -> None:
    g = plain_game(NO_PASS)
    play(g, "2C 6C 10C AC")
    assert g.turn == 3 and not g.hearts_broken
    assert g.legal_cards() == (Card("AD"), Card("AS"))


def test_leading_a_heart_before_broken_names_the_rule() -> None:
    g = game_with(NO_PASS, *QUEEN_DEAL)
    play(g, QUEEN_TRICKS[0])
    play(g, QUEEN_TRICKS[1])
    assert g.turn == 3 and not g.hearts_broken
    assert_refused(g, lambda: g.play(3, "5H"), IllegalMoveError, "hearts are not broken", "hearts_not_broken")


def test_queen_of_spades_does_not_break_hearts_by_default() -> None:
    g = game_with(NO_PASS, *QUEEN_DEAL)
    events = play(g, QUEEN_TRICKS[0]) + play(g, QUEEN_TRICKS[1])
    assert ev.CardPlayed(0, Card("QS")) in events
    assert not any(isinstance(e, ev.HeartsBroken) for e in events)
    assert not g.hearts_broken and not g.view(2).hearts_broken
    assert g.turn == 3
    assert g.legal_cards() == (Card("AS"),)


def test_queen_breaks_hearts_option() -> None:
    g = game_with(Rules(passing=False, queen_breaks_hearts=True), *QUEEN_DEAL)
    events = play(g, QUEEN_TRICKS[0]) + play(g, QUEEN_TRICKS[1])
    assert ev.HeartsBroken(0, Card("QS")) in events
    assert g.hearts_broken
    assert g.turn == 3
    assert CardSet(g.legal_cards()) == g.hand(3)
    events = g.play(3, "5H")
    assert events == [ev.CardPlayed(3, Card("5H"))]


def test_no_breaking_option_lets_hearts_be_led_any_time() -> None:
    g = game_with(Rules(passing=False, no_breaking=True), *QUEEN_DEAL)
    play(g, QUEEN_TRICKS[0])
    play(g, QUEEN_TRICKS[1])
    assert g.turn == 3 and not g.hearts_broken
    assert CardSet(g.legal_cards()) == g.hand(3)  # unbroken, yet hearts may be led
    events = g.play(3, "AH")
    assert ev.HeartsBroken(3, Card("AH")) in events
    # void in clubs since trick 1; leading a heart proves nothing more when any lead is legal
    assert g.view(0).voids[3] == frozenset({Suit.CLUBS})


def test_leader_holding_only_hearts_may_lead_one_before_they_are_broken() -> None:
    only_hearts = "AC 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    g = game_with(NO_PASS, "2C", "", "", only_hearts)
    play(g, "2C")
    play_lowest(g, 2)
    play(g, "AC")
    assert g.turn == 3 and not g.hearts_broken
    assert CardSet(g.legal_cards()) == CardSet(only_hearts) - CardSet("AC")
    events = g.play(3, "2H")
    assert events == [ev.CardPlayed(3, Card("2H")), ev.HeartsBroken(3, Card("2H"))]
    assert g.view(1).voids[3] == frozenset({0, 1, 2})


def test_leader_holding_only_the_queen_and_hearts_must_lead_the_queen() -> None:
    g = game_with(NO_PASS, "2C", "", "", "AC QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH")
    play(g, "2C")
    play_lowest(g, 2)
    play(g, "AC")
    assert g.turn == 3
    assert g.legal_cards() == (Card("QS"),)
    with pytest.raises(IllegalMoveError, match="hearts are not broken"):
        g.play(3, "QH")


# ---- turns, phases and untouched state on errors -----------------------------------------

def test_not_your_turn() -> None:
    g = plain_game(NO_PASS)
    assert_refused(g, lambda: g.play(1, "6C"), NotYourTurnError, "not your turn", "not_your_turn")
    assert g.legal_moves(1) == []


@pytest.mark.parametrize("seat", [-1, 4, 7])
def test_a_seat_not_at_the_table_is_rejected(seat: int) -> None:
    g = plain_game(NO_PASS)
    before = snapshot(g)
    with pytest.raises(IllegalMoveError, match=f"no seat {seat} at a 4-player table"):
        g.play(seat, "2C")
    with pytest.raises(IllegalMoveError, match=f"no seat {seat} at a 4-player table"):
        plain_game().pass_cards(seat, "2C 3C 4C")
    assert snapshot(g) == before


def test_unparseable_card_changes_nothing() -> None:
    g = plain_game(NO_PASS)
    assert_refused(g, lambda: g.play(0, "ZZ"), ValueError, "not a card")


def test_next_round_and_moon_choice_are_refused_mid_round() -> None:
    g = plain_game(NO_PASS)
    play(g, "2C 6C")
    before = snapshot(g)
    with pytest.raises(WrongPhaseError, match="the round is not over"):
        g.next_round()
    with pytest.raises(WrongPhaseError, match="there is no moon to score"):
        g.choose_moon(2, True)
    with pytest.raises(WrongPhaseError):
        g.apply(NextRound())
    assert snapshot(g) == before


def test_apply_dispatches_every_move_kind() -> None:
    g = plain_game()
    g.apply(PassMove(0, CardSet("2C 3C 4C")))
    assert g.passes[0] == CardSet("2C 3C 4C").mask
    with pytest.raises(TypeError, match="not a move"):
        g.apply("0 play 2C")  # type: ignore[arg-type]
    with pytest.raises(WrongPhaseError):
        g.apply(MoonMove(0, True))


ErrorCase = Callable[[Game], object]


@pytest.mark.parametrize("bad", [
    lambda g: g.play(2, "10C"),
    lambda g: g.play(1, "AH"),
    lambda g: g.play(1, "6D"),
    lambda g: g.play(1, "ZZ"),
    lambda g: g.pass_cards(1, "6C 7C 8C"),
    lambda g: g.choose_moon(1, False),
    lambda g: g.next_round(),
    lambda g: g.apply(PlayMove(3, Card("AC"))),
])
def test_every_refused_move_leaves_the_state_untouched(bad: ErrorCase) -> None:
    g = plain_game(NO_PASS)
    play(g, "2C")
    before = snapshot(g)
    moves_before = list(g.moves)
    with pytest.raises(ValueError):
        bad(g)
    assert snapshot(g) == before
    assert g.moves == moves_before
    play(g, "6C 10C AC")  # and the game carries on normally


NOT_SEATS = [True, False, 1.0, "1", -1, 4]
"""Not seats anywhere (None is legal_moves' "whoever is to act", refused by the others)."""


@pytest.mark.parametrize("seat", NOT_SEATS, ids=repr)
@pytest.mark.parametrize("entry", [
    lambda g, s: g.play(s, "6C"),
    lambda g, s: g.apply(PlayMove(s, Card("6C"))),
    lambda g, s: g.legal_moves(s),
    lambda g, s: g.hand(s),
    lambda g, s: g.view(s),
], ids=["play", "apply", "legal_moves", "hand", "view"])
def test_a_seat_must_be_a_seat_number_at_every_entry_point(entry: Callable[[Game, object], object],
                                                           seat: object) -> None:
    """True == 1 in Python: play(True, card) used to be taken as seat 1's card and logged
    as "True", and the saved game then failed to load."""
    g = plain_game(NO_PASS)
    play(g, "2C")  # seat 1 is to play
    assert_refused(g, lambda: entry(g, seat), IllegalMoveError, rule="bad_seat")
    assert loads(dumps(g)).moves == g.moves


@pytest.mark.parametrize("entry", [
    lambda g: g.play(None, "6C"), lambda g: g.hand(None), lambda g: g.view(None),
    lambda g: g.pass_cards(None, "2C 3C 4C"), lambda g: g.choose_moon(None, True),
], ids=["play", "hand", "view", "pass_cards", "choose_moon"])
def test_no_seat_is_not_a_seat(entry: Callable[[Game], object]) -> None:
    g = plain_game(NO_PASS)
    play(g, "2C")
    with pytest.raises(IllegalMoveError, match="no seat None"):
        entry(g)


@pytest.mark.parametrize("seat", NOT_SEATS, ids=repr)
@pytest.mark.parametrize("entry", [
    lambda g, s: g.pass_cards(s, "2C 3C 4C"),
    lambda g, s: g.choose_moon(s, True),
], ids=["pass_cards", "choose_moon"])
def test_a_seat_must_be_a_seat_number_when_passing_and_choosing(entry: Callable[[Game, object], object],
                                                                seat: object) -> None:
    g = plain_game()
    assert_refused(g, lambda: entry(g, seat), IllegalMoveError, rule="bad_seat")


@pytest.mark.parametrize("card", ["ZZ", "", "1", 99, 52, -1, True, None, 6.0, ["6C"]], ids=repr)
def test_every_bad_card_code_is_an_illegal_move(card: object) -> None:
    """As pass_cards always did: the engine's own error type, never a bare ValueError."""
    g = plain_game(NO_PASS)
    play(g, "2C")
    assert_refused(g, lambda: g.play(1, card), IllegalMoveError, rule="not_a_card")  # type: ignore[arg-type]


@pytest.mark.parametrize("cards", ["ZZ 2C 3C", [99, 0, 1], [True, 0, 1], None, True, 6.5, "2C 3C"], ids=repr)
def test_every_bad_pass_is_an_illegal_move(cards: object) -> None:
    g = plain_game()
    assert_refused(g, lambda: g.pass_cards(0, cards), IllegalMoveError, rule="pass_cards")  # type: ignore[arg-type]


def test_a_bool_is_not_a_card() -> None:
    with pytest.raises(ValueError):
        Card(True)
    with pytest.raises(ValueError):
        CardSet(True)
    assert Card(1) == Card("3C") and CardSet(1) == CardSet("2C")


# ---- events --------------------------------------------------------------------------------

def test_round_started_event_and_play_events() -> None:
    rules = NO_PASS
    g = plain_game(rules)
    events = play(g, "2C 6C 10C")
    assert events == [ev.CardPlayed(0, Card("2C")), ev.CardPlayed(1, Card("6C")), ev.CardPlayed(2, Card("10C"))]
    events = g.play(3, "AC")
    assert events == [ev.CardPlayed(3, Card("AC")),
                      ev.TrickWon(0, 0, (Card("2C"), Card("6C"), Card("10C"), Card("AC")), 3, 0, ())]


def test_trick_won_event_counts_points() -> None:
    g = game_with(NO_PASS, *QUEEN_DEAL)
    play(g, QUEEN_TRICKS[0])
    events = play(g, QUEEN_TRICKS[1])
    assert events[-1] == ev.TrickWon(1, 1, tuple(Card(c) for c in "2D JD AD QS".split()), 3, 13, ())
    assert g.taken_points == [0, 0, 0, 13]
    assert g.tricks[-1].winner == 3 and g.tricks[-1].points == 13


def test_legal_moves_during_play_are_play_moves_of_the_seat_to_act() -> None:
    g = plain_game(NO_PASS)
    play(g, "2C")
    assert g.legal_moves() == [PlayMove(1, Card(c)) for c in ["6C", "7C", "8C", "9C"]]
    assert g.legal_moves(1) == g.legal_moves()
    assert g.legal_mask == CardSet("6C 7C 8C 9C").mask
