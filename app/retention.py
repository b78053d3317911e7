"""Bounded anonymous data (SPEC §8): delete what nobody will come back for.

    python -m app.retention [--days N] [--dry-run]

After the retention period (``RETENTION_DAYS``, default 180):

* a game left unfinished (abandoned, or active but untouched) is deleted;
* a table for friends closed (by its host, or because nobody was connected to it for a
  while: :func:`app.tables.close_idle`) is deleted with its seats;
* an anonymous player with no game touched within the period, created before it, is
  deleted with their games and records;
* rate-limit buckets idle for a day are dropped (they are full again by then).

The server runs this itself every ``RETENTION_INTERVAL_HOURS`` (default 6; 0 turns it
off), in small batches so no transaction holds the database for long; several server
processes may run it at once (each delete is idempotent).  This command does the same
once, for cron or a deploy script.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, delete, exists, select, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from . import limits
from .config import Settings
from .db import writing
from .models import FriendTable, GameRecord, Player, Record, TableSeat, utcnow

log = logging.getLogger(__name__)

BATCH = 500
BUCKET_IDLE_S = 24 * 3600


@dataclass
class Removed:
    """What one pass deleted (or, with ``dry_run``, would delete)."""

    games: int = 0
    """Games left unfinished past the retention period."""
    tables: int = 0
    """Closed tables for friends, with their seats."""
    players: int = 0
    """Anonymous players idle past the period, with their games…"""
    records: int = 0
    """… and their personal records."""
    buckets: int = 0
    """Rate-limit buckets idle for a day."""

    def __str__(self) -> str:
        return (f"{self.games} unfinished games, {self.players} idle players ({self.records} records), "
                f"{self.buckets} rate-limit buckets, {self.tables} closed tables")


def _ids(session: Session, stmt: Select[str]) -> list[str]:
    return list(session.connection().execute(stmt).scalars())


def clean(engine: Engine, days: float, now: datetime | None = None, dry_run: bool = False) -> Removed:
    """Delete what is older than ``days``; returns how much (or would, with ``dry_run``)."""
    cutoff = (now or utcnow()) - timedelta(days=days)
    removed = Removed()
    with Session(engine, info={"background": "retention"}) as session:
        stale_game = (col(GameRecord.status) != "finished", col(GameRecord.updated_at) < cutoff)
        while True:
            # look-up and delete in one short transaction, so what is deleted is what was found
            with writing(session):
                ids = _ids(session, select(col(GameRecord.id)).where(*stale_game).limit(BATCH))
                if ids and not dry_run:
                    session.exec(delete(GameRecord).where(col(GameRecord.id).in_(ids)))
                session.commit()
            removed.games += len(ids)
            if not ids or dry_run:
                break
        closed = (col(FriendTable.status) == "closed", col(FriendTable.updated_at) < cutoff)
        while True:
            with writing(session):
                ids = _ids(session, select(col(FriendTable.id)).where(*closed).limit(BATCH))
                if ids and not dry_run:
                    _delete_tables(session, ids)
                session.commit()
            removed.tables += len(ids)
            if not ids or dry_run:
                break
        recent = exists().where(col(GameRecord.player_id) == col(Player.id), col(GameRecord.updated_at) >= cutoff)
        idle = select(col(Player.id)).where(col(Player.created_at) < cutoff, ~recent)
        while True:
            with writing(session):
                ids = _ids(session, idle.limit(BATCH))
                if ids and not dry_run:
                    # records and games first: they name the player
                    r = session.exec(delete(Record).where(col(Record.player_id).in_(ids)))
                    removed.records += int(r.rowcount or 0)
                    session.exec(delete(GameRecord).where(col(GameRecord.player_id).in_(ids)))
                    # their seats at others' tables are free again; the tables they host go
                    session.exec(update(TableSeat).where(col(TableSeat.player_id).in_(ids))
                                 .values(player_id=None, name=None, connected_until=None))
                    hosted = _ids(session, select(col(FriendTable.id)).where(col(FriendTable.host_id).in_(ids)))
                    _delete_tables(session, hosted)
                    session.exec(delete(Player).where(col(Player.id).in_(ids)))
                session.commit()
            removed.players += len(ids)
            if not ids or dry_run:
                break
        if not dry_run:
            removed.buckets = limits.forget_idle(session, time.time() - BUCKET_IDLE_S)
    return removed


def _delete_tables(session: Session, ids: list[str]) -> None:
    if ids:
        session.exec(delete(TableSeat).where(col(TableSeat.table_id).in_(ids)))
        session.exec(delete(GameRecord).where(col(GameRecord.table_id).in_(ids)))
        session.exec(delete(FriendTable).where(col(FriendTable.id).in_(ids)))


async def every(engine: Engine, settings: Settings, first_delay: float = 60) -> None:
    """The server's schedule: clean once shortly after start, then every interval."""
    await asyncio.sleep(first_delay)  # let the server answer its first requests first
    while True:
        try:
            removed = await asyncio.to_thread(clean, engine, settings.retention_days)
            log.info("retention (%s days): removed %s", settings.retention_days, removed)
        except Exception:  # a failed run is retried at the next interval; the server goes on
            log.exception("retention clean-up failed")
        await asyncio.sleep(settings.retention_interval_hours * 3600)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Delete anonymous players and unfinished games older than "
                                             "the retention period (RETENTION_DAYS, default 180).")
    ap.add_argument("--days", type=float, help="retention period in days (default: RETENTION_DAYS or 180)")
    ap.add_argument("--dry-run", action="store_true", help="count what would be deleted, delete nothing")
    args = ap.parse_args(argv)
    from .db import make_engine

    settings = Settings.from_env()
    engine = make_engine(settings.database_url)
    try:
        removed = clean(engine, args.days if args.days is not None else settings.retention_days,
                        dry_run=args.dry_run)
    finally:
        engine.dispose()
    print(("would remove " if args.dry_run else "removed ") + str(removed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
