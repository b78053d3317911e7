"""The server's CPU per action of the JSON API, in-process: seeded Medium games played
through the whole ASGI app (every middleware, the dependencies, the routes, a real
SQLite file in WAL mode), by a client that builds the ASGI messages itself, so nearly all
the CPU measured is the server's.

    python -m tools.profile_api [--games 6] [--loop auto|asyncio|uvloop] [--json]
    py-spy record --rate 250 --format raw -o /tmp/api.txt -- python -m tools.profile_api

The figure is the process's CPU time over the actions (no network, no uvicorn: below the
load test's, which includes the HTTP server); use it to compare trees in one run, and
``py-spy`` (all threads: the routes run in the thread pool) to see where it goes.  The
event loop is uvloop when it is installed, as uvicorn's ``--loop auto`` picks it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlmodel import SQLModel

from app.config import Settings
from app.main import create_app
from app.security import CSRF_HEADER


class Client:
    """One player's cookie and CSRF token, sending ASGI messages straight to the app."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.cookie = b""
        self.csrf = b""

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        raw = json.dumps(body).encode() if body is not None else b""
        headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                   (b"content-length", str(len(raw)).encode()), (b"accept-encoding", b"gzip")]
        if self.cookie:
            headers.append((b"cookie", self.cookie))
        if self.csrf:
            headers.append((CSRF_HEADER.lower().encode(), self.csrf))
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
                 "root_path": "", "headers": headers, "client": ("127.0.0.1", 5000),
                 "server": ("127.0.0.1", 8000)}
        sent = False
        status, chunks, out_headers = 0, [], []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.sleep(3600)
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, out_headers
            if message["type"] == "http.response.start":
                status, out_headers = message["status"], message.get("headers", [])
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        gzipped = False
        for k, v in out_headers:
            if k == b"set-cookie":
                self.cookie = v.split(b";", 1)[0]
            elif k == CSRF_HEADER.lower().encode():
                self.csrf = v
            elif k == b"content-encoding" and v == b"gzip":
                gzipped = True
        data = b"".join(chunks)
        if gzipped:
            import gzip
            data = gzip.decompress(data)
        return status, json.loads(data) if data else None


async def play(app: Any, games: int, seed: int) -> int:
    """Plays ``games`` whole Medium games, one after the other; returns the actions made."""
    rng = random.Random(seed)
    client = Client(app)
    actions = 0
    for g in range(games):
        status, game = await client.call("POST", "/api/v1/games", {"difficulty": "medium", "seed": seed * 100 + g})
        assert status == 201, game
        actions += 1
        while game["status"] == "active":
            view, gid = game["view"], game["game_id"]
            base = f"/api/v1/games/{gid}/"
            version = game["version"]
            if view["phase"] == "pass":
                status, game = await client.call("POST", base + "pass",
                                                 {"version": version, "cards": rng.sample(view["hand"], 3)})
            elif view["phase"] == "play":
                status, game = await client.call("POST", base + "play",
                                                 {"version": version, "card": rng.choice(view["legal"])})
            elif view["phase"] == "moon_choice":
                status, game = await client.call("POST", base + "moon", {"version": version, "subtract": True})
            else:
                status, game = await client.call("POST", base + "next", {"version": version})
            assert status == 200, game
            actions += 1
    return actions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=6, help="whole games played (default 6)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto",
                    help="the event loop (auto: uvloop if installed, as uvicorn chooses)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'profile.db'}"
        app = create_app(Settings(database_url=url, secret_key="profile"))
        SQLModel.metadata.create_all(app.state.db_engine)

        async def run() -> tuple[int, float, float]:
            async with app.router.lifespan_context(app):  # as the server runs it
                await play(app, 1, args.seed + 1000)  # warm up: imports, first connections, caches
                cpu, wall = time.process_time(), time.perf_counter()
                actions = await play(app, args.games, args.seed)
                return actions, time.process_time() - cpu, time.perf_counter() - wall

        loop = args.loop
        if loop == "auto":
            loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
        if loop == "uvloop":
            import uvloop
            actions, cpu, wall = uvloop.run(run())
        else:
            actions, cpu, wall = asyncio.run(run())
        app.state.db_engine.dispose()
    result = {"games": args.games, "loop": loop, "actions": actions,
              "cpu_ms_per_action": round(cpu * 1000 / actions, 3),
              "wall_ms_per_action": round(wall * 1000 / actions, 3), "load_average": os.getloadavg()[0]}
    print(json.dumps(result) if args.json else
          f"{actions} actions ({loop}): CPU {result['cpu_ms_per_action']} ms per action, "
          f"wall {result['wall_ms_per_action']} ms "
          f"(load average {result['load_average']:.2f})")


if __name__ == "__main__":
    main()
