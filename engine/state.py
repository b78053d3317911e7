"""The true state of a game: dealing, passing, tricks, scoring, the end of the game.

Only the referee (the server, the arena) holds a :class:`Game`.  Players — people
and computer players alike — get a :class:`~engine.view.PlayerView` built from it.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations

from . import events as ev
from .cards import (
    CARDS,
    HEARTS,
    LOW,
    SUIT_MASK,
    Card,
    CardSet,
    Suit,
    add_card,
    add_to,
    cards_of,
    iter_cards,
    multiset_add,
    multiset_sub,
    remove_card,
)
from .errors import IllegalMoveError, NotYourTurnError, WrongPhaseError
from .moves import MoonMove, Move, NextRound, PassMove, PlayMove
from .rules import STANDARD, PassDirection, Rules
from .values import Phase, Trick
from .view import PlayerView

PASS_SIZE = 3
_BITS = tuple(1 << c for c in range(52))
_VOID_SUITS = tuple(frozenset(Suit(s) for s in range(4) if v >> s & 1) for v in range(16))
"""The suits a seat is known to lack, by the bits of its ``voids`` mask (a view makes one
per seat)."""


def _as_mask(cards: CardSet | Iterable[Card | str | int] | str) -> int:
    return cards.mask if isinstance(cards, CardSet) else CardSet(cards).mask


class Game:
    """One game of Hearts from the first deal to the winner.

    Create it from rules and a seed (every round's deal follows from the seed) or
    with explicit ``deals`` (a list of rounds, each a list of hands by seat) for
    tests and replays; rounds past the explicit deals are dealt from the seed.
    """

    def __init__(self, rules: Rules = STANDARD, seed: int | str | None = None,
                 deals: Sequence[Sequence[CardSet | str | Iterable[Card | str | int]]] | None = None) -> None:
        self.rules = rules
        self.seed: int | str = secrets.randbits(63) if seed is None else seed
        n = rules.players
        self.players = n
        self._deals: list[list[int]] = [self._check_deal([_as_mask(h) for h in d]) for d in (deals or ())]
        self.totals = [0] * n
        self.round_points: list[tuple[int, ...]] = []
        self.shooters: list[int | None] = []
        self.winner: int | None = None
        self._log: list[tuple[int, Card] | Move] = []
        # the log's first moves spelt as JSON, [how many, text], kept by engine.persist: the
        # log only grows, and storing an action writes it whole again
        self._log_json: list[int | str] = [0, ""]
        self.round_index = -1
        self._start_round([])

    # ---- rounds ------------------------------------------------------------------------

    def _round_seed(self, round_index: int) -> int | str:
        # one independent, reproducible shuffle per round
        if isinstance(self.seed, int):
            return (self.seed << 20) + round_index
        return f"{self.seed}/{round_index}"

    def _check_deal(self, hands: list[int]) -> list[int]:
        r = self.rules
        if len(hands) != r.players:
            raise ValueError(f"a deal needs {r.players} hands, got {len(hands)}")
        deck = 0
        for c in r.deck:
            deck = add_card(deck, c)
        rest = deck
        for seat, h in enumerate(hands):
            if h.bit_count() != r.hand_size:
                raise ValueError(f"hand {seat} has {h.bit_count()} cards, not {r.hand_size}")
            if multiset_sub(h, rest):
                raise ValueError(f"hand {seat} holds cards that are not in the deck or already dealt")
            rest = multiset_sub(rest, h)
        return hands

    def _start_round(self, events: list[ev.Event]) -> None:
        r = self.rules
        n = self.players
        self.round_index += 1
        ri = self.round_index
        self.dealer = (n - 1 + ri) % n
        if ri < len(self._deals):
            hands = list(self._deals[ri])
        else:
            deck = list(r.deck)
            random.Random(self._round_seed(ri)).shuffle(deck)
            hands = [0] * n
            start = self.dealer + 1
            dealt = deck[:r.hand_size * n]  # in Cancellation the rest is set aside unseen
            for i in range(n):
                # the k-th card goes to the k-th seat from the dealer's left
                cards = dealt[i::n]
                if r.cancellation:
                    h = 0
                    for c in cards:
                        h = add_card(h, c)
                else:
                    h = sum(map(_BITS.__getitem__, cards))
                hands[(start + i) % n] = h
        self.hands = hands
        self.dealt = list(hands)
        if r.cancellation:
            in_play = 0
            for h in hands:
                in_play = multiset_add(in_play, h)
            pen = r.penalty_mask
            self.moon_value = sum(r.card_points[c] for c in iter_cards(in_play) if pen >> c & 1)
            self._penalty_in_play = sum(1 for c in iter_cards(in_play) if pen >> c & 1)
        else:  # one deck is always dealt out whole
            self.moon_value = r.moon_value
            self._penalty_in_play = r.penalty_mask.bit_count()
        self.pass_direction = r.pass_direction(ri)
        self.passes: list[int | None] = [None] * n
        self.received: list[int] = [0] * n
        self.tricks: list[Trick] = []
        self.trick: list[Card] = []
        self._played = 0  # every card played this round (a multiset with two decks)
        self.pot: list[Card] = []
        self.taken_points = [0] * n
        self._taken_penalty = [0] * n
        self.taken: list[int] = [0] * n
        self.voids = [0] * n
        self.hearts_broken = False
        self.pending_shooter: int | None = None
        self.first_lead: Card | None = None
        self.turn: int | None = None
        self.leader: int | None = None
        self._legal = 0
        events.append(ev.RoundStarted(ri, self.dealer, self.pass_direction))
        if self.pass_direction is PassDirection.NONE:
            self._begin_play()
        else:
            self.phase = Phase.PASS

    def _begin_play(self) -> None:
        n = self.players
        clubs = 0
        for h in self.hands:
            clubs |= h & SUIT_MASK[Suit.CLUBS]
        start = self.dealer + 1
        if clubs:
            low = clubs & -clubs
            self.first_lead = CARDS[low.bit_length() - 1]
            leader = next(s % n for s in range(start, start + n) if self.hands[s % n] & low)
        else:  # no club in play at all: the dealer's left leads anything
            self.first_lead = None
            leader = start % n
        self.phase = Phase.PLAY
        self.leader = self.turn = leader
        self._led = -1
        self._best = -1
        self._best_seat = leader
        self._legal = self._compute_legal()

    # ---- who acts, what is legal -------------------------------------------------------

    @property
    def to_act(self) -> tuple[int, ...]:
        """The seats expected to act now (several while passing, none between rounds)."""
        if self.phase is Phase.PASS:
            return tuple(s for s in range(self.players) if self.passes[s] is None)
        if self.phase is Phase.PLAY:
            return (self.turn,)  # type: ignore[return-value]
        if self.phase is Phase.MOON_CHOICE:
            return (self.pending_shooter,)  # type: ignore[return-value]
        return ()

    @property
    def first_trick(self) -> bool:
        return not self.tricks

    def _compute_legal(self) -> int:
        hand = self.hands[self.turn] & LOW  # type: ignore[index]
        if self.trick:
            follow = hand & SUIT_MASK[self._led]
            if follow:
                return follow
            if not self.tricks:  # first trick: no points unless that is all there is
                safe = hand & ~self.rules.first_trick_forbidden
                if safe:
                    return safe
            return hand
        if not self.tricks and self.first_lead is not None:
            return 1 << self.first_lead  # the lowest club in play opens the round
        if not self.hearts_broken and not self.rules.no_breaking:
            rest = hand & ~HEARTS  # hearts may not be led before they are broken…
            if rest:
                return rest
        return hand  # …unless the leader holds only hearts

    @property
    def legal_mask(self) -> int:
        """Mask of the cards the seat to play may play (0 outside the play phase)."""
        return self._legal if self.phase is Phase.PLAY else 0

    def legal_cards(self) -> tuple[Card, ...]:
        """The cards the seat to play may play, sorted."""
        return cards_of(self.legal_mask)

    def legal_moves(self, seat: int | None = None) -> list[Move]:
        """Every legal move of ``seat`` (default: the seat to act; for passing, every
        3-card choice of that seat)."""
        if seat is not None:
            self._check_seat(seat)
        if self.phase is Phase.PLAY:
            if seat is not None and seat != self.turn:
                return []
            return [PlayMove(self.turn, c) for c in cards_of(self._legal)]  # type: ignore[arg-type]
        if self.phase is Phase.PASS:
            seats = self.to_act if seat is None else (seat,) if self.passes[seat] is None else ()
            if not seats:
                return []
            s = seats[0]
            combos = {CardSet(c) for c in combinations(iter_cards(self.hands[s]), PASS_SIZE)}
            return [PassMove(s, c) for c in sorted(combos, key=lambda c: c.mask)]
        if self.phase is Phase.MOON_CHOICE:
            shooter = self.pending_shooter
            if shooter is None or (seat is not None and seat != shooter):
                return []
            return [MoonMove(shooter, False), MoonMove(shooter, True)]
        if self.phase is Phase.ROUND_OVER:
            return [NextRound()]
        return []

    # ---- applying moves ----------------------------------------------------------------

    def apply(self, move: Move) -> list[ev.Event]:
        """Apply any move; see :meth:`pass_cards`, :meth:`play`, :meth:`choose_moon`,
        :meth:`next_round`."""
        if isinstance(move, PlayMove):
            return self.play(move.seat, move.card)
        if isinstance(move, PassMove):
            return self.pass_cards(move.seat, move.cards)
        if isinstance(move, MoonMove):
            return self.choose_moon(move.seat, move.subtract)
        if isinstance(move, NextRound):
            return self.next_round()
        raise TypeError(f"not a move: {move!r}")

    def _check_seat(self, seat: int) -> None:
        # type(), not isinstance(): a bool is an int, and True would pass as seat 1
        if type(seat) is not int or not 0 <= seat < self.players:
            raise IllegalMoveError(f"no seat {seat!r} at a {self.players}-player table", "bad_seat")

    def pass_cards(self, seat: int, cards: CardSet | Iterable[Card | str | int] | str) -> list[ev.Event]:
        """Choose the three cards ``seat`` passes; they change hands once every seat has chosen."""
        self._check_seat(seat)
        if self.phase is not Phase.PASS:
            raise WrongPhaseError("it is not the time to pass cards")
        if self.passes[seat] is not None:
            raise NotYourTurnError("you have already passed")
        try:
            mask = _as_mask(cards)
        except (ValueError, TypeError) as exc:
            raise IllegalMoveError(f"pass exactly {PASS_SIZE} cards you hold ({exc})", "pass_cards") from None
        if mask.bit_count() != PASS_SIZE or multiset_sub(mask, self.hands[seat]):
            raise IllegalMoveError(f"pass exactly {PASS_SIZE} cards you hold", "pass_cards")
        self.passes[seat] = mask
        self._log.append(PassMove(seat, CardSet.from_mask(mask)))
        events: list[ev.Event] = [ev.CardsPassed(seat)]
        if all(p is not None for p in self.passes):
            self._exchange(events)
        return events

    def _exchange(self, events: list[ev.Event]) -> None:
        """Every seat has chosen: the passed cards change hands and play begins."""
        n = self.players
        d = self.pass_direction
        passes: list[int] = self.passes  # type: ignore[assignment]
        hands = [multiset_sub(h, p) for h, p in zip(self.hands, passes, strict=True)]
        for s, p in enumerate(passes):
            t = d.target(s, n)
            self.received[t] = p
            hands[t] = multiset_add(hands[t], p) if self.rules.cancellation else hands[t] | p
        self.hands = hands
        events.append(ev.PassesExchanged(d))
        self._begin_play()

    def playout(self, rng: random.Random) -> None:
        """Finish the round with uniformly random legal moves (passes included): the
        engine's random rollout, for Monte Carlo players and benchmarks."""
        sink: list[ev.Event] = []
        if self.phase is Phase.PASS:
            for seat, chosen in enumerate(self.passes):
                if chosen is None:
                    held = list(iter_cards(self.hands[seat]))
                    mask = 0
                    for c in rng.sample(held, PASS_SIZE):
                        mask = add_card(mask, c)
                    self.passes[seat] = mask
                    self._log.append(PassMove(seat, CardSet.from_mask(mask)))
            self._exchange(sink)
        rnd = rng.random  # int(random() * k) is uniform enough and far cheaper than randrange
        advance = self._advance
        while self.phase is Phase.PLAY:
            cards = cards_of(self._legal)
            advance(self.turn, cards[int(rnd() * len(cards))], sink)  # type: ignore[arg-type]
            sink.clear()

    def play(self, seat: int, card: Card | str | int) -> list[ev.Event]:
        """Play ``card`` from ``seat``'s hand to the current trick."""
        # True == 1, so the type is checked first: a bool seat would be logged as "True"
        if type(seat) is not int or seat != self.turn or self.phase is not Phase.PLAY:
            self._check_seat(seat)
            if self.phase is not Phase.PLAY:
                raise WrongPhaseError("it is not the time to play a card")
            raise NotYourTurnError()
        if type(card) is not Card:
            try:
                card = Card(card)
            except ValueError as exc:
                raise IllegalMoveError(str(exc), "not_a_card") from None
        if not self._legal >> card & 1:
            raise self._why_illegal(seat, card)
        events: list[ev.Event] = [ev.CardPlayed(seat, card)]
        self._advance(seat, card, events)
        return events

    def _advance(self, seat: int, card: Card, events: list[ev.Event]) -> None:
        """Put a card already checked as legal on the table (shared by :meth:`play`
        and :meth:`playout`)."""
        r = self.rules
        if r.cancellation:
            self.hands[seat] = remove_card(self.hands[seat], card)
        else:
            self.hands[seat] ^= 1 << card
        self._log.append((seat, card))
        self._played = add_to(self._played, card, r.cancellation)
        trick = self.trick
        suit = card // 13
        if trick:
            if suit != self._led:
                self.voids[seat] |= 1 << self._led
                if not self.tricks and r.first_trick_forbidden >> card & 1:
                    # only point cards left on the first trick: no diamonds either, and with
                    # one deck the Q♠ was the last spade (two decks: the other Q♠ may remain)
                    last_spade = suit == Suit.SPADES and not r.cancellation
                    self.voids[seat] |= 1 << Suit.DIAMONDS | (1 << Suit.SPADES if last_spade else 0)
            elif card > self._best:
                self._best = card
                self._best_seat = seat
        else:
            if suit == Suit.HEARTS and not self.hearts_broken and not r.no_breaking:
                self.voids[seat] |= 0b0111  # led a heart before they broke: holds only hearts
            self._led = suit
            self._best = card
            self._best_seat = seat
        if not self.hearts_broken and r.breaks_hearts >> card & 1:
            self.hearts_broken = True
            events.append(ev.HeartsBroken(seat, card))
        trick.append(card)
        if len(trick) == self.players:
            self._end_trick(events)
        else:
            self.turn = (seat + 1) % self.players
            self._legal = self._compute_legal()

    def _why_illegal(self, seat: int, card: Card) -> IllegalMoveError:
        hand = self.hands[seat]
        if not hand >> card & 1:
            return IllegalMoveError(f"you do not hold the {card.name()}", "not_in_hand")
        if self.trick:
            led = Suit(self._led)
            if hand & SUIT_MASK[led]:
                return IllegalMoveError(f"must follow {led.plural}", "must_follow")
            return IllegalMoveError("no points on the first trick", "first_trick_points")
        if not self.tricks and self.first_lead is not None:
            return IllegalMoveError(f"the first trick is led with the {self.first_lead.symbol()}", "first_lead")
        return IllegalMoveError("hearts are not broken", "hearts_not_broken")

    def _end_trick(self, events: list[ev.Event]) -> None:
        r = self.rules
        n = self.players
        trick = self.trick
        leader: int = self.leader  # type: ignore[assignment]
        index = len(self.tricks)
        cards = tuple(trick)
        last = not self.hands[leader]
        winner: int | None = self._best_seat
        if r.cancellation:
            counts = Counter(cards)
            live = [c for c in cards if counts[c] == 1 and c // 13 == self._led]
            if live:
                winner = (leader + cards.index(max(live))) % n
            elif last:
                winner = leader  # an all-cancelled last trick goes to its leader
            else:
                winner = None
        self.trick = []
        self._led = -1
        if winner is None:
            self.pot.extend(cards)
            self.tricks.append(Trick(index, leader, cards, None, 0))
            events.append(ev.TrickCancelled(index, leader, cards))
            self.turn = leader
            self._best = -1
            self._legal = self._compute_legal()
            return
        carried = tuple(self.pot)
        self.pot = []
        pts = 0
        pen = 0
        taken: int = self.taken[winner]
        for c in cards + carried:
            pts += r.card_points[c]
            if r.penalty_mask >> c & 1:
                pen += 1
            taken = add_to(taken, c, r.cancellation)
        self.taken[winner] = taken
        self.taken_points[winner] += pts
        self._taken_penalty[winner] += pen
        self.tricks.append(Trick(index, leader, cards, winner, pts, carried))
        events.append(ev.TrickWon(index, leader, cards, winner, pts, carried))
        if last:
            self._end_play(events)
            return
        self.leader = self.turn = winner
        self._best = -1
        self._legal = self._compute_legal()

    def _end_play(self, events: list[ev.Event]) -> None:
        self.turn = None
        self._legal = 0
        shooter = None
        if self._penalty_in_play:
            for s, k in enumerate(self._taken_penalty):
                if k == self._penalty_in_play:
                    shooter = s
        if shooter is not None:
            events.append(ev.MoonShot(shooter, self.moon_value))
            if self.rules.shooters_choice:
                self.pending_shooter = shooter
                self.phase = Phase.MOON_CHOICE
                events.append(ev.MoonChoiceNeeded(shooter, self.moon_value))
                return
        self._score_round(shooter, subtract=False, events=events)

    def moon_points(self, shooter: int, subtract: bool) -> tuple[int, ...]:
        """This round's points if ``shooter`` shot the moon and chose ``subtract`` or not."""
        v = self.moon_value
        if subtract:
            return tuple(p - 2 * v if s == shooter else p for s, p in enumerate(self.taken_points))
        return tuple(p - v if s == shooter else p + v for s, p in enumerate(self.taken_points))

    def _score_round(self, shooter: int | None, subtract: bool, events: list[ev.Event]) -> None:
        pts = tuple(self.taken_points) if shooter is None else self.moon_points(shooter, subtract)
        self.pending_shooter = None
        for s, p in enumerate(pts):
            self.totals[s] += p
        self.round_points.append(pts)
        self.shooters.append(shooter)
        events.append(ev.RoundScored(self.round_index, pts, tuple(self.totals), shooter))
        r = self.rules
        if max(self.totals) >= r.target_score or (r.max_rounds is not None and len(self.round_points) >= r.max_rounds):
            low = min(self.totals)
            leaders = tuple(s for s, t in enumerate(self.totals) if t == low)
            if len(leaders) > 1 and r.last_hand_breaks_ties:
                # the tied player who scored less in this, the last hand, wins (seed 001)
                best = min(pts[s] for s in leaders)
                if sum(1 for s in leaders if pts[s] == best) == 1:
                    leaders = tuple(s for s in leaders if pts[s] == best)
            if len(leaders) == 1:
                self.winner = leaders[0]
                self.phase = Phase.GAME_OVER
                events.append(ev.GameOver(leaders[0], tuple(self.totals)))
                return
            events.append(ev.ExtraRound(leaders))
        self.phase = Phase.ROUND_OVER

    def choose_moon(self, seat: int, subtract: bool) -> list[ev.Event]:
        """Shooter's choice: ``subtract`` the moon from one's own total, or add it to the others'."""
        self._check_seat(seat)
        if self.phase is not Phase.MOON_CHOICE:
            raise WrongPhaseError("there is no moon to score")
        if seat != self.pending_shooter:
            raise NotYourTurnError("only the shooter chooses how the moon is scored")
        if not isinstance(subtract, bool):
            raise IllegalMoveError("the moon choice is add or subtract", "moon_choice")
        self._log.append(MoonMove(seat, subtract))
        events: list[ev.Event] = []
        self._score_round(seat, subtract, events)
        return events

    def next_round(self) -> list[ev.Event]:
        """Deal the next round after a round has been scored."""
        if self.phase is not Phase.ROUND_OVER:
            raise WrongPhaseError("the round is not over" if self.phase is not Phase.GAME_OVER else "the game is over")
        self._log.append(NextRound())
        events: list[ev.Event] = []
        self._start_round(events)
        return events

    # ---- reading the state -------------------------------------------------------------

    def copy(self) -> Game:
        """An independent copy, far cheaper than a replay or ``copy.deepcopy``: the state
        is immutable values (ints, cards, tuples, moves) held in lists, and lists of lists
        (the explicit deals), so copying those lists is enough."""
        new = Game.__new__(Game)
        for name, value in vars(self).items():
            if type(value) is list:
                # a list holds one kind of value: lists (the deals) are copied in turn, and
                # the rest (the long move log) copied whole, not element by element
                value = [list(v) for v in value] if value and type(value[0]) is list else value[:]
            elif isinstance(value, (dict, set, bytearray)):
                # no such attribute today; a shallow copy of one would share state
                raise TypeError(f"Game.{name} is a {type(value).__name__}: copy() does not know how to copy it")
            setattr(new, name, value)
        return new

    @property
    def moves(self) -> list[Move]:
        """Every move applied so far, in order."""
        return [PlayMove(*m) if type(m) is tuple else m for m in self._log]  # type: ignore[misc]

    @property
    def move_count(self) -> int:
        return len(self._log)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def hand(self, seat: int) -> CardSet:
        self._check_seat(seat)
        return CardSet.from_mask(self.hands[seat])

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know (see :class:`engine.view.PlayerView`): its own hand, the
        public record of the round, and what a careful player works out from them."""
        self._check_seat(seat)
        n = self.players
        rules = self.rules
        exchanged = self.phase is not Phase.PASS and self.pass_direction is not PassDirection.NONE
        my_pass = self.passes[seat]
        d = self.pass_direction
        target = d.target(seat, n) if d is not PassDirection.NONE else None
        source = d.source(seat, n) if d is not PassDirection.NONE else None
        deck = rules.deck_mask
        seen = multiset_add(self.hands[seat], self._played)
        still_held = my_pass if (my_pass is not None and exchanged) else 0
        if still_held and target is not None:
            # the passed cards the target has played since: one card of theirs a trick
            led = [(t.leader, t.cards) for t in self.tricks]
            if self.trick and self.leader is not None:
                led.append((self.leader, tuple(self.trick)))
            for leader, cards in led:
                at = (target - leader) % n
                if at < len(cards) and still_held >> cards[at] & 1:
                    still_held = remove_card(still_held, cards[at])
        unseen = multiset_sub(multiset_sub(deck, seen), still_held)
        if my_pass is not None and not exchanged:
            # chosen but not yet exchanged: the cards are still in our own hand
            unseen = multiset_sub(deck, seen)
        in_play_count = sum(h.bit_count() for h in self.dealt)
        moon = self.moon_value
        if in_play_count < len(rules.deck) and self.phase in (Phase.PASS, Phase.PLAY):
            moon = rules.moon_value * rules.decks
        return PlayerView(
            seat=seat, rules=rules, phase=self.phase, round_index=self.round_index,
            dealer=self.dealer, pass_direction=d,
            hand=CardSet.from_mask(self.hands[seat]),
            passed=None if my_pass is None else CardSet.from_mask(my_pass),
            pass_target=target,
            received=CardSet.from_mask(self.received[seat]) if exchanged else None,
            received_from=source if exchanged else None,
            passes_chosen=tuple(p is not None for p in self.passes),
            tricks=tuple(self.tricks), trick=tuple(self.trick),
            trick_leader=self.leader if self.phase is Phase.PLAY else None,
            pot=tuple(self.pot), turn=self.turn if self.phase is Phase.PLAY else None,
            legal=CardSet.from_mask(self.legal_mask if self.turn == seat else 0),
            first_lead=self.first_lead,
            hearts_broken=self.hearts_broken,
            hand_sizes=tuple(h.bit_count() for h in self.hands),
            taken_points=tuple(self.taken_points), totals=tuple(self.totals),
            round_points=tuple(self.round_points), shooters=tuple(self.shooters),
            voids=tuple(_VOID_SUITS[v] for v in self.voids),
            unseen=CardSet.from_mask(unseen), passed_still_held=CardSet.from_mask(still_held),
            moon_value=moon, pending_shooter=self.pending_shooter,
            winner=self.winner, set_aside=len(rules.deck) - in_play_count,
        )

    def __repr__(self) -> str:
        return (f"<Game seed={self.seed!r} round={self.round_index} phase={self.phase.value} "
                f"totals={self.totals} moves={len(self._log)}>")
