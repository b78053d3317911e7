"""Database tables: anonymous players, their games, their records, and rate-limit buckets."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, ForeignKey, String, Table, Text
from sqlmodel import Field, SQLModel

DIFFICULTIES = ("easy", "medium", "hard")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Player(SQLModel, table=True):
    """An anonymous person, identified only by the signed token (cookie or header) holding ``id``.

    The row is written the first time the player does something worth keeping (a game, a
    preference), not when a browser merely looks at the page: see :func:`app.services.ensure_player`.
    """

    id: str = Field(primary_key=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    fast_play: bool = Field(default=False)
    difficulty: str = Field(default="medium", max_length=16)
    """The difficulty chosen last, offered again for the next game."""
    tokens_valid_after: datetime | None = Field(default=None)
    """Revocation: tokens (cookies) issued before this moment no longer name this player."""


class GameRecord(SQLModel, table=True):
    """One game: the engine's saved form (rules, seed, ordered moves) plus bookkeeping.

    ``version`` is the number of moves applied; every action names the version it was
    made against, so a stale or repeated request is refused instead of applied twice.
    """

    __tablename__ = "game"

    id: str = Field(primary_key=True, max_length=32)
    player_id: str = Field(foreign_key="player.id", index=True, max_length=32)
    difficulty: str = Field(max_length=16)
    record: str = Field(sa_column=Column(Text, nullable=False))
    """``engine.persist.dumps`` of the game."""
    version: int = Field(default=0)
    seat: int = Field(default=0)
    """The seat of the person who owns this game (the player ``player_id``); the other
    seats are computer players, which act until a seat in :attr:`people` must."""
    status: str = Field(default="active", max_length=16)
    """``active``, ``finished`` (records counted) or ``abandoned`` (a new game was started).
    Only an active game accepts moves; the status is guarded like the version when storing."""
    practice: bool = Field(default=False)
    """A practice game (dealt from a seed the client chose, and later with hints or undo):
    it never counts toward records."""
    moons_counted: int = Field(default=0)
    """How many of the person's moons in this game are already in the records, so each
    moon is counted once, in the transaction that stores the move that shot it."""
    table_id: str | None = Field(default=None, index=True, max_length=32)
    """The table for friends this game is played at (None: a game against the computer,
    owned by ``player_id`` alone).  A table's game belongs to its host; every seat's person
    plays it through :mod:`app.tables`."""
    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow, index=True)

    @property
    def people(self) -> frozenset[int]:
        """The seats played by people in a game against the computer: the owner's alone
        (a table's people are its :class:`TableSeat` rows)."""
        return frozenset({self.seat})


FRIENDS = "friends"
"""The records' line for games at tables for friends (:class:`Record` ``difficulty``), kept
apart from the games against the computer at each level."""


class FriendTable(SQLModel, table=True):
    """A table for friends (SPEC §7): its invite token, options, seats and current game.

    ``rev`` counts changes of the seats (who sits where, who is connected), so a page can
    tell whether its list of people is current; ``deadline`` is when the seats the game
    waits for (``waiting``, a bit per seat) are played by a computer player."""

    __tablename__ = "friend_table"

    id: str = Field(primary_key=True, max_length=32)
    token: str = Field(unique=True, max_length=64)
    """The invite link's secret part (unguessable: 192 random bits)."""
    host_id: str = Field(foreign_key="player.id", index=True, max_length=32)
    difficulty: str = Field(max_length=16)
    """The computer players' level, and of any that stands in for an absent person."""
    rules: str = Field(sa_column=Column(Text, nullable=False))
    """``Rules.to_dict`` as JSON: the options every game at this table is dealt with."""
    turn_seconds: int = Field(default=30)
    status: str = Field(default="open", max_length=16)
    """``open`` or ``closed`` (by the host, or when nobody has been connected for a while)."""
    game_id: str | None = Field(default=None, max_length=32)
    rev: int = Field(default=0)
    waiting: int = Field(default=0)
    deadline: datetime | None = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow, index=True)
    seen_at: datetime = Field(default_factory=utcnow, index=True)
    """When somebody was last connected to the table (idle tables are closed)."""


class TableSeat(SQLModel, table=True):
    """One seat of a table for friends: for a person (``person``) or a computer player."""

    __tablename__ = "table_seat"

    table_id: str = Field(foreign_key="friend_table.id", primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    person: bool = Field(default=False)
    player_id: str | None = Field(default=None, foreign_key="player.id", index=True, max_length=32)
    name: str | None = Field(default=None, max_length=64)
    connected_until: datetime | None = Field(default=None)
    """The person counts as connected until then (their page's event stream renews it)."""
    connections: int = Field(default=0)
    """How many of the person's pages have their event stream open, in every server process:
    only the last one closing starts the reload's grace (:func:`app.tables.present`)."""
    moons_counted: int = Field(default=0)
    """How many of this seat's moons in the current game are in the person's records."""


class Record(SQLModel, table=True):
    """A player's results at one difficulty: games when they end, moons when they are shot."""

    player_id: str = Field(foreign_key="player.id", primary_key=True, max_length=32)
    difficulty: str = Field(primary_key=True, max_length=16)
    played: int = Field(default=0)
    won: int = Field(default=0)
    best_score: int | None = Field(default=None)
    """The lowest final total in any finished game."""
    moons: int = Field(default=0)


class HandReview(SQLModel, table=True):
    """A finished hand of a game reviewed: every decision of the game's person rated by
    Hard's search (``engine.bots.coach.Rating.to_dict`` as JSON), computed once in the bot
    pool.  ``key`` is the digest of the hand's moves: a practice game's undo that changes
    the hand makes the review stale, and it is computed again."""

    __tablename__ = "hand_review"

    game_id: str = Field(sa_column=Column(String(32), ForeignKey("game.id", ondelete="CASCADE"), primary_key=True))
    hand: int = Field(primary_key=True)
    """The hand's index in the game (0 for the first)."""
    key: str = Field(max_length=64)
    data: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=Column(DateTime, nullable=False))


class RateBucket(SQLModel, table=True):
    """A token bucket per client and kind of creation, shared by every server process
    through the database (:mod:`app.limits`)."""

    __tablename__ = "rate_bucket"

    key: str = Field(primary_key=True, max_length=96)
    tokens: float = Field(default=0.0)
    updated: float = Field(default=0.0, index=True)
    """Seconds since the epoch when ``tokens`` was last computed."""


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a table model, for statements built once without the ORM (SQLModel
    declares no ``__table__``, so the type checker refuses reading it)."""
    return SQLModel.metadata.tables[str(model.__tablename__)]


GAME_TABLE = table_of(GameRecord)
PLAYER_TABLE = table_of(Player)
FRIEND_TABLE = table_of(FriendTable)
SEAT_TABLE = table_of(TableSeat)
BUCKET_TABLE = table_of(RateBucket)
