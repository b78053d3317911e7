"""Tables for friends (SPEC §7): open a table, take a seat, play, stand in for the absent.

A table holds the options and the computer players' level, and its seats: each for a
person (``TableSeat.person``; filled once somebody joins from the invite link) or for a
computer player.  Its game is an ordinary :class:`~app.models.GameRecord` (with
``table_id``), stored by the same version guard as a game against the computer: every
action names the version it was made at, and of two actions at one version only the first
is stored.

Whose turn it is decides who may act.  A person who does not act before the table's
``deadline`` (the turn timer), or who is not connected (or whose seat is still free), is
replaced for that one turn by a computer player of the table's level
(:func:`play_for_absent`, run by every server process's :func:`watch` loop; the version
guard lets only one of them store it).  The person takes the seat back by acting again.

Each change is stored first, then announced (:mod:`app.live`), and each page reads what
it may see from the database.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from itertools import islice

from sqlalchemy import bindparam, case, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from engine import Game, Phase, PlayerView, Rules, dumps
from engine import events as ev
from engine.bots import get_bot
from engine.cards import CardSet
from engine.moves import Move, NextRound, PassMove, parse_move
from engine.persist import game_from_dict
from engine.referee import computer_turns

from . import i18n, limits
from .db import writing
from .errors import BadChoiceError, GameClosedError, StaleStateError, TableError, TableNotFoundError
from .i18n import gettext as _
from .live import BROKER
from .models import (
    DIFFICULTIES,
    FRIEND_TABLE,
    FRIENDS,
    GAME_TABLE,
    SEAT_TABLE,
    FriendTable,
    GameRecord,
    Player,
    Record,
    TableSeat,
    utcnow,
)
from .services import GAMES, HERE, Context, ensure_player, load_game, new_id, person_moons, refuse_lost_race
from .thinking import POOLED

log = logging.getLogger(__name__)

TURN_SECONDS = 30
TURN_CHOICES = (10, 20, 30, 45, 60, 90, 120)
"""The turn timer's choices in the options dialog (tests may set any whole number 1…600)."""
NAME_MAX = 20
CONNECTED_FOR = timedelta(seconds=45)
"""A page's event stream renews its person's presence more often than this (app.routers.tables)."""
GONE_AFTER = timedelta(seconds=3)
"""A page that has gone (a closed tab) still counts as connected this long: a reload is not leaving."""
ABSENT_PAUSE = timedelta(seconds=1.5)
"""An absent person's turn is played this long after it came, so the others see it coming."""
IDLE_CLOSE = timedelta(minutes=30)
"""A table nobody has been connected to for this long is closed (then cleaned up like an
abandoned game, :mod:`app.retention`)."""


# ---- names ------------------------------------------------------------------------------

@cache
def _reserved() -> frozenset[str]:
    """What no person may call themselves, in any of the app's languages: "You", the seats'
    names and "Host", as they appear on the table."""
    from .presenter import SEAT_NAMES, SHORT_NAMES  # the seats' words live with the presenter

    words = {w for names in SEAT_NAMES.values() for w in names} | set(SHORT_NAMES.values())
    words |= {"Host", "Computer", "South", "Spectator"}
    out = set()
    for lang in i18n.LANGUAGES:
        t = i18n.translations(lang.code)
        out |= {_fold(t.gettext(w)) for w in words}
    return frozenset(out)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().strip()


_SPACES = re.compile(r"\s+")


def clean_name(raw: str) -> str:
    """The name a person chose, tidied (NFKC, one space between words) and checked: 1 to
    :data:`NAME_MAX` characters, letters, digits, spaces and ordinary punctuation, and not
    "You" or a seat's name in any language.  Raises :class:`TableError` with the reason."""
    name = _SPACES.sub(" ", unicodedata.normalize("NFKC", raw or "")).strip()
    if not name:
        raise TableError(_("Choose a name to show at the table."), "bad_name", 422)
    if len(name) > NAME_MAX:
        raise TableError(_("A name can have at most %(num)s characters.", num=NAME_MAX), "bad_name", 422)
    if any(unicodedata.category(c)[0] in "CZ" and c != " " for c in name):
        raise TableError(_("A name cannot contain control characters."), "bad_name", 422)
    if _fold(name) in _reserved():
        raise TableError(_("That name is taken by the table itself; choose another."), "bad_name", 422)
    return name


# ---- reading a table ----------------------------------------------------------------------

@dataclass
class TableState:
    """A table, its seats and its game as stored (what every page and action starts from)."""

    table: FriendTable
    seats: list[TableSeat]
    record: GameRecord | None
    now: datetime = field(default_factory=utcnow)

    @property
    def rules(self) -> Rules:
        return Rules.from_dict(json.loads(self.table.rules))

    @property
    def people(self) -> frozenset[int]:
        """The seats for people (whether or not somebody sits there yet)."""
        return frozenset(s.seat for s in self.seats if s.person)

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        return next((s.seat for s in self.seats if s.player_id == player_id), None)

    def connected(self, seat: TableSeat) -> bool:
        until = seat.connected_until
        return seat.player_id is not None and until is not None and _aware(until) > self.now

    def absent(self) -> frozenset[int]:
        """People's seats nobody is at now (free, or their person not connected)."""
        return frozenset(s.seat for s in self.seats if s.person and not self.connected(s))

    def is_host(self, player_id: str | None) -> bool:
        return player_id is not None and player_id == self.table.host_id

    @property
    def playing(self) -> bool:
        return self.record is not None and self.record.status == "active"

    @property
    def key(self) -> str:
        """What a page shows of this table, as its event id: game, version, seats' revision."""
        rec = self.record
        return f"{rec.id if rec else '-'}.{rec.version if rec else 0}.{self.table.rev}"


def _aware(moment: datetime) -> datetime:
    from datetime import UTC

    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# A table's reads, built once (building a statement costs about as much as running it): the
# table with its game in one statement, its seats in another.  ``populate_existing``: a row
# already in the session's identity map (a request that acted) is read again, not kept.
_TABLE_AND_GAME = (select(FriendTable, GameRecord)
                   .outerjoin(GameRecord, col(GameRecord.id) == col(FriendTable.game_id))
                   .execution_options(populate_existing=True))
_BY_TOKEN = _TABLE_AND_GAME.where(col(FriendTable.token) == bindparam("token"))
_BY_ID = _TABLE_AND_GAME.where(col(FriendTable.id) == bindparam("table_id"))
_SEATS = (select(TableSeat).where(col(TableSeat.table_id) == bindparam("table_id")).order_by(col(TableSeat.seat))
          .execution_options(populate_existing=True))


def read(session: Session, token: str | None = None, table_id: str | None = None,
         open_only: bool = True) -> TableState:
    """The table of an invite ``token`` (or by ``table_id``); a closed one is not found
    unless ``open_only`` is False.  Two statements: the table with its game, its seats."""
    if token is not None:
        if not isinstance(token, str) or not 16 <= len(token) <= 64:
            raise TableNotFoundError("no such table")
        row = session.exec(_BY_TOKEN, params={"token": token}).first()
    else:
        row = session.exec(_BY_ID, params={"table_id": table_id}).first()
    if row is None or (open_only and row[0].status != "open"):
        raise TableNotFoundError("no such table")
    table, rec = row
    seats = list(session.exec(_SEATS, params={"table_id": table.id}))
    return TableState(table, seats, rec)


# ---- opening and seating -------------------------------------------------------------------

def open_table(session: Session, host: Player, rules: Rules, difficulty: str, turn_seconds: int = TURN_SECONDS,
               name: str = "", ctx: Context = HERE) -> TableState:
    """A new table with every seat for a person, the host at the first; the host then
    chooses which seats the computer players take (:func:`set_people`)."""
    if difficulty not in DIFFICULTIES:
        raise BadChoiceError(f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {difficulty!r}")
    if type(turn_seconds) is not int or not 1 <= turn_seconds <= 600:
        raise BadChoiceError("the turn timer is a whole number of seconds from 1 to 600")
    shown = clean_name(name) if name.strip() else _("Host")
    host = ensure_player(session, host, ctx)
    if ctx.settings is not None and ctx.client is not None:
        limits.take(session, "game", ctx.client, ctx.settings.games_per_minute / 60, ctx.settings.games_burst)
    table = FriendTable(id=new_id(), token=secrets.token_urlsafe(24), host_id=host.id, difficulty=difficulty,
                        rules=json.dumps(rules.to_dict()), turn_seconds=turn_seconds)
    seats = [TableSeat(table_id=table.id, seat=s, person=True, player_id=host.id if s == 0 else None,
                       name=shown if s == 0 else None) for s in range(rules.players)]
    with writing(session):
        session.add(table)
        session.flush()
        session.add_all(seats)
        session.commit()
    return read(session, table_id=table.id)


def _touch(session: Session, state: TableState, **values: object) -> None:
    """A change of the seats: the revision goes up and the table's watchers are told."""
    session.exec(update(FriendTable).where(col(FriendTable.id) == state.table.id)
                 .values(rev=FriendTable.rev + 1, updated_at=utcnow(), **values))
    BROKER.announce(session, state.table.id)


def _only_host(state: TableState, player: Player) -> None:
    if not state.is_host(player.id):
        raise TableError(_("Only the host can do that."), "not_host", 403)


def set_people(session: Session, state: TableState, player: Player, people: set[int]) -> TableState:
    """The host chooses the seats for people (the others are the computer players')."""
    _only_host(state, player)
    n = len(state.seats)
    if not people <= set(range(n)):
        raise BadChoiceError(f"seats are numbered 0 to {n - 1}")
    # a seat somebody sits at stays a person's (the host removes the person first)
    people |= {s.seat for s in state.seats if s.player_id is not None}
    with writing(session):
        for s in state.seats:
            session.exec(update(TableSeat).where(col(TableSeat.table_id) == s.table_id, col(TableSeat.seat) == s.seat)
                         .values(person=s.seat in people))
        _touch(session, state)
        session.commit()
    BROKER.committed(session, state.table.id)
    return read(session, table_id=state.table.id)


def join(session: Session, state: TableState, player: Player, seat: int, name: str, ctx: Context = HERE) -> TableState:
    """Take the free seat ``seat`` under ``name``; nobody else can take it at the same time."""
    shown = clean_name(name)
    if state.seat_of(player.id) is not None:
        raise TableError(_("You already have a seat at this table."), "already_seated")
    target = next((s for s in state.seats if s.seat == seat), None)
    if target is None or not target.person or target.player_id is not None:
        raise TableError(_("That seat is not free any more; choose another."), "seat_taken")
    if any(s.name and _fold(s.name) == _fold(shown) for s in state.seats if s.player_id):
        raise TableError(_("Somebody at the table already has that name."), "name_taken")
    player = ensure_player(session, player, ctx)
    with writing(session):
        taken = session.exec(update(TableSeat)
                             .where(col(TableSeat.table_id) == state.table.id, col(TableSeat.seat) == seat,
                                    col(TableSeat.player_id).is_(None), col(TableSeat.person).is_(True))
                             .values(player_id=player.id, name=shown, connected_until=utcnow() + GONE_AFTER,
                                     connections=0, moons_counted=_moons_so_far(state, seat)))
        if taken.rowcount != 1:
            session.rollback()
            raise TableError(_("That seat is not free any more; choose another."), "seat_taken")
        _touch(session, state)
        session.commit()
    BROKER.committed(session, state.table.id)
    return read(session, table_id=state.table.id)


def _moons_so_far(state: TableState, seat: int) -> int:
    # a person who takes a seat mid-game is not credited with the moons shot there before
    if state.record is None or state.record.status != "active":
        return 0
    return person_moons(load_game(state.record), seat)


def remove(session: Session, state: TableState, player: Player, seat: int) -> TableState:
    """The host frees another person's seat (a computer player plays it until somebody joins)."""
    _only_host(state, player)
    target = next((s for s in state.seats if s.seat == seat), None)
    if target is None or target.player_id is None:
        raise BadChoiceError("nobody sits there")
    if target.player_id == player.id:
        raise TableError(_("The host cannot leave the table; close it instead."), "host_stays")
    with writing(session):
        session.exec(update(TableSeat).where(col(TableSeat.table_id) == state.table.id, col(TableSeat.seat) == seat)
                     .values(player_id=None, name=None, connected_until=None, connections=0))
        _touch(session, state)
        session.commit()
    BROKER.committed(session, state.table.id)
    return read(session, table_id=state.table.id)


def close(session: Session, state: TableState, player: Player) -> None:
    """The host closes the table: its game is abandoned, every page is told."""
    _only_host(state, player)
    _close(session, state.table.id)


def _close(session: Session, table_id: str) -> None:
    with writing(session):
        table = session.get(FriendTable, table_id, with_for_update=True)
        if table is None or table.status != "open":
            session.rollback()
            return
        if table.game_id:
            session.exec(update(GameRecord)
                         .where(col(GameRecord.id) == table.game_id, col(GameRecord.status) == "active")
                         .values(status="abandoned", updated_at=utcnow()))
        session.exec(update(FriendTable).where(col(FriendTable.id) == table_id)
                     .values(status="closed", deadline=None, waiting=0, rev=FriendTable.rev + 1, updated_at=utcnow()))
        BROKER.announce(session, table_id)
        session.commit()
    BROKER.committed(session, table_id)


# ---- presence ------------------------------------------------------------------------------

# Presence's writes, built once and run as plain statements (every stream renews its
# person's every 30 s: through the ORM each write cost ~3 ms, as much as a move's store).
_LEASE = SEAT_TABLE.c.connected_until
_UNTIL = bindparam("b_until", type_=_LEASE.type)
_NOW = bindparam("b_now", type_=_LEASE.type)
_PERSON = SEAT_TABLE.update().where(SEAT_TABLE.c.table_id == bindparam("b_table"),
                                    SEAT_TABLE.c.seat == bindparam("b_seat"),
                                    SEAT_TABLE.c.player_id == bindparam("b_player"))
_RENEWED = _PERSON.values(connected_until=_UNTIL)
_OPENED = _PERSON.values(connected_until=_UNTIL,
                         connections=case((_LEASE > _NOW, SEAT_TABLE.c.connections + 1), else_=1))
_CLOSED = _PERSON.values(connections=case((SEAT_TABLE.c.connections > 1, SEAT_TABLE.c.connections - 1), else_=0),
                         connected_until=case((SEAT_TABLE.c.connections > 1, _LEASE), else_=_UNTIL))
_SEEN = FRIEND_TABLE.update().where(FRIEND_TABLE.c.id == bindparam("b_table")).values(seen_at=_NOW)
_SEEN_ARRIVED = FRIEND_TABLE.update().where(FRIEND_TABLE.c.id == bindparam("b_table")).values(
    seen_at=_NOW, rev=FRIEND_TABLE.c.rev + 1)


def present(session: Session, table_id: str, seat: int | None, player_id: str | None, until: datetime,
            arrived: bool = False, streams: int = 0) -> None:
    """A page of the person at ``seat`` is connected until ``until`` (renewed while it is);
    ``arrived``/a short ``until`` on leaving: the others are told who is there.

    ``streams``: +1 when a page's stream opens, -1 when it closes.  The seat counts its
    person's open streams (every tab, every server process): a closing one shortens
    ``until`` to the reload's grace only if it was the last.  A count left behind by a
    server process that died runs out with its lease: a stream opening after the lease
    ended counts from one."""
    now = utcnow()
    with writing(session):
        conn = session.connection()
        if seat is not None and player_id is not None:
            renew = _OPENED if streams > 0 else _CLOSED if streams < 0 else _RENEWED
            conn.execute(renew, {"b_table": table_id, "b_seat": seat, "b_player": player_id, "b_until": until,
                                 "b_now": now})
            conn.execute(_SEEN_ARRIVED if arrived else _SEEN, {"b_table": table_id, "b_now": now})
            if arrived:
                BROKER.announce(session, table_id)
        else:
            conn.execute(_SEEN, {"b_table": table_id, "b_now": now})
        session.commit()
    if arrived and seat is not None:
        BROKER.committed(session, table_id)


# ---- the game -------------------------------------------------------------------------------

@dataclass
class TableOutcome:
    """An action at a table: the table after it, and what the actor saw happen."""

    state: TableState
    game: Game
    seat: int
    before_version: int | None
    """The version the actor acted at (their page plays back every move since)."""


def _computers(ctx: Context, game: Game, difficulty: str, people: frozenset[int],
               turns: int | None = None) -> list[tuple[Move, tuple[ev.Event, ...]]]:
    """The computer seats' turns until a person's seat must act, or ``turns`` of them at
    most (Hard's in the worker pool, never in the web process but when there is no pool)."""
    thinker = ctx.thinker
    if thinker is not None and thinker.workers and difficulty in POOLED:
        codes = thinker.moves(dumps(game), difficulty, people, turns)
        if codes is not None:
            out = []
            for code in codes:
                m = parse_move(code)
                out.append((m, tuple(game.apply(m))))
            return out
        difficulty = "medium"
    steps = computer_turns(game, get_bot(difficulty, ctx.hard_budget), people)
    return [(s.move, s.events) for s in islice(steps, turns)]


def waiting_for(game: Game, people: frozenset[int]) -> frozenset[int]:
    """The people's seats the game waits for now."""
    if game.phase is Phase.PASS:
        return frozenset(s for s in game.to_act if s in people)
    if game.phase is Phase.PLAY and game.to_act and game.to_act[0] in people:
        return frozenset({game.to_act[0]})
    if game.phase is Phase.MOON_CHOICE and game.pending_shooter in people:
        return frozenset({game.pending_shooter})
    return frozenset()


def _mask(seats: frozenset[int]) -> int:
    return sum(1 << s for s in seats)


# A move's two writes, built once and run as plain statements: through the ORM each cost
# more than the rest of storing a move (building the statement, then matching the objects
# in the session against it); the objects are brought up to date by _store itself.
_STORE_GAME = (update(GAME_TABLE)
               .where(GAME_TABLE.c.id == bindparam("b_id"), GAME_TABLE.c.version == bindparam("b_at"),
                      GAME_TABLE.c.status == "active")
               .values(record=bindparam("b_record"), version=bindparam("b_version"),
                       updated_at=bindparam("b_updated_at"), status=bindparam("b_status")))
_STORE_TABLE = (update(FRIEND_TABLE).where(FRIEND_TABLE.c.id == bindparam("b_id"))
                .values(game_id=bindparam("b_game_id"), waiting=bindparam("b_waiting"),
                        deadline=bindparam("b_deadline"), updated_at=bindparam("b_updated_at")))


def _store(session: Session, state: TableState, rec: GameRecord, game: Game, new: bool = False) -> None:
    """Store the table's game (guarded by its version unless ``new``), the people's records,
    and when the next absent or late turn is due; then tell every page."""
    table = state.table
    people = state.people
    now = utcnow()
    waits = waiting_for(game, people)
    over = game.phase is Phase.GAME_OVER
    deadline = None if over else now + timedelta(seconds=table.turn_seconds)
    finished = game.is_over
    values = {"record": dumps(game), "version": game.move_count, "updated_at": now,
              "status": "finished" if finished else "active"}
    with writing(session):
        if new:
            session.add(rec)
            session.flush()
        else:
            stored = session.connection().execute(_STORE_GAME, {"b_id": rec.id, "b_at": rec.version,
                                                                **{"b_" + k: v for k, v in values.items()}})
            if stored.rowcount != 1:
                refuse_lost_race(session, rec.id, rec.version)
        # the people's records, in the same transaction as the guarded store: once or not at all
        counted: dict[int, int] = {}
        for seat in state.seats:
            if not seat.person or seat.player_id is None:
                continue
            moons = person_moons(game, seat.seat) if not new else 0
            if moons > seat.moons_counted or finished:
                row = session.get(Record, (seat.player_id, FRIENDS)) or Record(player_id=seat.player_id,
                                                                                 difficulty=FRIENDS)
                row.moons += max(0, moons - seat.moons_counted)
                if finished:
                    row.played += 1
                    row.won += game.winner == seat.seat
                    final = game.totals[seat.seat]
                    row.best_score = final if row.best_score is None else min(row.best_score, final)
                session.add(row)
                session.exec(update(TableSeat).where(col(TableSeat.table_id) == table.id,
                                                     col(TableSeat.seat) == seat.seat).values(moons_counted=moons))
                counted[seat.seat] = moons
        stored_table = {"game_id": rec.id, "waiting": _mask(waits), "deadline": deadline, "updated_at": now}
        session.connection().execute(_STORE_TABLE, {"b_id": table.id, **{"b_" + k: v for k, v in stored_table.items()}})
        BROKER.announce(session, table.id)
        session.commit()
    # the objects read before now hold what was stored, as a read would find them (set as
    # loaded, not as changes: nothing is written again): the action's answer draws from them
    for name, value in values.items():
        set_committed_value(rec, name, value)
    for name, value in stored_table.items():
        set_committed_value(table, name, value)
    for seat in state.seats:
        if seat.seat in counted:
            set_committed_value(seat, "moons_counted", counted[seat.seat])
    GAMES.put(rec, game)
    BROKER.committed(session, table.id)


def deal(session: Session, state: TableState, player: Player, ctx: Context = HERE) -> TableState:
    """The host deals: a first game, or a new one in place of the game at the table
    (restart: the game in progress is abandoned, not counted)."""
    _only_host(state, player)
    game = Game(state.rules)
    people = state.people
    _computers(ctx, game, state.table.difficulty, people)
    rec = GameRecord(id=new_id(), player_id=state.table.host_id, difficulty=state.table.difficulty,
                     record=dumps(game), version=game.move_count, seat=state.seat_of(state.table.host_id) or 0,
                     table_id=state.table.id)
    with writing(session):
        if state.record is not None and state.record.status == "active":
            session.exec(update(GameRecord).where(col(GameRecord.id) == state.record.id)
                         .values(status="abandoned", updated_at=utcnow()))
        session.exec(update(TableSeat).where(col(TableSeat.table_id) == state.table.id).values(moons_counted=0))
        for s in state.seats:
            s.moons_counted = 0
        # (committed with the new game in _store)
        _store(session, state, rec, game, new=True)
    return read(session, table_id=state.table.id)


def act(session: Session, state: TableState, player: Player, version: int, move: Callable[[int], Move],
        ctx: Context = HERE) -> TableOutcome:
    """The person's ``move`` at their seat, the computer players' answers, stored."""
    seat = state.seat_of(player.id)
    if seat is None:
        raise TableError(_("Take a seat to play."), "no_seat", 403)
    rec = state.record
    if rec is None:
        raise TableError(_("The host has not dealt yet."), "not_dealt")
    if rec.status != "active":
        raise GameClosedError(rec.status)
    game = load_game(rec)
    m = move(seat)
    if version != rec.version and not _same_passing(game, version, m):
        raise StaleStateError(rec.version, version)
    before_version = rec.version
    game.apply(m)
    session.commit()  # no transaction stays open while the computer players think
    _computers(ctx, game, state.table.difficulty, state.people)
    _store(session, state, rec, game)
    # the table as stored by this action (the seats as read when it began: a change of
    # theirs since is the table's next event), without reading it all again
    return TableOutcome(TableState(state.table, state.seats, rec), game, seat, before_version)


def _same_passing(game: Game, version: int, move: Move) -> bool:
    """People pass at the same time: a pass chosen while the others' passes came in is
    still this hand's pass (every move since the version it was chosen at is a pass of the
    same hand), and the engine checks that this seat has not passed yet."""
    return (isinstance(move, PassMove) and game.phase is Phase.PASS and 0 <= version < game.move_count
            and all(isinstance(m, PassMove) for m in game.moves[version:]))


def next_hand(seat: int) -> Move:
    del seat
    return NextRound()


def play_for_absent(session: Session, table_id: str, ctx: Context = HERE) -> bool:
    """A computer player of the table's level plays the turns of the late and the absent
    (one turn each; they take the seat back by acting), then the computer seats play on.
    True when something was stored (False: nothing due, or another process was first)."""
    try:
        state = read(session, table_id=table_id)
    except TableNotFoundError:
        return False
    rec, table = state.record, state.table
    if rec is None or rec.status != "active" or table.deadline is None:
        return False
    game = load_game(rec)
    people = state.people
    waits = waiting_for(game, people)
    now = state.now
    late = _aware(table.deadline) <= now
    turn_started = _aware(table.deadline) - timedelta(seconds=table.turn_seconds)
    due = waits if late else (waits & state.absent() if now - turn_started >= ABSENT_PAUSE else frozenset())
    if not due and not (late and game.phase is Phase.ROUND_OVER):
        return False
    session.commit()
    if game.phase is Phase.ROUND_OVER:
        game.apply(NextRound())
    else:
        everybody = frozenset(range(game.players))
        for seat in sorted(due):
            if seat not in waiting_for(game, people):
                continue
            # one turn of this seat, played as a computer seat's (Hard's in the pool)
            if not _computers(ctx, game, table.difficulty, everybody - {seat}, turns=1):
                break
    _computers(ctx, game, table.difficulty, people)
    try:
        _store(session, state, rec, game)
    except StaleStateError:
        return False
    return True


# The watch loop's reads, built once: it runs twice a second in every process, and building
# its statements again each time was most of an idle server's CPU (docs/benchmarks.md).
_WAITING_TABLES = (select(FriendTable.id, FriendTable.deadline, FriendTable.turn_seconds, FriendTable.waiting)
                   .where(col(FriendTable.status) == "open", col(FriendTable.deadline).is_not(None)))
_PEOPLES_SEATS = (select(TableSeat.table_id, TableSeat.seat, TableSeat.player_id, TableSeat.connected_until)
                  .where(col(TableSeat.table_id).in_(bindparam("ids", expanding=True)),
                         col(TableSeat.person).is_(True)))
_LAPSED = (select(TableSeat.table_id).distinct()
           .join(FriendTable, col(FriendTable.id) == col(TableSeat.table_id))
           .where(col(FriendTable.status) == "open", col(TableSeat.player_id).is_not(None),
                  col(TableSeat.connected_until) > bindparam("since", type_=_LEASE.type),
                  col(TableSeat.connected_until) <= bindparam("now", type_=_LEASE.type)))


def due_tables(session: Session) -> list[str]:
    """Open tables whose game waits on somebody late, or on a person who is not connected
    (once :data:`ABSENT_PAUSE` has passed): the watch loop looks closer at each
    (:func:`play_for_absent` decides).  Two queries for all the tables, whatever their
    number: the loop runs twice a second in every process."""
    now = utcnow()
    rows = list(session.exec(_WAITING_TABLES))
    due = []
    waiting: dict[str, int] = {}
    for table_id, stored, turn_seconds, mask in rows:
        if stored is None:
            continue
        deadline = _aware(stored)
        if deadline <= now:
            due.append(table_id)
        elif mask and now - (deadline - timedelta(seconds=turn_seconds)) >= ABSENT_PAUSE:
            waiting[table_id] = mask
    if waiting:
        seats = session.exec(_PEOPLES_SEATS, params={"ids": list(waiting)})
        for table_id, seat, player_id, until in seats:
            away = player_id is None or until is None or _aware(until) <= now
            if away and waiting[table_id] >> seat & 1 and table_id not in due:
                due.append(table_id)
    session.commit()
    return due


def close_idle(session: Session, idle: timedelta = IDLE_CLOSE) -> int:
    """Close the open tables nobody has been connected to for ``idle``."""
    cutoff = utcnow() - idle
    ids = list(session.exec(select(FriendTable.id).where(col(FriendTable.status) == "open",
                                                         col(FriendTable.seen_at) < cutoff)))
    session.commit()
    for table_id in ids:
        _close(session, table_id)
    return len(ids)


def lapsed(session: Session, since: datetime, now: datetime) -> list[str]:
    """The open tables where somebody stopped counting as connected between ``since`` and
    ``now`` (the grace after their last page closed ran out, or a lost process's lease):
    their pages are told, so everybody sees that person away without waiting for a move."""
    ids = list(session.exec(_LAPSED, params={"since": since, "now": now}))
    session.commit()
    if not ids:
        return []
    with writing(session):
        session.exec(update(FriendTable).where(col(FriendTable.id).in_(ids)).values(rev=FriendTable.rev + 1))
        for table_id in ids:
            BROKER.announce(session, table_id)
        session.commit()
    for table_id in ids:
        BROKER.committed(session, table_id)
    return ids


async def watch(engine: Engine, ctx: Context, every: float = 0.5) -> None:
    """Each server process's loop: the late and absent turns of every table, presence that
    ran out told, and idle tables closed.  Several processes may run it at once: the version
    guard stores each turn once (and a lapse told twice is one more look at the seats)."""
    idle_check = 0.0
    since = utcnow()
    while True:
        try:
            now = utcnow()
            await asyncio.to_thread(_watch_once, engine, ctx, idle_check <= 0, since, now)
            since = now
            idle_check = idle_check - every if idle_check > 0 else 60.0
        except Exception:  # a failed round is tried again at the next one; the server goes on
            log.exception("the tables' watch failed")
        await asyncio.sleep(every)


def _watch_once(engine: Engine, ctx: Context, idle: bool, since: datetime, now: datetime) -> None:
    # marked as the server's own work, not a request's (tests count a request's sessions)
    with Session(engine, expire_on_commit=False, info={"background": "tables.watch"}) as session:
        for table_id in due_tables(session):
            try:
                play_for_absent(session, table_id, ctx)
            except StaleStateError:
                session.rollback()
        lapsed(session, since, now)
        if idle:
            close_idle(session)


# ---- what a page shows ---------------------------------------------------------------------

def spectator_view(game: Game) -> PlayerView:
    """The table as somebody without a seat sees it: the cards played, never a hand."""
    from dataclasses import replace

    view = game.view(0)
    empty = CardSet()
    return replace(view, hand=empty, passed=None, pass_target=None, received=None, received_from=None,
                   legal=empty, unseen=empty, passed_still_held=empty)


def view_for(game: Game, seat: int | None) -> PlayerView:
    return game.view(seat) if seat is not None else spectator_view(game)


def game_at(rec: GameRecord, version: int) -> Game | None:
    """The table's game as it was at ``version`` (None if that is not a version of it)."""
    if not 0 <= version <= rec.version:
        return None
    cached = GAMES.at(rec.id, version)
    if cached is not None:
        return cached
    data = json.loads(rec.record)
    data["moves"] = data["moves"][:version]
    return game_from_dict(data)


def replay(rec: GameRecord, game: Game, since: int, seat: int | None
           ) -> tuple[PlayerView, list[tuple[Move, tuple[ev.Event, ...], PlayerView]]] | None:
    """What the viewer at ``seat`` saw at version ``since`` and each move after it, with
    the view after each: the playback of the moves a page has not shown yet."""
    old = game_at(rec, since)
    if old is None:
        return None
    before = view_for(old, seat)
    out = []
    for m in game.moves[since:]:
        events = tuple(old.apply(m))
        out.append((m, events, view_for(old, seat)))
    return before, out
