"""Issue 12, item 1: the Learn section in a browser.  Every lesson is completed by mouse (a
finger on phones) and by keyboard alone, at a desktop and two phone sizes: an illegal card is
explained by the rule it breaks, a poor one with advice, the right one praised while its
trick plays out; then "Play your first hand" deals an Easy game.  What a screen reader hears
is read from the page's live region."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page

from app import i18n, lessons

from .learner import (
    card,
    enter,
    focused_card,
    follow_next_link,
    key_to,
    lesson,
    played_out,
    press_on,
    tab_into_hand,
    tap,
    verdict,
)
from .table import RECORD_SPEECH, wait_idle
from .test_a11y import last_said, run_axe, with_axe

SIZES = {"desktop": (1280, 800), "phone-360": (360, 740), "phone-390": (390, 844)}


def open_page(browser: Browser, size: str, path: str = "/learn") -> Page:
    width, height = SIZES[size]
    phone = size.startswith("phone")
    # phones ask for reduced motion: the trick of a right move is then shown whole at once (the
    # desktop sees it played out card by card), and those tests need not wait for it
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone,
                                  reduced_motion="reduce" if phone else "no-preference")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.add_init_script(RECORD_SPEECH)
    page.__dict__["errors"] = errors
    return page


def fits(page: Page, slug: str) -> None:
    """The lesson is all there at this width: nothing scrolls sideways or is cut off."""
    width = page.viewport_size["width"]  # type: ignore[index]
    where = f"{page.url}: {slug}"
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{where}: the page scrolls sideways"
    boxes = lesson(page, slug).locator(".felt, .hand .in-hand, .plate").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })")
    assert all(left >= -1 and right <= width + 1 for left, right in boxes), f"{where}: something is cut off"


def play_first_hand(page: Page) -> None:
    page.get_by_role("button", name="Play your first hand").click()
    page.wait_for_selector("#table[data-phase=pass]")
    wait_idle(page)
    assert page.url.endswith("/") and page.locator(".table-bar .level").text_content() == "Computer players: Easy"


@pytest.mark.parametrize("size", list(SIZES))
def test_every_lesson_by_mouse_or_finger(browser: Browser, base_url: str, size: str) -> None:
    page = open_page(browser, size, "/")
    page.goto(base_url + "/")
    # the welcome screen and the header both lead here
    assert page.locator(".learn-link a").get_attribute("href") == "/learn"
    page.locator(".learn-link a").click()
    page.wait_for_url("**/learn")
    for s in lessons.LESSONS:
        assert lesson(page, s.slug).locator("h2").inner_text().endswith(s.title)
        fits(page, s.slug)

    # 2: passing; a fourth card is refused by the page, the wrong three are explained
    for code in ("AH", "KH", "9C", "2D"):
        tap(page, "pass", code)
    assert card(page, "pass", "2D").get_attribute("aria-pressed") == "false"
    lesson(page, "pass").locator("[data-pass-submit]").click()
    assert "pass her" in verdict(page, "pass", "poor")
    for code in ("QS", "AH", "KH"):
        tap(page, "pass", code)
    lesson(page, "pass").locator("[data-pass-submit]").click()
    assert verdict(page, "pass", "right").startswith("Well passed")
    assert "Received from North:" in lesson(page, "pass").locator(".strip").inner_text()
    fits(page, "pass")

    # 3: the first lead; any card but the two of clubs breaks the rule, which is named
    tap(page, "lead", "QD")
    assert verdict(page, "lead", "illegal") == lessons.RULE_TEXTS["first_lead"]
    tap(page, "lead", "2C")
    assert verdict(page, "lead", "right") == lessons.BY_SLUG["lead"].praise
    assert played_out(page, "lead") == ["2C", "AC", "10C", "4C"]
    assert lesson(page, "lead").locator(".trick-caption").inner_text() == "West takes the trick"

    # 4: following suit
    tap(page, "follow", "8H")
    assert verdict(page, "follow", "illegal") == lessons.RULE_TEXTS["must_follow"]
    tap(page, "follow", "9C")
    verdict(page, "follow", "right")
    assert played_out(page, "follow") == ["5C", "QC", "8C", "9C"]

    # 8: stopping the moon; a safe discard is legal but poor
    tap(page, "moon", "JD")
    assert "throw in a heart" in verdict(page, "moon", "poor")
    tap(page, "moon", "5H")
    verdict(page, "moon", "right")
    assert played_out(page, "moon") == ["KC", "5C", "5H", "AC"]
    fits(page, "moon")
    assert last_said(page, "Well played").endswith("West takes the trick, 1 point.")

    play_first_hand(page)
    assert page.__dict__["errors"] == []
    page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_every_lesson_by_keyboard_alone(browser: Browser, base_url: str, size: str) -> None:
    page = open_page(browser, size)
    page.goto(base_url + "/")
    # the header's Learn link, reached with the keyboard from the welcome's "New game" (autofocus,
    # which the browser applies after the load event: wait for it, or Shift+Tab starts at the end)
    page.wait_for_function("document.activeElement && document.activeElement.matches('[data-start]')")
    press_on(page, "Shift+Tab", "Learn")
    page.wait_for_url("**/learn")

    # 1 has nothing to do: its Next link leads on; a hand is one tab stop
    tab_into_hand(page, "pass")
    hand = lesson(page, "pass").locator(".hand .in-hand")
    assert hand.evaluate_all("bs => bs.filter(b => b.tabIndex === 0).length") == 1
    page.keyboard.press("r")  # the reading keys read the lesson in hand
    assert last_said(page, "Clubs:").startswith("Clubs: two and nine. Diamonds: two, three, four, five, and seven.")
    page.keyboard.press("t")
    assert last_said(page, "Pass three") == "Pass three cards across"
    for code in ("QS", "KH", "AH"):
        key_to(page, code)
        page.keyboard.press("Space")
    assert last_said(page, "3 of 3") == "Ace of hearts chosen, 3 of 3."
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('[data-pass-submit]')")
    enter(page, "pass", "right")
    assert last_said(page, "Well passed").endswith("Received from North: ten of diamonds, jack of diamonds, "
                                                   "and queen of diamonds.")
    follow_next_link(page, "pass")

    tab_into_hand(page, "lead")
    key_to(page, "9C")
    enter(page, "lead", "illegal")
    assert focused_card(page) == "9C", "the focus stays on the card tried"
    assert last_said(page, "two of clubs must") == lessons.RULE_TEXTS["first_lead"]
    page.keyboard.press("Home")
    enter(page, "lead", "right")
    assert last_said(page, "Right: the two").endswith("West takes the trick, 0 points.")
    follow_next_link(page, "lead")

    tab_into_hand(page, "follow")
    page.keyboard.press("c")
    assert last_said(page, "West: five") == "West: five of clubs, North: queen of clubs, East: eight of clubs."
    page.keyboard.press("f")
    assert last_said(page, "suit led") == "The suit led is clubs."
    page.keyboard.press("ArrowRight")  # to the diamonds
    assert focused_card(page) == "2D"
    enter(page, "follow", "illegal")
    page.keyboard.press("ArrowLeft")
    assert focused_card(page) == "9C"
    enter(page, "follow", "right")
    assert last_said(page, "Right: you followed").endswith("North takes the trick, 0 points.")

    # the watching lessons are read the same way, and H shows the keys
    lesson(page, "queen").scroll_into_view_if_needed()
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("l")
    assert last_said(page, "Last trick:").startswith("Last trick: North: ace of spades, East: queen of spades")
    page.keyboard.press("h")
    assert page.locator("#dialog-keys").is_visible()
    page.keyboard.press("Escape")

    tab_into_hand(page, "moon")
    key_to(page, "5D")
    enter(page, "moon", "poor")
    page.keyboard.press("End")
    assert focused_card(page) == "5H"
    enter(page, "moon", "right")
    follow_next_link(page, "moon")
    press_on(page, "Tab", "Play your first hand")
    page.wait_for_selector("#table[data-phase=pass]")
    assert page.__dict__["errors"] == []
    page.context.close()


def test_a_lesson_again_and_without_script(browser: Browser, base_url: str) -> None:
    page = open_page(browser, "desktop")
    page.goto(base_url + "/learn")
    tap(page, "lead", "2C")
    verdict(page, "lead", "right")
    lesson(page, "lead").get_by_role("link", name="Try it again").click()
    page.wait_for_selector("#lesson-lead[data-verdict=''] .hand .in-hand[data-card='2C']")
    assert focused_card(page) == "2C"
    page.context.close()
    # with no script at all the lessons are forms: a card is a submit button
    context = browser.new_context(java_script_enabled=False)
    plain = context.new_page()
    plain.goto(base_url + "/learn")
    plain.locator("#lesson-follow .in-hand[data-card='9C']").click(position={"x": 8, "y": 14})
    plain.wait_for_url("**/learn/follow?card=9C#lesson-follow")
    assert plain.locator("#lesson-follow[data-verdict=right]").count() == 1
    context.close()


def test_the_lessons_in_every_language_fit_a_phone(browser: Browser, base_url: str) -> None:
    page = open_page(browser, "phone-360")
    for lang in i18n.LANGUAGES:
        page.goto(f"{base_url}/{lang.slug}/learn")
        assert page.locator("html").get_attribute("dir") == lang.dir
        with i18n.using(lang):
            title = i18n.gettext(lessons.BY_SLUG["follow"].title)
            rule = i18n.gettext(lessons.RULE_TEXTS["must_follow"])
        assert lesson(page, "follow").locator("h2").inner_text().endswith(title), lang.code
        tap(page, "follow", "2D")
        assert verdict(page, "follow", "illegal") == rule, lang.code
        for s in lessons.LESSONS:
            fits(page, s.slug)
    assert page.__dict__["errors"] == []
    page.context.close()


def test_axe_finds_nothing_on_the_learn_page(browser: Browser, base_url: str) -> None:
    page = open_page(browser, "desktop")
    with_axe(page)
    page.goto(base_url + "/learn")
    tap(page, "lead", "9C")
    verdict(page, "lead", "illegal")
    tap(page, "moon", "5H")
    played_out(page, "moon")
    violations = run_axe(page, "body")
    assert violations == [], json.dumps(violations, indent=1)
    page.context.close()
