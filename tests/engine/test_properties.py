"""Property tests: random legal games in every variant, checked move by move against an
independent, slow re-statement of the rules (SPEC.md §2–§3)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PRESETS, Card, CardSet, Game, MoonMove, Move, Phase, PlayMove, Rules, dumps, loads
from engine import events as ev
from engine.cards import QUEEN_OF_SPADES, multiset_add, multiset_sub

from .helpers import deck_mask, random_move

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUNDS = 2  # rounds played per example (fewer if the game ends first)

random_rules = st.builds(
    Rules,
    players=st.sampled_from([3, 4, 5, 6]),
    target_score=st.sampled_from([26, 50, 100]),
    max_rounds=st.sampled_from([None, 1, 2]),
    passing=st.booleans(), omnibus=st.booleans(), spot_hearts=st.booleans(),
    queen_breaks_hearts=st.booleans(), no_breaking=st.booleans(),
    points_on_first_trick=st.booleans(), shooters_choice=st.booleans(), cancellation=st.booleans(),
    last_hand_breaks_ties=st.booleans(),
)
any_rules = st.one_of(st.sampled_from(list(PRESETS.values())), random_rules)
cancellation_rules = random_rules.map(lambda r: r.replace(cancellation=True))
seeds = st.integers(0, 2**32)


def penalty(rules: Rules, card: int) -> bool:
    return card // 13 == 3 or card == QUEEN_OF_SPADES


def suit(card: int) -> int:
    return card // 13


@dataclass
class RoundLog:
    """What the referee has seen of the current round, kept independently of the engine."""

    dealt: list[Counter[int]]
    broken: bool = False
    tricks_done: int = 0
    trick: list[tuple[int, Card]] = field(default_factory=list)
    pot: list[Card] = field(default_factory=list)
    taken: list[list[Card]] = field(default_factory=list)
    in_play: Counter[int] = field(default_factory=Counter)


class Referee:
    """Plays a random game and checks every move; ``checks`` picks what is checked."""

    def __init__(self, rules: Rules, seed: int, move_seed: int, checks: set[str],
                 game: Game | None = None, shooter: int | None = None) -> None:
        self.rules = rules
        self.g = Game(rules, seed=seed) if game is None else game
        self.rng = random.Random(move_seed)
        self.shooter = shooter
        self.checks = checks
        self.deck = deck_mask(rules)
        self.n = rules.players
        self.log = self._new_round()
        self.rounds_scored = 0

    def _new_round(self) -> RoundLog:
        g = self.g
        dealt: list[Counter[int]] = [Counter(int(c) for c in g.hand(s)) for s in range(self.n)]
        in_play: Counter[int] = Counter()
        for c in dealt:
            in_play.update(c)
        return RoundLog(dealt=dealt, taken=[[] for _ in range(self.n)], in_play=in_play)

    # ---- driving -----------------------------------------------------------------------

    def run(self, rounds: int = ROUNDS) -> None:
        g = self.g
        self.after_move([])
        while not g.is_over and g.round_index < rounds:
            if g.phase is Phase.ROUND_OVER and g.round_index == rounds - 1:
                break
            if g.phase is Phase.PLAY and g.turn is not None and g.turn == self.shooter:
                move: Move = PlayMove(g.turn, g.legal_cards()[-1])
            else:
                move = random_move(g, self.rng)
            before = self.before_move(move)
            events = g.apply(move)
            self.check_move(move, before, events)
            self.after_move(events)
        assert g.is_over or self.rounds_scored == rounds
        if "persist" in self.checks:
            self.check_persist()

    # ---- per-move checks ---------------------------------------------------------------

    def before_move(self, move: object) -> dict[str, object]:
        g = self.g
        return {"hands": list(g.hands), "legal": g.legal_cards(), "turn": g.turn, "phase": g.phase,
                "trick_len": len(g.trick), "leader": g.leader}

    def check_move(self, move: object, before: dict[str, object], events: list[ev.Event]) -> None:
        if isinstance(move, PlayMove):
            self.check_play(move, before, events)
        for e in events:
            if isinstance(e, ev.RoundScored):
                self.rounds_scored += 1
                self.check_round_scored(e, events, move)
            if isinstance(e, ev.RoundStarted):
                self.log = self._new_round()
                if "rules" in self.checks:
                    assert e.pass_direction is self.rules.pass_direction(e.round_index)
                    assert e.dealer == (self.n - 1 + e.round_index) % self.n

    def check_play(self, move: PlayMove, before: dict[str, object], events: list[ev.Event]) -> None:
        rules, log, n = self.rules, self.log, self.n
        seat, card = move.seat, move.card
        hand = CardSet.from_mask(before["hands"][seat])  # type: ignore[index]
        # one card per seat per trick, in clockwise order from the leader
        expected_seat = (log.trick[0][0] + len(log.trick)) % n if log.trick else before["turn"]
        if "order" in self.checks:
            assert seat == expected_seat == before["turn"]
            assert card in hand
            assert all(s != seat for s, _ in log.trick), "a seat played twice to one trick"
            assert events[0] == ev.CardPlayed(seat, card)
        if "rules" in self.checks:
            assert before["legal"] == self.reference_legal(hand, log), (hand, log.trick)
            if not log.trick and suit(card) == 3 and not log.broken and not rules.no_breaking:
                assert all(suit(c) == 3 for c in hand), "a heart was led before hearts were broken"
            broke = [e for e in events if isinstance(e, ev.HeartsBroken)]
            breaks = suit(card) == 3 or (rules.queen_breaks_hearts and card == QUEEN_OF_SPADES)
            assert broke == ([ev.HeartsBroken(seat, card)] if breaks and not log.broken else [])
        if breaks_hearts(rules, card):
            log.broken = True
        log.trick.append((seat, card))
        if len(log.trick) == n:
            self.finish_trick(events)

    def reference_legal(self, hand: CardSet, log: RoundLog) -> tuple[Card, ...]:
        """SPEC §2 restated plainly: the legal cards of ``hand`` now."""
        rules = self.rules
        cards = sorted(set(hand))
        first_trick = log.tricks_done == 0
        if log.trick:
            led = suit(log.trick[0][1])
            follow = [c for c in cards if suit(c) == led]
            if follow:
                return tuple(follow)
            if first_trick and not rules.points_on_first_trick:
                safe = [c for c in cards if not penalty(rules, c)]
                if safe:
                    return tuple(safe)
            return tuple(cards)
        if first_trick:
            clubs = [c for c in log.in_play if suit(c) == 0]
            if clubs:
                return (Card(min(clubs)),)
        if not log.broken and not rules.no_breaking:
            rest = [c for c in cards if suit(c) != 3]
            if rest:
                return tuple(rest)
        return tuple(cards)

    def finish_trick(self, events: list[ev.Event]) -> None:
        log, n = self.log, self.n
        leader = log.trick[0][0]
        cards = tuple(c for _, c in log.trick)
        led = suit(cards[0])
        count = Counter(cards)
        live = [(c, s) for s, c in log.trick if suit(c) == led and (count[c] == 1 or not self.rules.cancellation)]
        last = all(not self.g.hands[s] for s in range(n))
        winner = max(live)[1] if live else (leader if last else None)
        done = [e for e in events if isinstance(e, (ev.TrickWon, ev.TrickCancelled))]
        if "tricks" in self.checks:
            assert len(done) == 1
            if winner is None:
                assert done[0] == ev.TrickCancelled(log.tricks_done, leader, cards)
            else:
                carried = tuple(log.pot)
                pts = sum(self.rules.card_points[c] for c in cards + carried)
                assert done[0] == ev.TrickWon(log.tricks_done, leader, cards, winner, pts, carried)
                assert self.g.turn == (None if last else winner)
        if winner is None:
            log.pot.extend(cards)
        else:
            log.taken[winner].extend(cards + tuple(log.pot))
            log.pot = []
        log.trick = []
        log.tricks_done += 1

    def check_round_scored(self, e: ev.RoundScored, events: list[ev.Event], move: object) -> None:
        if "points" not in self.checks:
            return
        rules, log, n = self.rules, self.log, self.n
        pts = rules.card_points
        taken_pts = [sum(pts[c] for c in cs) for cs in log.taken]
        pen_in_play = sum(k for c, k in log.in_play.items() if penalty(rules, c))
        moon_value = sum(pts[c] * k for c, k in log.in_play.items() if penalty(rules, c))
        bonus = sum(pts[c] * k for c, k in log.in_play.items() if not penalty(rules, c))
        shooters = [s for s in range(n) if sum(1 for c in log.taken[s] if penalty(rules, c)) == pen_in_play]
        shooter = shooters[0] if shooters and pen_in_play else None
        assert e.shooter == shooter
        assert sum(len(t) for t in log.taken) == sum(log.in_play.values())
        if shooter is None:
            assert e.points == tuple(taken_pts)
            assert sum(e.points) == moon_value + bonus
            return
        subtract = isinstance(move, MoonMove) and move.subtract
        if subtract:
            want = tuple(p - 2 * moon_value if s == shooter else p for s, p in enumerate(taken_pts))
            assert sum(e.points) == bonus - moon_value
        else:
            want = tuple(p - moon_value if s == shooter else p + moon_value for s, p in enumerate(taken_pts))
            assert sum(e.points) == (n - 1) * moon_value + bonus
        assert e.points == want
        if not isinstance(move, MoonMove):
            assert ev.MoonShot(shooter, moon_value) in events

    # ---- after every move --------------------------------------------------------------

    def after_move(self, events: list[ev.Event]) -> None:
        if "conservation" in self.checks:
            self.check_conservation()
        if "views" in self.checks:
            for seat in range(self.n):
                self.check_view(seat)
        if "end" in self.checks:
            self.check_end(events)

    def played_mask(self) -> int:
        g = self.g
        m = 0
        for t in g.tricks:
            m = multiset_add(m, CardSet(t.cards).mask)
        return multiset_add(m, CardSet(g.trick).mask)

    def check_conservation(self) -> None:
        g, rules = self.g, self.rules
        held = 0
        for h in g.hands:
            held = multiset_add(held, h)
        dealt = 0
        for h in g.dealt:
            dealt = multiset_add(dealt, h)
        aside = multiset_sub(self.deck, dealt)
        assert len(CardSet.from_mask(aside)) == len(rules.deck) - rules.players * rules.hand_size
        assert multiset_add(multiset_add(held, self.played_mask()), aside) == self.deck
        taken = 0
        for mask in g.taken:
            taken = multiset_add(taken, mask)
        on_table = multiset_add(CardSet(g.pot).mask, CardSet(g.trick).mask)
        assert multiset_add(taken, on_table) == self.played_mask()
        sizes = sorted(h.bit_count() for h in g.hands)
        assert sizes[-1] - sizes[0] <= 1
        for t in g.tricks:
            assert len(t.cards) == rules.players

    def check_view(self, seat: int) -> None:
        g = self.g
        v = g.view(seat)
        assert v.hand == g.hand(seat)
        played = v.played_cards()
        assert played.mask == self.played_mask()
        total = multiset_add(multiset_add(multiset_add(v.unseen.mask, v.hand.mask), played.mask),
                             v.passed_still_held.mask)
        assert total == self.deck
        # what it calls unseen really is with the other seats or set aside
        others = 0
        for s, h in enumerate(g.hands):
            if s != seat:
                others = multiset_add(others, h)
        dealt = 0
        for h in g.dealt:
            dealt = multiset_add(dealt, h)
        hidden = multiset_add(others, multiset_sub(self.deck, dealt))
        assert multiset_sub(v.unseen.mask, hidden) == 0
        if v.pass_target is not None and v.passed_still_held:
            assert multiset_sub(v.passed_still_held.mask, g.hands[v.pass_target]) == 0
        if v.passed is not None:
            assert v.passed.mask == g.passes[seat]
        if v.received is not None:
            assert v.received.mask == g.received[seat]
            assert v.received_from is not None and g.passes[v.received_from] == v.received.mask
        assert v.legal <= v.hand
        assert (v.legal.mask != 0) == (g.phase is Phase.PLAY and g.turn == seat)
        for other, suits in enumerate(v.voids):
            for s in suits:
                assert not CardSet.from_mask(g.hands[other]).suit(s), f"seat {other} is not void in {s}"
        if g.phase is Phase.PASS:
            for s in range(self.n):
                if s != seat:
                    assert v.passes_chosen[s] == (g.passes[s] is not None)
        json.dumps(v.to_dict())

    def check_end(self, events: list[ev.Event]) -> None:
        g, rules = self.g, self.rules
        scored = [e for e in events if isinstance(e, ev.RoundScored)]
        if not scored:
            return
        totals = scored[0].totals
        assert list(totals) == g.totals
        ends = max(totals) >= rules.target_score or (
            rules.max_rounds is not None and len(g.round_points) >= rules.max_rounds)
        low = min(totals)
        tied = tuple(s for s, t in enumerate(totals) if t == low)
        last = scored[0].points
        fewest = min((last[s] for s in tied), default=0)
        if rules.last_hand_breaks_ties and [last[s] for s in tied].count(fewest) == 1:
            tied = tuple(s for s in tied if last[s] == fewest)  # the last hand breaks the tie
        if not ends:
            assert g.phase is Phase.ROUND_OVER and not any(isinstance(e, (ev.GameOver, ev.ExtraRound)) for e in events)
        elif len(tied) > 1:
            assert events[-1] == ev.ExtraRound(tied) and g.phase is Phase.ROUND_OVER
        else:
            assert events[-1] == ev.GameOver(tied[0], totals)
            assert g.phase is Phase.GAME_OVER and g.winner == tied[0]

    def check_persist(self) -> None:
        back = loads(dumps(self.g))
        assert back.moves == self.g.moves and back.totals == self.g.totals
        for seat in range(self.n):
            assert back.view(seat).to_dict() == self.g.view(seat).to_dict()


def breaks_hearts(rules: Rules, card: int) -> bool:
    return suit(card) == 3 or (rules.queen_breaks_hearts and card == QUEEN_OF_SPADES)


def moon_deal(rules: Rules, shooter: int, rng: random.Random) -> list[CardSet]:
    """A deal in which ``shooter`` holds the top clubs (topped up with the top diamonds),
    the rest shuffled: leading its highest card it usually takes every trick."""
    deck = sorted(rules.deck)
    clubs = [c for c in deck if c < 13]
    diamonds = [c for c in deck if 13 <= c < 26]
    extra = rules.hand_size - len(clubs)
    top = clubs[-rules.hand_size:] if extra <= 0 else clubs + diamonds[-extra:]
    rest = list(CardSet.from_mask(multiset_sub(deck_mask(rules), CardSet(top).mask)))
    rng.shuffle(rest)
    hands = []
    for seat in range(rules.players):
        if seat == shooter:
            hands.append(CardSet(top))
        else:
            hands.append(CardSet(rest[:rules.hand_size]))
            rest = rest[rules.hand_size:]
    return hands


# ---- the properties ------------------------------------------------------------------------

@SETTINGS
@given(rules=any_rules, seed=seeds, move_seed=seeds)
def test_cards_are_conserved_and_each_seat_plays_once_per_trick_in_turn(
        rules: Rules, seed: int, move_seed: int) -> None:
    Referee(rules, seed, move_seed, {"conservation", "order"}).run()


@SETTINGS
@given(rules=any_rules, seed=seeds, move_seed=seeds)
def test_legal_moves_follow_the_rules_and_hearts_are_never_led_unbroken_unless_forced(
        rules: Rules, seed: int, move_seed: int) -> None:
    Referee(rules, seed, move_seed, {"rules", "order"}).run()


@SETTINGS
@given(rules=any_rules, seed=seeds, move_seed=seeds)
def test_tricks_go_to_the_right_seat_and_round_points_add_up(rules: Rules, seed: int, move_seed: int) -> None:
    Referee(rules, seed, move_seed, {"tricks", "points", "end"}).run()


@SETTINGS
@given(rules=any_rules, seed=seeds, move_seed=seeds)
def test_a_view_never_holds_a_card_its_seat_could_not_know(rules: Rules, seed: int, move_seed: int) -> None:
    Referee(rules, seed, move_seed, {"views"}).run(rounds=1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=cancellation_rules, seed=seeds, move_seed=seeds)
def test_cancellation_with_any_table_size_keeps_every_invariant(rules: Rules, seed: int, move_seed: int) -> None:
    every = {"conservation", "order", "rules", "tricks", "points", "end", "views"}
    Referee(rules, seed, move_seed, every).run(rounds=1)


@settings(max_examples=30, deadline=None)
@given(rules=any_rules, seed=seeds, move_seed=seeds)
def test_a_saved_game_reloads_to_the_same_views(rules: Rules, seed: int, move_seed: int) -> None:
    Referee(rules, seed, move_seed, {"persist", "end"}).run(rounds=3)


@SETTINGS
@given(rules=any_rules, seed=seeds, move_seed=seeds, data=st.data())
def test_round_points_add_up_when_the_moon_is_shot(
        rules: Rules, seed: int, move_seed: int, data: st.DataObject) -> None:
    rules = rules.replace(passing=False)
    shooter = data.draw(st.integers(0, rules.players - 1))
    game = Game(rules, seed=seed, deals=[moon_deal(rules, shooter, random.Random(seed))])
    ref = Referee(rules, seed, move_seed, {"tricks", "points", "end", "order"}, game=game, shooter=shooter)
    ref.run(rounds=1)
