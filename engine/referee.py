"""The referee's loop: the computer players act until a person must (or the round is over).

One loop for every table that holds a :class:`~engine.state.Game`: the app (in the web
process and in its worker pool), the arena and the tests.  The referee knows the true
state; each computer player is handed only its seat's :class:`~engine.view.PlayerView`.

The random source of each move comes from the game's seed and the move's number
(:func:`move_rng`), so a stored game replays the same and any process — the web
process or one of its workers — decides exactly the same moves.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass
from typing import Protocol

from . import events as ev
from .cards import Card, CardSet, multiset_sub
from .moves import MoonMove, Move, PassMove, PlayMove
from .state import PASS_SIZE, Game
from .values import Phase
from .view import PlayerView

log = logging.getLogger(__name__)


class Player(Protocol):
    """A computer player as the referee sees it (:class:`engine.bots.BaseBot` is one)."""

    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        """The move for ``view.seat`` now, from nothing but that seat's view."""
        ...


@dataclass(frozen=True)
class Step:
    """One computer player's move, applied."""

    seat: int
    move: Move
    events: tuple[ev.Event, ...]
    seconds: float
    """How long the player took to decide (wall clock: for measurements only)."""
    stood_in: bool = False
    """The player failed or chose an illegal move, and a random legal move stood in."""


def move_rng(game: Game) -> random.Random:
    """The random source for the move ``game`` waits for: seeded by the game's seed and the
    number of moves so far, never by the process or the time."""
    return random.Random(f"{game.seed}/bot/{game.move_count}")


def next_computer_seat(game: Game, people: Set[int]) -> int | None:
    """The computer seat to act now; ``None`` when a person must act first or nobody can
    (the round or the game is over).  While passing, the computer seats choose without
    waiting for the people (nobody sees a pass before everyone has chosen)."""
    seats = game.to_act
    if not seats or (game.phase is not Phase.PASS and seats[0] in people):
        return None
    for seat in seats:
        if seat not in people:
            return seat
    return None


def computer_turns(game: Game, players: Player | Mapping[int, Player],
                   people: Set[int] = frozenset()) -> Iterator[Step]:
    """Let the computer players act until a seat in ``people`` must act or the round is
    over, yielding each move as it is applied to ``game``.

    ``players`` is one player for every computer seat or a player per seat; ``people`` are
    the seats the referee never moves for.  A player that fails, or answers with a move that
    is not legal for its seat, is logged and a random legal move stands in, so a broken
    player never stops a table."""
    while (seat := next_computer_seat(game, people)) is not None:
        player = players[seat] if isinstance(players, Mapping) else players
        rng = move_rng(game)
        view = game.view(seat)
        start = time.perf_counter()
        move = _checked_move(player, game, view, rng)
        seconds = time.perf_counter() - start
        stood_in = move is None
        if move is None:
            move = rng.choice(game.legal_moves(seat))
        events = game.apply(move)
        yield Step(seat, move, tuple(events), seconds, stood_in)


def _checked_move(player: Player, game: Game, view: PlayerView, rng: random.Random) -> Move | None:
    """The player's move if it is legal for its seat now, else ``None`` (logged)."""
    seat = view.seat
    try:
        move = player.decide(view, rng)
    except Exception:  # any bug in a player: the table plays on with a legal move
        log.exception("computer player %r at seat %d failed; a legal move stands in", player, seat)
        return None
    if _is_legal(game, seat, move):
        return move
    log.error("computer player %r at seat %d chose %r, not a legal move; a legal move stands in",
              player, seat, move)
    return None


def _is_legal(game: Game, seat: int, move: object) -> bool:
    if not isinstance(move, (PassMove, PlayMove, MoonMove)) or type(move.seat) is not int or move.seat != seat:
        return False
    if isinstance(move, PassMove):
        # checked here rather than against legal_moves(), which lists every 3-card choice
        return (game.phase is Phase.PASS and seat in game.to_act and isinstance(move.cards, CardSet)
                and len(move.cards) == PASS_SIZE and not multiset_sub(move.cards.mask, game.hands[seat]))
    if isinstance(move, MoonMove) and type(move.subtract) is not bool:
        return False  # MoonMove(s, 1) == MoonMove(s, True) as tuples, but the engine wants a bool
    if isinstance(move, PlayMove) and type(move.card) is not Card:
        return False
    # moves are named tuples: MoonMove(1, True) == PlayMove(1, Card(1)) as tuples
    return any(type(m) is type(move) and m == move for m in game.legal_moves(seat))
