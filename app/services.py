"""Game services: the only place the app touches the engine.

Every action is one transaction: load the game, check the version the person acted
on, apply their move, let the computer players move until it is the person's turn
again (or the round is over), store the new record, and, when the game has just
ended, count it in the player's records.  Routes call these and render the result.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from sqlalchemy import Connection, Engine, and_, bindparam, exists, inspect, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.instrumentation import manager_of_class
from sqlmodel import Session, col, select

from engine import Card, CardSet, Game, Phase, PlayerView, Rules, dumps, loads
from engine import events as ev
from engine.bots import get_bot
from engine.errors import IllegalMoveError
from engine.moves import MoonMove, Move, NextRound, PassMove, PlayMove, parse_move
from engine.referee import computer_turns

from . import limits
from .config import Settings
from .db import writing
from .errors import BadChoiceError, GameClosedError, GameNotFoundError, StaleGameError, StaleStateError
from .models import DIFFICULTIES, FRIENDS, GAME_TABLE, PLAYER_TABLE, GameRecord, Player, Record, utcnow
from .thinking import POOLED, Thinker

log = logging.getLogger(__name__)

SOLO_SEAT = 0
"""Where a person sits when nothing else is said: seat 0, the first in play order.  A game's
own seat is in its record (:attr:`GameRecord.seat`), and every service takes it from there."""


@dataclass(frozen=True)
class Context:
    """What an action runs with besides the database: the client and settings its rate
    limits count against (None: no limits), and the worker pool for Hard's searches
    (None: think here).  Requests get theirs from :func:`app.deps.get_context`."""

    client: str | None = None
    settings: Settings | None = None
    thinker: Thinker | None = None
    game: GameRecord | None = None
    """The game the request names, already read with its player in one statement
    (:func:`app.deps.as_player`): :func:`find_game` takes it instead of reading it again."""
    views: bool = True
    """The person's view after each step and before the action, which the page plays back;
    the JSON API answers with the game as it ends up only, and spares their drawing (a
    view is ~20 us, and an action makes about six)."""

    @property
    def hard_budget(self) -> int | None:
        """Hard's search for this action (None: Hard's own): :attr:`Thinker.hard_budget`."""
        return self.thinker.hard_budget if self.thinker is not None else None


HERE = Context()
"""No limits, no pool: tests and tools."""


@dataclass(frozen=True)
class Step:
    """One move applied during an action, with what it caused and what the person saw after it."""

    move: Move
    events: tuple[ev.Event, ...]
    view: PlayerView | None
    """None when the action was run without its steps' views (:attr:`Context.views`)."""


@dataclass
class Outcome:
    record: GameRecord
    game: Game
    steps: list[Step] = field(default_factory=list)
    before: PlayerView | None = None
    """What the person saw when they acted (None for a new deal): the page shows the action's
    moments as changes to that table."""

    @property
    def seat(self) -> int:
        """The seat of the person the outcome is for (the game's owner)."""
        return self.record.seat

    @property
    def view(self) -> PlayerView:
        # the last step's view is this one (nothing moves after it), already computed
        last = self.steps[-1].view if self.steps else None
        return last if last is not None else PlayerView.of(self.game, self.seat)

    @property
    def events(self) -> list[ev.Event]:
        return [e for s in self.steps for e in s.events]


T = TypeVar("T")


def new_id() -> str:
    return uuid.uuid4().hex


# ---- players and records ------------------------------------------------------------------

# An action's two lookups by primary key, built once: ``session.get`` builds its statement
# again on every call, ~1.5x the cost of running a prepared one (docs/benchmarks.md, "CPU
# per action").  A request's session is new, so there is no loaded object to return instead.
_PLAYER_BY_ID = select(Player).where(col(Player.id) == bindparam("id"))
_GAME_BY_ID = select(GameRecord).where(col(GameRecord.id) == bindparam("id"))
_PLAYER_AND_GAME = (sa_select(*PLAYER_TABLE.c, *GAME_TABLE.c)
                    .select_from(PLAYER_TABLE.outerjoin(GAME_TABLE, and_(
                        GAME_TABLE.c.id == bindparam("game_id"), GAME_TABLE.c.player_id == PLAYER_TABLE.c.id)))
                    .where(PLAYER_TABLE.c.id == bindparam("id")))
"""An action's player and game as one row of Core columns: loading them as ORM objects in
the session cost three times the statement (~290 us against ~100, docs/benchmarks.md)."""


def get_player(session: Session, player_id: str | None) -> Player | None:
    return session.exec(_PLAYER_BY_ID, params={"id": player_id}).first() if player_id else None


def get_player_and_game(session: Session, player_id: str, game_id: str) -> tuple[Player | None, GameRecord | None]:
    """The player and their game ``game_id`` (None if it is not theirs) in one statement, in
    a short transaction of its own on a connection of the session's engine, without the
    session: the objects come back detached, as if loaded by a session since closed (they
    have their identity, so :func:`is_stored` holds and a session they are added to updates
    them).  What follows in the session starts a transaction of its own."""
    params = {"id": player_id, "game_id": game_id}
    bind = session.get_bind()
    if isinstance(bind, Connection):  # a session bound to a connection: in its transaction
        row = bind.execute(_PLAYER_AND_GAME, params).first()
    else:
        with bind.connect() as conn:
            row = conn.execute(_PLAYER_AND_GAME, params).first()
            conn.rollback()
    if row is None:
        return None, None
    n = len(PLAYER_TABLE.c)
    player = _detached(Player, PLAYER_TABLE.c, row[:n])
    game = None if row[n] is None else _detached(GameRecord, GAME_TABLE.c, row[n:])
    return player, game


def _detached(cls: type[T], columns: Iterable[Any], values: Sequence[Any]) -> T:
    """An instance of the mapped ``cls`` with ``values`` as its stored columns, made as the
    ORM makes a loaded one (no ``__init__``, no validation), detached."""
    obj: T = manager_of_class(cls).new_instance()
    obj.__dict__.update(zip((c.key for c in columns), values, strict=True))
    make_transient_to_detached(obj)
    return obj


def create_player(session: Session) -> Player:
    """A new stored player (tests and tools; requests go through :func:`ensure_player`)."""
    return ensure_player(session, Player(id=new_id()))


def is_stored(player: Player) -> bool:
    return bool(inspect(player).has_identity)


def _insert_ignore(session: Session) -> Any:
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(Player).on_conflict_do_nothing()
    return sqlite.insert(Player).on_conflict_do_nothing()


def ensure_player(session: Session, player: Player, ctx: Context = HERE) -> Player:
    """The stored row of ``player``, written now if this is the first thing worth keeping
    that the player does (a game, a preference): a visitor who only looks costs nothing.

    Creating one is rate-limited per client (:mod:`app.limits`).  Two first requests of the
    same new player (two tabs) both end up with the one row: the insert ignores a conflict."""
    if is_stored(player):
        return player
    if ctx.settings is not None and ctx.client is not None:
        limits.take(session, "player", ctx.client, ctx.settings.players_per_hour / 3600, ctx.settings.players_burst)
    values = {"id": player.id, "created_at": utcnow(), "fast_play": player.fast_play, "difficulty": player.difficulty}
    with writing(session):
        session.exec(_insert_ignore(session).values(**values))
        session.commit()
    stored = session.get(Player, player.id)
    assert stored is not None
    return stored


def set_preferences(session: Session, player: Player, *, fast_play: bool | None = None,
                    difficulty: str | None = None, ctx: Context = HERE) -> Player:
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise BadChoiceError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    stored = ensure_player(session, player, ctx)
    for target in {id(player): player, id(stored): stored}.values():
        if fast_play is not None:
            target.fast_play = fast_play
        if difficulty is not None:
            target.difficulty = difficulty
    with writing(session):
        session.add(stored)
        session.commit()
    return stored


@dataclass(frozen=True)
class RecordLine:
    difficulty: str
    played: int
    won: int
    best_score: int | None
    moons: int


def records(session: Session, player: Player) -> list[RecordLine]:
    """One line per difficulty, then the games at tables for friends (zeros where nothing
    has been played yet)."""
    rows = {r.difficulty: r for r in session.exec(select(Record).where(Record.player_id == player.id))}
    out = []
    for d in (*DIFFICULTIES, FRIENDS):
        r = rows.get(d)
        out.append(RecordLine(d, r.played, r.won, r.best_score, r.moons) if r else RecordLine(d, 0, 0, None, 0))
    return out


def _record_row(session: Session, rec: GameRecord) -> Record:
    row = session.get(Record, (rec.player_id, rec.difficulty))
    return row if row is not None else Record(player_id=rec.player_id, difficulty=rec.difficulty)


def _count_finished(session: Session, rec: GameRecord, game: Game) -> None:
    row = _record_row(session, rec)
    row.played += 1
    row.won += game.winner == rec.seat
    final = game.totals[rec.seat]
    row.best_score = final if row.best_score is None else min(row.best_score, final)
    session.add(row)


def _count_moons(session: Session, rec: GameRecord, moons: int) -> None:
    row = _record_row(session, rec)
    row.moons += moons
    session.add(row)


def person_moons(game: Game, seat: int) -> int:
    """How many times the person at ``seat`` has shot the moon in this game so far (a moon
    is decided when the last trick of its hand is taken, before any shooter's choice)."""
    shot = sum(1 for s in game.shooters if s == seat)
    return shot + (game.phase is Phase.MOON_CHOICE and game.pending_shooter == seat)


# ---- games ------------------------------------------------------------------------------

def current_game(session: Session, player: Player) -> GameRecord | None:
    """The player's latest game that was not abandoned (a finished one stays on the table)."""
    return _current_game_of(session, player.id)


def _current_game_of(session: Session, player_id: str) -> GameRecord | None:
    stmt = (select(GameRecord).where(GameRecord.player_id == player_id, GameRecord.status != "abandoned",
                                     col(GameRecord.table_id).is_(None))
            .order_by(col(GameRecord.created_at).desc()).limit(1))
    return session.exec(stmt).first()


class GameCache:
    """Recently stored or loaded games of this process by ``(id, version)``, so an action
    does not replay the whole move log when the process already has that exact version.

    A hit is only taken when the stored record text is the same as the database's, so it
    is the game ``loads(record)`` would give; every caller gets its own :meth:`Game.copy`, and
    the cache keeps its own, so an action that fails half-way never changes a cached game.
    Whether an action may be stored is still decided by the version guard in
    :func:`_store`'s UPDATE, never by the cache."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._games: OrderedDict[tuple[str, int], tuple[str, Game]] = OrderedDict()
        self._lock = threading.Lock()  # the endpoints run in a thread pool

    def at(self, game_id: str, version: int) -> Game | None:
        """A copy of the game ``game_id`` at ``version`` if this process has it (a page's
        playback starts from the version it shows: :mod:`app.tables`)."""
        with self._lock:
            hit = self._games.get((game_id, version))
        return None if hit is None else hit[1].copy()

    def get(self, rec: GameRecord) -> Game | None:
        key = (rec.id, rec.version)
        with self._lock:
            hit = self._games.get(key)
            if hit is None or hit[0] != rec.record:
                return None
            self._games.move_to_end(key)
        return hit[1].copy()

    def put(self, rec: GameRecord, game: Game) -> None:
        entry = (rec.record, game.copy())
        with self._lock:
            self._games[(rec.id, rec.version)] = entry
            self._games.move_to_end((rec.id, rec.version))
            while len(self._games) > self.size:
                self._games.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._games.clear()


GAMES = GameCache()
"""Shared by the process's requests; 512 games of ~100 moves are a few megabytes."""


def load_game(rec: GameRecord) -> Game:
    game = GAMES.get(rec)
    if game is None:
        game = loads(rec.record)
        GAMES.put(rec, game)
    return game


def find_game(session: Session, player: Player, game_id: str | None, read: GameRecord | None = None) -> GameRecord:
    """The game ``game_id`` of this player, or their current one when ``game_id`` is None;
    ``read``: that game if it was already read in this transaction (:attr:`Context.game`)."""
    return find_game_of(session, player.id, game_id, read)


def find_game_of(session: Session, player_id: str, game_id: str | None, read: GameRecord | None = None) -> GameRecord:
    """:func:`find_game` by the player's id (a refusal's answer has the id, and its player
    object was expired by the rollback)."""
    if game_id is None:
        rec = _current_game_of(session, player_id)
    elif read is not None and read.id == game_id:
        rec = read
    else:
        rec = session.exec(_GAME_BY_ID, params={"id": game_id}).first()
    if rec is None or rec.player_id != player_id or rec.table_id is not None:
        raise GameNotFoundError(f"no game {game_id!r}" if game_id else "you have no game yet; start one")
    return rec


def start_game(session: Session, player: Player, rules: Rules, difficulty: str,
               seed: int | str | None = None, replaces: str | None = None, practice: bool | None = None,
               seat: int = SOLO_SEAT, ctx: Context = HERE) -> Outcome:
    """Abandon the player's game in progress, deal a new one and let the computer players act.

    Only the server deals games that count toward records.  A game dealt from a ``seed``
    the client chose is a practice game: whoever chose the seed can replay the deal and
    see the computer players' hands, so it never counts (SPEC §8).  ``practice`` overrides
    that for tests and tools that need a reproducible counted deal; requests never pass it.

    ``replaces``, when given, is the id of the game the request was made from ("" for none):
    if the player's current game is another one by the time the deal is stored, nothing is
    stored and :class:`StaleGameError` is raised, so a repeated "New game" deals once.

    ``seat``: where the person sits (the computer players take the others)."""
    if difficulty not in DIFFICULTIES:
        raise BadChoiceError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    if type(seat) is not int or not 0 <= seat < rules.players:
        raise BadChoiceError(f"the person's seat must be a whole number from 0 to {rules.players - 1}, not {seat!r}")
    game = Game(rules, seed=seed)
    player = ensure_player(session, player, ctx)
    if ctx.settings is not None and ctx.client is not None:
        limits.take(session, "game", ctx.client, ctx.settings.games_per_minute / 60, ctx.settings.games_burst)
    _end_transaction(session)
    # the computer players' passes are computed before the transaction that stores them,
    # so a slow search never holds the database's write lock
    steps = _bots(ctx, game, difficulty, seat)
    rec = GameRecord(id=new_id(), player_id=player.id, difficulty=difficulty, record=dumps(game),
                     version=game.move_count, seat=seat,
                     practice=seed is not None if practice is None else practice)
    with writing(session):
        if replaces is not None:
            _claim_table(session, player, replaces)
        session.exec(update(GameRecord)
                     .where(col(GameRecord.player_id) == player.id, col(GameRecord.status) == "active",
                            col(GameRecord.table_id).is_(None))
                     .values(status="abandoned", updated_at=utcnow()))
        player.difficulty = difficulty
        session.add(player)
        session.add(rec)
        session.commit()
    GAMES.put(rec, game)
    return Outcome(rec, game, steps)


def _claim_table(session: Session, player: Player, replaces: str) -> None:
    # the check and the write come together: of two identical requests the second sees the
    # first's new game and matches no row.  On SQLite the conditional UPDATE alone is atomic
    # (one writer at a time); PostgreSQL first locks the player's row, so the UPDATE's
    # snapshot is taken after the other request has committed (FOR UPDATE is a no-op on SQLite)
    session.exec(select(Player.id).where(col(Player.id) == player.id).with_for_update()).first()
    live = (col(GameRecord.player_id) == player.id, col(GameRecord.status) != "abandoned",
            col(GameRecord.table_id).is_(None))
    if replaces:
        latest = select(GameRecord.id).where(*live).order_by(col(GameRecord.created_at).desc()).limit(1)
        still = latest.scalar_subquery() == replaces
    else:
        still = ~exists().where(*live)
    result = session.exec(update(Player).where(col(Player.id) == player.id, still)
                          .values(difficulty=player.difficulty))
    if result.rowcount != 1:
        session.rollback()
        raise StaleGameError()


def _act(session: Session, player: Player, game_id: str | None, version: int,
         move: Callable[[int], Move], ctx: Context) -> Outcome:
    """Apply the person's ``move`` (made for their seat in the game) and the computer
    players' answers, and store them."""
    rec = find_game(session, player, game_id, ctx.game)
    if rec.status != "active":
        raise GameClosedError(rec.status)
    if version != rec.version:
        raise StaleStateError(rec.version, version)
    game = load_game(rec)
    base = game.move_count
    before = PlayerView.of(game, rec.seat) if ctx.views else None
    m = move(rec.seat)
    events = game.apply(m)
    steps = [Step(m, tuple(events), PlayerView.of(game, rec.seat) if ctx.views else None)]
    # no transaction stays open while the computer players think; _store applies the
    # result only if the game is still at the version read above
    _end_transaction(session)
    steps += _bots(ctx, game, rec.difficulty, rec.seat)
    # the version counts every change: the moves applied (so it is the move count until an
    # undo), and an undo one more, so a request made before an undo never matches again
    outcome = _store(session, rec, game, steps, rec.version + game.move_count - base)
    outcome.before = before
    return outcome


def _end_transaction(session: Session) -> None:
    # commit, not rollback: nothing is pending, and a commit keeps the loaded objects
    # (expire_on_commit=False) where a rollback would expire them.  An action whose reads
    # were made outside the session (get_player_and_game) has none to end
    if session.in_transaction():
        session.commit()


_STORED = ("record", "version", "updated_at", "status", "moons_counted")
_STORE = (update(GAME_TABLE)
          .where(GAME_TABLE.c.id == bindparam("b_id"), GAME_TABLE.c.version == bindparam("b_old"),
                 GAME_TABLE.c.status == "active")
          .values(**{name: bindparam("b_" + name) for name in _STORED}))
"""Storing an action, built once: a Core statement skips the ORM's statement building
and its synchronisation of loaded objects, which :func:`_store` does itself.  The status
is guarded like the version: an action that raced a new deal must not bring the game it
played on back from "abandoned"."""


def refuse_lost_race(session: Session, game_id: str, old: int) -> NoReturn:
    """A guarded store matched no row: roll back and say why, closed or stale."""
    session.rollback()
    current = session.get(GameRecord, game_id, populate_existing=True)
    session.commit()
    if current is not None and current.status != "active":
        raise GameClosedError(current.status)
    raise StaleStateError(current.version if current is not None else old + 1, old)


def _store(session: Session, rec: GameRecord, game: Game, steps: list[Step], version: int) -> Outcome:
    """Store ``game`` as ``version`` if the record is still at the version it was read at."""
    old = rec.version
    finished = game.is_over
    moons = person_moons(game, rec.seat)
    values = {"record": dumps(game), "version": version, "updated_at": utcnow(),
              "status": "finished" if finished else "active", "moons_counted": moons}
    params = {"b_id": rec.id, "b_old": old, **{"b_" + k: v for k, v in values.items()}}
    counts = not rec.practice and (moons > rec.moons_counted or finished)
    bind = session.get_bind()
    with writing(session):
        # the version guard makes two simultaneous requests on the same move impossible to
        # both succeed: the second matches no row and is refused as stale
        if not counts and isinstance(bind, Engine) and not session.in_transaction():
            # most actions count no record: the one statement in a transaction of its own on
            # a connection, without the session's (~50 us less, docs/benchmarks.md)
            with bind.connect() as conn:
                stored = conn.execute(_STORE, params).rowcount == 1
                conn.commit()
            if not stored:
                refuse_lost_race(session, rec.id, old)
        else:
            if session.exec(_STORE, params=params).rowcount != 1:
                refuse_lost_race(session, rec.id, old)
            # records ride in the same transaction as the guarded store: counted once or not at all
            if not rec.practice:
                if moons > rec.moons_counted:
                    _count_moons(session, rec, moons - rec.moons_counted)
                if finished:
                    _count_finished(session, rec, game)
            session.commit()
    for name, value in values.items():
        # as loaded, not as changed: the row already holds these values
        set_committed_value(rec, name, value)
    # the next action on this game will most likely come to this process: it starts from here
    GAMES.put(rec, game)
    return Outcome(rec, game, steps)


def pass_cards(session: Session, player: Player, game_id: str | None, version: int,
               cards: list[str] | str, ctx: Context = HERE) -> Outcome:
    try:
        chosen = CardSet(cards)
    except ValueError as exc:
        raise IllegalMoveError(f"pass exactly 3 cards you hold ({exc})", "pass_cards") from None
    return _act(session, player, game_id, version, lambda seat: PassMove(seat, chosen), ctx)


def play_card(session: Session, player: Player, game_id: str | None, version: int, card: str,
              ctx: Context = HERE) -> Outcome:
    try:
        chosen = Card(card)
    except ValueError as exc:
        raise IllegalMoveError(str(exc), "not_a_card") from None
    return _act(session, player, game_id, version, lambda seat: PlayMove(seat, chosen), ctx)


def choose_moon(session: Session, player: Player, game_id: str | None, version: int, subtract: bool,
                ctx: Context = HERE) -> Outcome:
    return _act(session, player, game_id, version, lambda seat: MoonMove(seat, subtract), ctx)


def next_round(session: Session, player: Player, game_id: str | None, version: int,
               ctx: Context = HERE) -> Outcome:
    return _act(session, player, game_id, version, lambda seat: NextRound(), ctx)


# ---- computer players -------------------------------------------------------------------

def _bots(ctx: Context, game: Game, difficulty: str, seat: int) -> list[Step]:
    """The computer players' turns until the person at ``seat`` must act: Hard's in the
    app's worker pool when there is one (:mod:`app.thinking`), else here."""
    people = frozenset({seat})
    thinker = ctx.thinker
    if thinker is None or not thinker.workers or difficulty not in POOLED:
        return run_bots(game, difficulty, seat, people, ctx.hard_budget, ctx.views)
    codes = thinker.moves(dumps(game), difficulty, people)
    if codes is None:
        return run_bots(game, "medium", seat, people, None, ctx.views)
    steps = []
    for code in codes:
        m = parse_move(code)
        steps.append(Step(m, tuple(game.apply(m)), PlayerView.of(game, seat) if ctx.views else None))
    return steps


def run_bots(game: Game, difficulty: str, viewer: int = SOLO_SEAT,
             people: AbstractSet[int] | None = None, hard_budget: int | None = None,
             views: bool = True) -> list[Step]:
    """Let the computer players act until one of the ``people`` (by default the
    ``viewer`` alone) must act or the round is over; each step as ``viewer`` sees it, or
    without its view (``views`` false) (Hard with ``hard_budget``: :meth:`engine.bots.get_bot`)."""
    seats = frozenset({viewer}) if people is None else people
    return [Step(step.move, step.events, PlayerView.of(game, viewer) if views else None)
            for step in computer_turns(game, get_bot(difficulty, hard_budget), seats)]
