"""Cancellation Hearts: two decks, identical cards cancel, carried tricks, two 2♣, the 52 moon."""

from __future__ import annotations

import random

import pytest

from engine import Card, CardSet, Game, IllegalMoveError, NotYourTurnError, Phase, Rules, Suit
from engine import events as ev
from engine.events import Event

from .helpers import assert_refused, cards, deal, game_with, play, play_lowest, play_policy, play_round

CANCEL = Rules(cancellation=True, passing=False)


def full_suit(letter: str) -> list[str]:
    return [f"{r}{letter}" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()]


ALL_CLUBS_BUT_ONE_TWO = "3C 3C 4C 4C 5C 5C 6C 6C 7C 7C 8C 8C 9C 9C 10C 10C JC JC QC QC KC KC AC AC"


def test_two_decks_dealt_26_each_to_four_players() -> None:
    g = Game(CANCEL, seed=1)
    assert [len(g.hand(s)) for s in range(4)] == [26] * 4
    held: list[Card] = [c for s in range(4) for c in g.hand(s)]
    assert sorted(held) == sorted(list(range(52)) * 2)
    assert g.view(0).set_aside == 0


def test_three_players_set_two_cards_aside_unseen() -> None:
    g = Game(Rules(players=3, cancellation=True), seed=2)
    assert [len(g.hand(s)) for s in range(3)] == [34] * 3
    assert g.view(1).set_aside == 2
    assert len(g.view(1).unseen) == 104 - 34


def test_identical_cards_cancel_and_the_highest_uncancelled_card_wins() -> None:
    g = game_with(CANCEL, "2C 2C", "AC", "AC", "KC")
    assert g.turn == 0
    events = play(g, "2C AC AC KC")
    assert events[-1] == ev.TrickWon(0, 0, cards("2C AC AC KC"), 3, 0, ())
    assert g.turn == 3


def test_identical_off_suit_cards_do_not_touch_the_led_suit() -> None:
    # seat 0 takes every club; seats 1 and 2 each hold a 5♠
    g = game_with(CANCEL, "2C 2C", "5S", "5S")
    events = play(g, "2C 5S 5S")
    events += play_lowest(g)
    won = events[-1]
    assert isinstance(won, ev.TrickWon) and won.winner == 0 and won.cards[:3] == cards("2C 5S 5S")


def test_an_all_cancelled_trick_carries_over_to_the_next_trick_winner() -> None:
    # seat 0: one 2♣, every other club, one 2♦; seat 1: the other 2♣ and every other
    # diamond; seat 2 every spade; seat 3 every heart
    g = game_with(CANCEL, "2C", "2C")
    assert g.hand(3) == CardSet(" ".join(f"{r}H {r}H" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()))
    assert g.turn == 0 and g.legal_cards() == (Card("2C"),)
    g.play(0, "2C")
    assert g.legal_cards() == (Card("2C"),)  # seat 1 must follow with its only club
    g.play(1, "2C")
    g.play(2, "2S")
    events = g.play(3, "2H")  # only hearts: forced even on the first trick
    assert events == [ev.CardPlayed(3, Card("2H")), ev.HeartsBroken(3, Card("2H")),
                      ev.TrickCancelled(0, 0, cards("2C 2C 2S 2H"))]
    assert g.pot == list(cards("2C 2C 2S 2H"))
    assert g.tricks[-1].winner is None and g.tricks[-1].points == 0
    assert g.taken_points == [0, 0, 0, 0]
    # the same player leads again
    assert g.turn == 0 and g.leader == 0
    assert g.view(2).pot == cards("2C 2C 2S 2H")
    events = play(g, "2D AD 3S 3H")
    assert events[-1] == ev.TrickWon(1, 0, cards("2D AD 3S 3H"), 1, 2, cards("2C 2C 2S 2H"))
    assert g.pot == []
    assert g.taken_points == [0, 2, 0, 0]
    assert CardSet.from_mask(g.taken[1]) == CardSet("2C 2C 2S 2H 2D AD 3S 3H")
    assert g.turn == 1


def test_no_queen_of_spades_on_the_first_trick_in_cancellation_either() -> None:
    g = game_with(CANCEL, "2C", "2C")
    play(g, "2C 2C")
    assert g.legal_cards() == tuple(c for c in g.hand(2).distinct() if c != Card("QS"))


def test_an_all_cancelled_last_trick_goes_to_its_leader() -> None:
    # seat 0 holds every club but one 2♣, plus a 5♦; seat 1 the other 5♦; seat 2 the
    # other 2♣ and all the spades; seat 3 all the hearts.  The first trick cancels
    # (2♣ against 2♣), seat 0 then wins every club trick, and leads its 5♦ last:
    # seat 1 must follow with the other 5♦, and nobody else has a diamond.
    g = game_with(CANCEL, "2C " + ALL_CLUBS_BUT_ONE_TWO + " 5D", "5D", "2C")
    assert not g.hand(2).suit(Suit.DIAMONDS) and not g.hand(3).suit(Suit.DIAMONDS)
    assert not g.hand(1).suit(Suit.CLUBS) and not g.hand(3).suit(Suit.CLUBS)
    events: list[Event] = []
    while g.phase is Phase.PLAY:
        seat: int = g.turn  # type: ignore[assignment]
        legal = g.legal_cards()
        # seat 1 keeps its 5♦ to the end; everyone else plays its lowest card
        keep = [c for c in legal if c != Card("5D")] if seat == 1 else list(legal)
        events += g.play(seat, (keep or list(legal))[0])
    cancelled = [e for e in events if isinstance(e, ev.TrickCancelled)]
    assert cancelled == [ev.TrickCancelled(0, 0, cards("2C 2D 2C 2H"))]
    won = [e for e in events if isinstance(e, ev.TrickWon)]
    assert len(won) == 25
    last = won[-1]
    assert last.number == 25 and last.leader == 0
    assert last == ev.TrickWon(25, 0, cards("5D 5D AS AH"), 0, 1, ())
    assert len(g.tricks) == 26 and g.tricks[-1].winner == 0
    assert g.phase is Phase.ROUND_OVER


def test_first_holder_of_a_two_of_clubs_clockwise_from_the_dealers_left_leads() -> None:
    # round 0: the dealer is seat 3, so seat 0 is on its left: 0, 1, 2, 3
    assert game_with(CANCEL, "", "2C", "", "2C").turn == 1
    assert game_with(CANCEL, "", "", "2C", "2C").turn == 2
    assert game_with(CANCEL, "2C", "", "", "2C").turn == 0


def test_first_lead_follows_the_dealer_round_by_round() -> None:
    d = deal(CANCEL, "2C", "", "", "2C")
    g = Game(CANCEL.replace(target_score=10_000), seed=4, deals=[d, d])
    assert g.dealer == 3 and g.turn == 0
    play_round(g, random.Random(4))
    g.next_round()
    # round 1: the dealer is seat 0, so the order from its left is 1, 2, 3, 0
    assert g.dealer == 0 and g.turn == 3


def test_the_other_two_of_clubs_on_the_first_trick_cancels() -> None:
    g = game_with(CANCEL, "KC", "AC", "2C", "2C 3C")
    assert g.turn == 2
    events = play(g, "2C 2C KC AC")
    # both 2♣ cancel; the A♣ is the highest uncancelled club
    assert events[-1] == ev.TrickWon(0, 2, cards("2C 2C KC AC"), 1, 0, ())


def test_moon_needs_every_heart_and_both_queens_52() -> None:
    clubs = " ".join(c + " " + c for c in full_suit("C"))
    g = game_with(CANCEL, "", clubs)
    events = play_policy(g, high={1})
    assert ev.MoonShot(1, 52) in events
    scored = events[-1]
    assert scored == ev.RoundScored(0, (52, 0, 52, 52), (52, 0, 52, 52), 1)


def test_moon_with_omnibus_in_cancellation_counts_both_jacks() -> None:
    clubs = " ".join(c + " " + c for c in full_suit("C"))
    g = game_with(CANCEL.replace(omnibus=True), "", clubs)
    events = play_policy(g, high={1})
    assert ev.MoonShot(1, 52) in events
    assert events[-1].points == (52, -20, 52, 52)  # type: ignore[union-attr]


def test_all_hearts_and_only_one_queen_is_not_a_moon() -> None:
    rules = CANCEL.replace(points_on_first_trick=True)
    shooter = "2C 2C " + ALL_CLUBS_BUT_ONE_TWO.replace("AC AC", "AC") + " AD"
    hearts = " ".join(c + " " + c for c in full_suit("H")).replace("AH AH", "AH")
    g = game_with(rules, "AC 2D AD", shooter, "QS " + hearts)
    assert g.turn == 1
    events = play(g, "2C QS")  # seat 2 sheds one Q♠ on the first trick (allowed here)
    events += play_lowest(g)
    events += g.play(0, "AC")
    assert events[-1] == ev.TrickWon(0, 1, cards("2C QS 2S AC"), 0, 13, ())
    events += play_policy(g, high=set())
    assert not any(isinstance(e, ev.MoonShot) for e in events)
    assert events[-1] == ev.RoundScored(0, (13, 39, 0, 0), (13, 39, 0, 0), None)


def test_set_aside_penalty_cards_lower_the_moon_to_what_is_in_play() -> None:
    rules = Rules(players=3, cancellation=True, passing=False)
    clubs = " ".join(c + " " + c for c in full_suit("C"))
    g = game_with(rules, clubs + " AD AD KD KD QD QD JD JD", aside="AH QS")
    events = play_policy(g, high={0})
    assert ev.MoonShot(0, 52 - 14) in events
    assert events[-1].points == (0, 38, 38)  # type: ignore[union-attr]


def test_refused_move_after_a_cancelled_trick_changes_nothing() -> None:
    g = game_with(CANCEL, "2C", "2C")
    play(g, "2C 2C 2S 2H")
    assert_refused(g, lambda: g.play(1, "AD"), NotYourTurnError)


def test_passing_in_cancellation_counts_copies() -> None:
    rules = Rules(cancellation=True)
    g = game_with(rules, "QS QS AH", "AH")
    with pytest.raises(IllegalMoveError, match="pass exactly 3 cards you hold"):
        g.pass_cards(1, "AH AH 2D")  # seat 1 holds only one A♥
    g.pass_cards(0, "QS QS AH")
    for seat in (1, 2, 3):
        g.pass_cards(seat, list(g.hand(seat))[:3])
    assert g.hand(1).count("QS") == 2 and g.hand(1).count("AH") == 2  # its own and seat 0's
    assert g.hand(0).count("QS") == 0 and g.hand(0).count("AH") == 0
    assert g.view(0).passed_still_held == CardSet("QS QS AH")
