"""A person at a table for friends, as their browser speaks to the server: the page's forms
and the table's event stream (server-sent events).  Used by the tests and the load test.

The page's HTML is read the way a person reads the screen: the table's version and phase,
the cards the hand offers (to pass, or the legal ones to play) and the forms' token.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

HX = {"HX-Request": "true"}
_TABLE = re.compile(r'<section id="table"[^>]*data-version="(\d+)"[^>]*data-phase="([a-z_]+)"[^>]*data-game="(\w+)"')
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
_MODE = re.compile(r'<form class="hand-form" data-mode="(\w+)"')
_TO_PASS = re.compile(r'data-select="([^"]+)"')
_TO_PLAY = re.compile(r'<button type="submit" name="card" value="([^"]+)"([^>]*)>')
_HAND = re.compile(r'class="card in-hand[^"]*" data-card="([^"]+)"|data-card="([^"]+)" class="card in-hand')
_PATCH = re.compile(r'<section id="table"[^>]*data-patch="(\d+)"')
_MOON = re.compile(r'name="choice" value="add"')
_NEXT = re.compile(r'/next"')


@dataclass(frozen=True)
class Table:
    """What a person's screen shows of the table (from the page or an event's HTML)."""

    version: int
    phase: str
    game: str
    mode: str
    """The hand's mode: "pass", "play" or "wait"."""
    to_pass: tuple[str, ...]
    legal: tuple[str, ...]
    hand: tuple[str, ...]
    moon: bool
    next_hand: bool

    @classmethod
    def read(cls, html: str, before: Table | None = None) -> Table | None:
        """The table an answer or a table event shows.  An event that sends a move as the
        parts it changes (``data-patch``: the version of the table it changes) is read on
        top of ``before``, the table the screen shows; None when that is not the table it
        changes (the page then asks for the table whole), or when there is no table."""
        found = _TABLE.search(html)
        if found is None:
            return None
        version, phase, game = found.groups()
        # the table as it is now (the moments of the playback follow it, in templates)
        html = html.split('<template class="frame"', 1)[0]
        patch = _PATCH.search(html)
        if patch is not None:
            if before is None or before.game != game or before.version != int(patch.group(1)):
                return None
            if '<form class="hand-form"' not in html:  # the hand is as it was, with the new version
                return cls(int(version), phase, game, before.mode, before.to_pass, before.legal, before.hand,
                           False, False)
        mode = _MODE.search(html)
        hand = tuple(a or b for a, b in _HAND.findall(html))
        return cls(int(version), phase, game, mode.group(1) if mode else "wait",
                   tuple(sorted(set(_TO_PASS.findall(html)))),
                   tuple(sorted({c for c, rest in _TO_PLAY.findall(html) if "disabled" not in rest})),
                   hand, bool(_MOON.search(html)), bool(_NEXT.search(html)) and phase == "round_over")

    @staticmethod
    def head(html: str) -> tuple[int, str, str] | None:
        """The version, phase and game a table (or a table event) shows."""
        found = _TABLE.search(html)
        return None if found is None else (int(found.group(1)), found.group(2), found.group(3))

    @staticmethod
    def is_patch(html: str) -> bool:
        return _PATCH.search(html.split('<template class="frame"', 1)[0]) is not None


def action(table: Table, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """The move this person makes now, as the page's form posts it (None: not theirs to make)."""
    base: dict[str, Any] = {"version": table.version}
    if table.mode == "pass" and len(table.to_pass) >= 3:
        return "pass", {**base, "cards": rng.sample(list(table.to_pass), 3)}
    if table.mode == "play" and table.legal:
        return "play", {**base, "card": rng.choice(list(table.legal))}
    if table.phase == "moon_choice" and table.moon:
        return "moon", {**base, "choice": "add"}
    return None


@dataclass
class Event:
    name: str
    id: str | None
    data: str
    raw: bytes


class _Events:
    """Server-sent events cut from a byte stream as its chunks come."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, chunk: bytes) -> list[Event]:
        self.buffer += chunk
        blocks = self.buffer.split(b"\n\n")
        self.buffer = blocks.pop()  # (what follows the last blank line: an event still coming)
        return [e for e in map(_event, blocks) if e is not None]


def parse_events(chunks: Iterator[bytes]) -> Iterator[Event]:
    """Server-sent events from a byte stream, each with the exact bytes it came in."""
    events = _Events()
    for chunk in chunks:
        yield from events.feed(chunk)


async def aparse_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[Event]:
    """:func:`parse_events` for an asynchronous byte stream."""
    events = _Events()
    async for chunk in chunks:
        for event in events.feed(chunk):
            yield event


def _event(block: bytes) -> Event | None:
    name, eid, data = "message", None, []
    for line in block.decode().split("\n"):
        if line.startswith(":") or not line:
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            name = value
        elif field == "id":
            eid = value
        elif field == "data":
            data.append(value)
    if not data and name == "message":
        return None
    return Event(name, eid, "\n".join(data), block)


def csrf_of(html: str) -> str:
    found = _TOKEN.search(html) or re.search(r'"X-CSRF-Token": "([^"]+)"', html)
    if found is None:
        raise ValueError("no anti-forgery token on the page")
    return found.group(1)


class Person:
    """One browser: its cookie, its anti-forgery token, its table."""

    def __init__(self, base: str, name: str, timeout: float = 30) -> None:
        self.base = base
        self.name = name
        self.client = httpx.Client(base_url=base, timeout=timeout, headers={"Origin": base})
        self.token = ""
        self.path = ""

    def close(self) -> None:
        self.client.close()

    def visit(self, path: str = "/") -> str:
        r = self.client.get(path)
        r.raise_for_status()
        self.client.headers["X-CSRF-Token"] = csrf_of(r.text)
        return r.text

    def post(self, path: str, data: dict[str, Any], htmx: bool = True) -> httpx.Response:
        return self.client.post(path, data=data, headers=HX if htmx else None)

    def open_table(self, **options: Any) -> str:
        """Open a table (the options dialog's "Play with friends"); returns its path."""
        if "X-CSRF-Token" not in self.client.headers:
            self.visit("/")
        r = self.post("/tables/new", {"name": self.name, **options})
        assert r.status_code == 204, r.text
        self.path = r.headers["HX-Redirect"]
        self.visit(self.path)
        return self.path

    def join(self, path: str, seat: int) -> httpx.Response:
        self.path = path
        self.visit(path)
        r = self.post(f"{path}/join", {"seat": seat, "name": self.name})
        self.visit(path)  # the token is the same; the stored player now has a seat
        return r

    def table(self) -> Table:
        r = self.client.get(f"{self.path}/table", headers=HX)
        r.raise_for_status()
        found = Table.read(r.text)
        assert found is not None
        return found

    def act(self, rng: random.Random, table: Table | None = None) -> httpx.Response | None:
        table = table or self.table()
        move = action(table, rng)
        if move is None:
            return None
        kind, body = move
        return self.post(f"{self.path}/{kind}", body)

    def events(self, last: str | None = None, timeout: float = 30, base: str | None = None) -> Iterator[Event]:
        """The table's event stream, on a connection of its own (it may be read in another
        thread while this person acts); ``base``: through another server process."""
        headers = {"Last-Event-ID": last} if last else {}
        with httpx.Client(base_url=base or self.base, cookies=self.client.cookies, timeout=timeout) as client, \
                client.stream("GET", f"{self.path}/events", headers=headers) as r:
            r.raise_for_status()
            yield from parse_events(r.iter_bytes())
