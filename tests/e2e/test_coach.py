"""Practice games in the browser (issue 12): Hint and Undo by mouse and keyboard, practice
games out of the records, and the review rating a planted blunder."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from engine import Game, Rules

from ..bots.test_coach import BLUNDER_DEAL
from .rig import decisive_last_trick, rig
from .table import CORNER, RECORD_SPEECH, new_game, phase, version, wait_idle, wait_new_version, wait_said

PRACTICE = "Practice game: not counted in your records"


def hand_codes(page: Page) -> list[str]:
    return page.locator(".stage .hand .in-hand").evaluate_all("bs => bs.map(b => b.dataset.card)")


def hinted(page: Page) -> list[str]:
    return page.locator(".stage .hand .in-hand.hinted").evaluate_all("bs => bs.map(b => b.dataset.card)")


def test_hint_and_undo_in_a_practice_game_by_mouse_and_keyboard(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_SPEECH)
    page.goto(base_url)
    new_game(page, difficulty="easy", practice=True, fast=True)
    expect(page.locator(".table-bar .practice")).to_have_text(PRACTICE)
    assert phase(page) == "pass"
    # Hint by mouse: three cards to pass, highlighted, with a sentence why
    page.locator("[data-hint]").click()
    expect(page.locator(".hint-text")).to_contain_text("Hint:", timeout=60_000)  # Hard thinks in the pool
    chosen = hinted(page)
    assert len(chosen) == 3 and set(chosen) <= set(hand_codes(page))
    wait_said(page, "Hint:")
    for code in chosen:
        page.locator(f".stage .hand .in-hand[data-card='{code}']").click(position=CORNER)
    before = version(page)
    page.locator("[data-pass-submit]").click()
    wait_new_version(page, before)
    assert phase(page) == "play"
    # Hint by keyboard (I): one card; play it
    page.locator("body").press("i")
    expect(page.locator(".hint-text")).to_be_visible(timeout=60_000)
    [card] = hinted(page)
    before = version(page)
    page.locator(f".stage .hand .in-hand[data-card='{card}']").click(position=CORNER)
    wait_new_version(page, before)
    assert card not in hand_codes(page)
    # Undo by mouse: the card is back in the hand, the person to play again
    before = version(page)
    page.locator("[data-undo]").click()
    wait_new_version(page, before)
    assert card in hand_codes(page) and phase(page) == "play"
    assert version(page) == before + 1
    wait_said(page, "Taken back.")
    # Undo by keyboard (U), again: back to the pass, the three cards in the hand
    before = version(page)
    page.locator("body").press("u")
    wait_new_version(page, before)
    assert phase(page) == "pass" and set(chosen) <= set(hand_codes(page))
    expect(page.locator("[data-undo]")).to_be_disabled()


def test_a_finished_practice_game_stays_out_of_the_records(page: Page, base_url: str, database_url: str) -> None:
    page.goto(base_url)
    new_game(page, difficulty="easy", practice=True, fast=True)
    rig(page, database_url, decisive_last_trick(Rules(max_rounds=1)))
    before = version(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    wait_new_version(page, before)
    assert phase(page) == "game_over"
    records = page.locator("#records")
    expect(records).to_contain_text("1 practice game finished, not counted above")
    for row in records.locator("tbody tr").all():
        assert "0 of 0" in row.inner_text()


def test_the_review_rates_dumping_the_queen_on_your_own_trick_as_a_blunder(page: Page, base_url: str,
                                                                              database_url: str) -> None:
    page.add_init_script(RECORD_SPEECH)
    page.goto(base_url)
    new_game(page, difficulty="medium", practice=True, fast=True)
    rig(page, database_url, Game(Rules(passing=False), seed=3, deals=[BLUNDER_DEAL]))
    for card in ("2C", "QS"):
        before = version(page)
        page.locator(f".stage .hand-form[data-mode=play] .in-hand[data-card='{card}']").click(position=CORNER)
        wait_new_version(page, before)
    while phase(page) == "play":
        before = version(page)
        page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
        wait_new_version(page, before)
    assert phase(page) == "round_over"
    page.get_by_role("button", name="Review this hand").click()
    dialog = page.get_by_role("dialog", name="Review of hand 1")
    expect(dialog.locator(".review-step").first).to_be_visible(timeout=60_000)
    expect(dialog.locator(".review-step").first).to_contain_text("Trick 1")
    # → steps to the second trick, where the Q♠ won the person's own trick
    page.keyboard.press("ArrowRight")
    step = dialog.locator(".review-step:not([hidden])")
    expect(step).to_contain_text("Trick 2")
    expect(step.locator(".verdict")).to_have_text("Blunder")
    expect(step).to_contain_text("You played the queen of spades")
    expect(step.locator(".better")).to_contain_text("Better: the")
    # said in the polite region once what was queued before it has been said
    page.wait_for_function("() => window.__said.some(s => s.includes('Blunder') && s.includes('Trick 2'))",
                           timeout=10_000)
    # ← and the buttons step back and forth
    page.keyboard.press("ArrowLeft")
    expect(dialog.locator(".review-step:not([hidden])")).to_contain_text("Trick 1")
    dialog.get_by_role("button", name="Next").click()
    expect(dialog.locator(".review-step:not([hidden])")).to_contain_text("Trick 2")
    expect(dialog.locator(".review-total")).to_contain_text("Expected points lost in this hand")
    # closed, and opened again from the hand's number in the score sheet (the kept review)
    dialog.get_by_role("button", name="Close").click()
    page.locator("#sheet").get_by_role("button", name="Review hand 1").click()
    expect(page.get_by_role("dialog", name="Review of hand 1").locator(".review-step").first).to_be_visible()
    page.keyboard.press("Escape")
    # V opens the review of the last finished hand
    page.locator("body").press("v")
    expect(page.get_by_role("dialog", name="Review of hand 1").locator(".review-step").first).to_be_visible()
    wait_idle(page)
