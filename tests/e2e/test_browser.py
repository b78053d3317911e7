"""A person at the table, in Debian's Chromium: whole game, reload, iframe, phone."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from .server import host_page
from .table import (
    deal_from_the_welcome,
    hand_names,
    new_game,
    phase,
    phone,
    play_first_legal,
    take_turn,
    trick_cards,
    version,
    wait_idle,
)


def start(page: Page, base_url: str, target: int = 100, fast: bool = True, passing: bool = True) -> None:
    page.goto(base_url + "/")
    new_game(page, target=target, fast=fast, passing=passing)


def test_a_whole_game_by_clicking(page: Page, base_url: str) -> None:
    start(page, base_url, target=10)
    assert page.locator("#status").inner_text() == "Pass three cards to the left"
    seen = set()
    checked_illegal = False
    for _ in range(400):
        p = phase(page)
        if p == "game_over":
            break
        if p == "play" and not checked_illegal and page.locator(".stage .in-hand.illegal").count():
            # an illegal card is faded, dashed, disabled: clicking it does nothing
            illegal = page.locator(".stage .in-hand.illegal").first
            assert illegal.is_disabled()
            before = version(page)
            illegal.click(force=True)
            page.wait_for_timeout(200)
            assert version(page) == before
            checked_illegal = True
        if p == "play":
            assert page.locator("#status").inner_text().startswith("Your turn")
        seen.add(take_turn(page))
    assert phase(page) == "game_over"
    assert {"pass", "play"} <= seen
    result = page.locator(".stage .result")
    assert "wins the game" in result.inner_text() or "You won the game!" in result.inner_text()
    assert page.get_by_role("button", name="New game", exact=True).is_visible()
    # the score sheet and records were brought up to date after the playback
    assert page.locator("#sheet tbody tr").count() >= 1
    records = page.locator("#records").inner_text()
    assert "of 1" in records
    # the live region told the story
    assert "takes the trick" in page.locator("#announcer").inner_text() or \
        "take the trick" in page.locator("#announcer").inner_text()
    before = version(page)
    page.get_by_role("button", name="New game", exact=True).click()
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) !== {before}")
    wait_idle(page)
    assert phase(page) == "pass"


def test_reload_mid_trick_and_continue(page: Page, base_url: str) -> None:
    start(page, base_url, passing=False)
    # play until the person must follow a trick the others have started
    for _ in range(13):
        if phase(page) == "play" and trick_cards(page):
            break
        play_first_legal(page)
    assert trick_cards(page), "the person never had to follow"
    hand, trick, v = hand_names(page), trick_cards(page), version(page)
    page.reload()
    wait_idle(page)
    assert (hand_names(page), trick_cards(page), version(page)) == (hand, trick, v)
    play_first_legal(page)
    assert version(page) > v
    assert len(hand_names(page)) == len(hand) - 1


def test_playing_inside_an_iframe_on_another_site(browser: Browser, base_url: str, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    try:
        with host_page(tmp_path / "host", base_url) as host:
            page.goto(host)
            frame = page.frame_locator("iframe[title=Hearts]")
            frame.get_by_role("button", name="New game", exact=True).click()
            game = next(f for f in page.frames if f.url.endswith("/embed"))
            game.wait_for_selector("#table[data-phase=pass]")
            wait_idle(game)
            take_turn(game)  # pass
            take_turn(game)  # play a card
            v, hand = version(game), hand_names(game)
            assert v > 0
            # the cookie came back with every request from the frame: reloading the host
            # page shows the same game
            page.reload()
            game = next(f for f in page.frames if f.url.endswith("/embed"))
            game.wait_for_selector("#table[data-phase=play]")
            wait_idle(game)
            assert (version(game), hand_names(game)) == (v, hand)
            assert page.get_by_role("link", name="Play Hearts online").is_visible()
    finally:
        context.close()


def test_a_phone_shows_the_whole_hand(browser: Browser, base_url: str) -> None:
    for width, height in ((360, 740), (390, 844)):
        page = phone(browser, width, height)
        try:
            deal_from_the_welcome(page, base_url)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            boxes = page.locator(".stage .hand .in-hand").evaluate_all(
                "bs => bs.map(b => { const r = b.getBoundingClientRect(); return [r.left, r.right]; })")
            assert len(boxes) == 13
            assert all(left >= 0 and right <= width for left, right in boxes)
            # every card's corner (rank and suit) stays uncovered by its neighbour
            steps = [b[0] - a[0] for a, b in zip(boxes, boxes[1:], strict=False)]
            assert min(steps) >= 18
            # tapping works on a phone too
            page.locator(".stage .in-hand").nth(0).tap(position={"x": 8, "y": 14})
            assert page.locator(".stage .in-hand").nth(0).get_attribute("aria-pressed") == "true"
        finally:
            page.context.close()


def test_keyboard_reads_the_table_and_jumps_between_suits(page: Page, base_url: str) -> None:
    start(page, base_url)
    announcer = page.locator("#announcer")
    page.locator("body").press("t")
    expect(announcer.locator("p").last).to_have_text("Pass three cards to the left")  # messages are queued
    page.locator("body").press("c")
    expect(announcer.locator("p").last).to_have_text("No cards on the table.")
    page.locator("body").press("s")
    expect(announcer.locator("p").last).to_have_text("Scores: You 0, West 0, North 0, and East 0.")
    cards = page.locator(".stage .hand .in-hand")
    suits = cards.evaluate_all("bs => bs.map(b => b.dataset.card.slice(-1))")
    cards.first.focus()
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("document.activeElement.dataset.card")
    next_suit = next((s for s in suits if s != suits[0]), suits[-1])
    assert focused.endswith(next_suit)
    assert focused == next(c for c in cards.evaluate_all("bs => bs.map(b => b.dataset.card)") if c.endswith(next_suit))
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.card") == cards.first.get_attribute("data-card")
