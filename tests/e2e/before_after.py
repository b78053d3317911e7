"""Issue 10's checks on an earlier version and on this checkout, side by side:
``python -m tests.e2e.before_after [--base REV]`` (default ``main``).

The earlier version is served from ``git archive REV``; both are driven the same way, by
what both pages have (CSS classes of the table, the API's current game for rigging), so
the figures say what changed for a player: controls clickable while an action is on its
way, minus signs, the seat after a subtracted moon, a stale tab's message, RTL mini-cards,
a six-player table at 1280 px, requests and errors with no server, page and move sizes.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from engine import Game, Phase, Rules

from .delight_cost import served_from_git
from .rig import before_last_trick, moon_for_the_person, play_until, store
from .server import CHROMIUM, CHROMIUM_ARGS, app_server
from .table import CORNER, Held, locked_controls, version, wait_idle, wait_new_version
from .test_size import wire_bytes

LEGAL = ".stage .hand-form[data-mode=play] .in-hand:not(:disabled)"


class Table:
    def __init__(self, browser: Browser, base_url: str, database_url: str) -> None:
        self.base_url, self.database_url = base_url, database_url
        self.page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        self.page.goto(base_url + "/")
        self.page.get_by_role("button", name=re.compile("^(New game|Deal the cards)$")).click()  # then or now
        self.page.wait_for_selector("#table[data-phase=pass]")
        wait_idle(self.page)

    def rig(self, game: Game) -> None:
        current = self.page.request.get(self.base_url + "/api/v1/games/current").json()
        store(self.database_url, current["game_id"], game)
        self.page.reload()
        wait_idle(self.page)

    def play(self, page: Page | None = None) -> Any:
        page = page or self.page
        before = version(page)
        with page.expect_request_finished(lambda r: r.method == "POST") as posted:
            page.locator(LEGAL).first.click(position=CORNER)
        wait_new_version(page, before)
        return posted.value

    def play_out(self) -> None:
        while self.page.locator("#table").get_attribute("data-phase") == "play":
            self.play()


def checks(browser: Browser, base_url: str, database_url: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    t = Table(browser, base_url, database_url)
    page = t.page
    held = Held(page)
    cards = page.locator(".stage .hand-form .in-hand")
    for i in range(3):
        cards.nth(i).click(position=CORNER)
    page.locator("[data-pass-submit]").click()
    held.wait()
    out["controls clickable while a pass is on its way"] = len(locked_controls(page))
    held.stop()
    page.wait_for_timeout(500)

    t.rig(moon_for_the_person(omnibus=True, shooters_choice=True))
    first = t.play()
    out["a move's answer, the person leads (wire / unpacked bytes)"] = (wire_bytes(first), len(first.response().body()))
    t.play_out()
    page.get_by_role("button", name="Subtract 26 from my score").click()
    wait_idle(page)
    text = "\n".join(page.locator("#table .stage, #sheet, #tricks").all_inner_texts())
    out["'+-' or a hyphen before a number"] = sorted(set(re.findall(r"\+-\d+|(?<![\w−])-\d+", text))) or "none"
    out["the seat after a subtracted moon"] = page.locator(".stage .seat.me .score").inner_text()

    t.rig(play_until(Game(Rules(passing=False), seed=3), lambda g: g.phase is Phase.PLAY and g.turn == 0))
    other = page.context.new_page()
    other.goto(base_url + "/")
    wait_idle(other)
    t.play()
    t.play(other)
    out["a stale click in a second tab says"] = other.locator("#table .error").text_content()
    other.close()

    t.play_out()
    page.goto(base_url + "/he/")
    wait_idle(page)
    order = page.locator("#tricks .mini > span[aria-hidden]").evaluate_all("""spans => spans.map(s => {
        const r = document.createRange(); r.selectNodeContents(s.firstChild);
        return r.getBoundingClientRect().right <= s.querySelector('svg').getBoundingClientRect().left + 1; })""")
    out["Hebrew mini-cards with the rank before the suit"] = f"{sum(order)} of {len(order)}"

    page.goto(base_url + "/")
    wait_idle(page)
    t.rig(before_last_trick(Rules(players=6, omnibus=True), seed=6))
    out["six-player score sheet at 1280 px (scroll / visible width)"] = page.locator("#sheet .scroll").evaluate(
        "s => s.scrollWidth + ' / ' + s.clientWidth")
    last = t.play()
    out["a move's answer, a 6-player hand's last card (wire / unpacked bytes)"] = (
        wire_bytes(last), len(last.response().body()))
    out["seats covered by a six-player hand's result at 1280 px"] = page.evaluate("""() => {
        const box = document.querySelector('#table .stage .result').getBoundingClientRect();
        return Array.from(document.querySelectorAll('#table .stage .plate')).filter(p => {
            const r = p.getBoundingClientRect();
            return Math.min(box.right, r.right) - Math.max(box.left, r.left) > 1
                && Math.min(box.bottom, r.bottom) - Math.max(box.top, r.top) > 1; }).length; }""")
    cookies = page.context.cookies()
    page.context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_cookies(cookies)
    page = context.new_page()
    loaded: list[int] = []
    page.on("requestfinished", lambda r: loaded.append(wire_bytes(r)))
    page.goto(base_url + "/")
    page.wait_for_load_state("networkidle")
    out["first load of a table in play (bytes on the wire)"] = sum(loaded)
    context.close()

    t = Table(browser, base_url, database_url)
    errors: list[str] = []
    t.page.on("pageerror", lambda e: errors.append(str(e)))
    sent: list[str] = []
    t.page.on("request", lambda r: sent.append(r.url))
    t.page.route("**/*", lambda route: route.abort())  # as if the server were gone
    for i in range(3):
        t.page.locator(".stage .hand-form .in-hand").nth(i).click(position=CORNER)
    t.page.locator("[data-pass-submit]").click()
    t.page.wait_for_timeout(5000)
    out["requests in 5 s after a click with no server"] = len(sent)
    out["uncaught errors in those 5 s"] = len(errors)
    t.page.context.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", default="main", help="the earlier version (a git revision)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, app_server(Path(tmp) / "data") as now_url, \
            served_from_git(Path(tmp), args.base) as (then_url, then_db), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        then = checks(browser, then_url, then_db)
        now = checks(browser, now_url, f"sqlite:///{Path(tmp) / 'data' / 'hearts.db'}")
        browser.close()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.base} | this checkout")
    for key in then:
        print(f"- {key}: {then[key]} | {now[key]}")


if __name__ == "__main__":
    main()
