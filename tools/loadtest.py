"""Load test: simulated players play whole games through the JSON API of a real server.

    python -m tools.loadtest [--players 50] [--games 1] [--think 0.5 1.5] [--hard 8] [--json]

The server is the real one (migrations, then uvicorn in a subprocess on a free loopback
port) on a fresh SQLite file, or on ``--database-url`` (PostgreSQL).  Each simulated
player has its own cookie jar, starts a Medium game and plays it to the end through
``/api/v1`` — passing, playing a legal card, choosing at a moon, dealing the next hand —
waiting a random think time between actions, as a person at the table does.

Two scenarios run one after the other on the same server:

- ``medium``: ``--players`` players, each ``--games`` complete games.
- ``hard``: the same again while ``--hard`` other players keep Hard games thinking
  (they act again the moment they get an answer); the figures are the Medium players'.
- ``burst`` (``--burst N``, alone with ``--burst-only``): N requests sent at the same
  moment, of mixed kinds (the records of one player, pages, plays on N/4 different games,
  new games, current games), while a probe asks ``/healthz`` every 50 ms.  Reported: the
  answers by status, latency percentiles and the slowest, answers slower than 2 s, the
  probe's answers and its slowest, lost plays.  Goal (issue 9): no 500, every answer
  within 2 s, ``/healthz`` answering throughout.

Every simulated player comes from 127.0.0.1, so the server is started with the per-client
rate limits off (``GAMES_PER_MINUTE=0 PLAYERS_PER_HOUR=0``, and ``STREAMS_PER_CLIENT=0`` for
the tables' 400 streams from one address); they are tested in tests/app/test_anonymous_data.py
and tests/app/test_stream_limits.py.

Reported per scenario: actions per second, p50/p95/p99 latency (of every attempt), errors
(any answer but success, or no answer; a 503 with Retry-After is waited out and retried up
to 3 times, as the page does, and counted as "503 retried") and lost moves: at the end
every acknowledged action is looked up in the stored game, which must hold exactly that
move at exactly that position.
The goals (50 players, p95 <= 50 ms, no errors, no lost moves; p95 <= 100 ms while 8 Hard
games think) are printed next to the figures; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from engine import Card, CardSet, loads
from engine.moves import MoonMove, Move, NextRound, PassMove, PlayMove

from . import tables_load
from .server import ROOT, free_port, start_app, stop_app

API = "/api/v1"


# ---- the server ---------------------------------------------------------------------------

def migrate(database_url: str, data_dir: Path, root: Path = ROOT) -> None:
    env = {**os.environ, "DATA_DIR": str(data_dir), "DATABASE_URL": database_url}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=root, env=env, check=True,
                   capture_output=True)


class ServerURL(str):
    """A running server's base URL, with its process id (to read its CPU time)."""

    pid: int


@contextmanager
def app_server(database_url: str, data_dir: Path, *, secret_key: str = "loadtest-secret",
               migrate_first: bool = True, extra_args: tuple[str, ...] = (),
               extra_env: dict[str, str] | None = None, root: Path = ROOT) -> Iterator[ServerURL]:
    """Serve the app with uvicorn on a free loopback port; yields its base URL.

    Several servers given the same ``database_url`` and ``secret_key`` are interchangeable,
    like the processes behind a load balancer.  ``root``: the source tree to serve."""
    data_dir.mkdir(parents=True, exist_ok=True)
    if migrate_first:
        migrate(database_url, data_dir, root)
    port = free_port()
    env = {"DATA_DIR": str(data_dir), "DATABASE_URL": database_url, "SECRET_KEY": secret_key,
           # every simulated player shares one address: per-client limits would refuse them
           "GAMES_PER_MINUTE": "0", "PLAYERS_PER_HOUR": "0", "STREAMS_PER_CLIENT": "0",
           **(extra_env or {})}
    with open(data_dir / f"server-{port}.log", "w") as log:
        # access logs off: one line per request would cost the server more than the
        # request itself and measure the terminal rather than the app
        proc = start_app(port, env, log, "--no-access-log", "--log-level", "warning", *extra_args, root=root)
        try:
            url = ServerURL(f"http://127.0.0.1:{port}")
            url.pid = proc.pid
            yield url
        finally:
            stop_app(proc)


# ---- a player -----------------------------------------------------------------------------

def next_action(game: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any], Move]:
    """What the person does next in this game: the API path, the body and the move it means."""
    view, version, gid = game["view"], game["version"], game["game_id"]
    phase = view["phase"]
    if phase == "pass":
        cards = rng.sample(view["hand"], 3)
        return f"{API}/games/{gid}/pass", {"version": version, "cards": cards}, PassMove(0, CardSet(cards))
    if phase == "play":
        card = rng.choice(view["legal"])
        return f"{API}/games/{gid}/play", {"version": version, "card": card}, PlayMove(0, Card(card))
    if phase == "moon_choice":
        return f"{API}/games/{gid}/moon", {"version": version, "subtract": True}, MoonMove(0, True)
    if phase == "round_over":
        return f"{API}/games/{gid}/next", {"version": version}, NextRound()
    raise ValueError(f"nothing to do in phase {phase!r}")


@dataclass
class Tally:
    """Latencies (ms) of answered actions, failures, and every acknowledged move."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    acked: list[tuple[str, int, str]] = field(default_factory=list)
    """(game id, the version the move was made against, the move's code)."""
    games: int = 0
    busy: int = 0
    """503 answers (with Retry-After) that the player waited out and retried."""
    started: float = 0.0
    finished: float = 0.0
    server_cpu: float = 0.0
    """CPU seconds the server process spent meanwhile (its own threads, not child processes)."""
    client_cpu: float = 0.0
    """CPU seconds this load generator spent meanwhile: it shares the machine with the server."""
    machine_cpu: float = 0.0
    """CPU seconds the machine was busy meanwhile (the two above included; see
    :func:`tools.tables_load.machine_busy_s`)."""


CSRF_HEADER = "X-CSRF-Token"


def keep_token(client: httpx.AsyncClient | httpx.Client, r: httpx.Response) -> None:
    """The API hands a player their anti-forgery token in a response header; state-changing
    requests send it back, as the page does from its ``hx-headers``."""
    token = r.headers.get(CSRF_HEADER)
    if token:
        client.headers[CSRF_HEADER] = token


RETRIES = 3


async def act(client: httpx.AsyncClient, path: str, body: dict[str, Any], tally: Tally) -> dict[str, Any] | None:
    for attempt in range(RETRIES + 1):
        t0 = time.perf_counter()
        try:
            r = await client.post(path, json=body)
        except httpx.HTTPError as exc:
            tally.errors.append(f"{path}: {type(exc).__name__} {exc}")
            return None
        tally.latencies.append((time.perf_counter() - t0) * 1000)
        keep_token(client, r)
        if r.status_code == 503 and "retry-after" in r.headers and attempt < RETRIES:
            # as the page does: a full server says when to come back
            tally.busy += 1
            await asyncio.sleep(float(r.headers["retry-after"]))
            continue
        break
    if r.status_code not in (200, 201):
        tally.errors.append(f"{path}: {r.status_code} {r.text[:200]}")
        return None
    data: dict[str, Any] = r.json()
    return data


async def player(base: str, difficulty: str, games: int, think: tuple[float, float], tally: Tally,
                 seed: int, stop: asyncio.Event | None = None) -> None:
    """Play ``games`` whole games (or until ``stop`` is set), like a person would."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        # a first visit gives the player cookie and its token
        keep_token(client, await client.get(f"{API}/records"))
        played = 0
        while played < games and not (stop and stop.is_set()):
            game = await act(client, f"{API}/games", {"difficulty": difficulty,
                                                      "seed": rng.randrange(2**31)}, tally)
            if game is None:
                return
            while game["status"] == "active" and not (stop and stop.is_set()):
                if think[1] > 0:
                    await asyncio.sleep(rng.uniform(*think))
                path, body, move = next_action(game, rng)
                answer = await act(client, path, body, tally)
                if answer is None:
                    return  # counted as an error; a real person would reload, the test stops
                tally.acked.append((game["game_id"], game["version"], move.code()))
                game = answer
            if game["status"] == "finished":
                tally.games += 1
            played += 1


# ---- a player at the page (HTMX), for answer sizes ----------------------------------------

HX = {"HX-Request": "true"}
_VERSION = re.compile(r'<section id="table"[^>]*data-version="(\d+)"[^>]*data-phase="([a-z_]+)"[^>]*data-game="(\w+)"')
_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')
_TO_PASS = re.compile(r'data-select="([^"]+)"')
_TO_PLAY = re.compile(r'<button type="submit" name="card" value="([^"]+)"([^>]*)>')


def page_action(html: str, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """What the person does next on the table ``html`` (a page or an action's answer), as
    the page's form would post it; None when the game is over."""
    found = _VERSION.search(html)
    token = _TOKEN.search(html)
    if found is None or token is None:
        raise ValueError("no table in the answer")
    version, phase, game = found.groups()
    base: dict[str, Any] = {"version": version, "csrf_token": token.group(1)}
    if phase == "pass":
        return "/game/pass", {**base, "cards": rng.sample(sorted(set(_TO_PASS.findall(html))), 3)}
    if phase == "play":
        legal = sorted({card for card, rest in _TO_PLAY.findall(html) if "disabled" not in rest})
        return "/game/play", {**base, "card": rng.choice(legal)}
    if phase == "moon_choice":
        return "/game/moon", {**base, "choice": "subtract"}
    if phase == "round_over":
        return "/game/next", base
    if phase == "none":
        return "/game/new", {"csrf_token": base["csrf_token"], "difficulty": "medium", "players": 4,
                             "target_score": 100, "passing": "true", "replaces": game}
    return None


@dataclass
class PageTally:
    """Per kind of action: the answers' sizes before compression and on the wire."""

    sizes: dict[str, list[int]] = field(default_factory=dict)
    wire: dict[str, list[int]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    server_cpu: float = 0.0
    seconds: float = 0.0


async def page_player(base: str, games: int, think: tuple[float, float], tally: PageTally, seed: int) -> None:
    """Play ``games`` whole games through the page's HTMX requests, as the browser sends them."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        html = (await client.get("/")).text
        for _ in range(games):
            html = html.replace('data-phase="game_over"', 'data-phase="none"')  # deal again
            while (action := page_action(html, rng)) is not None:
                if think[1] > 0:
                    await asyncio.sleep(rng.uniform(*think))
                path, form = action
                t0 = time.perf_counter()
                r = await client.post(path, data=form, headers=HX)
                tally.latencies.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    tally.errors.append(f"{path}: {r.status_code} {r.text[:200]}")
                    return
                kind = path.rsplit("/", 1)[1]
                tally.sizes.setdefault(kind, []).append(len(r.content))
                tally.wire.setdefault(kind, []).append(r.num_bytes_downloaded)
                html = r.text


async def pages(base: ServerURL, players: int, games: int, think: tuple[float, float], seed: int) -> PageTally:
    tally = PageTally()
    cpu, started = tables_load.cpu_s(base.pid), time.perf_counter()
    await asyncio.gather(*(page_player(base, games, think, tally, seed=seed + i) for i in range(players)))
    tally.seconds = time.perf_counter() - started
    tally.server_cpu = tables_load.cpu_s(base.pid) - cpu
    return tally


def page_summary(tally: PageTally) -> dict[str, Any]:
    actions = sum(len(v) for v in tally.sizes.values())
    return {
        "actions": actions, "seconds": round(tally.seconds, 1), "errors": len(tally.errors),
        "error_samples": tally.errors[:3],
        "server_cpu_ms_per_action": round(tally.server_cpu * 1000 / max(1, actions), 2),
        "p50_ms": round(percentile(tally.latencies, 50), 1), "p95_ms": round(percentile(tally.latencies, 95), 1),
        "answers": {kind: {"n": len(v), "median_bytes": int(statistics.median(v)), "p95_bytes": int(percentile(
            [float(x) for x in v], 95)), "max_bytes": max(v), "median_wire_bytes": int(statistics.median(
                tally.wire[kind]))} for kind, v in sorted(tally.sizes.items())},
    }


def page_line(name: str, s: dict[str, Any]) -> str:
    kinds = "; ".join(f"{k} n={a['n']} median {a['median_bytes'] / 1000:.1f} KB, p95 {a['p95_bytes'] / 1000:.1f} KB, "
                      f"max {a['max_bytes'] / 1000:.1f} KB ({a['median_wire_bytes'] / 1000:.1f} KB gzip)"
                      for k, a in s["answers"].items())
    return (f"{name}: {s['actions']} actions, server CPU {s['server_cpu_ms_per_action']} ms per action, "
            f"p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, errors {s['errors']}\n    {kinds}")


def page_rounds(roots: dict[str, Path], rounds: int, players: int, games: int, think: tuple[float, float],
                server_env: dict[str, str]) -> dict[str, Any]:
    """The page scenario against each source tree in turn, ``rounds`` times (A B A B …, each
    on a fresh SQLite file, the same seeds for each tree), so both meet the same noise."""
    out: dict[str, Any] = {name: [] for name in roots}
    for r in range(rounds):
        for name, root in roots.items():
            with tempfile.TemporaryDirectory(prefix="hearts-pages-") as tmp:
                url = f"sqlite:///{Path(tmp) / 'hearts.db'}"
                load = os.getloadavg()[0]
                with app_server(url, Path(tmp), extra_env=server_env, root=root) as base:
                    tally = asyncio.run(pages(base, players, games, think, seed=1000 * r))
                out[name].append({**page_summary(tally), "load_average_before": round(load, 2)})
    return out


def lost_moves(database_url: str, acked: list[tuple[str, int, str]]) -> list[str]:
    """Acknowledged moves that are not in the stored game at the position they were made."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            ids = sorted({gid for gid, _, _ in acked})
            stored: dict[str, list[str]] = {}
            for gid in ids:
                row = conn.execute(text("SELECT record FROM game WHERE id = :id"), {"id": gid}).first()
                stored[gid] = [m.code() for m in loads(row[0]).moves] if row else []
    finally:
        engine.dispose()
    return [f"{gid} move {v}: {code}" for gid, v, code in acked
            if v >= len(stored[gid]) or stored[gid][v] != code]


# ---- scenarios ----------------------------------------------------------------------------

def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def summary(tally: Tally, database_url: str) -> dict[str, Any]:
    seconds = tally.finished - tally.started
    lost = lost_moves(database_url, tally.acked)
    lat = tally.latencies
    return {
        "actions": len(lat), "seconds": round(seconds, 1), "actions_per_s": round(len(lat) / seconds, 1),
        "p50_ms": round(percentile(lat, 50), 1), "p95_ms": round(percentile(lat, 95), 1),
        "p99_ms": round(percentile(lat, 99), 1), "max_ms": round(max(lat, default=0), 1),
        "server_cpu_ms_per_action": round(tally.server_cpu * 1000 / max(1, len(lat)), 2),
        "client_cpu_ms_per_action": round(tally.client_cpu * 1000 / max(1, len(lat)), 2),
        **({"others_cpu_share": tables_load.others_share(tally.machine_cpu, tally.server_cpu, tally.client_cpu,
                                                         seconds)} if tally.machine_cpu else {}),
        "errors": len(tally.errors), "busy_retried": tally.busy, "lost_moves": len(lost),
        "games_finished": tally.games,
        "error_samples": tally.errors[:3], "lost_samples": lost[:3],
    }


async def medium_only(base: ServerURL, players: int, games: int, think: tuple[float, float]) -> Tally:
    tally = Tally(started=time.perf_counter())
    cpu, own, busy = tables_load.cpu_s(base.pid), time.process_time(), tables_load.machine_busy_s()
    await asyncio.gather(*(player(base, "medium", games, think, tally, seed=i) for i in range(players)))
    tally.finished = time.perf_counter()
    tally.server_cpu = tables_load.cpu_s(base.pid) - cpu
    tally.client_cpu = time.process_time() - own
    tally.machine_cpu = tables_load.machine_busy_s() - busy
    return tally


async def with_hard(base: ServerURL, players: int, games: int, think: tuple[float, float],
                    hard: int) -> tuple[Tally, Tally]:
    others, thinkers = Tally(), Tally()
    stop = asyncio.Event()
    hard_tasks = [asyncio.create_task(player(base, "hard", 10**6, (0.0, 0.0), thinkers, seed=10_000 + i, stop=stop))
                  for i in range(hard)]
    await asyncio.sleep(1.0)  # let every Hard game get to its first decision
    others.started = thinkers.started = time.perf_counter()
    cpu = tables_load.cpu_s(base.pid)
    await asyncio.gather(*(player(base, "medium", games, think, others, seed=1000 + i) for i in range(players)))
    others.finished = thinkers.finished = time.perf_counter()
    others.server_cpu = tables_load.cpu_s(base.pid) - cpu
    stop.set()
    await asyncio.gather(*hard_tasks)
    return others, thinkers



# ---- the review of a hand, under the same load ------------------------------------------------

@dataclass
class ReviewTally:
    hands: list[float] = field(default_factory=list)
    """Seconds from asking for a hand's review to its answer (computed, not kept yet)."""
    kept: list[float] = field(default_factory=list)
    """Seconds for the same review asked again (read back from the database)."""
    decisions: list[float] = field(default_factory=list)
    """Seconds each rated decision took in the bot pool (the answer's ``seconds``)."""
    errors: list[str] = field(default_factory=list)


async def reviewer(base: str, tally: ReviewTally, seed: int, stop: asyncio.Event) -> None:
    """A person playing a practice Medium game who reviews every hand as it ends."""
    rng = random.Random(seed)
    own = Tally()
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        keep_token(client, await client.get(f"{API}/records"))
        while not stop.is_set():
            game = await act(client, f"{API}/games", {"difficulty": "medium", "practice": True}, own)
            if game is None:
                tally.errors.extend(own.errors)
                return
            while game["status"] == "active" and not stop.is_set():
                if game["view"]["phase"] == "round_over" or game["status"] != "active":
                    hand = len(game["view"]["round_points"])
                    for store in (tally.hands, tally.kept):
                        t0 = time.perf_counter()
                        r = await client.get(f"{API}/games/{game['game_id']}/hands/{hand}/review")
                        if r.status_code != 200:
                            tally.errors.append(f"review: {r.status_code} {r.text[:200]}")
                            return
                        store.append(time.perf_counter() - t0)
                    tally.decisions.extend(d["seconds"] for d in r.json()["decisions"] if d["label"] != "forced")
                path, body, _ = next_action(game, rng)
                answer = await act(client, path, body, own)
                if answer is None:
                    tally.errors.extend(own.errors)
                    return
                game = answer


async def with_reviews(base: ServerURL, players: int, games: int, think: tuple[float, float],
                       reviewers: int) -> tuple[Tally, ReviewTally]:
    """The Medium players' scenario while ``reviewers`` people review every hand they play."""
    others, reviews = Tally(), ReviewTally()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(reviewer(base, reviews, 20_000 + i, stop)) for i in range(reviewers)]
    others.started = time.perf_counter()
    cpu = tables_load.cpu_s(base.pid)
    await asyncio.gather(*(player(base, "medium", games, think, others, seed=2000 + i) for i in range(players)))
    others.finished = time.perf_counter()
    others.server_cpu = tables_load.cpu_s(base.pid) - cpu
    stop.set()
    await asyncio.gather(*tasks)
    return others, reviews


def review_summary(t: ReviewTally) -> dict[str, Any]:
    def ms(xs: list[float], p: float) -> float | None:
        return round(percentile(xs, p) * 1000, 1) if xs else None

    return {"hands": len(t.hands), "decisions": len(t.decisions),
            "hand_p50_ms": ms(t.hands, 50), "hand_p95_ms": ms(t.hands, 95),
            "kept_p50_ms": ms(t.kept, 50), "kept_p95_ms": ms(t.kept, 95),
            "decision_p50_ms": ms(t.decisions, 50), "decision_p95_ms": ms(t.decisions, 95),
            "errors": len(t.errors), "error_samples": t.errors[:3]}


# ---- the burst ----------------------------------------------------------------------------

BURST_KINDS = ("records", "page", "play", "play", "new_game", "records", "page", "play", "current", "new_game")
"""The mix, in the order the requests are made: a quarter reads one player's records, a
fifth are pages, three in ten are plays on distinct games, a fifth deal new games."""


@dataclass
class Shot:
    kind: str
    status: int
    ms: float
    retry_after: str | None = None


def raw(method: str, path: str, cookie: str | None = None, token: str | None = None,
        body: dict[str, Any] | None = None) -> bytes:
    """An HTTP/1.1 request as bytes: the burst's client must cost far less than the server
    (httpx spends ~3 ms of CPU a request, as much as the server's own work)."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", "Accept: */*"]
    if cookie:
        lines.append(f"Cookie: hearts_player={cookie}")
    if token:
        lines.append(f"{CSRF_HEADER}: {token}")
    data = json.dumps(body).encode() if body is not None else b""
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


async def raw_request(host: str, port: int, request: bytes, timeout: float = 60) -> tuple[int, str | None]:
    """Send one request on a new connection; the status and Retry-After (0: no answer
    within ``timeout`` seconds)."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except (OSError, TimeoutError):
        return 0, None
    try:
        writer.write(request)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        await asyncio.wait_for(reader.read(), timeout)  # the body, to the end (Connection: close)
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return 0, None
    finally:
        writer.close()
    lines = head.decode("latin-1").split("\r\n")
    retry = next((line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("retry-after:")), None)
    return int(lines[0].split()[1]), retry


async def burst(base: ServerURL, size: int, database_url: str) -> dict[str, Any]:
    """``size`` simultaneous requests of mixed kinds; ``/healthz`` probed all along."""
    plays_needed = sum(1 for i in range(size) if BURST_KINDS[i % len(BURST_KINDS)] == "play")
    # the players and games the burst acts on, made beforehand at a gentle pace (a client
    # each: a shared one would keep the first player's cookie for all)
    async with httpx.AsyncClient(base_url=base, timeout=120) as setup:
        reader = (await setup.get(f"{API}/records")).cookies.get("hearts_player")
    games: list[tuple[str, str, dict[str, Any]]] = []
    for i in range(plays_needed):
        async with httpx.AsyncClient(base_url=base, timeout=120) as setup:
            r = await setup.post(f"{API}/games", json={"difficulty": "easy", "passing": False})
            assert r.status_code == 201, r.text
            games.append((r.cookies["hearts_player"], r.headers[CSRF_HEADER], r.json()))
        if i % 20 == 19:
            await asyncio.sleep(0.05)
    shots: list[Shot] = []
    probes: list[Shot] = []
    acked: list[tuple[str, int, str]] = []
    stop = asyncio.Event()
    host, port = base.removeprefix("http://").split(":")

    async def probe() -> None:
        while not stop.is_set():
            t0 = time.perf_counter()
            status, _ = await raw_request(host, int(port), raw("GET", "/healthz"))
            probes.append(Shot("healthz", status, (time.perf_counter() - t0) * 1000))
            await asyncio.sleep(0.05)

    go = asyncio.Event()
    plays = iter(games)
    requests: list[tuple[str, bytes, tuple[str, int, str] | None]] = []
    for i in range(size):
        kind = BURST_KINDS[i % len(BURST_KINDS)]
        move = None
        if kind == "records":
            req = raw("GET", f"{API}/records", cookie=reader)
        elif kind == "page":
            req = raw("GET", "/")
        elif kind == "current":
            req = raw("GET", f"{API}/games/current", cookie=games[i % len(games)][0])
        elif kind == "play":
            cookie, token, game = next(plays)
            card = game["view"]["legal"][0]
            req = raw("POST", f"{API}/games/{game['game_id']}/play", cookie=cookie, token=token,
                      body={"version": game["version"], "card": card})
            move = (game["game_id"], game["version"], f"0 play {card}")
        else:
            req = raw("POST", f"{API}/games", body={"difficulty": "medium"})
        requests.append((kind, req, move))

    async def one(kind: str, req: bytes, move: tuple[str, int, str] | None) -> None:
        await go.wait()
        t0 = time.perf_counter()
        status, retry = await raw_request(host, int(port), req)
        if move is not None and status == 200:
            acked.append(move)
        shots.append(Shot(kind, status, (time.perf_counter() - t0) * 1000, retry))

    watcher = asyncio.create_task(probe())
    tasks = [asyncio.create_task(one(*r)) for r in requests]
    await asyncio.sleep(0.2)  # every task waiting on the starting signal: then all at once
    load = os.getloadavg()[0]
    started = time.perf_counter()
    go.set()
    await asyncio.gather(*tasks)
    seconds = time.perf_counter() - started
    await asyncio.sleep(0.3)
    stop.set()
    await watcher
    lost = lost_moves(database_url, [(g, v, c) for g, v, c in acked])
    lat = [s.ms for s in shots]
    by_status: dict[str, int] = {}
    for s in shots:
        by_status[str(s.status)] = by_status.get(str(s.status), 0) + 1
    by_kind: dict[str, dict[str, int]] = {}
    for s in shots:
        by_kind.setdefault(s.kind, {}).setdefault(str(s.status), 0)
        by_kind[s.kind][str(s.status)] += 1
    return {
        "requests": size, "seconds": round(seconds, 2), "load_average_at_start": round(load, 2),
        "by_status": by_status, "by_kind": by_kind,
        "p50_ms": round(percentile(lat, 50), 1), "p95_ms": round(percentile(lat, 95), 1),
        "max_ms": round(max(lat, default=0), 1), "over_2s": sum(1 for x in lat if x > 2000),
        "503_without_retry_after": sum(1 for s in shots if s.status == 503 and not s.retry_after),
        "healthz": {"probes": len(probes), "statuses": sorted({p.status for p in probes}),
                    "max_ms": round(max((p.ms for p in probes), default=0), 1)},
        "lost_plays": len(lost),
    }


def burst_line(b: dict[str, Any]) -> str:
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(b["by_status"].items()))
    h = b["healthz"]
    return (f"burst of {b['requests']} in {b['seconds']} s: {statuses}; p50 {b['p50_ms']} ms, p95 {b['p95_ms']} ms, "
            f"slowest {b['max_ms']} ms, {b['over_2s']} over 2 s; /healthz {h['probes']} probes {h['statuses']}, "
            f"slowest {h['max_ms']} ms; lost plays {b['lost_plays']}")


def not_quiet(s: dict[str, Any]) -> str:
    """The warning for a run with other work beside it ("" for a quiet one, or a run that
    did not measure the rest of the machine)."""
    share = s.get("others_cpu_share")
    if share is None or share <= QUIET_SHARE:
        return ""
    return (f"the machine was not quiet: other processes used {share} of a core (PostgreSQL's server among "
            "them, if used); the goals' figures are for a quiet machine")


def line(name: str, s: dict[str, Any]) -> str:
    return (f"{name:<28} {s['actions']:>6} actions in {s['seconds']:>6.1f} s = {s['actions_per_s']:>6.1f}/s   "
            f"p50 {s['p50_ms']:>6.1f} ms  p95 {s['p95_ms']:>6.1f} ms  p99 {s['p99_ms']:>6.1f} ms  "
            f"errors {s['errors']}  503 retried {s['busy_retried']}  lost moves {s['lost_moves']}  "
            f"CPU per action: server "
            f"{s['server_cpu_ms_per_action']} ms, load generator {s['client_cpu_ms_per_action']} ms"
            + (f", other processes {s['others_cpu_share']} of a core" if "others_cpu_share" in s else "")
            + (f"\n    {warning}" if (warning := not_quiet(s)) else ""))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=50, help="simultaneous Medium players (default 50)")
    ap.add_argument("--games", type=int, default=1, help="whole games each player plays (default 1)")
    ap.add_argument("--think", type=float, nargs=2, default=None, metavar=("MIN", "MAX"),
                    help="seconds a player waits before each action, uniformly (default 0.5 1.5; with "
                         "--tables 1 4: a person at a table takes 1 to 4 s over a card)")
    ap.add_argument("--hard", type=int, default=8, help="Hard games kept thinking in the second scenario "
                                                        "(0: skip it; default 8)")
    ap.add_argument("--skip-medium", action="store_true", help="run only the scenario with Hard games")
    ap.add_argument("--burst", type=int, default=0, help="then N simultaneous requests of mixed kinds (0: skip)")
    ap.add_argument("--burst-only", action="store_true", help="run only the burst scenario")
    ap.add_argument("--database-url", help="serve from this database (default: a fresh SQLite file)")
    ap.add_argument("--server-arg", action="append", default=[], help="pass this on to uvicorn (repeatable)")
    ap.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                    help="set this in the server's environment, e.g. MAX_ACTIVE_REQUESTS=8 (repeatable)")
    ap.add_argument("--pages", type=int, default=0, help="only this: N players play whole games through the "
                    "page's HTMX requests; the answers' sizes and the server's CPU per action (0: skip)")
    ap.add_argument("--before", type=Path, help="with --pages: also serve this source tree (e.g. an earlier "
                    "commit, unpacked) and measure both in turn, the same way, in one run")
    ap.add_argument("--rounds", type=int, default=2, help="with --pages: how many times each tree is measured")
    ap.add_argument("--review", type=int, default=0, metavar="N",
                    help="only this: the Medium players' scenario while N people play practice games and review "
                         "every hand (the review's time per hand and per decision)")
    ap.add_argument("--tables", type=int, default=0, help="only this: N tables for friends of four people, "
                    "each with its event stream open, play a hand (0: skip)")
    ap.add_argument("--processes", type=int, default=1, help="with --tables: server processes on one database "
                    "(more than one needs --database-url on PostgreSQL)")
    ap.add_argument("--stagger", type=float, default=0.0, metavar="S",
                    help="with --tables: the tables deal at random moments over the first S seconds, as tables "
                         "that started apart (default 0: every host deals at once)")
    ap.add_argument("--hands", type=int, default=1, help="with --tables: hands each table plays (default 1)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.tables:
        return tables_main(args, (args.think[0], args.think[1]) if args.think else TABLE_THINK)
    think = (args.think[0], args.think[1]) if args.think else (0.5, 1.5)

    if args.pages:
        roots = {"before": args.before.resolve(), "this tree": ROOT} if args.before else {"this tree": ROOT}
        load = round(os.getloadavg()[0], 2)
        runs = page_rounds(roots, args.rounds, args.pages, args.games, think,
                           dict(item.split("=", 1) for item in args.server_env))
        if args.json:
            print(json.dumps({"players": args.pages, "games_each": args.games, "load_average_before": load,
                              "cpus": os.cpu_count(), "runs": runs}, indent=2))
            return 0
        print(f"page load test: {args.pages} players x {args.games} game(s) against Medium through the page, think "
              f"{think[0]}-{think[1]} s, SQLite; load average before {load} on {os.cpu_count()} CPUs")
        for r in range(args.rounds):
            for name in roots:
                s = runs[name][r]
                print(page_line(f"{name} (round {r + 1}, load average {s['load_average_before']})", s))
        return 0

    with tempfile.TemporaryDirectory(prefix="hearts-load-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'hearts.db'}"
        results: dict[str, Any] = {"players": args.players, "games_each": args.games, "think_s": list(think),
                                   "hard": args.hard, "database": url.split(":")[0],
                                   "load_average_before": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
                                   "cpu_model": tables_load.cpu_model()}
        server_env = dict(item.split("=", 1) for item in args.server_env)
        with app_server(url, Path(tmp), extra_args=tuple(args.server_arg), extra_env=server_env) as base:
            if args.review:
                others, reviews = asyncio.run(with_reviews(base, args.players, args.games, think, args.review))
                results["review_others"] = summary(others, url)
                results["review"] = review_summary(reviews)
                args.skip_medium, args.hard = True, 0
            if args.burst_only:
                args.skip_medium, args.hard = True, 0
            if not args.skip_medium:
                tally = asyncio.run(medium_only(base, args.players, args.games, think))
                results["medium"] = summary(tally, url)
            if args.hard:
                others, thinkers = asyncio.run(with_hard(base, args.players, args.games, think, args.hard))
                results["hard_others"] = summary(others, url)
                results["hard_thinkers"] = summary(thinkers, url)
            if args.burst:
                results["burst"] = asyncio.run(burst(base, args.burst, url))

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    if "review" in results:
        rv = results["review"]
        print(f"review under load: {args.players} Medium players x {args.games} game(s), "
              f"think {think[0]}-{think[1]} s, {args.review} people reviewing every hand; "
              f"load average before {results['load_average_before']} on {results['cpus']} CPUs")
        print(f"  {rv['hands']} hands reviewed: p50 {rv['hand_p50_ms']} ms, p95 {rv['hand_p95_ms']} ms per hand "
              f"(again, kept: p50 {rv['kept_p50_ms']} ms, p95 {rv['kept_p95_ms']} ms); {rv['decisions']} decisions "
              f"rated: p50 {rv['decision_p50_ms']} ms, p95 {rv['decision_p95_ms']} ms each; errors {rv['errors']}")
        print(line("  the Medium players meanwhile", results["review_others"]))
        for sample in rv["error_samples"]:
            print(f"  review: {sample}")
        return 0
    if "burst" in results:
        b = results["burst"]
        print(burst_line(b))
        met = (not any(k.startswith("5") and k != "503" for k in b["by_status"]) and "0" not in b["by_status"]
               and b["over_2s"] == 0 and b["healthz"]["statuses"] == [200] and not b["503_without_retry_after"])
        print(f"goal: no 500, every answer within 2 s, /healthz answering throughout: {'met' if met else 'NOT met'}")
        if args.burst_only:
            return 0
    print(f"load test: {args.players} players x {args.games} game(s) against Medium, think {think[0]}-{think[1]} s, "
          f"{results['database']}; load average before {results['load_average_before']} on {results['cpus']} CPUs")
    if "medium" in results:
        print(line("medium players", results["medium"]))
    if args.hard:
        print(line(f"  ... while {args.hard} Hard games think", results["hard_others"]))
        print(line("  (the Hard games' actions)", results["hard_thinkers"]))
    for key in ("medium", "hard_others", "hard_thinkers"):
        for sample in results.get(key, {}).get("error_samples", []) + results.get(key, {}).get("lost_samples", []):
            print(f"  {key}: {sample}")
    if "medium" in results:
        m = results["medium"]
        print(f"goal: p95 <= 50 ms, no errors, no lost moves: "
              f"{'met' if m['p95_ms'] <= 50 and not m['errors'] and not m['lost_moves'] else 'NOT met'}")
    if args.hard:
        h = results["hard_others"]
        print(f"goal: others' p95 <= 100 ms while {args.hard} Hard games think: "
              f"{'met' if h['p95_ms'] <= 100 else 'NOT met'}")
    return 0


QUIET_SHARE = 0.15
"""Above this share of a core used by other processes during a run, the figures are said
not to be a quiet machine's: an arena at ``nice 19`` beside the tables' server doubled its CPU
per move and its p95 went from under 100 ms to over a second (docs/benchmarks.md)."""

TABLE_THINK = (1.0, 4.0)
"""A person at a table takes one to four seconds over a card (and over a pass)."""


def tables_main(args: argparse.Namespace, think: tuple[float, float]) -> int:
    """``--tables N [--processes P]``: tables for friends (tools/tables_load.py)."""
    from contextlib import ExitStack

    if args.processes > 1 and not (args.database_url or "").startswith("postgresql"):
        print("--processes > 1 needs --database-url on PostgreSQL (SQLite's news stay in one process)")
        return 2
    with tempfile.TemporaryDirectory(prefix="hearts-tables-") as tmp, ExitStack() as stack:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'hearts.db'}"
        server_env = {"RETENTION_INTERVAL_HOURS": "0", **dict(item.split("=", 1) for item in args.server_env)}
        servers = [stack.enter_context(app_server(url, Path(tmp) / f"p{i}", migrate_first=i == 0,
                                                  extra_args=tuple(args.server_arg), extra_env=server_env))
                   for i in range(args.processes)]
        load = [round(x, 2) for x in os.getloadavg()]
        result = asyncio.run(tables_load.run(list(servers), [s.pid for s in servers], args.tables, think,
                                              args.stagger, args.hands))
        lost, doubled, samples = tables_load.lost_and_doubled(url, result.pop("acked"))
    result.update(lost_moves=lost, doubled_moves=doubled, lost_samples=samples, processes=args.processes,
                  database=url.split(":")[0], think_s=list(think), load_average_before=load,
                  load_average_after=[round(x, 2) for x in os.getloadavg()], cpus=os.cpu_count())
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"tables load test: {result['tables']} tables x 4 people, {args.hands} hand(s) each, "
          f"think {think[0]}-{think[1]} s, "
          f"deals spread over {args.stagger} s, "
          f"{result['database']}, {args.processes} process(es); load average before {load} on {result['cpus']} CPUs")
    print(f"  ready {result['ready']}, finished {result['finished']}, streams open {result['streams_open']} "
          f"(open files {result['open_fds']}), moves {result['moves']} in {result['seconds']} s, "
          f"{result['deliveries']} deliveries to other screens, {result['table_reads']} reads of a table")
    print(f"  move -> every other screen: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, "
          f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms; while every table played "
          f"({result['all_playing_s']} s, {result['all_playing_deliveries']} deliveries): p50 "
          f"{result['all_playing_p50_ms']} ms, p95 {result['all_playing_p95_ms']} ms, "
          f"p99 {result['all_playing_p99_ms']} ms")
    print(f"  table events: {result['events']}, data p50 {result['event_bytes_p50']} B, p95 "
          f"{result['event_bytes_p95']} B, mean {result['event_bytes_mean']} B; moves' answers p50 "
          f"{result['answer_bytes_p50']} B, mean {result['answer_bytes_mean']} B; drawn on another table than "
          f"the one shown, the table asked for whole: {result['refetched']}")
    print(f"  memory: RSS {result['rss_before_mib']} MiB before, {result['rss_open_mib']} with every stream open "
          f"({result['rss_per_table_kib']} KiB per table), {result['rss_end_mib']} at the end")
    print(f"  CPU: server {result['cpu_ms_per_move']} ms per move ({result['server_cpu_share']} of a core over the "
          f"run), load generator {result['load_generator_cpu_s']} s ({result['load_generator_cpu_share']} of a core), "
          f"other processes {result['others_cpu_share']} of a core ({result['cpu_model']})")
    if warning := not_quiet(result):
        print("  " + warning)
    print(f"  errors {result['errors']}, lost moves {lost}, doubled moves {doubled}; busy answers waited out "
          f"{result['busy_retried']}, moves refused for one stored first (409) {result['raced']}, "
          f"streams opened again {result['reconnects']}; "
          f"load average after {result['load_average_after']}")
    if result["stalls"]:
        print(f"  tables where nothing moved for a minute: {result['stalls']}")
    for sample in result["error_samples"] + result["stall_samples"] + samples:
        print(f"  {sample}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
