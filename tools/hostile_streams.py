"""One client opens many event streams on a table while its host plays: what it costs.

``python -m tools.hostile_streams --streams 300 [--people 1] [--limit 64] [--moves 12] [--ramp S]
[--root DIR] [--json]``

The real server (uvicorn on SQLite, as :mod:`tools.loadtest` starts it, with
``STREAMS_PER_CLIENT`` set to ``--limit``; 0: no limit) gets a table whose host plays
against computer players.  From one address, ``--people`` visitors (one cookie each) open
``--streams`` streams of the table between them, all at once (or spread over ``--ramp``
seconds), and keep reading them; then
the host makes ``--moves`` moves a second apart.  Reported: the streams' answers by status,
the server's open files and memory, the host's answers (median, slowest), the server's CPU
over the moves, and how long ``/healthz`` takes after them.  ``--root DIR`` serves another
tree (an earlier commit unpacked there), to compare in turn on the same machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from .friends import Person
from .loadtest import app_server
from .tables_load import cpu_s, open_fds, rss_kib


async def _hold(client: httpx.AsyncClient, path: str, statuses: dict[str, int], stop: asyncio.Event,
                delay: float) -> None:
    await asyncio.sleep(delay)
    try:
        async with client.stream("GET", f"{path}/events") as r:
            statuses[str(r.status_code)] = statuses.get(str(r.status_code), 0) + 1
            async for _ in r.aiter_bytes():
                if stop.is_set():
                    return
    except httpx.HTTPError as exc:
        statuses[type(exc).__name__] = statuses.get(type(exc).__name__, 0) + 1


async def _run(base: Any, host: Person, path: str, visitors: list[Person], streams: int, moves: int,
               ramp: float) -> dict[str, Any]:
    statuses: dict[str, int] = {}
    stop = asyncio.Event()
    started = time.perf_counter()
    # one client (one cookie, as many connections as streams) per visitor
    clients = [httpx.AsyncClient(base_url=base, cookies=v.client.cookies, timeout=None,
                                 limits=httpx.Limits(max_connections=None, max_keepalive_connections=0))
               for v in visitors]
    holders = [asyncio.create_task(_hold(clients[i % len(clients)], path, statuses, stop, ramp * i / streams))
               for i in range(streams)]
    while sum(statuses.values()) < streams and time.perf_counter() - started < 120 + ramp:
        await asyncio.sleep(0.1)
    out: dict[str, Any] = {"streams": statuses, "answered_s": round(time.perf_counter() - started, 1),
                           "open_files": open_fds(base.pid), "rss_mib": rss_kib(base.pid) // 1024}
    rng = random.Random(1)
    cpu = cpu_s(base.pid)
    took = []
    for _ in range(moves):
        t = time.perf_counter()
        await asyncio.to_thread(host.act, rng)
        took.append(1000 * (time.perf_counter() - t))
        await asyncio.sleep(1.0)
    out["server_cpu_s"] = round(cpu_s(base.pid) - cpu, 2)
    took.sort()
    out["host_answer_ms"] = {"median": round(took[len(took) // 2]), "max": round(took[-1])}
    async with httpx.AsyncClient(base_url=base, timeout=60) as probe:
        t = time.perf_counter()
        r = await probe.get("/healthz")
        out["healthz"] = {"status": r.status_code, "ms": round(1000 * (time.perf_counter() - t))}
    stop.set()
    for h in holders:
        h.cancel()
    await asyncio.gather(*holders, return_exceptions=True)
    for c in clients:
        await c.aclose()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--streams", type=int, default=300)
    ap.add_argument("--people", type=int, default=1, help="cookies the streams are shared among")
    ap.add_argument("--limit", type=int, default=64, help="the server's STREAMS_PER_CLIENT (0: none)")
    ap.add_argument("--moves", type=int, default=12)
    ap.add_argument("--ramp", type=float, default=0.0, help="open the streams over this many seconds (0: at once)")
    ap.add_argument("--root", type=Path, default=None, help="serve this source tree instead of this one")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="hostile-"))
    where = {"root": args.root} if args.root is not None else {}
    with app_server(f"sqlite:///{data / 'hearts.db'}", data, extra_env={"STREAMS_PER_CLIENT": str(args.limit)},
                    **where) as base:
        host = Person(base, "Ann")
        path = host.open_table(difficulty="medium", max_rounds="1", turn_seconds="600")
        assert host.post(f"{path}/deal", {}).status_code == 200
        visitors = []
        for i in range(max(1, args.people)):
            v = Person(base, f"V{i}")
            v.visit(path)
            visitors.append(v)
        out = asyncio.run(_run(base, host, path, visitors, args.streams, args.moves, args.ramp))
    out.update(streams_asked=args.streams, people=args.people, limit=args.limit, moves=args.moves,
               root=str(args.root or "."))
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
