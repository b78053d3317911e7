"""Database tables: anonymous players, their games, and their records."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

DIFFICULTIES = ("easy", "medium", "hard")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Player(SQLModel, table=True):
    """An anonymous person, identified only by the signed cookie holding ``id``."""

    id: str = Field(primary_key=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    fast_play: bool = Field(default=False)
    difficulty: str = Field(default="medium", max_length=16)
    """The difficulty chosen last, offered again for the next game."""


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
    status: str = Field(default="active", max_length=16)
    """``active``, ``finished`` (records counted) or ``abandoned`` (a new game was started)."""
    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow)


class Record(SQLModel, table=True):
    """A player's results at one difficulty; updated once, when a game ends."""

    player_id: str = Field(foreign_key="player.id", primary_key=True, max_length=32)
    difficulty: str = Field(primary_key=True, max_length=16)
    played: int = Field(default=0)
    won: int = Field(default=0)
    best_score: int | None = Field(default=None)
    """The lowest final total in any finished game."""
    moons: int = Field(default=0)
