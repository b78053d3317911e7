"""The Q♠ given to a spade trick another seat wins with the K♠ or A♠, by the last to play
(a habit of the opponents in Hard's search, ``choose_card(dump=True)``)."""

from __future__ import annotations

from engine import Rules
from engine.bots.policy import choose_card
from engine.bots.sim import SimRound
from engine.cards import CardSet, parse_card

# Seat 0 leads the 2♣ and seat 2 takes the trick with the A♣ (seat 3, void, plays the 2♠);
# seat 2 then leads the 5♠, seat 3 plays the 7♠, and seat 0 plays third; seat 1, last,
# holds the Q♠ and the 4♠.
HANDS = [
    "2C 3S AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    "3C 4C 5C QS 4S 2H 3H 4H 5H 6H 7H 8H 9H",
    "6C 7C 8C 9C TC JC QC KC AC 5S 6S QD KD",
    "AD 2S 7S 8S 9S TS JS KS TH JH QH KH AH",
]


def _spade_trick(third: str) -> SimRound:
    st = SimRound.start(Rules(passing=False), [CardSet(h).mask for h in HANDS], 3)
    for seat, card in [(0, "2C"), (1, "5C"), (2, "AC"), (3, "2S"), (2, "5S"), (3, "7S"), (0, third)]:
        assert st.turn == seat
        st.play(int(parse_card(card)))
    assert st.turn == 1
    return st


def test_last_to_play_gives_the_queen_to_a_trick_the_ace_wins() -> None:
    st = _spade_trick("AS")
    assert choose_card(st, dump=True) == int(parse_card("QS"))
    # the careful player (Medium) keeps her, and plays its other spade
    assert choose_card(st) == int(parse_card("4S"))


def test_the_queen_stays_when_she_would_win_the_trick() -> None:
    st = _spade_trick("3S")  # the 7♠ wins so far: the Q♠ would take her own trick
    assert choose_card(st, dump=True) == int(parse_card("4S"))


def test_hards_pass_rollouts_give_the_queen_too() -> None:
    """Hard's pass judges each pass by rollouts in which the opponents give the Q♠ to a spade
    trick won by the K♠ or A♠ (IS-MCTS always did, 20 times in 20); ``hard24`` kept her."""
    from engine.arena import make_player
    from engine.bots.hard import HUNT_PRIOR, HUNT_PRIOR_BEFORE, HardBot, rollout_aware
    from engine.bots.hardis import HardISBot
    from engine.state import Game

    totals = [0, 0, 0, 0]
    given = rollout_aware(_spade_trick("AS"), totals, 0, 100, (0, 0, 2.0), dump=True)
    kept = rollout_aware(_spade_trick("AS"), totals, 0, 100, (0, 0, 2.0))
    assert given < kept - 13  # seat 0 took the queen with its A♠ only when she is given
    hard = HardISBot()
    assert hard.pass_dump and hard.hunt_prior == HUNT_PRIOR == 0.8
    assert not HardISBot(dump=False).pass_dump and not HardBot().pass_dump  # the flat search: the coach's
    before = make_player("hard24", Game(Rules(), seed=1), None, 10)
    assert isinstance(before, HardISBot) and before.dump
    assert not before.pass_dump and before.hunt_prior == HUNT_PRIOR_BEFORE == 0.5
