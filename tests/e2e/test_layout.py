"""Issue 10, item 7: at 360, 390, 768, 1280 and 1920 px wide and for 3 to 6 players, nothing
on the table is hidden or covered: seats, trick cards, the trick's caption, a hand's result,
the pass button, the score sheet and the list of tricks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from engine import Rules

from .rig import before_last_trick, rig
from .table import CORNER, new_game, wait_idle

SIZES = [(360, 740), (390, 844), (768, 1024), (1280, 800), (1920, 1080)]
LONG_TRICK = json.dumps({s: {"play": 100, "trick": 60_000, "": 0} for s in ("normal", "fast")})
Box = dict[str, float]


def rects(page: Page, selector: str) -> list[Box]:
    return list(page.locator(selector).evaluate_all("""els => els.filter(e => e.getClientRects().length)
        .map(e => { const r = e.getBoundingClientRect();
                    return {x: r.left, y: r.top, w: r.width, h: r.height, what: e.className + ' ' +
                            (e.dataset.card || e.textContent.trim().slice(0, 24))}; })"""))


def overlap(a: Box, b: Box) -> bool:
    return (min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 1
            and min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 1)


def clashes(first: list[Box], second: list[Box], same: bool = False) -> list[tuple[Any, Any]]:
    return [(a["what"], b["what"]) for i, a in enumerate(first) for j, b in enumerate(second)
            if (not same or i < j) and overlap(a, b)]


def inside(inner: Box, outer: Box) -> bool:
    return (inner["x"] >= outer["x"] - 1 and inner["y"] >= outer["y"] - 1
            and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + 1
            and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + 1)


def check_page(page: Page, width: int, where: str) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{where}: the page scrolls sideways"
    felt = rects(page, "#table .felt")[-1]
    plates = rects(page, "#table .felt .plate")
    cards = rects(page, "#table .felt .on-table")
    assert clashes(plates, plates, same=True) == [], where
    assert clashes(plates, cards) == [], where
    assert all(inside(p, felt) for p in plates), f"{where}: a seat is cut off by the table's edge"
    hand = rects(page, "#table > .stage .hand .in-hand")
    assert all(c["x"] >= 0 and c["x"] + c["w"] <= width for c in hand), f"{where}: the hand is cut off"
    sheet = page.locator("#sheet .scroll").evaluate("s => [s.scrollWidth, s.clientWidth]")
    assert sheet[0] <= sheet[1], f"{where}: the score sheet is cut off"
    tricks = page.locator("#tricks .trick-list")
    if tricks.count():
        assert tricks.evaluate("l => l.scrollHeight <= l.clientHeight + 1"), f"{where}: a trick is hidden"
        rows = tricks.locator("li").evaluate_all("""lis => lis.map(li => {
            const mini = li.querySelector('.mini').getBoundingClientRect().height;
            return li.getBoundingClientRect().height < 2 * mini + 4; })""")
        assert all(rows), f"{where}: a trick takes more than one line"


def at_every_size(page: Page, check: Any) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        check(width, height)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_nothing_on_the_table_is_hidden_or_covered(browser: Browser, base_url: str, database_url: str,
                                                   players: int) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.emulate_media(reduced_motion="reduce")  # measured where the cards come to rest
    try:
        page.goto(base_url + "/")
        new_game(page, fast=True, players=players)

        # a tap shows the card lifting, not a lingering blue box (the browser's tap highlight)
        highlight = page.locator(".stage .in-hand").first.evaluate("c => getComputedStyle(c).webkitTapHighlightColor")
        assert highlight == "rgba(0, 0, 0, 0)", highlight

        def passing(width: int, height: int) -> None:
            check_page(page, width, f"passing at {width}")
            button = rects(page, "[data-pass-submit]")[0]
            if width < 1000:  # on a phone or a tablet the pass button is on the first screen
                assert button["y"] + button["h"] <= height, f"the pass button is below the fold at {width}x{height}"

        at_every_size(page, passing)

        page.set_viewport_size({"width": 1280, "height": 800})
        rig(page, database_url, before_last_trick(Rules(players=players, omnibus=True), seed=players))
        at_every_size(page, lambda width, height: check_page(page, width, f"the last trick at {width}"))

        # the last trick taken, held on the table with its caption
        page.set_viewport_size({"width": 1280, "height": 800})
        page.evaluate("(p) => { document.body.dataset.pauses = p; }", LONG_TRICK)
        page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
        page.wait_for_selector("#table > .playback .trick-caption")

        def caption(width: int, height: int) -> None:
            box = rects(page, "#table > .playback .trick-caption")[0]
            felt = rects(page, "#table > .playback .felt")[0]
            assert inside(box, felt), f"the caption is cut off at {width}"
            assert clashes([box], rects(page, "#table > .playback .felt .on-table")) == [], width
            assert clashes([box], rects(page, "#table > .playback .felt .plate")) == [], width

        at_every_size(page, caption)
        page.mouse.click(5, 5)  # a tap anywhere: on with the game
        wait_idle(page)
        assert page.locator("#table").get_attribute("data-phase") == "round_over"

        def result(width: int, height: int) -> None:
            check_page(page, width, f"the hand's result at {width}")
            box = rects(page, "#table > .stage .result")[0]
            assert box["x"] >= 0 and box["x"] + box["w"] <= width, f"the result is cut off at {width}"
            assert clashes([box], rects(page, "#table .felt .plate")) == [], f"the result covers a seat at {width}"
            inner = page.locator("#table > .stage .result").evaluate("r => r.scrollHeight <= r.clientHeight + 1")
            assert inner, f"the result box scrolls at {width}"

        at_every_size(page, result)
    finally:
        context.close()
