"""Issue 10, delight: cards slide to the trick and then to its winner (not with reduced
motion), a tap anywhere skips the trick's linger, a moon is celebrated for a moment."""

from __future__ import annotations

import json
import time

from playwright.sync_api import Page, expect

from .rig import moon_for_the_person, rig
from .table import CORNER, QUICK_PLAYBACK, new_game, version, wait_idle, wait_new_version

# every Web Animation the page starts on a card of the table: what moved, and how it ends
RECORD_ANIMATIONS = """
window.__moves = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
  if (this.classList.contains('on-table')) {
    const last = frames[frames.length - 1];
    window.__moves.push({ card: this.dataset.card, seat: this.dataset.seat, from: frames[0].transform,
                          fades: last.opacity === 0 });
  }
  return animate.call(this, frames, options);
};
"""
LONG_TRICK = json.dumps({s: {"play": 100, "trick": 60_000, "": 0} for s in ("normal", "fast")})


def play_a_card(page: Page) -> None:
    before = version(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    wait_new_version(page, before)


def test_cards_slide_to_the_trick_and_then_to_its_winner(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_ANIMATIONS)
    page.goto(base_url + "/")
    new_game(page, fast=True, passing=False)
    for _ in range(3):
        play_a_card(page)
    moves = page.evaluate("window.__moves")
    arrivals = [m for m in moves if not m["fades"]]
    gathers = [m for m in moves if m["fades"]]
    assert any(m["seat"] == "0" for m in arrivals), "the person's card did not slide to the table"
    assert any(m["seat"] != "0" for m in arrivals), "no computer player's card slid to the table"
    assert all("translate(" in m["from"] for m in arrivals)
    assert len(gathers) >= 8, "the tricks' cards did not go to their winners"  # two tricks, at least


def test_with_reduced_motion_nothing_slides_and_no_moon_rises(page: Page, base_url: str, database_url: str) -> None:
    page.emulate_media(reduced_motion="reduce")
    page.add_init_script(RECORD_ANIMATIONS)
    page.add_init_script(QUICK_PLAYBACK)
    page.goto(base_url + "/")
    new_game(page, fast=True, passing=False)
    for _ in range(3):
        play_a_card(page)
    assert page.evaluate("window.__moves") == []
    rig(page, database_url, moon_for_the_person())
    page.evaluate("() => { window.__moves = []; }")
    for _ in range(13):
        play_a_card(page)
    assert page.locator("#table .moon-party").count() == 1
    expect(page.locator("#table .moon-party")).to_be_hidden()
    assert page.evaluate("window.__moves") == []


def test_a_tap_anywhere_skips_the_tricks_linger(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    new_game(page, fast=True, passing=False)
    page.evaluate("(p) => { document.body.dataset.pauses = p; }", LONG_TRICK)
    for _ in range(13):
        page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
        caption = page.locator("#table > .playback .trick-caption")
        try:
            caption.wait_for(timeout=3000)
            break
        except Exception:  # noqa: BLE001 - this card did not end a trick
            wait_idle(page)
    page.wait_for_timeout(500)
    assert caption.is_visible()  # a trick held for a minute…
    start = time.monotonic()
    page.mouse.click(640, 20)  # …until a tap anywhere
    caption.wait_for(state="detached", timeout=2000)
    assert time.monotonic() - start < 2


def test_a_moon_is_celebrated_briefly(page: Page, base_url: str, database_url: str) -> None:
    page.add_init_script(QUICK_PLAYBACK)
    page.goto(base_url + "/")
    new_game(page, fast=True)
    rig(page, database_url, moon_for_the_person())
    for _ in range(12):
        play_a_card(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    party = page.locator("#table > .stage:not([hidden]) .moon-party")
    party.wait_for(state="visible", timeout=30_000)
    assert party.evaluate("p => getComputedStyle(p).pointerEvents") == "none"  # never in the way
    expect(page.locator(".stage .result .moon-call")).to_have_text("You shot the moon!")
    expect(party).to_be_hidden(timeout=5000)  # and gone after a moment
    # on a reload the moon is not celebrated again
    page.reload()
    wait_idle(page)
    assert page.locator("#table .moon-party").count() == 0
