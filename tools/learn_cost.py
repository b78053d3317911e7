"""What the Learn page costs: ``python -m tools.learn_cost [--requests N]``.

Starts the real app (uvicorn, a fresh SQLite database), asks for the page and for a lesson's
answers one request at a time, and prints the median and 95th percentile of each with the
size as served and gzipped (docs/ui.md).  Figures, not assertions: run it under ``nice`` and
note the load average beside them.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from .server import ROOT, free_port, start_app, stop_app

CASES: tuple[tuple[str, str, dict[str, str], bool], ...] = (
    ("GET /learn (eight tables)", "/learn", {}, False),
    ("GET /learn/moon?card=5H (HTMX: the right move, its trick played out)", "/learn/moon", {"card": "5H"}, True),
    ("GET /learn/follow?card=2D (HTMX: an illegal card explained)", "/learn/follow", {"card": "2D"}, True),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {"DATA_DIR": tmp, "DATABASE_URL": f"sqlite:///{Path(tmp) / 'hearts.db'}", "SECRET_KEY": "cost"}
        with open(Path(tmp) / "server.log", "w") as log:
            migrate(env)
            proc = start_app(port, env, log)
            try:
                measure(f"http://127.0.0.1:{port}", args.requests)
            finally:
                stop_app(proc, timeout=10)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def migrate(env: dict[str, str]) -> None:
    """The database the server will use, migrated as ``make run`` does."""
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env={**os.environ, **env},
                   check=True, capture_output=True)


def measure(base_url: str, requests: int) -> None:
    with httpx.Client(base_url=base_url) as client:
        client.get("/learn")  # the story game is played once per process
        for name, path, params, htmx in CASES:
            headers = {"HX-Request": "true"} if htmx else {}
            times = []
            body = b""
            for _ in range(requests):
                start = time.perf_counter()
                response = client.get(path, params=params, headers=headers)
                times.append((time.perf_counter() - start) * 1000)
                response.raise_for_status()
                body = response.content
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(f"{name}: p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
                  f"{len(body)} bytes, {len(gzip.compress(body, 6))} gzipped")


if __name__ == "__main__":
    main()
