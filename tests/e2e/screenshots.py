"""Screenshots of the table for docs/: ``python -m tests.e2e.screenshots [state …]``.

Each state of the page a player meets (the start, the new-game dialog, passing, a trick
being taken, a hand's and a game's result, a moon, the keys, a dropped connection, a second
tab, a right-to-left page) at a phone and a desktop size, in ``docs/screens/``; the two
overview pictures ``docs/screenshot-desktop.png`` and ``docs/screenshot-phone.png`` too.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from engine import Game, Phase, Rules

from ..bots.test_coach import BLUNDER_DEAL
from .learner import lesson, played_out, tap, verdict
from .rig import before_last_trick, decisive_last_trick, moon_for_the_person, play_until, rig
from .server import CHROMIUM, CHROMIUM_ARGS, ROOT, app_server
from .table import CORNER, new_game, phase, take_turn, trick_cards, version, wait_idle, wait_new_version

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
OUT = ROOT / "docs" / "screens"
LONG_TRICK = json.dumps({s: {"play": 150, "trick": 60_000, "": 0} for s in ("normal", "fast")})


class Shots:
    def __init__(self, browser: Browser, base_url: str, database_url: str, size: str) -> None:
        self.browser, self.base_url, self.database_url, self.size = browser, base_url, database_url, size

    def page(self, path: str = "/", table: bool = True) -> Page:
        width, height = SIZES[self.size]
        phone = self.size == "phone"
        context = self.browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone,
                                           has_touch=phone, locale="ar" if path.startswith("/ar") else "en-GB")
        page = context.new_page()
        page.goto(self.base_url + path)
        if table:
            wait_idle(page)
        return page

    def save(self, page: Page, state: str, element: str | None = None) -> None:
        out = OUT / f"{state}-{self.size}.png"
        if element:
            page.locator(element).scroll_into_view_if_needed()
        page.screenshot(path=str(out))
        print(out.relative_to(ROOT))

    def dealt(self, path: str = "/", **options: object) -> Page:
        page = self.page(path)
        new_game(page, fast=True, **options)  # type: ignore[arg-type]
        return page


def play_a_legal_card(page: Page) -> None:
    before = version(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    wait_new_version(page, before)


def welcome(s: Shots) -> None:
    page = s.page()
    s.save(page, "welcome")
    page.get_by_role("button", name="New game…").click()
    s.save(page, "new-game-dialog")
    page.context.close()


def passing(s: Shots) -> None:
    page = s.dealt()
    cards = page.locator(".stage .hand-form[data-mode=pass] .in-hand")
    for i in range(4):  # the fourth is refused, and the page says why
        cards.nth(i).click(position=CORNER)
    s.save(page, "pass-fourth-card-refused", "[data-pass-submit]")
    page.context.close()


def playing(s: Shots) -> None:
    page = s.dealt()
    # a few tricks in: a trick to follow, cards to avoid, the pass strip
    for _ in range(60):
        if (phase(page) == "play" and len(trick_cards(page)) >= 2
                and page.locator(".stage .in-hand.illegal").count() and page.locator("#tricks li").count() >= 2):
            break
        take_turn(page)
    page.evaluate("window.scrollTo(0, 0)")
    s.save(page, "play")
    out = ROOT / "docs" / f"screenshot-{s.size}.png"
    page.screenshot(path=str(out))
    # a trick taken: its cards held on the table with the winner's caption
    page.evaluate("(p) => { document.body.dataset.pauses = p; }", LONG_TRICK)
    for _ in range(13):
        page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
        try:
            page.wait_for_selector("#table > .playback .trick-caption", timeout=4000)
            break
        except Exception:  # noqa: BLE001 - this card did not end a trick: play on
            wait_idle(page)
    s.save(page, "trick-taken", ".playback .felt")
    page.context.close()


def friends(s: Shots) -> None:
    """A table for friends: the host's lobby (the invite link, its QR code), a friend who
    opened the link (the form to take a seat in the first screenful), then a hand in play."""
    from .test_friends import join, open_table
    from .test_friends import take_turn as friends_turn

    host = s.page(table=False)
    link = open_table(host, s.base_url)
    path = link[len(s.base_url):]
    bob = s.page(path, table=False)
    bob.locator("[data-join-name]").fill("Bob")
    s.save(bob, "friends-join")
    join(bob, link, "Bob")
    cleo = s.page(path, table=False)
    join(cleo, link, "Cleo")
    host.locator("#people input[name=seats][value='3']").uncheck()
    host.locator("#people .person[data-seat='3'] .what", has_text="computer player").wait_for()
    host.wait_for_function("document.querySelector('#people img.qr')?.complete")
    if s.size == "phone":
        host.evaluate("document.querySelector('#people').scrollIntoView()")
    s.save(host, "friends-lobby")
    for page in (host, bob, cleo):
        page.locator("[data-fast-toggle]").check()
    host.evaluate("window.scrollTo(0, 0)")
    host.get_by_role("button", name="Deal the cards").click()
    bob.locator("#table > .stage .in-hand").first.wait_for()
    for _ in range(200):  # a few tricks in, Bob's turn
        if bob.locator("#tricks .trick-list li").count() >= 2 and bob.locator(
                "#table > .stage .hand-form[data-mode=play]").count():
            break
        if not any(friends_turn(p) for p in (host, cleo)) and bob.locator("#tricks .trick-list li").count() < 2:
            friends_turn(bob)
        bob.wait_for_timeout(150)
    wait_idle(bob)
    bob.evaluate("window.scrollTo(0, 0)")
    s.save(bob, "friends-play")
    for page in (host, bob, cleo):
        page.context.close()


def six_players(s: Shots) -> None:
    page = s.dealt()
    rig(page, s.database_url, before_last_trick(Rules(players=6, omnibus=True), seed=4))
    s.save(page, "six-players-last-trick")
    play_a_legal_card(page)
    s.save(page, "six-players-hand-over", ".stage .result")
    page.context.close()


def game_over(s: Shots) -> None:
    page = s.dealt()
    rig(page, s.database_url, decisive_last_trick(Rules(max_rounds=1, omnibus=True)))
    play_a_legal_card(page)
    s.save(page, "game-over", ".stage .result")
    page.context.close()


def moon(s: Shots) -> None:
    page = s.dealt()
    rig(page, s.database_url, moon_for_the_person(shooters_choice=True, omnibus=True))
    for _ in range(12):
        play_a_legal_card(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    page.wait_for_selector("#table > .stage:not([hidden]) .moon-party", state="attached")
    page.wait_for_timeout(800)  # the moon half-way up
    s.save(page, "moon-shot", ".stage .board")
    wait_idle(page)
    page.get_by_role("button", name="Subtract 26 from my score").click()
    wait_idle(page)
    s.save(page, "moon-subtracted", ".stage .result")
    page.context.close()


def no_passing(s: Shots) -> None:
    page = s.dealt()
    rig(page, s.database_url, play_until(before_last_trick(Rules(), seed=3),
                                         lambda g: g.round_index == 3 and g.phase is Phase.PLAY and g.turn == 0))
    s.save(page, "no-passing-this-hand", ".stage .strip")
    page.context.close()


def keys(s: Shots) -> None:
    page = s.dealt()
    page.locator("body").press("h")
    s.save(page, "keys-dialog")
    page.keyboard.press("Escape")
    page.locator("body").press("s")
    s.save(page, "reading-key-shown")
    page.context.close()


def reconnecting(s: Shots) -> None:
    page = s.dealt()
    page.route("**/*", lambda route: route.abort())
    page.locator(".stage .hand-form[data-mode=pass] .in-hand").nth(0).click(position=CORNER)
    page.locator(".stage .hand-form[data-mode=pass] .in-hand").nth(1).click(position=CORNER)
    page.locator(".stage .hand-form[data-mode=pass] .in-hand").nth(2).click(position=CORNER)
    page.locator("[data-pass-submit]").click()
    page.wait_for_selector("#connection:not([hidden])")
    s.save(page, "reconnecting")
    page.unroute("**/*")
    page.context.close()


def two_tabs(s: Shots) -> None:
    first = s.dealt(passing=False)
    second = first.context.new_page()
    second.goto(s.base_url + "/")
    wait_idle(second)
    play_a_legal_card(first)
    before = version(second)
    second.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    wait_new_version(second, before)
    s.save(second, "another-tab")
    first.context.close()


def right_to_left(s: Shots) -> None:
    page = s.dealt()
    rig(page, s.database_url, before_last_trick(Rules(players=6), seed=4))
    page.goto(s.base_url + "/ar/")
    wait_idle(page)
    s.save(page, "arabic-tricks", "#tricks")
    page.context.close()


def learn(s: Shots) -> None:
    page = s.page("/learn", table=False)
    s.save(page, "learn-top")
    for code in ("QS", "AH", "KH"):
        tap(page, "pass", code)
    lesson(page, "pass").scroll_into_view_if_needed()
    s.save(page, "learn-pass-chosen", "#lesson-pass [data-pass-submit]")
    tap(page, "follow", "2D")
    verdict(page, "follow", "illegal")
    lesson(page, "follow").evaluate("l => l.scrollIntoView({block: 'end'})")
    s.save(page, "learn-follow-refused")
    tap(page, "moon", "5H")
    verdict(page, "moon", "right")
    played_out(page, "moon")
    lesson(page, "moon").evaluate("l => l.scrollIntoView({block: 'end'})")
    s.save(page, "learn-moon-stopped")
    page.context.close()


def hint(s: Shots) -> None:
    page = s.dealt(difficulty="easy", practice=True)
    page.locator("[data-hint]").click()
    page.locator(".hint-text").wait_for()
    wait_idle(page)
    s.save(page, "hint-pass", ".hint-text")
    page.context.close()


def review(s: Shots) -> None:
    page = s.dealt(difficulty="medium", practice=True)
    rig(page, s.database_url, Game(Rules(passing=False), seed=3, deals=[BLUNDER_DEAL]))
    for card in ("2C", "QS"):
        before = version(page)
        page.locator(f".stage .hand-form[data-mode=play] .in-hand[data-card='{card}']").click(position=CORNER)
        wait_new_version(page, before)
    while phase(page) == "play":
        play_a_legal_card(page)
    page.get_by_role("button", name="Review this hand").click()
    page.locator("#review-body .review-step").first.wait_for(timeout=60_000)
    page.keyboard.press("ArrowRight")
    s.save(page, "review-blunder")
    page.context.close()


STATES: dict[str, Callable[[Shots], None]] = {
    "welcome": welcome, "passing": passing, "playing": playing, "six_players": six_players,
    "game_over": game_over, "moon": moon, "no_passing": no_passing, "keys": keys,
    "reconnecting": reconnecting, "two_tabs": two_tabs, "right_to_left": right_to_left, "learn": learn,
    "hint": hint, "review": review, "friends": friends,
}


def main(states: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, app_server(Path(tmp) / "data") as base_url, sync_playwright() as p:
        database_url = f"sqlite:///{Path(tmp) / 'data' / 'hearts.db'}"
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size in SIZES:
            shots = Shots(browser, base_url, database_url, size)
            for name in states or list(STATES):
                STATES[name](shots)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
