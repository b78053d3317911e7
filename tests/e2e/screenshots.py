"""Screenshots of the table for docs/: ``python -m tests.e2e.screenshots``.

Plays a few hands in headless Chromium and captures the person's turn mid-trick, with
legal and illegal cards showing, at desktop and phone sizes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from .server import CHROMIUM, CHROMIUM_ARGS, ROOT, app_server
from .table import phase, take_turn, trick_cards, wait_idle

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def reach_an_interesting_turn(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    page.get_by_label("Fast play", exact=True).check()
    page.get_by_role("button", name="Deal the cards").click()
    page.wait_for_selector("#table[data-phase=pass]")
    wait_idle(page)
    # a few tricks in: some history in the side panel, a trick to follow, cards to avoid
    for _ in range(60):
        if (phase(page) == "play" and len(trick_cards(page)) >= 2
                and page.locator(".stage .in-hand.illegal").count() and page.locator("#tricks li").count() >= 3):
            return
        take_turn(page)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, app_server(Path(tmp) / "data") as base_url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, (width, height) in SIZES.items():
            context = browser.new_context(viewport={"width": width, "height": height},
                                          device_scale_factor=2 if name == "phone" else 1,
                                          is_mobile=name == "phone", has_touch=name == "phone")
            page = context.new_page()
            reach_an_interesting_turn(page, base_url)
            page.evaluate("window.scrollTo(0, 0)")
            out = ROOT / "docs" / f"screenshot-{name}.png"
            page.screenshot(path=str(out))
            print(out)
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
