"""Card and CardSet: parsing, printing, ordering and two-deck multiset behaviour."""

from __future__ import annotations

import pickle

import pytest

from engine import CARDS, FULL_DECK, Card, CardSet, Rank, Suit, parse_card
from engine.cards import (
    HEARTS,
    JACK_OF_DIAMONDS,
    PENALTY,
    QUEEN_OF_SPADES,
    TWO_OF_CLUBS,
    add_card,
    cards_of,
    iter_cards,
    multiset_add,
    multiset_sub,
    remove_card,
)


@pytest.mark.parametrize("text", ["QS", "qs", "Q♠", "Q♤", " Q S ", "QS"])
def test_queen_of_spades_parses_from_every_spelling(text: str) -> None:
    assert Card(text) is QUEEN_OF_SPADES
    assert parse_card(text) == Card("QS")


@pytest.mark.parametrize("text", ["10H", "TH", "th", "10♥", "T♡"])
def test_ten_of_hearts_parses_as_10_or_t(text: str) -> None:
    card = Card(text)
    assert card.suit is Suit.HEARTS
    assert card.rank is Rank.TEN


def test_card_prints_code_symbol_and_name() -> None:
    c = Card("TH")
    assert c.code() == "10H"
    assert str(c) == "10H"
    assert c.symbol() == "10♥"
    assert Card("QS").symbol() == "Q♠"
    assert Card("QS").name() == "queen of spades"
    assert Card("2C").name() == "two of clubs"


def test_every_card_round_trips_through_code_symbol_and_repr() -> None:
    for card in CARDS:
        assert Card(card.code()) is card
        assert Card(card.symbol()) is card
        back = eval(repr(card), {"Card": Card})
        assert back is card
        assert type(back) is Card


def test_repr_is_the_constructor_call() -> None:
    assert repr(Card("QS")) == "Card('QS')"
    assert repr(Card("10H")) == "Card('10H')"


def test_card_value_is_its_bit_index_in_suit_order_clubs_diamonds_spades_hearts() -> None:
    assert Card("2C") == 0 and Card("2C") is TWO_OF_CLUBS
    assert Card("AC") == 12
    assert Card("2D") == 13
    assert Card("2S") == 26
    assert Card("QS") == 2 * 13 + 10
    assert Card("JD") is JACK_OF_DIAMONDS
    assert Card("AH") == 51
    assert Card(51) is Card("AH")
    assert Card("QS").bit == 1 << 36


def test_cards_order_by_suit_then_rank() -> None:
    assert sorted(Card(c) for c in ["AH", "2S", "KC", "3D", "2C"]) == [
        Card("2C"), Card("KC"), Card("3D"), Card("2S"), Card("AH")]


@pytest.mark.parametrize("text", ["", "Q", "0S", "11H", "QX", "ZS", "Q♠♠", "QSS"])
def test_bad_card_text_is_a_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        Card(text)


@pytest.mark.parametrize("value", [-1, 52, 104])
def test_card_index_out_of_range_is_rejected(value: int) -> None:
    with pytest.raises(ValueError, match="not a card index"):
        Card(value)


def test_card_pickles_to_the_same_card() -> None:
    assert pickle.loads(pickle.dumps(Card("KD"))) is Card("KD")


def test_suit_parse_accepts_letter_symbol_and_name() -> None:
    assert Suit.parse("H") is Suit.HEARTS
    assert Suit.parse("♣") is Suit.CLUBS
    assert Suit.parse("spades") is Suit.SPADES
    assert Suit.parse("DIAMONDS") is Suit.DIAMONDS
    with pytest.raises(ValueError, match="not a suit"):
        Suit.parse("X")


def test_cardset_parses_and_prints_back_sorted() -> None:
    s = CardSet("QS AH 10H 2C")
    assert str(s) == "2C QS 10H AH"
    assert CardSet(str(s)) == s
    assert CardSet("QS, AH,10H 2C") == s
    assert CardSet(["QS", Card("AH"), 47, "2C"]) == s
    assert s.codes() == ["2C", "QS", "10H", "AH"]


def test_cardset_repr_pastes_back() -> None:
    s = CardSet("QS AH TH 2C")
    assert repr(s) == "CardSet('2C QS 10H AH')"
    assert eval(repr(s), {"CardSet": CardSet}) == s
    assert eval(repr(CardSet()), {"CardSet": CardSet}) == CardSet()


def test_cardset_is_set_like() -> None:
    a = CardSet("2C 3C QS AH")
    b = CardSet("3C QS KH")
    assert "QS" in a and Card("2C") in a and "KH" not in a
    assert 99 not in a and -1 not in a and None not in a
    assert len(a) == 4
    assert list(a) == [Card("2C"), Card("3C"), Card("QS"), Card("AH")]
    assert a | b == CardSet("2C 3C QS KH AH")
    assert a & b == CardSet("3C QS")
    assert a - b == CardSet("2C AH")
    assert a ^ b == CardSet("2C AH KH")
    assert CardSet("3C QS") <= a and CardSet("3C QS") < a and not a < a
    assert a >= CardSet("2C") and a > CardSet("2C") and not b <= a
    assert CardSet("2C").issubset(a)
    assert a.suit(Suit.CLUBS) == CardSet("2C 3C")
    assert not CardSet() and bool(a)
    assert hash(CardSet("2C 3C")) == hash(CardSet("3C 2C"))
    assert CardSet("2C") != "2C"


def test_cardset_is_immutable_and_add_remove_return_new_sets() -> None:
    a = CardSet("2C")
    b = a.add("3C")
    assert a == CardSet("2C") and b == CardSet("2C 3C")
    assert b.remove("2C") == CardSet("3C")
    with pytest.raises(KeyError):
        a.remove("AH")
    with pytest.raises(AttributeError, match="immutable"):
        a.mask = 5  # type: ignore[misc]


def test_two_decks_make_a_multiset() -> None:
    s = CardSet("QS QS AH")
    assert len(s) == 3
    assert s.count("QS") == 2 and s.count("AH") == 1 and s.count("2C") == 0
    assert list(s) == [Card("QS"), Card("QS"), Card("AH")]
    assert str(s) == "QS QS AH"
    assert eval(repr(s), {"CardSet": CardSet}) == s
    assert s.remove("QS") == CardSet("QS AH")
    assert s.remove("QS").remove("QS") == CardSet("AH")
    assert s.add("AH") == CardSet("QS QS AH AH")
    assert s - CardSet("QS") == CardSet("QS AH")
    assert s - CardSet("QS QS AH AH") == CardSet()
    assert CardSet("QS") <= s and not s <= CardSet("QS AH")
    assert s.distinct() == CardSet("QS AH")
    assert s.suit(Suit.SPADES) == CardSet("QS QS")
    assert "QS" in s


def test_a_third_copy_is_rejected() -> None:
    with pytest.raises(ValueError, match="more than two copies of QS"):
        CardSet("QS QS QS")


def test_mask_helpers_keep_the_second_copy_in_the_high_bit() -> None:
    q = int(QUEEN_OF_SPADES)
    m = add_card(0, q)
    assert m == 1 << q
    m2 = add_card(m, q)
    assert m2 == (1 << q) | (1 << (q + 52))
    assert remove_card(m2, q) == m
    assert remove_card(m, q) == 0
    assert list(iter_cards(m2)) == [QUEEN_OF_SPADES, QUEEN_OF_SPADES]
    assert cards_of(m2) == (QUEEN_OF_SPADES,)
    assert multiset_add(m, m) == m2
    assert multiset_sub(m2, m) == m
    assert multiset_sub(m, m2) == 0


def test_multiset_sub_matches_counting_for_every_combination_of_counts() -> None:
    q = int(QUEEN_OF_SPADES)
    masks = {0: 0, 1: 1 << q, 2: (1 << q) | (1 << (q + 52))}
    for a, ma in masks.items():
        for b, mb in masks.items():
            assert multiset_sub(ma, mb) == masks[max(0, a - b)]


def test_full_deck_and_penalty_masks() -> None:
    assert len(FULL_DECK) == 52
    assert CardSet.from_mask(HEARTS) == CardSet("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH")
    assert CardSet.from_mask(PENALTY) == CardSet.from_mask(HEARTS) | CardSet("QS")


def test_cardset_rejects_masks_out_of_range() -> None:
    with pytest.raises(ValueError, match="out of range"):
        CardSet(-1)
    with pytest.raises(ValueError, match="out of range"):
        CardSet(1 << 104)


def test_card_sets_copy_deep_copy_and_pickle_to_equal_sets() -> None:
    import copy

    s = CardSet("QS QS 2C AH")
    assert copy.copy(s) == s
    assert copy.deepcopy({"x": [s]}) == {"x": [s]}
    assert pickle.loads(pickle.dumps(s)) == s


def test_a_game_deep_copies_into_an_independent_equal_game() -> None:
    import copy

    from engine import Game, dumps

    game = Game(seed=3)
    twin = copy.deepcopy(game)
    assert dumps(twin) == dumps(game)
    for seat in range(4):
        twin.pass_cards(seat, list(twin.hand(seat))[:3])
    assert dumps(twin) != dumps(game)
    assert game.phase.value == "pass"
