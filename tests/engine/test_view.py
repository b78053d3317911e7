"""PlayerView: a seat's whole knowledge, and nothing it could not know."""

from __future__ import annotations

import json
import random

import pytest

from engine import PRESETS, STANDARD, Card, CardSet, Game, PassDirection, Phase, PlayerView, Rules, Suit

from .helpers import NO_PASS, deck_mask, game_with, play, play_lowest, play_policy, seat_views

PLAIN = [
    "2C 3C 4C 5C 2D 3D 4D 5D 2S 3S 4S 5S 2H",
    "6C 7C 8C 9C 6D 7D 8D 9D 6S 7S 8S 9S 3H",
    "10C JC QC KC 10D JD QD KD 10S JS QS KS 4H",
    "AC AD AS 5H 6H 7H 8H 9H 10H JH QH KH AH",
]


def test_view_holds_the_seats_hand_and_nothing_of_the_others() -> None:
    g = Game(STANDARD, seed=1, deals=[PLAIN])
    for seat in range(4):
        v = g.view(seat)
        assert isinstance(v, PlayerView) and v == PlayerView.of(g, seat)
        assert v.seat == seat and v.players == 4
        assert v.hand == CardSet(PLAIN[seat])
        assert v.unseen == CardSet(range(52)) - CardSet(PLAIN[seat])
        assert v.hand_sizes == (13, 13, 13, 13)
        assert v.passed is None and v.received is None
        assert v.pass_direction is PassDirection.LEFT and v.pass_target == (seat + 1) % 4
        assert v.legal == CardSet() and v.turn is None and v.first_lead is None
        assert v.my_turn


def test_a_chosen_pass_is_visible_only_to_its_chooser_until_the_exchange() -> None:
    g = Game(STANDARD, seed=1, deals=[PLAIN])
    g.pass_cards(0, "2C 3C 4C")
    assert g.view(0).passed == CardSet("2C 3C 4C")
    assert not g.view(0).my_turn
    assert g.view(0).unseen == CardSet(range(52)) - CardSet(PLAIN[0])
    other = g.view(1)
    assert other.passed is None and other.received is None
    assert other.passes_chosen == (True, False, False, False)
    d = other.to_dict()
    assert d["passed"] is None and d["received"] is None and d["passes_chosen"] == [True, False, False, False]
    assert other.hand == CardSet(PLAIN[1])


def test_after_the_exchange_a_seat_sees_what_it_received_and_tracks_what_it_passed() -> None:
    g = Game(STANDARD, seed=1, deals=[PLAIN])
    g.pass_cards(0, "5S 2H 5D")
    g.pass_cards(1, "6C 7C 8C")
    g.pass_cards(2, "QS KS 4H")
    g.pass_cards(3, "AC AD AS")
    v = g.view(0)
    assert v.received == CardSet("AC AD AS") and v.received_from == 3
    assert v.passed == CardSet("5S 2H 5D") and v.pass_target == 1
    assert v.passed_still_held == CardSet("5S 2H 5D")
    assert v.hand == CardSet(PLAIN[0]) - CardSet("5S 2H 5D") | CardSet("AC AD AS")
    # what seat 0 passed is known to be with seat 1, so it is not "unseen"
    assert v.unseen == CardSet(range(52)) - v.hand - CardSet("5S 2H 5D")
    assert g.view(1).received == CardSet("5S 2H 5D") and g.view(1).received_from == 0


def test_passed_cards_leave_passed_still_held_once_the_receiver_plays_them() -> None:
    g = Game(STANDARD, seed=1, deals=[PLAIN])
    for seat, cards in enumerate(["2C 3C 4C", "6C 7C 8C", "10C JC QC", "AC AD AS"]):
        g.pass_cards(seat, cards)
    assert g.turn == 1  # seat 1 received the 2♣ from seat 0
    g.play(1, "2C")
    v = g.view(0)
    assert v.passed_still_held == CardSet("3C 4C")
    assert Card("2C") not in v.unseen and Card("3C") not in v.unseen
    assert v.trick == (Card("2C"),) and v.trick_leader == 1 and v.led_suit is Suit.CLUBS


def test_trick_history_with_leader_and_winner() -> None:
    g = game_with(NO_PASS, *PLAIN)
    play(g, "2C 6C 10C AC")
    v = g.view(2)
    assert len(v.tricks) == 1
    t = v.tricks[0]
    assert (t.number, t.leader, t.winner, t.points) == (0, 0, 3, 0)
    assert t.cards == tuple(Card(c) for c in "2C 6C 10C AC".split())
    assert v.played_cards() == CardSet("2C 6C 10C AC")
    assert v.unseen == CardSet(range(52)) - CardSet(PLAIN[2]) - CardSet("2C 6C AC")
    assert v.turn == 3 and v.trick_leader == 3 and v.trick == () and v.led_suit is None
    assert not v.first_trick


def test_legal_cards_appear_only_in_the_view_of_the_seat_to_play() -> None:
    g = game_with(NO_PASS, *PLAIN)
    play(g, "2C")
    assert g.view(1).legal == CardSet("6C 7C 8C 9C")
    assert g.view(1).my_turn
    for seat in (0, 2, 3):
        assert g.view(seat).legal == CardSet()
        assert not g.view(seat).my_turn


def test_voids_are_inferred_from_not_following() -> None:
    g = game_with(NO_PASS, "2C", "", "", "AS KS")
    play(g, "2C")
    play(g, g.legal_cards()[0].code())  # seat 1 has no club: the fill gave them all to seat 0
    v = g.view(0)
    assert Suit.CLUBS in v.voids[1]
    assert v.voids[0] == frozenset()


def test_two_queens_on_the_first_trick_do_not_make_a_spade_void() -> None:
    # Cancellation, 5 players (20 cards): seat 1 holds both Q♠ and eighteen hearts, so
    # on the first trick it may shed a Q♠; it still holds the other one.
    rules = Rules(players=5, cancellation=True, passing=False)
    hearts = " ".join(f"{r}H {r}H" for r in "2 3 4 5 6 7 8 9 10".split())
    g = game_with(rules, "2C 2C", "QS QS " + hearts)
    play(g, "2C")
    assert CardSet(g.legal_cards()) == CardSet("QS " + hearts).distinct()
    g.play(1, "QS")
    assert Card("QS") in g.hand(1)
    v = g.view(0)
    assert Suit.SPADES not in v.voids[1]
    assert {Suit.CLUBS, Suit.DIAMONDS} <= v.voids[1]


def test_one_deck_queen_on_the_first_trick_does_make_a_spade_void() -> None:
    g = game_with(NO_PASS, "2C", "", "", "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    play(g, "2C")
    play_lowest(g, 2)
    g.play(3, "QS")
    assert g.view(0).voids[3] == frozenset({Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES})


def test_set_aside_cards_stay_secret_during_play() -> None:
    """Two 3-player Cancellation deals that differ only in which cards are set aside
    (and so in seat 2's hand) look the same to seat 0 until the round is over."""
    rules = Rules(players=3, cancellation=True, passing=False)
    deck = sorted(deck_mask_cards(rules))
    s0 = " ".join(Card(c).code() for c in deck[:34])
    spades = [f"{r}S" for r in "3 4 5 6 7 8 9 10".split() for _ in (0, 1)]
    s1 = " ".join([Card(c).code() for c in deck[34:52]] + spades)
    a = game_with(rules, s0, s1, aside="AH AH")
    b = game_with(rules, s0, s1, aside="2S 2S")
    assert a.hand(2) != b.hand(2)
    assert a.view(0).to_dict() == b.view(0).to_dict()
    for seat in (0, 1):
        assert a.view(seat).to_dict() == b.view(seat).to_dict()
    assert a.view(0).moon_value == b.view(0).moon_value == 52
    # once every card in play has been seen, the set-aside ones are known: the true moon
    play_policy(a)
    play_policy(b)
    assert a.view(0).moon_value == 50 and b.view(0).moon_value == 52


def deck_mask_cards(rules: Rules) -> list[Card]:
    return list(CardSet.from_mask(deck_mask(rules)))


def test_hidden_cards_of_other_seats_do_not_change_a_view() -> None:
    """Swapping two cards between seats 2 and 3 that neither plays changes nothing
    seat 0 sees."""
    swapped = list(PLAIN)
    swapped[2] = PLAIN[2].replace("KD", "KH")
    swapped[3] = PLAIN[3].replace("KH", "KD")
    a = game_with(NO_PASS, *PLAIN)
    b = game_with(NO_PASS, *swapped)
    for g in (a, b):
        play(g, "2C 6C 10C AC AD 2D 6D")
    assert a.view(0).to_dict() == b.view(0).to_dict()
    assert a.view(1).to_dict() == b.view(1).to_dict()
    assert a.view(2).to_dict() != b.view(2).to_dict()


def test_view_to_dict_is_json_and_complete() -> None:
    g = game_with(NO_PASS, *PLAIN)
    play(g, "2C 6C")
    d = g.view(0).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["hand"] == CardSet(PLAIN[0]).codes()[1:]
    assert d["trick"] == ["2C", "6C"] and d["trick_leader"] == 0 and d["turn"] == 2
    assert d["phase"] == "play" and d["rules"] == NO_PASS.to_dict()
    assert d["first_lead"] == "2C" and d["legal"] == []


def test_view_after_the_round_shows_scores_and_moon() -> None:
    rules = Rules(passing=False, shooters_choice=True)
    g = game_with(rules, "", " ".join(f"{r}C" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()))
    play_policy(g, high={1})
    v = g.view(1)
    assert v.phase is Phase.MOON_CHOICE and v.pending_shooter == 1 and v.my_turn
    assert not g.view(0).my_turn
    assert v.moon_value == 26
    assert v.moon_options() == {"add": (26, 0, 26, 26), "subtract": (0, -26, 0, 0)}
    assert g.view(0).moon_options() == v.moon_options()
    g.choose_moon(1, True)
    v = g.view(2)
    assert v.totals == (0, -26, 0, 0) and v.round_points == ((0, -26, 0, 0),) and v.shooters == (1,)
    assert v.moon_options() == {}


def test_view_of_a_seat_not_at_the_table_is_refused() -> None:
    g = game_with(NO_PASS, *PLAIN)
    with pytest.raises(ValueError, match="no seat 4 at a 4-player table"):
        g.view(4)


def test_the_view_module_never_imports_the_true_state() -> None:
    """view.py and state.py used to import each other; the shared values live in
    engine.values, and the view names the game only structurally."""
    import ast
    from pathlib import Path

    import engine.view

    tree = ast.parse(Path(engine.view.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.module not in ("state", "engine.state"), node.module
        if isinstance(node, ast.Import):
            assert all(a.name != "engine.state" for a in node.names)


def _unseen_and_still_held_card_by_card(g: Game, seat: int) -> tuple[CardSet, CardSet]:
    """``unseen`` and ``passed_still_held`` worked out from the round's tricks card by card,
    as a player at the seat would (the view keeps a running mask of the round's plays)."""
    from engine.cards import add_card, multiset_sub, remove_card

    n = g.players
    exchanged = g.phase is not Phase.PASS and g.pass_direction is not PassDirection.NONE
    my_pass = g.passes[seat]
    target = g.pass_direction.target(seat, n) if g.pass_direction is not PassDirection.NONE else None
    seen = g.hands[seat]
    still = my_pass if (my_pass is not None and exchanged) else 0
    led = [(t.leader, t.cards) for t in g.tricks] + ([(g.leader, tuple(g.trick))] if g.trick else [])
    for leader, cards in led:
        for i, c in enumerate(cards):
            seen = add_card(seen, c)
            if still and (leader + i) % n == target and still >> c & 1:
                still = remove_card(still, c)
    deck = g.rules.deck_mask
    unseen = multiset_sub(deck, seen) if (my_pass is not None and not exchanged) else multiset_sub(
        multiset_sub(deck, seen), still)
    return CardSet.from_mask(unseen), CardSet.from_mask(still)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_unseen_and_passed_still_held_agree_with_the_round_read_card_by_card(name: str) -> None:
    for g, v in seat_views(PRESETS[name], 3, 400, random.Random(name)):
        assert (v.unseen, v.passed_still_held) == _unseen_and_still_held_card_by_card(g, v.seat)
