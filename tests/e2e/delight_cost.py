"""What the table's motion costs: ``python -m tests.e2e.delight_cost [--runs N] [--throttle R]``.

Page weight: the script and the stylesheet as the server sends them (gzip, level 6, as
GZipMiddleware does), on this checkout and on ``main`` (``git show``).  CPU: the same hand
played in one browser on ``main`` (served from ``git archive main``) and on this checkout, each
also with ``prefers-reduced-motion`` (nothing moves), interleaved, side by side;
Chromium's own counters (CDP ``Performance.getMetrics``: main-thread task, script, layout
and style time) over the hand.  The hand is rigged (the person leads all 13 tricks and
shoots the moon), so each run does the same work.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from tools.server import free_port

from .rig import moon_for_the_person, store
from .server import CHROMIUM, CHROMIUM_ARGS, ROOT, app_server
from .table import CORNER, version, wait_idle, wait_new_version

METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def gzipped(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=6))


def weight() -> None:
    print("page weight (bytes, gzip level 6):")
    for path in ("static/app.js", "static/hearts.css"):
        now = (ROOT / path).read_bytes()
        try:
            before = subprocess.run(["git", "show", f"main:{path}"], cwd=ROOT, capture_output=True,
                                    check=True).stdout
        except subprocess.CalledProcessError:
            before = b""
        print(f"  {path:<20} main {gzipped(before):>6}   now {gzipped(now):>6}   "
              f"({gzipped(now) - gzipped(before):+d})")


@contextmanager
def served_from_git(tmp: Path, rev: str = "main") -> Iterator[tuple[str, str]]:
    """The app as it is at ``rev`` in git, served on its own database; yields (base URL,
    database URL)."""
    export, data = tmp / f"{rev}-export", tmp / f"{rev}-data"
    export.mkdir()
    data.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(export)], input=archive, check=True)
    database_url = f"sqlite:///{data / 'hearts.db'}"
    env = {**os.environ, "DATA_DIR": str(data), "DATABASE_URL": database_url, "SECRET_KEY": "cost"}
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=export, env=env, check=True,
                   capture_output=True)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", "app.main:app_from_env",
                             "--port", str(port)], cwd=export, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        yield f"http://localhost:{port}", database_url
    finally:
        proc.terminate()
        proc.wait()


def one_hand(browser: Browser, base_url: str, database_url: str, reduced: bool, throttle: float) -> dict[str, float]:
    context = browser.new_context(viewport={"width": 1280, "height": 800},
                                  reduced_motion="reduce" if reduced else "no-preference")
    page = context.new_page()
    page.goto(base_url + "/")
    page.get_by_label("Fast play", exact=True).check()
    page.get_by_role("button", name=re.compile("^(New game|Deal the cards)$")).click()  # main or now
    page.wait_for_selector("#table[data-phase=pass]")
    wait_idle(page)
    store(database_url, page.request.get(base_url + "/api/v1/games/current").json()["game_id"], moon_for_the_person())
    page.reload()
    wait_idle(page)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    if throttle > 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})

    def sample() -> dict[str, float]:
        return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

    start = sample()
    for _ in range(13):
        before = version(page)
        page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
        wait_new_version(page, before)
    end = sample()
    context.close()
    return {m: (end[m] - start[m]) * 1000 for m in METRICS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--throttle", type=float, default=1.0, help="CPU slow-down (4: a mid-range phone)")
    args = parser.parse_args()
    weight()
    print(f"load average {os.getloadavg()[0]:.2f}; a rigged hand of 13 tricks, {args.runs} runs each, "
          f"CPU throttle x{args.throttle:g}; main-thread milliseconds over the hand:")
    with tempfile.TemporaryDirectory() as tmp, app_server(Path(tmp) / "data") as base_url, \
            served_from_git(Path(tmp)) as (main_url, main_db), sync_playwright() as p:
        database_url = f"sqlite:///{Path(tmp) / 'data' / 'hearts.db'}"
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        setups = {"main": (main_url, main_db, False), "now": (base_url, database_url, False),
                  "main, reduced motion": (main_url, main_db, True),
                  "now, reduced motion": (base_url, database_url, True)}
        totals = {name: dict.fromkeys(METRICS, 0.0) for name in setups}
        for _ in range(args.runs):
            for name, (url, db, reduced) in setups.items():  # interleaved: load on the machine falls on all
                for m, v in one_hand(browser, url, db, reduced, args.throttle).items():
                    totals[name][m] += v / args.runs
        browser.close()
    print(f"  {'':<22}" + "".join(f"{m:>22}" for m in METRICS))
    for name, values in totals.items():
        print(f"  {name:<22}" + "".join(f"{values[m]:>22.1f}" for m in METRICS))
    print(f"  {'now / main':<22}" + "".join(f"{totals['now'][m] / max(totals['main'][m], 1e-9):>22.2f}"
                                             for m in METRICS))


if __name__ == "__main__":
    main()
