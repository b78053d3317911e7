"""Playing without a mouse or without seeing the screen, checked with axe-core, and the
page in a right-to-left and a CJK language."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from app import i18n
from app.presenter import CARD_NAMES, capital

from .table import RECORD_SPEECH, new_game, phase, said, version, wait_idle, wait_new_version, wait_said

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"



def last_said(page: Page, part: str) -> str:
    """The latest message containing ``part``, once it has been said (the region's queue
    gives each message its own moment, so it may come a little after the key press)."""
    page.wait_for_function("(s) => window.__said.some(m => m.includes(s))", arg=part, timeout=10_000)
    return next(m for m in reversed(said(page)) if part in m)


def focused_card(page: Page) -> str | None:
    return page.evaluate("document.activeElement && document.activeElement.dataset.card || null")  # type: ignore[no-any-return]


def fast_by_keyboard(page: Page) -> None:
    """Tab to the table's Fast play switch and tick it with Space."""
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#table [data-fast-toggle]')"):
            break
    else:
        raise AssertionError("Tab never reached the Fast play switch")
    page.keyboard.press("Space")
    page.wait_for_function("() => document.body.dataset.fast === '1'")


def test_a_whole_round_with_the_keyboard_alone(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_SPEECH)
    page.goto(base_url + "/")
    fast_by_keyboard(page)
    # Enter starts the game, from wherever the focus is outside a control
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Enter")
    page.wait_for_selector("#table[data-phase=pass]")
    wait_idle(page)
    wait_said(page, "Shuffling the deck.")

    # the hand is one tab stop: exactly one card is in the tab order, and it has the focus
    hand = page.locator(".stage .hand .in-hand")
    assert hand.evaluate_all("bs => bs.filter(b => b.tabIndex === 0).length") == 1
    first = focused_card(page)
    assert first == hand.first.get_attribute("data-card")
    page.keyboard.press("End")
    assert focused_card(page) == hand.last.get_attribute("data-card")
    page.keyboard.press("Home")
    assert focused_card(page) == first

    # Space chooses three cards to pass; each choice is said, aria-pressed tells it
    chosen = []
    for _ in range(3):
        chosen.append(focused_card(page))
        page.keyboard.press("Space")
        page.keyboard.press("ArrowDown")
    pressed = hand.evaluate_all("bs => bs.filter(b => b.getAttribute('aria-pressed') === 'true')"
                                ".map(b => b.dataset.card)")
    assert pressed == chosen
    third = page.locator(f".stage .hand .in-hand[data-card='{chosen[2]}']").get_attribute("aria-label")
    assert last_said(page, " chosen, 3 of 3.") == f"{third} chosen, 3 of 3."
    # a fourth is refused, out loud
    page.keyboard.press("Space")
    assert last_said(page, "You have") == "You have already chosen three cards. Put one back first."
    page.keyboard.press("Tab")  # out of the hand: straight to the pass button
    assert page.evaluate("document.activeElement.matches('[data-pass-submit]')")
    before = version(page)
    page.keyboard.press("Enter")
    wait_new_version(page, before)

    # play the hand: Enter on the focused card every turn
    for _ in range(60):
        wait_idle(page)
        if phase(page) != "play":
            break
        card = focused_card(page)
        assert card is not None, "the focus is not on a card in the hand when it is the person's turn"
        assert page.locator(f".stage .in-hand[data-card='{card}']").is_enabled()
        before = version(page)
        page.keyboard.press("Enter")
        wait_new_version(page, before)
    assert phase(page) in ("round_over", "moon_choice")

    last_said(page, "Hand 1 scores: ")
    speech = said(page)
    text = "\n".join(speech)
    assert "The cards have been passed." in text
    # each trick was told in one sentence ending with who took it; the plays before the
    # person's turn were told when the turn came, so every card of the hand was said once
    tricks = [s for s in speech if " takes the trick, " in s or "; you take the trick, " in s]
    assert len(tricks) == 13, tricks
    plays = [m for s in speech for m in re.findall(r"(?:You|West|North|East): ([a-z]+ of [a-z]+)", s)]
    assert len(plays) == 52 and len(set(plays)) == 52, plays
    assert any(s.startswith("Your turn") for s in speech)
    assert "Hand 1 scores: You " in text
    # the focus is on the button that deals the next hand (or scores the moon)
    assert page.evaluate("document.activeElement.closest('.result') !== null")

    # the reading keys
    page.keyboard.press("s")
    assert last_said(page, "Scores: You ")
    page.keyboard.press("l")
    assert last_said(page, "Last trick: ")
    focus_before = page.evaluate("document.activeElement.outerHTML")
    page.keyboard.press("h")
    assert last_said(page, "Keys: Enter plays the focused card")
    # …and shows them, in a dialog that Escape closes, giving the focus back
    assert page.get_by_role("dialog", name="Playing with the keyboard").is_visible()
    page.keyboard.press("Escape")
    assert page.get_by_role("dialog", name="Playing with the keyboard").is_hidden()
    assert page.evaluate("document.activeElement.outerHTML") == focus_before
    count = len(said(page))
    page.keyboard.press("t")
    page.wait_for_function("(n) => window.__said.length > n", arg=count)
    assert said(page)[-1] == page.locator("#status").inner_text().strip()
    assert said(page)[-1] in ("Hand over", "You shot the moon! Choose how to score it")
    assert page.evaluate("window.__alerts") == []


def test_reading_keys_and_letters_left_alone_in_fields(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_SPEECH)
    page.goto(base_url + "/")
    new_game(page)
    page.keyboard.press("r")
    hand_text = last_said(page, "Clubs: ")
    assert hand_text.startswith("Clubs: ") and " Hearts: " in hand_text
    count = len(said(page))
    # typed into a field, or with a modifier held, a letter is only a letter
    field = page.get_by_role("textbox", name="Embed code")
    field.focus()
    field.press("t")
    assert len(said(page)) == count
    page.locator(".stage .hand .in-hand").first.focus()
    page.keyboard.press("Alt+c")
    assert len(said(page)) == count
    page.keyboard.press("c")
    assert last_said(page, "No cards") == "No cards on the table."


WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def run_axe(page: Page, selector: str) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.2 A/AA rules on part of the page (loaded by :func:`with_axe`)."""
    result = page.evaluate("""async ([sel, tags]) => {
        const r = await axe.run(sel, { runOnly: { type: 'tag', values: tags } });
        return r.violations.map(v => ({ id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')) }));
    }""", [selector, WCAG_TAGS])
    return list(result)


def with_axe(page: Page) -> None:
    # an init script, so the page's Content-Security-Policy does not apply to it
    page.add_init_script(path=str(AXE))


def test_axe_finds_nothing_on_the_table_the_options_and_the_round_summary(page: Page, base_url: str) -> None:
    with_axe(page)
    page.goto(base_url + "/")
    assert run_axe(page, "body") == []  # the welcome table and the whole page
    page.get_by_role("button", name="New game…").click()
    assert run_axe(page, "#dialog-new-game") == []  # the options
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Keys").click()
    assert run_axe(page, "#dialog-keys") == []
    page.keyboard.press("Escape")
    new_game(page, passing=False, target=100, fast=True)
    assert phase(page) == "play"
    assert run_axe(page, "#table") == []
    for _ in range(20):
        if phase(page) != "play":
            break
        legal = page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)")
        if page.locator(".stage .in-hand.received, .stage .in-hand.illegal").count():
            assert run_axe(page, "#table") == []  # faded and marked cards included
        before = version(page)
        legal.first.press("Enter")
        wait_new_version(page, before)
    while phase(page) == "play":
        before = version(page)
        page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.press("Enter")
        wait_new_version(page, before)
    assert phase(page) in ("round_over", "moon_choice")
    violations = run_axe(page, "body")  # the round summary with the side panel brought up to date
    assert violations == [], json.dumps(violations, indent=1)


def catalogue_text(code: str, message: str) -> str:
    """What the catalogue says for a message now (a language not yet translated says English)."""
    with i18n.using(i18n.BY_SLUG[code.lower()]):
        return i18n.gettext(message)


def test_the_table_in_arabic_mirrors_and_in_japanese_reads(page: Page, base_url: str) -> None:
    page.goto(base_url + "/ar/")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    # the page mirrors: the side panel is to the left of the table, headings start on the right
    table_box = page.locator(".play-col").bounding_box()
    panel_box = page.locator(".panel").bounding_box()
    assert table_box and panel_box and panel_box["x"] < table_box["x"]
    assert page.evaluate("getComputedStyle(document.querySelector('.panel h2')).direction") == "rtl"
    page.get_by_role("button", name=catalogue_text("ar", "New game"), exact=True).click()
    page.wait_for_selector("#table[data-phase=pass]")
    wait_idle(page)
    assert page.locator("#status").inner_text() == catalogue_text("ar", "Pass three cards to the left")
    # the hand stays a fan from left to right, so each card's corner shows
    xs = page.locator(".stage .hand .in-hand").evaluate_all("bs => bs.map(b => b.getBoundingClientRect().left)")
    assert len(xs) == 13 and xs == sorted(xs)
    # the forms keep the language: passing answers in Arabic
    before = version(page)
    cards = page.locator(".stage .hand .in-hand")
    for i in range(3):
        cards.nth(i).click(position={"x": 8, "y": 14})
    page.locator("[data-pass-submit]").click()
    wait_new_version(page, before)
    assert page.evaluate("document.documentElement.lang") == "ar"
    assert page.locator("#table").get_attribute("data-say") != ""
    assert page.locator("#sheet h2").inner_text() == catalogue_text("ar", "Score sheet")

    page.goto(base_url + "/ja/embed")
    assert page.evaluate("[document.documentElement.lang, document.documentElement.dir]") == ["ja", "ltr"]
    wait_idle(page)
    assert phase(page) == "play"  # the same player's game, now in Japanese
    assert page.locator("#status").inner_text().strip() != ""
    labels = page.locator(".stage .hand .in-hand").evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")
    assert len(labels) == 13
    names = {capital(catalogue_text("ja", n)) for n in CARD_NAMES}
    assert all(label.split(", ")[0] in names for label in labels), labels


def test_reduced_motion_stills_the_table(page: Page, base_url: str) -> None:
    page.emulate_media(reduced_motion="reduce")
    page.goto(base_url + "/")
    page.get_by_role("button", name="New game", exact=True).click()
    page.wait_for_selector("#table .deck .back")  # the shuffle, shown while the deal plays back
    assert page.evaluate("getComputedStyle(document.querySelector('#table .deck .back')).animationName") == "none"
    wait_idle(page)
    card = page.locator(".stage .hand .in-hand").first
    assert card.evaluate("b => getComputedStyle(b).transitionDuration") == "0s"
