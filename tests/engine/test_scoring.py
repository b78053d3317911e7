"""Scoring: trick points, the moon in every variant, shooter's choice, the end of the game."""

from __future__ import annotations

import random

import pytest

from engine import CardSet, Game, Phase, Rank, Rules, dumps, loads
from engine import events as ev
from engine.errors import IllegalMoveError, NotYourTurnError, WrongPhaseError
from engine.events import Event
from engine.moves import MoonMove, NextRound

from .helpers import deal, play_policy, play_round, snapshot

# Seat 1 shoots the moon; seat 3 wins the first trick with the A♣ and so takes the J♦
# that seat 2 discards on it.  Played by ``play_policy(g, high={1})``.
OMNIBUS_MOON = [
    "2C 4C 5C 6C 7C 8C 9C 10C JC QC KC 2D 3D",
    "3C AD AS KS QS AH KH QH JH 10H 9H 8H 7H",
    "JD 5S 6S 7S 8S 9S 10S JS 2H 3H 4H 5H 6H",
    "AC 4D 5D 6D 7D 8D 9D 10D QD KD 2S 3S 4S",
]

# Card i of the sorted deck to seat i mod 4: every seat gets every suit; with everyone
# playing its lowest legal card nobody shoots the moon.
SPREAD = [" ".join(CardSet(range(seat, 52, 4)).codes()) for seat in range(4)]


def clubs_deal(rules: Rules, shooter: int) -> list[CardSet]:
    """A deal in which ``shooter`` holds the top clubs and so wins every trick:
    it leads clubs all round and nobody else can follow higher."""
    clubs = sorted(c for c in rules.deck if c < 13)
    diamonds = sorted(c for c in rules.deck if 13 <= c < 26)
    extra = rules.hand_size - len(clubs)
    # with 17 cards (3 players) the shooter also holds the top diamonds, led before the clubs
    top = clubs[-rules.hand_size:] if extra <= 0 else clubs + diamonds[-extra:]
    hands = [""] * rules.players
    hands[shooter] = " ".join(CardSet(top).codes())
    return deal(rules, *hands)


def round_of(rules: Rules, hands: list[CardSet] | list[str], high: set[int]) -> tuple[Game, list[Event]]:
    g = Game(rules, seed=5, deals=[hands])
    return g, play_policy(g, high)


def scored(events: list[Event]) -> ev.RoundScored:
    found = [e for e in events if isinstance(e, ev.RoundScored)]
    assert len(found) == 1
    return found[0]


def test_trick_points_a_heart_each_and_13_for_the_queen() -> None:
    g, events = round_of(Rules(passing=False), SPREAD, high=set())
    won = [e for e in events if isinstance(e, ev.TrickWon)]
    assert len(won) == 13
    for w in won:
        assert w.points == sum(1 for c in w.cards if c.suit == 3) + (13 if CardSet("QS") <= CardSet(w.cards) else 0)
    s = scored(events)
    assert sum(s.points) == 26
    assert s.shooter is None
    assert s.points == tuple(sum(w.points for w in won if w.winner == seat) for seat in range(4))
    assert s.totals == s.points == tuple(g.totals)
    assert g.phase is Phase.ROUND_OVER
    assert g.round_points == [s.points]


def test_moon_gives_26_to_each_other_player() -> None:
    g, events = round_of(Rules(passing=False), OMNIBUS_MOON, high={1})
    assert ev.MoonShot(1, 26) in events
    assert events.index(ev.MoonShot(1, 26)) < events.index(scored(events))
    assert scored(events) == ev.RoundScored(0, (26, 0, 26, 26), (26, 0, 26, 26), 1)
    assert g.shooters == [1]


def test_moon_with_omnibus_needs_no_jack_and_the_jack_still_scores_for_its_taker() -> None:
    g, events = round_of(Rules(passing=False, omnibus=True), OMNIBUS_MOON, high={1})
    first = next(e for e in events if isinstance(e, ev.TrickWon))
    assert first.winner == 3 and first.points == -10
    assert ev.MoonShot(1, 26) in events
    assert scored(events).points == (26, 0, 26, 16)


def test_moon_shooter_who_takes_the_jack_keeps_its_minus_ten() -> None:
    rules = Rules(passing=False, omnibus=True)
    g, events = round_of(rules, clubs_deal(rules, 2), high={2})
    assert scored(events).points == (26, 26, -10, 26)


def test_omnibus_without_a_moon_just_subtracts_ten() -> None:
    rules = Rules(passing=False, omnibus=True)
    g, events = round_of(rules, SPREAD, high=set())
    s = scored(events)
    assert sum(s.points) == 26 - 10
    jack_taker = next(w.winner for w in events if isinstance(w, ev.TrickWon) and CardSet("JD") <= CardSet(w.cards))
    assert g.taken_points[jack_taker] == s.points[jack_taker]


def test_moon_with_spot_hearts_gives_the_others_the_full_penalty_total() -> None:
    g, events = round_of(Rules(passing=False, spot_hearts=True), OMNIBUS_MOON, high={1})
    assert ev.MoonShot(1, 117) in events
    assert scored(events).points == (117, 0, 117, 117)


def test_spot_hearts_score_face_value() -> None:
    rules = Rules(passing=False, spot_hearts=True)
    g, events = round_of(rules, SPREAD, high=set())
    for w in (e for e in events if isinstance(e, ev.TrickWon)):
        queen = 13 if CardSet("QS") <= CardSet(w.cards) else 0
        assert w.points == sum(c.rank + 2 for c in w.cards if c.suit == 3) + queen
    assert sum(scored(events).points) == 117


def test_six_players_a_round_holds_25_points() -> None:
    rules = Rules(players=6, passing=False)
    rng = random.Random(6)
    g = Game(rules, seed=6)
    for _ in range(6):
        events = play_round(g, rng)
        s = scored(events)
        assert sum(s.points) == (125 if s.shooter is not None else 25)
        assert all(e.card.rank != Rank.THREE for e in events if isinstance(e, ev.CardPlayed))
        g.next_round()


def test_six_players_moon_is_25() -> None:
    rules = Rules(players=6, passing=False)
    g, events = round_of(rules, clubs_deal(rules, 1), high={1})
    assert ev.MoonShot(1, 25) in events
    assert scored(events).points == (25, 0, 25, 25, 25, 25)


@pytest.mark.parametrize("players", [3, 5])
def test_three_and_five_players_moon_is_26(players: int) -> None:
    rules = Rules(players=players, passing=False)
    g, events = round_of(rules, clubs_deal(rules, 0), high={0})
    assert ev.MoonShot(0, 26) in events
    assert scored(events).points == (0,) + (26,) * (players - 1)


# ---- shooter's choice --------------------------------------------------------------------

def moon_choice_game(**options: bool) -> tuple[Game, list[Event]]:
    return round_of(Rules(passing=False, shooters_choice=True, **options), OMNIBUS_MOON, high={1})


def test_shooters_choice_asks_the_shooter_before_scoring() -> None:
    g, events = moon_choice_game()
    assert events[-2:] == [ev.MoonShot(1, 26), ev.MoonChoiceNeeded(1, 26)]
    assert not any(isinstance(e, ev.RoundScored) for e in events)
    assert g.phase is Phase.MOON_CHOICE
    assert g.to_act == (1,)
    assert g.legal_moves() == [MoonMove(1, False), MoonMove(1, True)]
    assert g.legal_moves(0) == []
    assert g.totals == [0, 0, 0, 0]
    assert g.view(1).moon_options() == {"add": (26, 0, 26, 26), "subtract": (0, -26, 0, 0)}


def test_only_the_shooter_may_choose() -> None:
    g, _ = moon_choice_game()
    before = snapshot(g)
    with pytest.raises(NotYourTurnError, match="only the shooter chooses how the moon is scored"):
        g.choose_moon(0, True)
    with pytest.raises(IllegalMoveError, match="the moon choice is add or subtract"):
        g.choose_moon(1, "subtract")  # type: ignore[arg-type]
    with pytest.raises(WrongPhaseError, match="the round is not over"):
        g.next_round()
    assert snapshot(g) == before


def test_shooter_chooses_to_add_to_the_others() -> None:
    g, _ = moon_choice_game()
    events = g.choose_moon(1, False)
    assert events == [ev.RoundScored(0, (26, 0, 26, 26), (26, 0, 26, 26), 1)]
    assert g.phase is Phase.ROUND_OVER


def test_shooter_chooses_to_subtract_from_own_total() -> None:
    g, _ = moon_choice_game()
    events = g.apply(MoonMove(1, True))
    assert events == [ev.RoundScored(0, (0, -26, 0, 0), (0, -26, 0, 0), 1)]


def test_shooters_choice_with_omnibus_keeps_the_jack_for_its_taker() -> None:
    g, _ = moon_choice_game(omnibus=True)
    assert g.choose_moon(1, True)[0].points == (0, -26, 0, -10)  # type: ignore[union-attr]


def test_no_choice_without_a_moon() -> None:
    g, events = round_of(Rules(passing=False, shooters_choice=True), SPREAD, high=set())
    assert g.phase is Phase.ROUND_OVER
    assert not any(isinstance(e, ev.MoonChoiceNeeded) for e in events)


# ---- the end of the game -----------------------------------------------------------------

def moon_rounds(rules: Rules, shooters: list[int]) -> tuple[Game, list[list[Event]]]:
    """Play one round per entry of ``shooters``; in each that seat shoots the moon."""
    g = Game(rules, seed=9, deals=[clubs_deal(rules, s) for s in shooters])
    out = []
    for i, s in enumerate(shooters):
        if i:
            out_events = g.next_round()
            assert out_events[0] == ev.RoundStarted(i, (rules.players - 1 + i) % rules.players, g.pass_direction)
        out.append(play_policy(g, high={s}))
    return g, out


def test_game_goes_on_while_nobody_reaches_the_target() -> None:
    g, rounds = moon_rounds(Rules(passing=False, target_score=27), [1])
    assert g.phase is Phase.ROUND_OVER and g.winner is None
    assert g.legal_moves() == [NextRound()]
    assert not any(isinstance(e, ev.GameOver) for e in rounds[0])


def test_game_ends_after_the_round_in_which_a_total_reaches_the_target() -> None:
    g, rounds = moon_rounds(Rules(passing=False, target_score=26), [1])
    assert rounds[0][-1] == ev.GameOver(1, (26, 0, 26, 26))
    assert g.phase is Phase.GAME_OVER and g.is_over and g.winner == 1
    assert g.to_act == () and g.legal_moves() == []
    before = snapshot(g)
    with pytest.raises(WrongPhaseError, match="the game is over"):
        g.next_round()
    with pytest.raises(WrongPhaseError):
        g.play(0, "2C")
    assert snapshot(g) == before


def test_target_score_ends_the_game_before_the_round_limit() -> None:
    g, rounds = moon_rounds(Rules(passing=False, target_score=50, max_rounds=5), [1, 1])
    assert rounds[1][-1] == ev.GameOver(1, (52, 0, 52, 52))
    assert len(g.round_points) == 2


def test_round_limit_ends_the_game_before_the_target() -> None:
    g, rounds = moon_rounds(Rules(passing=False, target_score=100, max_rounds=2), [1, 3])
    assert not any(isinstance(e, ev.GameOver) for e in rounds[0])
    # after two rounds (52, 26, 52, 26): the limit is reached but the lowest is tied
    assert ev.ExtraRound((1, 3)) in rounds[1]
    g2, rounds2 = moon_rounds(Rules(passing=False, target_score=100, max_rounds=2), [1, 1])
    assert rounds2[1][-1] == ev.GameOver(1, (52, 0, 52, 52))
    assert max(g2.totals) < 100


def test_tie_for_lowest_plays_extra_rounds_until_broken() -> None:
    g, rounds = moon_rounds(Rules(passing=False, target_score=50), [1, 3, 0, 1])
    assert g.round_points == [(26, 0, 26, 26), (26, 26, 26, 0), (0, 26, 26, 26), (26, 0, 26, 26)]
    assert rounds[1][-1] == ev.ExtraRound((1, 3))
    assert rounds[2][-1] == ev.ExtraRound((0, 1, 3))
    assert rounds[3][-1] == ev.GameOver(1, (78, 52, 104, 78))
    assert g.winner == 1


def test_the_last_hand_breaks_a_tie_when_the_option_is_on() -> None:
    # (52, 26, 52, 26) after two hands: seats 1 and 3 tie for the lowest total; in the last
    # hand seat 3 scored 0 and seat 1 scored 26, so seat 3 wins with no extra hand
    rules = Rules(passing=False, target_score=50, last_hand_breaks_ties=True)
    g, rounds = moon_rounds(rules, [1, 3])
    assert rounds[1][-1] == ev.GameOver(3, (52, 26, 52, 26))
    assert g.phase is Phase.GAME_OVER and g.winner == 3 and len(g.round_points) == 2
    assert not any(isinstance(e, ev.ExtraRound) for r in rounds for e in r)
    # off (the default), the same hands need one more
    assert not Rules().last_hand_breaks_ties
    _, standard = moon_rounds(rules.replace(last_hand_breaks_ties=False), [1, 3])
    assert standard[1][-1] == ev.ExtraRound((1, 3))


def test_a_tie_in_the_last_hand_too_still_plays_one_more_hand() -> None:
    # one hand only: a tie for the lowest total is a tie in the last hand as well
    rules = Rules(passing=False, max_rounds=1, last_hand_breaks_ties=True)
    g, events = round_of(rules, SPREAD, high=set())
    assert g.totals == [0, 0, 18, 8]
    assert events[-1] == ev.ExtraRound((0, 1)) and g.phase is Phase.ROUND_OVER
    g.next_round()
    extra = play_policy(g, high=set())
    assert g.round_points[-1] == (4, 6, 0, 16)
    assert extra[-1] == ev.GameOver(0, (4, 6, 18, 24)) and g.winner == 0


def test_the_tie_break_is_kept_with_the_game() -> None:
    rules = Rules(passing=False, target_score=50, last_hand_breaks_ties=True)
    g, _ = moon_rounds(rules, [1, 3])
    back = loads(dumps(g))
    assert back.rules.last_hand_breaks_ties and back.winner == 3
    assert Rules.from_dict(rules.to_dict()) == rules
    assert "ties broken by the last hand" in rules.describe()


def test_round_scored_event_carries_round_points_totals_and_shooter() -> None:
    g, rounds = moon_rounds(Rules(passing=False, target_score=1000), [2, 0])
    assert [e for e in rounds[1] if isinstance(e, ev.RoundScored)] == [
        ev.RoundScored(1, (0, 26, 26, 26), (26, 52, 26, 52), 0)]
