"""Driving the table like a person: read what the page shows, click what it offers."""

from __future__ import annotations

from playwright.sync_api import Frame, Page

Surface = Page | Frame

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
