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

Reported per scenario: actions per second, p50/p95/p99 latency, errors (any answer but
success, or no answer) and lost moves: at the end every acknowledged action is looked
up in the stored game, which must hold exactly that move at exactly that position.
The goals (50 players, p95 <= 50 ms, no errors, no lost moves; p95 <= 100 ms while 8 Hard
games think) are printed next to the figures; this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
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

from .server import ROOT, free_port, start_app, stop_app

API = "/api/v1"


# ---- the server ---------------------------------------------------------------------------

def migrate(database_url: str, data_dir: Path) -> None:
    env = {**os.environ, "DATA_DIR": str(data_dir), "DATABASE_URL": database_url}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env=env, check=True,
                   capture_output=True)


class ServerURL(str):
    """A running server's base URL, with its process id (to read its CPU time)."""

    pid: int


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far, all its threads included (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def app_server(database_url: str, data_dir: Path, *, secret_key: str = "loadtest-secret",
               migrate_first: bool = True, extra_args: tuple[str, ...] = ()) -> Iterator[ServerURL]:
    """Serve the app with uvicorn on a free loopback port; yields its base URL.

    Several servers given the same ``database_url`` and ``secret_key`` are interchangeable,
    like the processes behind a load balancer."""
    data_dir.mkdir(parents=True, exist_ok=True)
    if migrate_first:
        migrate(database_url, data_dir)
    port = free_port()
    env = {"DATA_DIR": str(data_dir), "DATABASE_URL": database_url, "SECRET_KEY": secret_key}
    with open(data_dir / f"server-{port}.log", "w") as log:
        # access logs off: one line per request would cost the server more than the
        # request itself and measure the terminal rather than the app
        proc = start_app(port, env, log, "--no-access-log", "--log-level", "warning", *extra_args)
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
    started: float = 0.0
    finished: float = 0.0
    server_cpu: float = 0.0
    """CPU seconds the server process spent meanwhile (its own threads, not child processes)."""
    client_cpu: float = 0.0
    """CPU seconds this load generator spent meanwhile: it shares the machine with the server."""


CSRF_HEADER = "X-CSRF-Token"


def keep_token(client: httpx.AsyncClient | httpx.Client, r: httpx.Response) -> None:
    """The API hands a player their anti-forgery token in a response header; state-changing
    requests send it back, as the page does from its ``hx-headers``."""
    token = r.headers.get(CSRF_HEADER)
    if token:
        client.headers[CSRF_HEADER] = token


async def act(client: httpx.AsyncClient, path: str, body: dict[str, Any], tally: Tally) -> dict[str, Any] | None:
    t0 = time.perf_counter()
    try:
        r = await client.post(path, json=body)
    except httpx.HTTPError as exc:
        tally.errors.append(f"{path}: {type(exc).__name__} {exc}")
        return None
    tally.latencies.append((time.perf_counter() - t0) * 1000)
    keep_token(client, r)
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
        "errors": len(tally.errors), "lost_moves": len(lost), "games_finished": tally.games,
        "error_samples": tally.errors[:3], "lost_samples": lost[:3],
    }


async def medium_only(base: ServerURL, players: int, games: int, think: tuple[float, float]) -> Tally:
    tally = Tally(started=time.perf_counter())
    cpu, own = cpu_seconds(base.pid), time.process_time()
    await asyncio.gather(*(player(base, "medium", games, think, tally, seed=i) for i in range(players)))
    tally.finished = time.perf_counter()
    tally.server_cpu = cpu_seconds(base.pid) - cpu
    tally.client_cpu = time.process_time() - own
    return tally


async def with_hard(base: ServerURL, players: int, games: int, think: tuple[float, float],
                    hard: int) -> tuple[Tally, Tally]:
    others, thinkers = Tally(), Tally()
    stop = asyncio.Event()
    hard_tasks = [asyncio.create_task(player(base, "hard", 10**6, (0.0, 0.0), thinkers, seed=10_000 + i, stop=stop))
                  for i in range(hard)]
    await asyncio.sleep(1.0)  # let every Hard game get to its first decision
    others.started = thinkers.started = time.perf_counter()
    cpu = cpu_seconds(base.pid)
    await asyncio.gather(*(player(base, "medium", games, think, others, seed=1000 + i) for i in range(players)))
    others.finished = thinkers.finished = time.perf_counter()
    others.server_cpu = cpu_seconds(base.pid) - cpu
    stop.set()
    await asyncio.gather(*hard_tasks)
    return others, thinkers


def line(name: str, s: dict[str, Any]) -> str:
    return (f"{name:<28} {s['actions']:>6} actions in {s['seconds']:>6.1f} s = {s['actions_per_s']:>6.1f}/s   "
            f"p50 {s['p50_ms']:>6.1f} ms  p95 {s['p95_ms']:>6.1f} ms  p99 {s['p99_ms']:>6.1f} ms  "
            f"errors {s['errors']}  lost moves {s['lost_moves']}  CPU per action: server "
            f"{s['server_cpu_ms_per_action']} ms, load generator {s['client_cpu_ms_per_action']} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=50, help="simultaneous Medium players (default 50)")
    ap.add_argument("--games", type=int, default=1, help="whole games each player plays (default 1)")
    ap.add_argument("--think", type=float, nargs=2, default=(0.5, 1.5), metavar=("MIN", "MAX"),
                    help="seconds a player waits before each action, uniformly (default 0.5 1.5)")
    ap.add_argument("--hard", type=int, default=8, help="Hard games kept thinking in the second scenario "
                                                        "(0: skip it; default 8)")
    ap.add_argument("--skip-medium", action="store_true", help="run only the scenario with Hard games")
    ap.add_argument("--database-url", help="serve from this database (default: a fresh SQLite file)")
    ap.add_argument("--server-arg", action="append", default=[], help="pass this on to uvicorn (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    think = (args.think[0], args.think[1])

    with tempfile.TemporaryDirectory(prefix="hearts-load-") as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'hearts.db'}"
        results: dict[str, Any] = {"players": args.players, "games_each": args.games, "think_s": list(think),
                                   "hard": args.hard, "database": url.split(":")[0],
                                   "load_average_before": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
        with app_server(url, Path(tmp), extra_args=tuple(args.server_arg)) as base:
            if not args.skip_medium:
                tally = asyncio.run(medium_only(base, args.players, args.games, think))
                results["medium"] = summary(tally, url)
            if args.hard:
                others, thinkers = asyncio.run(with_hard(base, args.players, args.games, think, args.hard))
                results["hard_others"] = summary(others, url)
                results["hard_thinkers"] = summary(thinkers, url)

    if args.json:
        print(json.dumps(results, indent=2))
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


if __name__ == "__main__":
    sys.exit(main())
