"""Load test of tables for friends (``python -m tools.loadtest --tables N``): N tables of four
people, each person with a page's event stream open, play one whole hand each (or ``--hands`` N).

Every person is an asyncio task with its own cookies: it reads its stream (server-sent
events) and, when its screen says it may act, thinks for a while and posts the move as the
page's form does.  With ``--processes 2`` the people of a table are spread over two server
processes (on ``--database-url``, which must then be PostgreSQL: the events fan out
through the database).

Measured: from a move being sent to each other person's stream showing it (p50/p95/p99,
and the slowest), the open streams and the server's memory (RSS) per table, the server's
CPU per move, and the moves lost or doubled: every acknowledged move is looked up in the
stored game, which must hold exactly the moves acknowledged, each once, at its place.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from engine import loads

from .friends import HX, Table, aparse_events, csrf_of

CONNECT_S = 120
ARRIVING = 8
"""Tables being opened and joined at the same moment (the others wait their turn)."""
DEAL_TRIES = 30
"""A host whose "Deal" is answered "busy" clicks it again (waiting as the answer says) up to
this many times: a person does not give up on their table after a few busy answers."""


@dataclass
class Tally:
    sent: dict[tuple[str, int], float] = field(default_factory=dict)
    """(table, version the move makes) -> when it was sent."""
    delays: list[float] = field(default_factory=list)
    delivered_at: list[float] = field(default_factory=list)
    """When each of ``delays`` was measured (its event's arrival)."""
    dealt_at: list[float] = field(default_factory=list)
    """When each table's first hand was dealt."""
    ended_at: list[float] = field(default_factory=list)
    """When each table's game ended on every screen."""
    acked: list[tuple[str, int, str]] = field(default_factory=list)
    """(table path, version the move was made at, the form's move) per acknowledged move."""
    errors: list[str] = field(default_factory=list)
    events: int = 0
    finished: int = 0
    busy_retried: int = 0
    """Answers "the server is busy" (503 with Retry-After), waited out and sent again as the page does."""
    stalls: list[str] = field(default_factory=list)
    """Tables where nothing moved for a minute: what each person's screen showed then."""
    reconnects: int = 0
    """Streams that ended or failed before the game's end, opened again with the last event's id."""
    event_bytes: list[int] = field(default_factory=list)
    """The size of each table event's data (its HTML), before compression."""
    answer_bytes: list[int] = field(default_factory=list)
    """The size of each acknowledged move's answer (its HTML), before compression."""
    refetched: int = 0
    """Moves' events or answers drawn on another table than the screen showed (a move's
    answer and the table's event crossed): the table was asked for whole, as the page does."""
    raced: int = 0
    """Moves refused because somebody else's was stored first (409): the person acts again
    from the table the answer shows, as on the page."""


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_fds(pid: int) -> int:
    """The process's open files, its sockets included (one per open stream, and the database's)."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_s(pid: int) -> float:
    """User + system CPU time of a process so far, all its threads included (Linux)."""
    with open(f"/proc/{pid}/stat") as fh:
        parts = fh.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """The CPU time the machine has been busy since it booted (``/proc/stat``: every
    process's user, nice and system time, interrupts, and steal, the time the host gave to
    other machines; not idle or I/O wait), in seconds."""
    with open("/proc/stat") as fh:
        fields = fh.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpu_model() -> str:
    """The machine's processor, as ``/proc/cpuinfo`` names it (figures are only comparable
    on one machine)."""
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def others_share(busy_s: float, server_s: float, own_s: float, wall_s: float) -> float:
    """The share of a core taken over a run by anything but the servers and the load
    generator: other processes, or the host's steal (``busy_s``: the machine's busy time
    over the run, :func:`machine_busy_s`).  The goals' figures are for a quiet machine, where
    this is near 0 (with PostgreSQL, its server counts here)."""
    return round(max(0.0, busy_s - server_s - own_s) / wall_s, 2) if wall_s else 0.0


class Seat:
    """One person at one table: their client, what their screen shows, their stream."""

    def __init__(self, base: str, path: str, seat: int, name: str, tally: Tally, rng: random.Random,
                 think: tuple[float, float]) -> None:
        self.base = base
        self.path = path
        self.seat = seat
        self.name = name
        self.tally = tally
        self.rng = rng
        self.think = think
        self.client = httpx.AsyncClient(base_url=base, timeout=60, headers={"Origin": base})
        self.shown: Table | None = None
        self.changed = asyncio.Event()
        self.opened = asyncio.Event()
        self.over = asyncio.Event()
        self._last_seen = -1
        self.posting = False
        """A move is on its way (the table's end waits for its answer: it is counted)."""

    async def patiently(self, send: Callable[[], Awaitable[httpx.Response]], tries: int) -> httpx.Response:
        """``send()`` up to ``tries`` times while the answer is "the server is busy" (503 with
        Retry-After), waiting as long as it says, as the page does; the last answer."""
        for attempt in range(tries):
            r = await send()
            if r.status_code != 503 or "Retry-After" not in r.headers or attempt == tries - 1:
                return r
            self.tally.busy_retried += 1
            await asyncio.sleep(float(r.headers["Retry-After"]))
        raise ValueError("tries must be at least 1")

    async def visit(self, path: str) -> str:
        r = await self.patiently(lambda: self.client.get(path), 5)
        r.raise_for_status()
        self.client.headers["X-CSRF-Token"] = csrf_of(r.text)
        return r.text

    def see(self, table: Table | None) -> None:
        if table is None or (self.shown is not None and self.shown.game == table.game
                             and table.version < self.shown.version):
            return
        self.shown = table
        self.changed.set()
        if table.phase == "game_over":
            self.over.set()

    async def listen(self) -> None:
        """The page's stream: each table event is this person's screen changing.  A stream
        that ends or fails is opened again a second later with the last event's id, as the
        page's EventSource does (counted in ``reconnects``)."""
        last: str | None = None
        while True:
            headers = {"Last-Event-ID": last} if last else {}
            try:
                async with self.client.stream("GET", f"{self.path}/events", timeout=None, headers=headers) as r:
                    r.raise_for_status()
                    self.opened.set()
                    async for event in aparse_events(r.aiter_bytes()):
                        if event.id is not None:
                            last = event.id
                        if event.name != "table" or event.id is None:
                            continue
                        done, whole = self.saw(event.data)
                        if done:
                            return
                        if whole:
                            # a move drawn on another table than the one shown: as the page,
                            # the table is asked for whole
                            self.tally.refetched += 1
                            await self.look_again()
            except httpx.HTTPError as exc:
                self.tally.errors.append(f"{self.name} stream: {type(exc).__name__} {exc}")
            self.tally.reconnects += 1
            await asyncio.sleep(1.0)

    def saw(self, html: str) -> tuple[bool, bool]:
        """A table event on this person's screen: whether the game is over, and whether the
        table must be asked for whole (a move drawn on another table than the one shown)."""
        now = time.perf_counter()
        self.tally.events += 1
        self.tally.event_bytes.append(len(html.encode()))
        head = Table.head(html)
        if head is None:
            return False, False
        version, phase, game = head
        mover_sent = self.tally.sent.get((self.path, version))
        if mover_sent is not None and self._last_seen < version:
            # the first event showing the move (or a later one that includes it)
            self.tally.delays.append((now - mover_sent) * 1000)
            self.tally.delivered_at.append(now)
        self._last_seen = max(self._last_seen, version)
        shown = self.shown
        if shown is not None and shown.game == game and version <= shown.version:
            return phase == "game_over", False  # (the page shows it already: its own move's answer)
        table = Table.read(html, shown)
        if table is None:
            return False, Table.is_patch(html)
        self.see(table)
        return table.phase == "game_over", False

    async def look_again(self) -> None:
        """The table as it is now (after a request that got no answer), as a reload shows it."""
        for _ in range(5):
            try:
                r = await self.client.get(f"{self.path}/table", headers=HX)
            except httpx.HTTPError:
                await asyncio.sleep(1.0)
                continue
            table = Table.read(r.text)
            if table is not None:
                self.see(table)
                self.changed.set()
                return
            await asyncio.sleep(1.0)

    async def answered(self, html: str) -> None:
        """The move's answer on this person's screen, as the page shows it: the parts it
        changes put in the table it was made on; nothing when the screen shows it already
        (the table's event came first); the table asked for whole when it changed meanwhile."""
        head = Table.head(html)
        shown = self.shown
        if head is not None and shown is not None and shown.game == head[2] and head[0] <= shown.version:
            return
        table = Table.read(html, shown)
        if table is None and Table.is_patch(html):
            self.tally.refetched += 1
            await self.look_again()
            return
        self.see(table)

    async def post(self, path: str, body: dict[str, Any], tries: int = 6) -> httpx.Response:
        """The page's request, sent again after "the server is busy" (``tries`` in all), as the page does."""
        return await self.patiently(lambda: self.client.post(path, data=body, headers=HX), tries)

    async def play(self) -> None:
        while not self.over.is_set():
            await self.changed.wait()
            self.changed.clear()
            table = self.shown
            if table is None or table.phase == "game_over":
                continue
            move = act(table, self.rng)
            if move is None and table.phase == "round_over" and self.seat == 0:
                # a tie for the lowest total after the last hand: one more is played (the
                # host deals it, as anyone at the table may)
                move = ("next", {"version": table.version})
            if move is None:
                continue
            await asyncio.sleep(self.rng.uniform(*self.think))
            if self.shown is not table and not (self.shown and self.shown.phase == "pass"):
                self.changed.set()
                continue
            kind, body = move
            made = table.version + 1
            # (the others' moves are timed from here: the move leaves this person's hands)
            self.tally.sent.setdefault((self.path, made), time.perf_counter())
            self.posting = True
            try:
                r = await self.post(f"{self.path}/{kind}", body)
            except httpx.HTTPError as exc:
                # no answer: the page shows the trouble and the person looks at the table again
                self.tally.errors.append(f"{self.name} {kind}: {type(exc).__name__} {exc}")
                await self.look_again()
                continue
            finally:
                self.posting = False
            if r.status_code == 200:
                self.tally.acked.append((self.path, table.version, json.dumps([kind, body], sort_keys=True)))
                self.tally.answer_bytes.append(len(r.content))
                await self.answered(r.text)
            elif r.status_code == 409 and kind == "next":
                self.see(Table.read(r.text))  # (somebody else dealt the next hand first)
            elif r.status_code == 409:
                # (two people passed at the same moment and the other's was stored first): the
                # page shows the table now and the person passes again
                self.tally.raced += 1
                self.tally.sent.pop((self.path, made), None)
                self.see(Table.read(r.text))
            else:
                self.tally.errors.append(f"{self.name} {kind}: {r.status_code} {r.text[:120]}")
                # (no table in the answer, e.g. still busy after five tries: look again and act)
                await self.look_again()


def act(table: Table, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    if table.mode == "pass" and len(table.to_pass) >= 3:
        return "pass", {"version": table.version, "cards": sorted(rng.sample(list(table.to_pass), 3))}
    if table.mode == "play" and table.legal:
        return "play", {"version": table.version, "card": rng.choice(list(table.legal))}
    if table.phase == "moon_choice" and table.moon:
        return "moon", {"version": table.version, "choice": "add"}
    return None


async def one_table(bases: list[str], n: int, tally: Tally, think: tuple[float, float], start: asyncio.Event,
                    ready: list[int], arriving: asyncio.Semaphore, stagger: float = 0.0, hands: int = 1) -> list[Seat]:
    async with arriving:  # (the tables fill a few at a time, as people come: not all in one second)
        seats = await seat_table(bases, n, tally, think, hands)
    return await play_table(seats, n, tally, start, ready, random.Random(n).uniform(0, stagger))


async def seat_table(bases: list[str], n: int, tally: Tally, think: tuple[float, float], hands: int = 1) -> list[Seat]:
    host = Seat(bases[0], "", 0, f"Host{n}", tally, random.Random(n * 10), think)
    await host.visit("/")
    r = await host.post("/tables/new", {"name": host.name, "difficulty": "medium", "passing": "true",
                                        "max_rounds": str(hands), "turn_seconds": "600"})
    r.raise_for_status()
    path = r.headers["HX-Redirect"]
    host.path = path
    seats = [host]
    for seat in (1, 2, 3):
        p = Seat(bases[seat % len(bases)], path, seat, f"P{n}x{seat}", tally, random.Random(n * 10 + seat), think)
        await p.visit(path)
        j = await p.post(f"{path}/join", {"seat": seat, "name": p.name})
        j.raise_for_status()
        seats.append(p)
    await host.visit(path)
    return seats


async def play_table(seats: list[Seat], n: int, tally: Tally, start: asyncio.Event, ready: list[int],
                     deal_after: float = 0.0) -> list[Seat]:
    """The table's hand, dealt ``deal_after`` seconds after every table is seated."""
    host, path = seats[0], seats[0].path
    listeners = [asyncio.create_task(s.listen()) for s in seats]
    await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in seats)), CONNECT_S)
    ready.append(n)
    await start.wait()
    await asyncio.sleep(deal_after)
    d = await host.post(f"{path}/deal", {}, tries=DEAL_TRIES)
    d.raise_for_status()
    tally.dealt_at.append(time.perf_counter())
    for s in seats:
        s.see(Table.read(d.text) if s is host else None)
    players = [asyncio.create_task(s.play()) for s in seats]
    try:
        ended = asyncio.create_task(asyncio.wait_for(asyncio.gather(*(s.over.wait() for s in seats)), 1800))
        progress, still = -1, 0
        while not ended.done():
            await asyncio.wait({ended}, timeout=10)
            shown = max((s.shown.version for s in seats if s.shown), default=-1)
            still = still + 1 if shown == progress else 0
            progress = shown
            if still == 6:  # a minute without a move: say what each screen shows (once)
                tally.stalls.append(f"{path}: " + "; ".join(
                    f"seat {s.seat}: {s.shown.version if s.shown else None} {s.shown.phase if s.shown else ''} "
                    f"{s.shown.mode if s.shown else ''} legal {len(s.shown.legal) if s.shown else 0} "
                    f"stream {s._last_seen} posting {s.posting} changed {s.changed.is_set()} "
                    f"player {'done' if p.done() else 'on'}" for s, p in zip(seats, players, strict=True)))
        await ended
        tally.finished += 1
        tally.ended_at.append(time.perf_counter())
        # a move whose answer has not come yet is counted once it comes (the game may be over
        # on the others' screens before the mover's own answer arrives)
        for _ in range(600):
            if not any(s.posting for s in seats):
                break
            await asyncio.sleep(0.05)
    finally:
        for t in players + listeners:
            t.cancel()
        for outcome in await asyncio.gather(*players, *listeners, return_exceptions=True):
            if isinstance(outcome, Exception):
                tally.errors.append(f"{path}: a person stopped: {type(outcome).__name__} {outcome}")
        for s in seats:
            await s.client.aclose()
    return seats


async def run(bases: list[str], pids: list[int], tables: int, think: tuple[float, float],
              stagger: float = 0.0, hands: int = 1) -> dict[str, Any]:
    """``stagger``: the tables deal at moments spread evenly at random over that many seconds
    after all are seated (0: every host at once, the hardest start); ``hands``: the hands
    each table plays (a game of that many hands; a tie for the lowest total adds one)."""
    tally = Tally()
    start = asyncio.Event()
    ready: list[int] = []
    rss_before = [rss_kib(p) for p in pids]
    arriving = asyncio.Semaphore(ARRIVING)
    tasks = [asyncio.create_task(one_table(bases, n, tally, think, start, ready, arriving, stagger, hands))
             for n in range(tables)]
    t0 = time.monotonic()
    while len(ready) < tables and time.monotonic() - t0 < CONNECT_S * 2:
        await asyncio.sleep(0.2)
        if any(t.done() for t in tasks):
            break
    streams, feeds, reads0 = await health_streams(bases)
    rss_open = [rss_kib(p) for p in pids]
    fds = [open_fds(p) for p in pids]
    cpu0 = [cpu_s(p) for p in pids]
    own0 = time.process_time()
    busy0 = machine_busy_s()
    wall0 = time.monotonic()
    start.set()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    wall = time.monotonic() - wall0
    cpu = sum(cpu_s(p) - c for p, c in zip(pids, cpu0, strict=True))
    own = time.process_time() - own0
    busy = machine_busy_s() - busy0
    reads = (await health_streams(bases))[2] - reads0
    rss_end = [rss_kib(p) for p in pids]
    for r in results:
        if isinstance(r, BaseException):
            tally.errors.append(f"table: {type(r).__name__} {r}")
    delays = sorted(tally.delays)
    # while every table plays: from the last table's deal to the first table's end
    full = (max(tally.dealt_at), min(tally.ended_at)) if tally.dealt_at and tally.ended_at else (0.0, 0.0)
    steady = sorted(d for d, at in zip(tally.delays, tally.delivered_at, strict=True) if full[0] <= at <= full[1])
    return {"tables": tables, "people": tables * 4, "stagger_s": stagger, "hands": hands,
            "ready": len(ready), "finished": tally.finished,
            "streams_open": streams, "tables_fed": feeds, "open_fds": fds,
            "moves": len(tally.acked), "events": tally.events, "seconds": round(wall, 1),
            "deliveries": len(delays),
            "p50_ms": round(percentile(delays, 50), 1), "p95_ms": round(percentile(delays, 95), 1),
            "p99_ms": round(percentile(delays, 99), 1), "max_ms": round(delays[-1], 1) if delays else 0.0,
            "mean_ms": round(statistics.fmean(delays), 1) if delays else 0.0,
            "all_playing_s": round(max(0.0, full[1] - full[0]), 1), "all_playing_deliveries": len(steady),
            "all_playing_p50_ms": round(percentile(steady, 50), 1),
            "all_playing_p95_ms": round(percentile(steady, 95), 1),
            "all_playing_p99_ms": round(percentile(steady, 99), 1),
            "rss_before_mib": [round(x / 1024, 1) for x in rss_before],
            "rss_open_mib": [round(x / 1024, 1) for x in rss_open],
            "rss_end_mib": [round(x / 1024, 1) for x in rss_end],
            "rss_per_table_kib": round((sum(rss_open) - sum(rss_before)) / max(tables, 1), 1),
            "server_cpu_s": round(cpu, 1), "cpu_ms_per_move": round(cpu * 1000 / max(len(tally.acked), 1), 2),
            "server_cpu_share": round(cpu / wall, 2) if wall else 0.0,
            "table_reads": reads, "load_generator_cpu_s": round(own, 1),
            "load_generator_cpu_share": round(own / wall, 2) if wall else 0.0,
            "others_cpu_share": others_share(busy, cpu, own, wall), "cpu_model": cpu_model(),
            "event_bytes_p50": round(percentile(sorted(map(float, tally.event_bytes)), 50)),
            "event_bytes_p95": round(percentile(sorted(map(float, tally.event_bytes)), 95)),
            "event_bytes_mean": round(statistics.fmean(tally.event_bytes)) if tally.event_bytes else 0,
            "answer_bytes_p50": round(percentile(sorted(map(float, tally.answer_bytes)), 50)),
            "answer_bytes_mean": round(statistics.fmean(tally.answer_bytes)) if tally.answer_bytes else 0,
            "refetched": tally.refetched,
            "busy_retried": tally.busy_retried, "raced": tally.raced, "reconnects": tally.reconnects,
            "stalls": len(tally.stalls), "stall_samples": tally.stalls[:5],
            "errors": len(tally.errors), "error_samples": tally.errors[:5], "acked": tally.acked}


async def health_streams(bases: list[str]) -> tuple[int, int, int]:
    """The streams the servers hold open, the tables they show, and the tables' reads so
    far (one per change per table per process), from their /healthz."""
    streams = tables = reads = 0
    async with httpx.AsyncClient(timeout=30) as client:
        for base in bases:
            t = (await client.get(f"{base}/healthz")).json().get("tables", {})
            streams += t.get("streams", 0)
            tables += t.get("tables", 0)
            reads += t.get("reads", 0)
    return streams, tables, reads


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def lost_and_doubled(database_url: str, acked: list[tuple[str, int, str]]) -> tuple[int, int, list[str]]:
    """Acknowledged moves missing from (or out of place in) the stored games, and stored
    moves nobody's acknowledgement accounts for (4 people, no computer player: every stored
    move is somebody's acknowledged move)."""
    by_table: dict[str, list[tuple[int, str]]] = {}
    for path, version, move in acked:
        by_table.setdefault(path, []).append((version, move))
    engine = create_engine(database_url)
    lost, doubled, samples = 0, 0, []
    try:
        with engine.connect() as conn:
            for path, moves in by_table.items():
                token = path.rsplit("/", 1)[1]
                record = conn.execute(text("SELECT g.record FROM game g JOIN friend_table t ON g.id = t.game_id "
                                           "WHERE t.token = :t"), {"t": token}).scalar_one()
                stored = loads(record).moves
                kinds = [type(m).__name__ for m in stored]
                if len(stored) != len(moves):
                    doubled += max(0, len(stored) - len(moves))
                    lost += max(0, len(moves) - len(stored))
                    # (passes are acknowledged at the version they were chosen at: count them apart)
                    plays_at = {v for v, m in moves if '"pass"' not in m}
                    unacked = [f"{v}: {m.code()}" for v, m in enumerate(stored)
                               if type(m).__name__ != "PassMove" and v not in plays_at]
                    samples.append(f"{path}: {len(stored)} stored, {len(moves)} acknowledged; not acknowledged: "
                                   f"{unacked[:4]}")
                plays = {v: m for v, m in moves if '"play"' in m}
                for v, m in plays.items():
                    card = json.loads(m)[1]["card"]
                    if v >= len(stored) or kinds[v] != "PlayMove" or stored[v].card.code() != card:  # type: ignore[union-attr]
                        lost += 1
                        samples.append(f"{path}: play {card} at {v} not stored there")
    finally:
        engine.dispose()
    return lost, doubled, samples[:5]
