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


def _position(hands: list[str], dealer: int, moves: list[tuple[int, str]], turn: int) -> SimRound:
    """The round of ``hands`` (no passing) after ``moves``, each by the seat whose turn it is."""
    st = SimRound.start(Rules(passing=False), [CardSet(h).mask for h in hands], dealer)
    for seat, card in moves:
        assert st.turn == seat
        st.play(int(parse_card(card)))
    assert st.turn == turn
    return st


def _spade_trick(third: str) -> SimRound:
    return _position(HANDS, 3, [(0, "2C"), (1, "5C"), (2, "AC"), (3, "2S"), (2, "5S"), (3, "7S"), (0, third)], 1)


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
    from engine.bots.hard import HUNT_PRIOR, HUNT_PRIOR_BEFORE, HardBot
    from engine.bots.hardis import HardISBot
    from engine.bots.rollouts import rollout_aware
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


# Seat 0 wins the first trick with the A♣ and leads: it holds the A♠ and four spades below
# the Q♠, which seat 1 holds with the 2♠ alone.
HUNT_HANDS = [
    "AC AS 5S 6S 7S 8S 2D 3D 4D 5D 6D 7D 8D",
    "2C 3C 4C 5C 6C 7C 8C QS 2S 2H 3H 4H 5H",
    "9C TC JC 3S 4S 9S 9D TD JD 6H 7H 8H 9H",
    "QC KC TS JS KS QD KD AD TH JH QH KH AH",
]


def _hunt_position() -> SimRound:
    return _position(HUNT_HANDS, 0, [(1, "2C"), (2, "9C"), (3, "QC"), (0, "AC")], 0)


def test_hards_own_rollouts_hunt_the_queen_with_long_spades() -> None:
    """Hard imagines itself hunting the Q♠ as IS-MCTS does with long spades: holding the A♠
    and more spades below her, it leads them until she falls on the seat that holds her
    (docs/strength.md, issue 14's thirty-first session); the careful player leads a diamond
    and never flushes her."""
    from engine.arena import HARD30, make_player
    from engine.bots.rollouts import play_out_aware
    from engine.state import Game

    st = _hunt_position()
    assert choose_card(st, guard=True, dump=True) == int(parse_card("2D"))
    assert choose_card(st, True, guard=True, dump=True) == int(parse_card("8S"))
    hunted = _hunt_position()
    play_out_aware(hunted, 0, 0, 0, dump=True, hunt=True)
    assert hunted.taken[1] >= 13 and hunted.pen_points[1] >= 13  # seat 1 took its own queen
    careful = _hunt_position()
    play_out_aware(careful, 0, 0, 0, dump=True)
    assert careful.pen_points[1] < 13
    g = Game(Rules(), seed=1)
    assert make_player("hard", g, None, 10).self_hunt
    assert not make_player(HARD30, g, None, 10).self_hunt
    assert not make_player("hardflat", g, None, 10).self_hunt  # the flat search (the coach's) as before
