"""Hard's imagined opponents keep their hearts off its tricks once it nears a moon
(``choose_card(wary=...)``, issue 14's thirty-third session)."""

from __future__ import annotations

from engine import Rules
from engine.bots.policy import choose_card
from engine.bots.sim import SimRound
from engine.cards import CardSet, parse_card

# Seat 1 leads the 2♣, seat 0 takes the trick with the A♣ and leads the K♣; seat 2 (spades
# only) throws a spade on it, and seat 3, void in clubs, holds the 9♦ and eleven hearts.
HANDS = [
    "AC KC QC JC TC 9C 8C AD KD QD JD TD 3H",
    "2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D 2H",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
    "8D 9D 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
]


def _position(spade: str) -> SimRound:
    st = SimRound.start(Rules(passing=False), [CardSet(h).mask for h in HANDS], 0)
    for seat, card in [(1, "2C"), (2, "2S"), (3, "8D"), (0, "AC"), (0, "KC"), (1, "3C"), (2, spade)]:
        assert st.turn == seat
        st.play(int(parse_card(card)))
    assert st.turn == 3
    return st


def test_a_wary_opponent_keeps_its_hearts_off_a_trick_that_would_feed_a_moon() -> None:
    st = _position("QS")  # seat 0, nobody else having taken a point, wins 13 with this trick
    assert choose_card(st) == int(parse_card("AH"))  # the careful player throws its top heart
    assert choose_card(st, wary=0) == int(parse_card("9D"))
    assert choose_card(st, wary=2) == int(parse_card("AH"))  # wary of another seat: no matter


def test_below_a_fifth_of_the_moon_the_wary_opponent_throws_its_hearts() -> None:
    st = _position("3S")  # no point on the trick, none taken: far from a moon
    assert choose_card(st, wary=0) == int(parse_card("AH"))
    st = _position("QS")
    st.pen_taken[1] = 1  # someone else has taken a penalty card: no moon to fear
    assert choose_card(st, wary=0) == int(parse_card("AH"))


def test_hards_rollouts_and_tree_imagine_wary_opponents_when_asked() -> None:
    """The opponents of Hard's rollouts and tree (``opponent_card``) are wary of the seat
    they are given: the arena's ``hardwary`` imagines them so, the server's Hard
    (``HardISBot``) and the flat search (the coach's) do not."""
    from engine.arena import make_player
    from engine.bots.hard import HardBot
    from engine.bots.hardis import HardISBot
    from engine.bots.rollouts import opponent_card
    from engine.state import Game

    nine = int(parse_card("9D"))
    assert opponent_card(_position("QS"), 0, 0, True, 0, 1 << 3) == nine
    assert opponent_card(_position("QS"), 0, 0, True, 0, 1 << 2) == int(parse_card("AH"))
    assert opponent_card(_position("QS"), 0, 0, True) == int(parse_card("AH"))
    wary = make_player("hardwary", Game(Rules(), seed=1), None, 10)
    assert isinstance(wary, HardISBot) and wary.wary and wary.wary_every == 1
    half = make_player("hardwh", Game(Rules(), seed=1), None, 10)
    assert isinstance(half, HardISBot) and half.wary and half.wary_every == 2
    assert not HardISBot().wary and not HardBot().wary


def test_hard_imagines_a_wary_table_in_one_deal_of_every_wary_every() -> None:
    """``HardISBot.wary_seats`` draws, deal after deal, every opponent wary or none."""
    from engine.bots.hardis import HardISBot
    from engine.state import Game

    view = Game(Rules(), seed=1).view(2)
    half = HardISBot(wary=True, wary_every=2).wary_seats(view)
    assert [half() for _ in range(4)] == [0b1011, 0, 0b1011, 0]
    every = HardISBot(wary=True).wary_seats(view)
    assert [every() for _ in range(3)] == [0b1011] * 3
    never = HardISBot().wary_seats(view)
    assert [never() for _ in range(2)] == [0, 0]
