"""Going through the Learn page like a learner: by mouse (or finger) and by keyboard alone."""

from __future__ import annotations

from playwright.sync_api import Locator, Page

from .table import CORNER

STEP_WAIT = 10_000


def lesson(page: Page, slug: str) -> Locator:
    return page.locator(f"#lesson-{slug}")


def card(page: Page, slug: str, code: str) -> Locator:
    return lesson(page, slug).locator(f".hand .in-hand[data-card='{code}']")


def verdict(page: Page, slug: str, kind: str) -> str:
    """Wait for the lesson to answer with a verdict of this kind; its sentence."""
    page.wait_for_selector(f"#lesson-{slug}[data-verdict={kind}] .verdict", timeout=STEP_WAIT)
    return lesson(page, slug).locator(".verdict").inner_text().lstrip("✓!✗ ").strip()


def played_out(page: Page, slug: str) -> list[str]:
    """Wait until the trick of a right move has played out (its caption shown); its cards."""
    page.wait_for_function("(id) => { const c = document.querySelector(`#${id} .trick-caption`);"
                           " return c && getComputedStyle(c).opacity === '1'; }", arg=f"lesson-{slug}",
                           timeout=STEP_WAIT)
    return lesson(page, slug).locator(".center .on-table").evaluate_all("cs => cs.map(c => c.dataset.card)")


def enter(page: Page, slug: str, kind: str) -> str:
    """Enter on the focused card (or button): the lesson's verdict, of this kind."""
    page.keyboard.press("Enter")
    return verdict(page, slug, kind)


def tap(page: Page, slug: str, code: str) -> None:
    card(page, slug, code).click(position=CORNER)


def focused_card(page: Page) -> str | None:
    return page.evaluate("document.activeElement && document.activeElement.dataset.card || null")  # type: ignore[no-any-return]


def key_to(page: Page, code: str) -> None:
    """Move the focus along the hand with the arrow keys to the card ``code``."""
    page.keyboard.press("Home")
    for _ in range(14):
        if focused_card(page) == code:
            return
        page.keyboard.press("ArrowDown")
    raise AssertionError(f"the arrow keys never reached the {code}")


def tab_into_hand(page: Page, slug: str) -> None:
    """Tab from wherever the focus is until it is in the lesson's hand."""
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("(id) => !!document.activeElement.closest(`#${id} .hand`)", f"lesson-{slug}"):
            return
    raise AssertionError(f"Tab never reached the hand of lesson {slug}")


def press_on(page: Page, key: str, text: str, times: int = 20) -> None:
    """Press ``key`` (Tab, Shift+Tab) until the control showing ``text`` has the focus, then Enter."""
    for _ in range(times):
        page.keyboard.press(key)
        if page.evaluate("document.activeElement.textContent.trim()") == text:
            page.keyboard.press("Enter")
            return
    raise AssertionError(f"{key} never reached {text!r}")


def follow_next_link(page: Page, slug: str) -> None:
    """Enter on the lesson's "Next" link, which has the focus after a right move."""
    active = page.evaluate("document.activeElement.closest('.lesson') && document.activeElement.className")
    assert active == "next", f"after lesson {slug} the focus is on {active!r}, not its Next link"
    page.keyboard.press("Enter")
