"""Driving the table like a person: read what the page shows, click what it offers."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Frame, Page, Route

Surface = Page | Frame

# every message added to the polite and the assertive region, in order, recorded from the
# first moment of the page (the regions prune old messages, so reading them at the end
# would not show everything that was said)
RECORD_SPEECH = """
window.__said = []; window.__alerts = [];
new MutationObserver((records) => {
  for (const r of records) {
    const region = r.target.closest ? r.target.closest('#announcer, #alerts') : null;
    if (!region) continue;
    const log = region.id === 'alerts' ? window.__alerts : window.__said;
    for (const n of r.addedNodes) { const text = (n.textContent || '').trim(); if (text) log.push(text); }
  }
}).observe(document, { subtree: true, childList: true });
"""


# For tests about what the table shows, not about its timing: the playback's pauses made short
# (the page reads them from <body data-pauses>, set by the server)
QUICK_PLAYBACK = """
document.addEventListener('DOMContentLoaded', () => {
  const quick = { play: 20, trick: 60, '': 0 };
  document.body.dataset.pauses = JSON.stringify({ normal: quick, fast: quick });
});
"""


def said(s: Surface) -> list[str]:
    return list(s.evaluate("window.__said"))


def wait_said(s: Surface, start: str, timeout: float = 10_000) -> None:
    """Wait until a message beginning with ``start`` has been said: the polite region takes
    one message at a time (a short gap between them), so it may come after the table shows."""
    s.wait_for_function("(t) => window.__said.some(m => m.startsWith(t))", arg=start, timeout=timeout)


def alerted(s: Surface) -> list[str]:
    return list(s.evaluate("window.__alerts"))


VARIANT_LABELS = {
    "passing": "Pass three cards", "omnibus": "Omnibus", "spot_hearts": "Spot hearts",
    "queen_breaks_hearts": "Q♠ breaks hearts", "no_breaking": "No breaking",
    "points_on_first_trick": "Points allowed on the first trick", "shooters_choice": "Shooter’s choice",
    "cancellation": "Cancellation Hearts",
    "last_hand_breaks_ties": "A tie at the end goes to the lower score in the last hand",
}

# cards in a hand overlap; like a finger, click the uncovered corner, not the middle
CORNER = {"x": 8, "y": 14}

IDLE = ("() => { const t = document.getElementById('table');"
        " return t && !document.body.dataset.playing && !t.hasAttribute('aria-busy'); }")


def wait_idle(s: Surface) -> None:
    s.wait_for_function(IDLE, timeout=30_000)


def version(s: Surface) -> int:
    return int(s.locator("#table").get_attribute("data-version") or 0)


def phase(s: Surface) -> str:
    return s.locator("#table").get_attribute("data-phase") or ""


def wait_new_version(s: Surface, before: int) -> None:
    s.wait_for_function(f"() => {{ const t = document.getElementById('table');"
                        f" return t && Number(t.dataset.version) !== {before}; }}", timeout=30_000)
    wait_idle(s)


def hand_names(s: Surface) -> list[str]:
    return s.locator(".stage .hand .in-hand").evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")


def trick_cards(s: Surface) -> list[str]:
    return s.locator(".stage .center .on-table").evaluate_all("cs => cs.map(c => c.dataset.card)")


def pass_three(s: Surface) -> None:
    cards = s.locator(".stage .hand-form[data-mode=pass] .in-hand")
    submit = s.locator("[data-pass-submit]")
    assert submit.is_disabled()
    for i in range(3):
        cards.nth(i).click(position=CORNER)
    cards.nth(3).click(position=CORNER)  # a fourth card is not taken while three are chosen
    assert cards.nth(3).get_attribute("aria-pressed") == "false"
    cards.nth(2).click(position=CORNER)  # a second tap puts a card back…
    assert submit.is_disabled()
    cards.nth(2).click(position=CORNER)  # …and a third takes it again
    assert submit.is_enabled()
    before = version(s)
    submit.click()
    wait_new_version(s, before)


def play_first_legal(s: Surface) -> None:
    legal = s.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)")
    assert legal.count() > 0
    assert legal.evaluate_all("bs => bs.every(b => !b.classList.contains('illegal'))")
    before = version(s)
    legal.first.click(position=CORNER)
    wait_new_version(s, before)


def take_turn(s: Surface) -> str:
    """Do whatever the table asks of the person now; returns the phase acted in."""
    wait_idle(s)
    p = phase(s)
    before = version(s)
    if p == "pass":
        pass_three(s)
    elif p == "play":
        play_first_legal(s)
    elif p == "moon_choice":
        s.get_by_role("button", name="Add 26 to everyone else").click()
        wait_new_version(s, before)
    elif p == "round_over":
        s.get_by_role("button", name="Next hand").click()
        wait_new_version(s, before)
    return p


def phone(browser: Browser, width: int, height: int) -> Page:
    """A fresh player on a touch screen of this size."""
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    return context.new_page()


def deal_from_the_welcome(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    page.get_by_role("button", name="New game", exact=True).click()
    page.wait_for_selector("#table[data-phase=pass]")
    wait_idle(page)


def game_id(s: Surface) -> str:
    return s.locator("#table").get_attribute("data-game") or ""


def new_game(s: Surface, *, difficulty: str | None = None, players: int | None = None, target: int | None = None,
             hands: int | None = None, fast: bool | None = None, abandon: bool = True, practice: bool | None = None,
             **variants: bool) -> None:
    """Deal a new game from the "New game…" dialog with these options (the others as the
    dialog offers them: those of the last game); confirms abandoning a game in progress."""
    if fast is not None:
        s.get_by_label("Fast play", exact=True).set_checked(fast)
        s.wait_for_function("(on) => document.body.dataset.fast === (on ? '1' : '0')", arg=fast)
    before = game_id(s)
    s.get_by_role("button", name="New game…").click()
    dialog = s.get_by_role("dialog", name="New game")
    if difficulty:
        dialog.get_by_label(difficulty.capitalize(), exact=True).check()
    if players:
        dialog.get_by_label("Players").select_option(str(players))
    if target:
        dialog.get_by_label("Target score").fill(str(target))
    if hands:
        dialog.get_by_label("Hands").fill(str(hands))
    for name, on in variants.items():
        dialog.get_by_label(VARIANT_LABELS[name]).set_checked(on)
    if practice is not None:
        dialog.get_by_label("Practice game: hints and undo, not counted in your records").set_checked(practice)
    dialog.get_by_role("button", name="Deal the cards").click()
    abandon_button = dialog.get_by_role("button", name="Abandon it and deal")
    if abandon and abandon_button.is_visible():
        abandon_button.click()
    s.wait_for_function("(old) => { const t = document.getElementById('table');"
                        " return t && t.dataset.game !== old; }", arg=before, timeout=30_000)
    wait_idle(s)


ACTIONS = re.compile(r"/game/(new|pass|play|moon|next)$")


def locked_controls(page: Page) -> list[str]:
    """The table's buttons that could start another action but are not locked, for people
    and for assistive technologies alike (those locked for the request are also aria-disabled)."""
    return list(page.evaluate("""() => Array.from(document.querySelectorAll(
        '#table > .stage form button, #table [data-lock]'))
        .filter(b => !b.disabled
                     || (b.hasAttribute('data-disabled-by-htmx') && b.getAttribute('aria-disabled') !== 'true'))
        .map(b => b.dataset.card || b.textContent.trim())"""))


class Held:
    """The table's actions, stopped on their way until the test lets them go."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.routes: list[Route] = []
        page.route(ACTIONS, lambda route: self.routes.append(route))

    def stop(self) -> None:
        self.release()
        self.page.unroute(ACTIONS)

    def wait(self, n: int = 1) -> None:
        for _ in range(400):
            if len(self.routes) >= n:
                return
            self.page.wait_for_timeout(25)
        raise AssertionError(f"{n} request(s) expected, {len(self.routes)} sent")

    def release(self) -> None:
        routes, self.routes[:] = list(self.routes), []
        for r in routes:
            r.continue_()
