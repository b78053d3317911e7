"""Practice games' helpers (Hint, Undo) and the review of a hand (SPEC §6).

* **Hint**: Hard's choice for the person now, from the person's view only, with the reason
  as a code the presenter says in the player's language.  Thought in the bot pool.
* **Undo**: a game is its seed and its move log, so taking back the person's last pass or
  card is cutting the log just before it and replaying what is left; the computer players'
  moves after it go with it.  Stored through the same version guard as every action, with
  the version one higher (never back to an earlier one), so a double click or a request
  made before the undo is refused as stale.
* **Review**: each finished hand's decisions rated by the coach (:mod:`engine.bots.coach`),
  computed in the bot pool under its time budget and kept in ``hand_review``.

Only practice games get hints and undo; any finished hand of the person's game can be
reviewed, since a review reads only the person's own past views.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from engine import Game, Phase, PlayerView, dumps
from engine.bots.coach import Rating
from engine.errors import NotYourTurnError
from engine.moves import Move, NextRound, PassMove, PlayMove
from engine.persist import game_from_dict, game_to_dict
from engine.review import hand_count, hand_moves

from . import thinking
from .db import writing
from .errors import GameClosedError, NothingToUndoError, NotReviewableError, PracticeOnlyError, StaleStateError
from .limits import ServerBusyError
from .models import GameRecord, HandReview, Player, utcnow
from .services import HERE, Context, Outcome, _end_transaction, _store, find_game, load_game

REVIEW_TIMEOUT = 60.0
"""Seconds a request waits for a hand's review (14 decisions at the coach's budget each)."""


def _practice_game(session: Session, player: Player, game_id: str | None, version: int) -> tuple[GameRecord, Game]:
    rec = find_game(session, player, game_id)
    if not rec.practice:
        raise PracticeOnlyError()
    if rec.status != "active":
        raise GameClosedError(rec.status)
    if version != rec.version:
        raise StaleStateError(rec.version, version)
    return rec, load_game(rec)


# ---- undo ---------------------------------------------------------------------------------

def undo_point(moves: list[Move], seat: int) -> int | None:
    """Where to cut the log to take back ``seat``'s last pass or card (None: nothing to take back)."""
    for i in range(len(moves) - 1, -1, -1):
        m = moves[i]
        if isinstance(m, PassMove | PlayMove) and m.seat == seat:
            return i
    return None


def replay(game: Game, count: int) -> Game:
    """``game`` as it was after its first ``count`` moves: dealt again from its seed (and
    explicit deals), the moves applied again."""
    data = game_to_dict(game)
    data["moves"] = data["moves"][:count]
    return game_from_dict(data)


def undo(session: Session, player: Player, game_id: str | None, version: int, ctx: Context = HERE) -> Outcome:
    """Take back the person's last pass or card in a practice game, and everything after it."""
    rec, game = _practice_game(session, player, game_id, version)
    cut = undo_point(game.moves, rec.seat)
    if cut is None:
        raise NothingToUndoError()
    earlier = replay(game, cut)
    _end_transaction(session)
    return _store(session, rec, earlier, [], rec.version + 1)


# ---- hint ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class HintAnswer:
    """Hard's choice for the person's turn, in the game as it was read."""

    record: GameRecord
    game: Game
    cards: tuple[str, ...]
    """The card codes to pass or the one to play."""
    reason: str
    """Why, as a code (:data:`app.review_view.REASONS`)…"""
    values: dict[str, Any]
    """… and the values its sentence names (a suit, a card)."""


def hint(session: Session, player: Player, game_id: str | None, version: int, ctx: Context = HERE) -> HintAnswer:
    """Hard's choice for the person now (a practice game, their turn to pass or play)."""
    rec, game = _practice_game(session, player, game_id, version)
    view = game.view(rec.seat)
    if not view.my_turn or view.phase not in (Phase.PASS, Phase.PLAY):
        raise NotYourTurnError("a hint is for your turn to pass or play")
    _end_transaction(session)
    answer = _think(ctx, thinking.hint, dumps(game), rec.seat, ctx.hard_budget, timeout=None)
    return HintAnswer(rec, game, tuple(answer["cards"]), answer["reason"], answer["values"])


def _think(ctx: Context, fn: Any, *args: Any, timeout: float | None) -> Any:
    """``fn`` in the bot pool (here when there is none); a pool that does not answer in time
    is the server being busy (503, try again), never a wrong answer."""
    if ctx.thinker is None:
        return fn(*args)
    answer = ctx.thinker.call(fn, *args, timeout=timeout)
    if answer is None:
        raise ServerBusyError()
    return answer


# ---- review -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReviewAnswer:
    record: GameRecord
    game: Game
    hand: int
    """0-based."""
    ratings: list[Rating]
    end: PlayerView
    """The person's view when the hand was over: its tricks, as they were played."""


def hand_end(game: Game, hand: int) -> Game:
    """``game`` as it was when hand ``hand`` (0-based, finished) was over."""
    starts = [i for i, m in enumerate(game.moves) if isinstance(m, NextRound)]
    return replay(game, starts[hand]) if hand < len(starts) else game


def review(session: Session, player: Player, game_id: str | None, hand: int, ctx: Context = HERE) -> ReviewAnswer:
    """The person's decisions in finished hand ``hand`` (0-based) of their game, rated: from
    ``hand_review`` when the hand is unchanged since it was reviewed, else computed in the
    bot pool and kept."""
    rec = find_game(session, player, game_id)
    game = load_game(rec)
    if type(hand) is not int or not 0 <= hand < hand_count(game):
        raise NotReviewableError(hand + 1 if type(hand) is int else 0)
    record = dumps(game)
    key = hashlib.sha256(json.dumps([rec.seat, hand_moves(record, hand)]).encode()).hexdigest()
    kept = session.get(HandReview, (rec.id, hand))
    if kept is not None and kept.key == key:
        return ReviewAnswer(rec, game, hand, [Rating.from_dict(d) for d in json.loads(kept.data)],
                            hand_end(game, hand).view(rec.seat))
    _end_transaction(session)
    rated = _think(ctx, thinking.review, record, rec.seat, hand, timeout=REVIEW_TIMEOUT)
    data = json.dumps(rated, separators=(",", ":"))
    with writing(session):
        row = session.get(HandReview, (rec.id, hand), populate_existing=True)
        if row is None:
            session.add(HandReview(game_id=rec.id, hand=hand, key=key, data=data, created_at=utcnow()))
        else:
            row.key, row.data, row.created_at = key, data, utcnow()
            session.add(row)
        try:
            session.commit()
        except IntegrityError:  # another request stored the same review first: theirs stays
            session.rollback()
    return ReviewAnswer(rec, game, hand, [Rating.from_dict(d) for d in rated], hand_end(game, hand).view(rec.seat))


@dataclass(frozen=True)
class Helpers:
    """What the table offers the person besides their moves."""

    practice: bool
    can_hint: bool
    can_undo: bool
    reviewable: int
    """How many hands are finished (each can be reviewed)."""


def helpers(rec: GameRecord, game: Game) -> Helpers:
    active = rec.practice and rec.status == "active"
    view = game.view(rec.seat)
    turn = view.my_turn and view.phase in (Phase.PASS, Phase.PLAY)
    return Helpers(rec.practice, active and turn, active and undo_point(game.moves, rec.seat) is not None,
                   hand_count(game))


def practice_games(session: Session, player: Player) -> int:
    """How many practice games the player has finished (shown beside the records, not in them)."""
    stmt = select(func.count()).select_from(GameRecord).where(
        col(GameRecord.player_id) == player.id, col(GameRecord.practice), col(GameRecord.status) == "finished")
    return int(session.exec(stmt).one())
