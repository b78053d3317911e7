"""Issue 10, clarity: minus signs, the new-game dialog, the keys on screen, what happened
shown and not only spoken, a second tab told as a person would, mini-cards in RTL."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from app import i18n
from engine import Game, Phase, Rules

from .rig import decisive_last_trick, moon_for_the_person, play_until, rig
from .table import (
    CORNER,
    QUICK_PLAYBACK,
    RECORD_SPEECH,
    Held,
    deal_from_the_welcome,
    game_id,
    locked_controls,
    new_game,
    phase,
    phone,
    said,
    version,
    wait_idle,
    wait_new_version,
)


def play_legal(page: Page) -> None:
    before = version(page)
    page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    wait_new_version(page, before)


def play_out(page: Page) -> None:
    while phase(page) == "play":
        play_legal(page)


def choose(page: Page, *indexes: int) -> list[str]:
    cards = page.locator(".stage .hand-form[data-mode=pass] .in-hand")
    for i in indexes:
        cards.nth(i).click(position=CORNER)
    return [cards.nth(i).get_attribute("aria-label") or "" for i in indexes]


# ---- 4: a true minus sign ---------------------------------------------------------------

SCORES = "#table .stage, #sheet, #tricks, #records"
HYPHEN_NUMBER = re.compile(r"(?<![\w\u2212])-\s?\d")


def score_texts(page: Page) -> str:
    texts = page.locator(SCORES).all_inner_texts()
    texts += page.locator("#table [data-say-scores], #table [data-say-last]").evaluate_all(
        "els => els.flatMap(e => [e.dataset.sayScores || '', e.dataset.sayLast || ''])")
    return "\n".join(texts)


def test_negative_points_have_a_true_minus_sign_in_every_language(page: Page, base_url: str,
                                                                   database_url: str) -> None:
    page.add_init_script(RECORD_SPEECH)
    page.add_init_script(QUICK_PLAYBACK)
    page.goto(base_url + "/")
    new_game(page, fast=True)
    # the person shoots the moon and takes the J♦ (−10), then subtracts the moon: −36
    rig(page, database_url, moon_for_the_person(omnibus=True, shooters_choice=True, max_rounds=1))
    play_out(page)
    page.get_by_role("button", name="Subtract 26 from my score").click()
    wait_idle(page)
    assert phase(page) == "game_over"
    expect(page.locator("#table .stage .seat.me .score")).to_have_text("Score −36")
    expect(page.locator("#sheet tfoot td").first).to_have_text("−36")
    expect(page.locator("#records tbody tr").nth(1).locator("td").last).to_have_text("−36")
    tricks = page.locator("#tricks").inner_text()
    assert re.search(r"You −\d", tricks), tricks  # the trick with the J♦: fewer than 10 points in it
    text = score_texts(page) + "\n".join(said(page))
    assert "−36" in text
    assert "+-" not in text and "+−" not in text
    assert not HYPHEN_NUMBER.search(text), HYPHEN_NUMBER.findall(text)

    for lang in i18n.LANGUAGES:
        page.goto(f"{base_url}/{lang.slug}/")
        wait_idle(page)
        text = score_texts(page)
        assert "−36" in text, lang.code
        assert "+-" not in text and "+−" not in text and not HYPHEN_NUMBER.search(text), lang.code
        if lang.rtl:
            # laid out left to right in a right-to-left page: "−36", not "36−"
            order = page.locator("#table .stage .seat.me .score b").evaluate("""b => {
                const text = b.querySelector('bdi') ? b.querySelector('bdi').firstChild : b.firstChild;
                const at = (i) => { const r = document.createRange(); r.setStart(text, i); r.setEnd(text, i + 1);
                                    return r.getBoundingClientRect().left; };
                return [at(0), at(text.length - 1)];
            }""")
            assert order[0] < order[1], (lang.code, order)


# ---- 5: a new game ----------------------------------------------------------------------

def test_a_new_game_from_a_compact_dialog_that_remembers_and_asks_only_when_it_matters(
        page: Page, base_url: str, database_url: str) -> None:
    page.goto(base_url + "/")
    # the start button is "New game" for a person and for assistive technologies
    expect(page.get_by_role("button", name="New game", exact=True)).to_be_visible()
    # the options are a compact dialog at the top of the window
    page.get_by_role("button", name="New game…").click()
    dialog = page.get_by_role("dialog", name="New game")
    expect(dialog).to_be_visible()
    box = dialog.bounding_box()
    assert box and box["y"] < 80 and box["y"] + box["height"] <= 800
    dialog.get_by_label("Hard", exact=True).check()
    dialog.get_by_label("Players").select_option("6")
    dialog.get_by_label("Target score").fill("50")
    dialog.get_by_label("Omnibus").check()
    held = Held(page)
    dialog.get_by_role("button", name="Deal the cards").click()
    held.wait()
    # while a Hard game is dealt the table says so, and nothing on it can be clicked
    expect(dialog).to_be_hidden()
    expect(page.locator("#table .veil")).to_contain_text("Shuffling the deck…")
    assert locked_controls(page) == []
    held.stop()
    page.wait_for_function("() => document.getElementById('table').dataset.game !== 'none'", timeout=30_000)
    wait_idle(page)
    assert page.locator("#table").get_attribute("data-phase") == "pass"
    assert page.locator(".stage .seat").count() == 6

    # the next time, the dialog offers the same options
    page.reload()
    wait_idle(page)
    page.get_by_role("button", name="New game…").click()
    expect(dialog.get_by_label("Hard", exact=True)).to_be_checked()
    expect(dialog.get_by_label("Players")).to_have_value("6")
    expect(dialog.get_by_label("Target score")).to_have_value("50")
    expect(dialog.get_by_label("Omnibus")).to_be_checked()
    expect(dialog.get_by_label("Spot hearts")).not_to_be_checked()
    # a game just dealt, with nothing done in it yet, is not asked about
    dialog.get_by_label("Easy", exact=True).check()
    dialog.get_by_label("Players").select_option("4")
    first = game_id(page)
    dialog.get_by_role("button", name="Deal the cards").click()
    page.wait_for_function("(old) => document.getElementById('table').dataset.game !== old", arg=first)
    wait_idle(page)

    # once the person has passed, the game is in progress: asked, and "Keep playing" keeps it
    choose(page, 0, 1, 2)
    before = version(page)
    page.locator("[data-pass-submit]").click()
    wait_new_version(page, before)
    in_progress = game_id(page)
    for reload in (False, True):  # the same whether or not the page was loaded mid-game
        if reload:
            page.reload()
            wait_idle(page)
        page.get_by_role("button", name="New game…").click()
        dialog.get_by_role("button", name="Deal the cards").click()
        expect(dialog.get_by_text("Abandon the game in progress?")).to_be_visible()
        dialog.get_by_role("button", name="Keep playing").click()
        expect(dialog).to_be_hidden()
        page.wait_for_timeout(300)
        assert game_id(page) == in_progress
    page.get_by_role("button", name="New game…").click()
    dialog.get_by_role("button", name="Deal the cards").click()
    dialog.get_by_role("button", name="Abandon it and deal").click()
    page.wait_for_function("(old) => document.getElementById('table').dataset.game !== old", arg=in_progress)
    wait_idle(page)

    # a game that is over is not in progress either
    rig(page, database_url, decisive_last_trick(Rules(max_rounds=1)))
    play_legal(page)
    assert phase(page) == "game_over"
    over = game_id(page)
    page.get_by_role("button", name="New game…").click()
    dialog.get_by_role("button", name="Deal the cards").click()
    page.wait_for_function("(old) => document.getElementById('table').dataset.game !== old", arg=over)
    expect(dialog.get_by_text("Abandon the game in progress?")).to_be_hidden()


def test_after_dealing_the_table_comes_into_view_and_passing_fits_on_a_small_phone(
        browser: Browser, base_url: str, database_url: str) -> None:
    page = phone(browser, 360, 740)
    try:
        deal_from_the_welcome(page, base_url)
        # the pass button is on the screen without scrolling
        box = page.locator("[data-pass-submit]").bounding_box()
        assert box and box["y"] + box["height"] <= 740, box
        rig(page, database_url, decisive_last_trick(Rules(max_rounds=1)))
        play_legal(page)
        assert phase(page) == "game_over"
        page.get_by_role("button", name="New game", exact=True).scroll_into_view_if_needed()
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(200)
        assert page.locator("#table").bounding_box()["y"] < 0  # type: ignore[index]
        before = game_id(page)
        page.get_by_role("button", name="New game", exact=True).click()
        page.wait_for_function("(old) => document.getElementById('table').dataset.game !== old", arg=before)
        wait_idle(page)
        page.wait_for_timeout(600)  # a smooth scroll
        felt = page.locator("#table .stage .felt").bounding_box()
        assert felt and felt["y"] >= 0, felt
        box = page.locator("[data-pass-submit]").bounding_box()
        assert box and box["y"] + box["height"] <= 740, box
    finally:
        page.context.close()


# ---- 6: the keys on screen --------------------------------------------------------------

def test_the_keys_are_listed_on_screen_and_the_reading_keys_show_what_they_say(page: Page, base_url: str) -> None:
    page.add_init_script(RECORD_SPEECH)
    page.goto(base_url + "/")
    new_game(page, fast=True)
    keys = page.get_by_role("dialog", name="Playing with the keyboard")
    page.get_by_role("button", name="Keys").click()
    expect(keys).to_be_visible()
    expect(keys).to_contain_text("reads the scores")
    keys.get_by_role("button", name="Close").click()
    expect(keys).to_be_hidden()
    page.locator("body").press("h")
    expect(keys).to_be_visible()
    page.keyboard.press("Escape")
    expect(keys).to_be_hidden()

    toast = page.locator("#toast")
    for key, text in (("c", "No cards on the table."), ("s", "Scores: You 0, West 0, North 0, and East 0."),
                      ("t", "Pass three cards to the left"), ("l", "No trick has been played in this hand yet.")):
        page.locator("body").press(key)
        expect(toast).to_be_visible()
        expect(toast).to_have_text(text)
        page.wait_for_function("(t) => window.__said.includes(t)", arg=text)
    expect(toast).to_be_hidden(timeout=10_000)  # briefly


# ---- 8: what happened, visible ----------------------------------------------------------

def test_what_happened_is_shown_not_only_spoken(page: Page, base_url: str, database_url: str) -> None:
    page.add_init_script(QUICK_PLAYBACK)
    page.goto(base_url + "/")
    new_game(page, fast=True)
    chosen = choose(page, 0, 1, 2)
    choose(page, 3)  # a fourth card: refused, and the page says why
    expect(page.locator("[data-pass-count]")).to_have_text("You have already chosen three cards. Put one back first.")
    before = version(page)
    page.locator("[data-pass-submit]").click()
    wait_new_version(page, before)
    # the strip: what went where
    strip = page.locator(".stage .strip")
    expect(strip).to_contain_text("Passed to West:")
    expect(strip).to_contain_text("Received from East:")
    minis = strip.locator(".mini").evaluate_all("ms => ms.map(m => m.title)")
    received = page.locator(".stage .in-hand.received").evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-label').split(',')[0])")
    assert minis[:3] == chosen and sorted(minis[3:]) == sorted(received) and len(received) == 3

    # the fourth hand: no passing, and the table says so
    rig(page, database_url, play_until(Game(Rules(), seed=3),
                                       lambda g: g.round_index == 3 and g.phase is Phase.PLAY and g.turn == 0))
    expect(page.locator(".stage .strip")).to_have_text("No passing this hand")

    # a moon, subtracted: the seat shows −26, and nothing added to it
    rig(page, database_url, moon_for_the_person(shooters_choice=True))
    play_out(page)
    page.get_by_role("button", name="Subtract 26 from my score").click()
    wait_idle(page)
    expect(page.locator(".stage .seat.me .score")).to_have_text("Score −26")

    # the end of a game: the players ranked, the winner first, and where the person finished
    rig(page, database_url, decisive_last_trick(Rules(max_rounds=1), place=2))
    play_legal(page)
    result = page.locator(".stage .result")
    expect(result).to_contain_text("You finished 2nd")
    heading = result.get_by_role("heading").inner_text()
    columns = result.locator("thead th").all_inner_texts()
    totals = [int(t.replace("−", "-")) for t in result.locator("tr.total td").all_inner_texts()]
    places = [int(p) for p in result.locator("tbody tr").first.locator("td").all_inner_texts()]
    assert totals == sorted(totals) and places == [1, 2] + places[2:] and places == sorted(places)
    assert heading == f"{columns[0].split('★')[0].strip()} wins the game"
    assert columns[1].startswith("You")


# ---- 9: a second tab ---------------------------------------------------------------------

def test_a_second_tab_is_told_what_happened_as_a_person_would(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    new_game(page, fast=True, passing=False)
    other = page.context.new_page()
    other.goto(base_url + "/")
    wait_idle(other)
    play_legal(page)
    before = version(other)
    other.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)").first.click(position=CORNER)
    wait_new_version(other, before)
    message = "This game continued in another tab; here it is now."
    expect(other.locator("#toast")).to_have_text(message)  # shown over the page: the hand does not move
    expect(other.locator("#toast")).to_be_visible()
    expect(other.locator("#alerts")).to_have_text(message)  # and said
    assert version(other) == version(page)  # and it shows the game as it is now
    other.close()


# ---- 10: mini-cards read rank then suit in every direction --------------------------------

def test_mini_cards_read_rank_then_suit_in_right_to_left_languages(page: Page, base_url: str,
                                                                   database_url: str) -> None:
    page.goto(base_url + "/")
    new_game(page, fast=True, passing=False)
    rig(page, database_url, play_until(Game(Rules(passing=False), seed=5),
                                       lambda g: len(g.tricks) >= 3 and g.phase is Phase.PLAY and g.turn == 0))
    for lang in ("ar", "he", "fa"):
        page.goto(f"{base_url}/{lang}/")
        wait_idle(page)
        order = page.locator("#tricks .mini > span[aria-hidden]").evaluate_all("""spans => spans.map(s => {
            const r = document.createRange(); r.selectNodeContents(s.firstChild);
            return r.getBoundingClientRect().right <= s.querySelector('svg').getBoundingClientRect().left + 1;
        })""")
        assert len(order) >= 12 and all(order), (lang, order)
