"""A table's news in one server process: read once per change, shared by all its streams.

Each page of a table for friends holds an event stream (:mod:`app.routers.tables`).  When
the table changes, every one of them must show the change drawn for its own person; but
what they start from is the same: the table, its seats, its game and the people watching,
as stored.  So a process keeps one :class:`TableFeed` per table it has streams of: the
feed alone watches the table's news (:data:`app.live.BROKER`), reads the table once after
each piece of news (news arriving during a read are one more read after it, never a read
skipped), and hands the :class:`Snapshot` to every stream of the table, each of which then
draws its own person's view of it.  A snapshot also keeps what was drawn from it that
several streams share (:meth:`Snapshot.shared`): a spectator's table is drawn once for
every spectator, a person's for each of their tabs.

A stream that starts asks for a read that begins after it joined (:meth:`TableFeed.fresh`),
so no change stored between its first look and its joining is missed.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi.concurrency import run_in_threadpool

from .live import BROKER


@dataclass
class Snapshot:
    """A table as one read found it (``state``: None when there is no such table).  Shared
    by threads: nothing in it is changed after the read, but :attr:`shared`'s drawings."""

    seq: int
    """The feed's read number (1, 2, …): a stream waits for the number it was promised."""
    state: Any
    game: Any
    players: dict[str, Any]
    _drawn: dict[Hashable, Any] = field(default_factory=dict)
    _locks: dict[Hashable, threading.Lock] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def shared(self, key: Hashable, draw: Callable[[], Any]) -> Any:
        """What ``draw`` gives, drawn once for every stream that asks with the same ``key``."""
        with self._lock:
            if key in self._drawn:
                return self._drawn[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                if key in self._drawn:
                    return self._drawn[key]
            value = draw()
            with self._lock:
                self._drawn[key] = value
            return value


Reader = Callable[[str, frozenset[str], int], Snapshot]
"""Reads table ``table_id`` for the players watching it (their ids), as read number ``seq``
(in a worker thread: it uses the database)."""


class Stream:
    """One stream's place at a feed: its event is set when a new snapshot is there."""

    def __init__(self, feed: TableFeed, player_id: str) -> None:
        self.feed = feed
        self.player_id = player_id
        self.changed = asyncio.Event()


class TableFeed:
    """The streams of one table in this process and the table's latest snapshot."""

    def __init__(self, table_id: str, reader: Reader, feeds: Feeds) -> None:
        self.table_id = table_id
        self.feeds = feeds
        self.reader = reader
        self.streams: set[Stream] = set()
        self.viewers: Counter[str] = Counter()
        self.snapshot: Snapshot | None = None
        self.started = 0
        # subscribed at once (on the loop): news from now on wake the feed's task
        self._watching = BROKER.watching(table_id)
        self._news = self._watching.__enter__()
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-feed-{table_id}")

    def fresh(self) -> int:
        """The number of a read that starts from now on (asked for if none is due yet)."""
        if self._news.empty():
            self._news.put_nowait(None)
        return self.started + 1

    async def _run(self) -> None:
        while True:
            await self._news.get()
            self.started += 1
            seq = self.started
            try:
                snapshot = await run_in_threadpool(self.reader, self.table_id, frozenset(self.viewers), seq)
            except Exception:  # the database went away for a moment: the streams keep what they showed
                await asyncio.sleep(0.5)
                if self._news.empty():
                    self._news.put_nowait(None)
                continue
            self.feeds.reads += 1
            self.snapshot = snapshot
            for stream in self.streams:
                stream.changed.set()

    def close(self) -> None:
        self._task.cancel()
        self._watching.__exit__(None, None, None)


class Feeds:
    """The process's feeds, one per table that has a stream here."""

    def __init__(self) -> None:
        self._feeds: dict[str, TableFeed] = {}
        self.reads = 0
        """The tables' reads so far (one per change per table, whatever its streams)."""

    @asynccontextmanager
    async def joined(self, table_id: str, player_id: str, reader: Reader) -> AsyncIterator[Stream]:
        feed = self._feeds.get(table_id)
        if feed is None:
            feed = self._feeds[table_id] = TableFeed(table_id, reader, self)
        stream = Stream(feed, player_id)
        feed.streams.add(stream)
        feed.viewers[player_id] += 1
        try:
            yield stream
        finally:
            feed.streams.discard(stream)
            feed.viewers[player_id] -= 1
            if feed.viewers[player_id] <= 0:
                del feed.viewers[player_id]
            if not feed.streams and self._feeds.get(table_id) is feed:
                del self._feeds[table_id]
                feed.close()

    def stats(self) -> dict[str, int]:
        feeds = list(self._feeds.values())
        return {"streams": sum(len(f.streams) for f in feeds), "tables": len(feeds), "reads": self.reads}


FEEDS = Feeds()
"""The process's feeds (used from the server's event loop only)."""
