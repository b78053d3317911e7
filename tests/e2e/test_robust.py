"""Issue 10, robustness: controls are locked while their request runs, a card never changes
under the pointer while a click can land on it, and a dropped connection or a server in
trouble gets patient retries and a clear banner, not a storm of requests."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route

from engine import Card, CardSet, Game, Rules

from .rig import before_last_trick, rig
from .server import AppProcess
from .table import (
    CORNER,
    RECORD_SPEECH,
    Held,
    alerted,
    locked_controls,
    new_game,
    phase,
    said,
    version,
    wait_idle,
    wait_new_version,
)

# what a click at each watched point of the screen would land on, every frame: the card or
# button under it when that is enabled and takes the pointer, else nothing
WATCH_POINTS = """
window.__points = []; window.__hits = [];
const target = (x, y) => {
  const el = document.elementFromPoint(x, y);
  const b = el && el.closest('button');
  if (!b || b.disabled || b.closest('[inert]')) return null;
  return b.dataset.card || b.textContent.trim();
};
const tick = (now) => {
  window.__points.forEach((p, i) => {
    const k = target(p[0], p[1]); const log = window.__hits[i];
    if (!log.length || log[log.length - 1][1] !== k) log.push([now, k]);
  });
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"""


def test_every_control_is_locked_from_the_click_until_its_answer_shows(page: Page, base_url: str,
                                                                        database_url: str) -> None:
    page.goto(base_url + "/")
    new_game(page, fast=True)
    held = Held(page)
    cards = page.locator(".stage .hand-form .in-hand")

    # passing: the three chosen, then the pass button
    for i in range(3):
        cards.nth(i).click(position=CORNER)
    before = version(page)
    page.locator("[data-pass-submit]").click()
    held.wait()
    assert locked_controls(page) == []
    box = cards.nth(5).bounding_box()
    assert box
    page.mouse.click(box["x"] + CORNER["x"], box["y"] + CORNER["y"])  # a quick click on another card…
    assert cards.nth(5).get_attribute("aria-pressed") == "false"     # …is not taken
    page.wait_for_timeout(150)
    assert len(held.routes) == 1
    held.release()
    wait_new_version(page, before)

    # playing: a card, then at once a second one
    legal = page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)")
    assert legal.count() >= 1
    second = legal.nth(legal.count() - 1).bounding_box()
    before = version(page)
    legal.first.click(position=CORNER)
    assert second
    page.mouse.click(second["x"] + CORNER["x"], second["y"] + CORNER["y"])
    held.wait()
    assert locked_controls(page) == []
    page.wait_for_timeout(150)
    assert len(held.routes) == 1, "a second card was sent while the first was on its way"
    held.release()
    wait_new_version(page, before)

    # a hand's end: "Next hand", twice
    held.stop()
    rig(page, database_url, before_last_trick(Rules(), seed=2))
    held = Held(page)
    before = version(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    held.wait()
    held.release()
    wait_new_version(page, before)
    assert phase(page) == "round_over"
    next_hand = page.get_by_role("button", name="Next hand")
    before = version(page)
    next_hand.dblclick()
    held.wait()
    assert next_hand.is_disabled() and next_hand.get_attribute("aria-disabled") == "true"
    assert locked_controls(page) == []
    page.wait_for_timeout(150)
    assert len(held.routes) == 1
    held.release()
    wait_new_version(page, before)
    assert phase(page) == "pass"


def test_no_click_can_land_on_a_card_that_took_another_ones_place(page: Page, base_url: str,
                                                                    database_url: str) -> None:
    """The person holds the 2♣, so after passing the new hand comes back at once (no
    computer player moves first) with other cards where the chosen ones were: between the
    card a pointer was on and the one now under it there is always time to see the change."""
    page.goto(base_url + "/")
    new_game(page, fast=True)
    clubs = CardSet([Card(f"{r}C") for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")])
    others = [c for c in Rules().deck if c not in clubs]
    rig(page, database_url, Game(Rules(), seed=7,
                                 deals=[[clubs, CardSet(others[0::3]), CardSet(others[1::3]), CardSet(others[2::3])]]))
    page.evaluate(WATCH_POINTS)
    cards = page.locator(".stage .hand-form .in-hand")
    points = []
    for i in range(13):
        box = cards.nth(i).bounding_box()
        assert box
        points.append((box["x"] + CORNER["x"], box["y"] + CORNER["y"]))
    page.evaluate("(ps) => ps.forEach(p => { window.__points.push(p); window.__hits.push([]); })", points)
    # pass the three highest clubs, double-clicking the pass button, then play on by double clicks
    for i in (10, 11, 12):
        cards.nth(i).click(position=CORNER)
    before = version(page)
    page.locator("[data-pass-submit]").dblclick()
    wait_new_version(page, before)
    assert phase(page) == "play"
    for _ in range(4):
        legal = page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)")
        before = version(page)
        legal.first.dblclick(position=CORNER)
        wait_new_version(page, before)
    page.wait_for_timeout(400)
    hits = page.evaluate("window.__hits")
    changes = []
    for point, log in zip(points, hits, strict=True):
        for i in range(1, len(log)):
            (_, k1), (t2, k2) = log[i - 1], log[i]
            if k1 is not None and k2 is not None and k1 != k2:
                changes.append((point, k1, k2, "at once"))
            if k1 is not None and k2 is None and i + 1 < len(log):
                t3, k3 = log[i + 1]
                if k3 is not None and k3 != k1 and t3 - t2 < 200:
                    changes.append((point, k1, k3, f"after {t3 - t2:.0f} ms"))
    assert changes == [], changes


# ---- a dropped connection, a server in trouble ----

@pytest.fixture
def own_app(tmp_path: Path) -> Iterator[AppProcess]:
    app = AppProcess(tmp_path / "data")
    app.start()
    try:
        yield app
    finally:
        app.stop()


def watched_page(browser: Browser, url: str) -> tuple[Page, list[str]]:
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(RECORD_SPEECH)
    page.goto(url + "/")
    return page, errors


def pass_three(page: Page) -> None:
    cards = page.locator(".stage .hand-form[data-mode=pass] .in-hand")
    for i in range(3):
        cards.nth(i).click(position=CORNER)
    page.locator("[data-pass-submit]").click()


def test_a_stopped_server_gets_patient_retries_a_banner_and_a_clean_resume(browser: Browser,
                                                                           own_app: AppProcess) -> None:
    page, errors = watched_page(browser, own_app.url)
    try:
        new_game(page, fast=True)
        v = version(page)
        sent: list[float] = []
        page.on("request", lambda r: sent.append(time.monotonic()))
        own_app.stop()
        pass_three(page)
        banner = page.locator("#connection")
        banner.wait_for(state="visible", timeout=5000)
        assert banner.inner_text().strip() == "Reconnecting…"
        start = time.monotonic()
        page.wait_for_timeout(6000)
        storm = [t for t in sent if t >= start - 1]
        assert len(storm) <= 8, f"{len(storm)} requests in 7 s while the server was down"
        assert len(sent) >= 3, "no retry while the server was down"
        assert alerted(page).count("Reconnecting…") == 1
        assert page.locator("#table").evaluate("t => t.inert")  # nothing to click into the void
        own_app.start()
        banner.wait_for(state="hidden", timeout=30_000)
        wait_idle(page)
        assert not page.locator("#table").evaluate("t => t.inert")
        # spoken through the polite queue, one message at a time, so it may come a moment later
        page.wait_for_function("() => window.__said.includes('Connected again.')", timeout=5000)
        assert said(page).count("Connected again.") == 1
        # the pass never reached the server: the table is as it was, and playing goes on
        assert (phase(page), version(page)) == ("pass", v)
        pass_three(page)
        wait_new_version(page, v)
        assert phase(page) == "play"
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("status", [503, 429, 500])
def test_a_server_in_trouble_is_retried_after_its_retry_after_never_sooner(browser: Browser, base_url: str,
                                                                           status: int) -> None:
    page, errors = watched_page(browser, base_url)
    try:
        new_game(page, fast=True)
        v = version(page)
        answered: list[float] = []

        def trouble(route: Route) -> None:
            answered.append(time.monotonic())
            if len(answered) <= 3:
                headers = {"Retry-After": "2"} if status != 500 else {}
                route.fulfill(status=status, headers=headers, content_type="text/plain", body="busy")
            else:
                route.continue_()

        page.route(re.compile(r"/(table|game/\w+)(\?.*)?$"), trouble)
        pass_three(page)
        page.locator("#connection").wait_for(state="visible", timeout=5000)
        page.locator("#connection").wait_for(state="hidden", timeout=30_000)
        wait_idle(page)
        assert len(answered) == 4
        gaps = [b - a for a, b in zip(answered, answered[1:], strict=False)]
        if status == 500:
            assert all(g >= 0.2 for g in gaps), gaps  # backed off, with jitter
        else:
            assert all(g >= 1.95 for g in gaps), gaps  # never sooner than Retry-After
        # the error body was never shown as the table
        assert page.locator("#table").count() == 1 and "busy" not in page.locator("#table").inner_text()
        assert (phase(page), version(page)) == ("pass", v)
        assert alerted(page).count("Reconnecting…") == 1
        assert errors == []
    finally:
        page.context.close()
