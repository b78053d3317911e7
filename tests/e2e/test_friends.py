"""Tables for friends in real browsers: three people (three browser profiles) and one
computer player play a whole game through the invite link, each page kept live by the
server's events; a person who closes the tab is played for and takes the seat back; a
spectator sees no hand."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from playwright.sync_api import Error as PlaywrightError
from sqlalchemy import create_engine, text

from app import tables

from .server import AppProcess

NAMES = ("Ann", "Bob", "Cleo")
TIMEOUT_S = 240
CLICK_MS = 3000


@pytest.fixture
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    made = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(4)]
    yield made
    for c in made:
        c.close()


def watch(page: Page, errors: list[str]) -> Page:
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    # a 409 is a move that lost a race for "Next hand" (told on the page); nothing else may fail
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 and r.status != 409 else None)
    page.on("dialog", lambda d: d.accept())
    return page


def open_table(host: Page, base_url: str, turn_seconds: str | None = None, hands: str = "1") -> str:
    host.goto(base_url + "/")
    host.get_by_role("button", name="New game…").click()
    dialog = host.locator("#dialog-new-game")
    dialog.locator("input[name=max_rounds]").fill(hands)
    dialog.get_by_label("Your name").fill("Ann")
    if turn_seconds is not None:
        # a timer shorter than the dialog offers, for the test's sake
        host.eval_on_selector("select[name=turn_seconds]",
                              "(s, v) => { s.add(new Option(v + ' s', v)); s.value = v; }", turn_seconds)
    dialog.get_by_role("button", name="Open a table for friends").click()
    host.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]{32}$"))
    link = host.locator("#invite-link").input_value()
    assert link.endswith(host.url.split("/t/")[1])
    return link


def join(page: Page, link: str, name: str) -> None:
    page.goto(link)
    page.locator("[data-join-name]").fill(name)
    page.get_by_role("button", name="Sit down").click()
    expect(page.locator("#people .person", has_text=name).locator(".what")).to_contain_text("(you)")


def fast(page: Page) -> None:
    page.locator("[data-fast-toggle]").check()


def idle(page: Page) -> bool:
    """No playback running and no request of this page on its way."""
    return bool(page.evaluate("!document.body.dataset.playing && !document.querySelector('#table.is-playing')"
                              " && !document.querySelector('[data-disabled-by-htmx], .htmx-request')"))


def take_turn(page: Page, deal: bool = False) -> bool:
    """Whatever this person's screen lets them do now: pass or play (or choose a moon's
    score).  The table may change under the pointer as the others' moves arrive: a click
    that finds its card gone is given up, as a person would look again."""
    try:
        return _take_turn(page, deal)
    except PlaywrightError:
        return False


def _take_turn(page: Page, deal: bool) -> bool:
    if not idle(page):
        return False
    form = page.locator("#table > .stage .hand-form")
    mode = form.get_attribute("data-mode") if form.count() else None
    if mode == "pass":
        cards = page.locator("#table > .stage .in-hand")
        for i in range(3):
            if cards.nth(i).get_attribute("aria-pressed") != "true":
                cards.nth(i).click(timeout=CLICK_MS)
        page.locator("[data-pass-submit]").click(timeout=CLICK_MS)
        return True
    if mode == "play":
        page.locator("#table > .stage .in-hand:not(:disabled)").first.click(timeout=CLICK_MS)
        return True
    if deal and phase(page) == "round_over":
        # (a tie for the lowest total after the last hand: one more hand is played)
        page.get_by_role("button", name="Next hand").click(timeout=CLICK_MS)
        return True
    moon = page.get_by_role("button", name=re.compile(r"^Add \d+ to everyone else$"))
    if moon.count():
        moon.click(timeout=CLICK_MS)
        return True
    return False


def phase(page: Page) -> str:
    return page.locator("#table").get_attribute("data-phase") or ""


# The page's table, and the same table drawn whole by the server for this person, without
# what the page's own script sets as the person uses it (the hand's roving tab stop, …) and
# without the spaces between elements.
SAME_AS_DRAWN_WHOLE = """async () => {
  const norm = (section) => {
    const stage = section.querySelector(":scope > .stage").cloneNode(true);
    stage.querySelectorAll("[tabindex], [aria-disabled], [data-disabled-by-htmx]").forEach((el) => {
      ["tabindex", "aria-disabled", "data-disabled-by-htmx"].forEach((name) => el.removeAttribute(name));
    });
    const attrs = ["data-version", "data-phase", "data-game", "data-in-progress"].map((n) => section.getAttribute(n));
    return JSON.stringify(attrs) + stage.outerHTML.replace(/>\\s+</g, "><").trim();
  };
  const shown = document.getElementById("table");
  const r = await fetch(location.pathname + "/table", { headers: { "HX-Request": "true" } });
  const holder = document.createElement("template");
  holder.innerHTML = await r.text();
  const whole = holder.content.querySelector("#table");
  const now = document.getElementById("table");
  if (now !== shown || whole.dataset.version !== now.dataset.version || document.body.dataset.playing) return null;
  return [norm(now), norm(whole)];
}"""


def check_as_drawn_whole(page: Page, checked: dict[int, str]) -> None:
    """When the page shows a table it has not been compared at yet: the table the moves'
    events built on the page is the one the server draws whole for this person."""
    version = page.locator("#table").get_attribute("data-version") or ""
    if checked.get(id(page)) == version or not idle(page):
        return
    pair = page.evaluate(SAME_AS_DRAWN_WHOLE)
    if pair is None:  # (the table moved on meanwhile)
        return
    assert pair[0] == pair[1], (version, pair)
    checked[id(page)] = version


def test_three_people_and_a_computer_play_a_whole_game_through_the_invite_link(
        contexts: list[BrowserContext], base_url: str) -> None:
    errors: list[str] = []
    pages = [watch(c.new_page(), errors) for c in contexts[:3]]
    host = pages[0]
    link = open_table(host, base_url)
    for page, name in zip(pages[1:], NAMES[1:], strict=True):
        join(page, link, name)
    # everybody sees everybody connected
    for page in pages:
        for name in NAMES:
            expect(page.locator("#people .person", has_text=name).locator(".presence")).to_have_class(
                re.compile(r"\bon\b"))
    # the host gives the fourth seat to a computer player and deals
    host.locator("#people input[name=seats][value='3']").uncheck()
    expect(pages[1].locator("#people .person[data-seat='3'] .what")).to_have_text("computer player")
    for page in pages:
        fast(page)
    host.get_by_role("button", name="Deal the cards").click()
    for page in pages:
        expect(page.locator("#table > .stage .in-hand")).to_have_count(13)
    deadline = time.monotonic() + TIMEOUT_S
    checked: dict[int, str] = {}
    compared = 0
    while not all(phase(p) == "game_over" and idle(p) for p in pages):
        assert time.monotonic() < deadline, [phase(p) for p in pages]
        for p in pages:
            before = checked.get(id(p))
            check_as_drawn_whole(p, checked)
            compared += checked.get(id(p)) != before
        if not any(take_turn(p, deal=p is host) for p in pages):
            time.sleep(0.1)
    # (the moves within a hand reach the pages as the parts they change, put in the page's table)
    assert compared > 20
    # the same end on every screen, and the game in every person's records
    winners = [p.locator("#table .result h2").inner_text() == "You won the game!" for p in pages]
    assert sum(winners) <= 1  # (or the computer player won)
    versions = {p.locator("#table").get_attribute("data-version") for p in pages}
    assert len(versions) == 1
    for page in pages:
        expect(page.locator("#records tr", has_text="With friends")).to_contain_text("of 1")
    expect(host.get_by_role("button", name="Play again")).to_be_visible()
    expect(pages[1].get_by_role("button", name="Play again")).to_have_count(0)
    assert errors == []


def test_a_person_who_closes_the_tab_is_played_for_and_takes_the_seat_back(
        contexts: list[BrowserContext], base_url: str) -> None:
    errors: list[str] = []
    pages = [watch(c.new_page(), errors) for c in contexts[:3]]
    host, bob, cleo = pages
    link = open_table(host, base_url, turn_seconds="4", hands="3")
    join(bob, link, "Bob")
    join(cleo, link, "Cleo")
    host.get_by_role("button", name="Deal the cards").click()
    expect(bob.locator("#table > .stage .in-hand")).to_have_count(13)
    # the timer is on the table, counting down
    expect(host.locator("#table .countdown")).to_contain_text("s left for this turn")
    bob.close()
    # the others see Bob away, and his pass is made for him after the timer
    expect(host.locator("#people .person[data-seat='1'] .what")).to_contain_text("away", timeout=15_000)
    take_turn(host)
    take_turn(cleo)
    expect(host.locator("#table")).to_have_attribute("data-phase", "play", timeout=20_000)
    # Bob comes back through the link: his seat, his hand, connected again
    bob = watch(contexts[1].new_page(), errors)
    bob.goto(link)
    expect(bob.locator("#table > .stage .in-hand")).to_have_count(13, timeout=15_000)
    expect(host.locator("#people .person[data-seat='1'] .what")).to_contain_text("connected")
    assert bob.locator("[data-join]").count() == 0
    # and plays his own next turn (the others play theirs; a late one is played for them)
    played = bob.locator("#table > .stage .in-hand")
    deadline = time.monotonic() + 60
    while played.count() == 13:
        assert time.monotonic() < deadline
        for page in (host, cleo, bob):
            take_turn(page)
        time.sleep(0.1)
    assert errors == []


def test_a_spectator_sees_the_cards_played_and_never_a_hand(contexts: list[BrowserContext], base_url: str) -> None:
    errors: list[str] = []
    host, bob, cleo, watcher = (watch(c.new_page(), errors) for c in contexts)
    link = open_table(host, base_url)
    join(bob, link, "Bob")
    join(cleo, link, "Cleo")
    host.locator("#people input[name=seats][value='3']").uncheck()
    expect(host.locator("#people .person[data-seat='3'] .what")).to_have_text("computer player")
    host.get_by_role("button", name="Deal the cards").click()
    watcher.goto(link)
    expect(watcher.locator(".watching")).to_contain_text("you are watching")
    expect(watcher.locator("[data-join]")).to_have_count(0)
    seen = 0
    deadline = time.monotonic() + 90
    while seen < 3:
        assert time.monotonic() < deadline
        for page in (host, bob, cleo):
            take_turn(page)
        # the watcher's table follows live: cards on the table, never a hand
        assert watcher.locator(".in-hand").count() == 0
        seen = max(seen, watcher.locator("#tricks .trick-list li").count())
        time.sleep(0.1)
    assert "in-hand" not in watcher.content()
    assert errors == []


def in_first_viewport(page: Page, selector: str) -> bool:
    """The element is wholly on the screen as the page opens (nothing scrolled)."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return (page.evaluate("window.scrollY") == 0 and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]
            and box["x"] >= 0 and box["x"] + box["width"] <= size["width"])


@pytest.mark.parametrize("width,height", [(360, 740), (390, 844), (430, 932), (1280, 800)])
def test_a_friend_who_opens_the_link_sees_the_form_to_take_a_seat_first(
        browser: Browser, base_url: str, width: int, height: int) -> None:
    errors: list[str] = []
    made = [browser.new_context(viewport={"width": 1280, "height": 800}),
            browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 640,
                                has_touch=width < 640)]
    try:
        host, friend = (watch(c.new_page(), errors) for c in made)
        link = open_table(host, base_url)
        friend.goto(link)
        for part in ("[data-join-name]", ".join select[name=seat]", "[data-join]"):
            assert in_first_viewport(friend, part), part
        friend.locator("[data-join-name]").fill("Bob")
        friend.locator("[data-join]").click()
        expect(friend.locator("#people .person", has_text="Bob").locator(".what")).to_contain_text(
            "(you)", timeout=15_000)  # (a loaded machine can take a while to seat him)
        # seated: the form is gone (an event drawn before he sat may show it a moment longer)
        # and the table comes first again
        expect(friend.locator("form.join")).to_have_count(0, timeout=15_000)
        # (measured in the page, between the live swaps of the table and the people's panel)
        friend.wait_for_function("""() => {
            const t = document.querySelector('#table'), p = document.querySelector('#people');
            if (!t || !p || document.querySelector('form.join')) return false;
            const a = t.getBoundingClientRect(), b = p.getBoundingClientRect();
            return a.top < b.top || a.left < b.left;
        }""", timeout=15_000)
        assert errors == []
    finally:
        for c in made:
            c.close()


def test_a_person_with_the_table_open_in_two_tabs_stays_there_when_one_closes(
        contexts: list[BrowserContext], base_url: str) -> None:
    from app.tables import GONE_AFTER

    errors: list[str] = []
    host = watch(contexts[0].new_page(), errors)
    first = watch(contexts[1].new_page(), errors)
    link = open_table(host, base_url)
    join(first, link, "Bob")
    second = watch(contexts[1].new_page(), errors)  # Bob opens the table again in another tab
    second.goto(link)
    expect(second.locator("#people .person", has_text="Bob").locator(".what")).to_contain_text("(you)")
    bob = host.locator("#people .person", has_text="Bob").locator(".what")
    expect(bob).to_contain_text("connected")
    first.close()
    # longer than a reload's grace: Bob still has a page open, so he is still there
    time.sleep(GONE_AFTER.total_seconds() + 2)
    host.reload()
    expect(bob).to_contain_text("connected")
    expect(bob).not_to_contain_text("away")
    second.close()
    expect(bob).to_contain_text("away", timeout=15_000)
    assert errors == []


def test_a_friend_typing_a_name_keeps_it_and_the_seat_chosen_while_others_sit_down(
        contexts: list[BrowserContext], base_url: str) -> None:
    errors: list[str] = []
    host, bob, cleo = (watch(c.new_page(), errors) for c in contexts[:3])
    link = open_table(host, base_url)
    bob.goto(link)
    bob.locator(".join select[name=seat]").select_option("3")  # not the first that stays free
    name = bob.locator("[data-join-name]")
    name.click()
    name.press_sequentially("Bo")
    # Cleo sits down meanwhile (the first free seat): Bob's panel is drawn again
    join(cleo, link, "Cleo")
    expect(bob.locator("#people .person[data-seat='1'] .who")).to_have_text("Cleo", timeout=15_000)
    # what Bob had typed and chosen is still there, and he types on where he was
    expect(name).to_have_value("Bo")
    expect(name).to_be_focused()
    expect(bob.locator(".join select[name=seat]")).to_have_value("3")
    bob.keyboard.type("b")
    bob.locator("[data-join]").click()
    expect(bob.locator("#people .person[data-seat='3'] .who")).to_have_text("Bob", timeout=15_000)
    expect(bob.locator("#people .person[data-seat='3'] .what")).to_contain_text("(you)")
    assert errors == []


def test_a_busy_server_at_a_table_is_asked_again_for_that_table(contexts: list[BrowserContext], base_url: str) -> None:
    host = contexts[0].new_page()
    host.on("dialog", lambda d: d.accept())
    # (a turn timer longer than the test: a late turn played for the host would move the table)
    link = open_table(host, base_url, turn_seconds="600")
    token = link.rsplit("/", 1)[1]
    # the host plays with three computer players
    for seat in ("1", "2", "3"):
        host.locator(f"#people input[name=seats][value='{seat}']").uncheck()
        expect(host.locator(f"#people .person[data-seat='{seat}'] .what")).to_have_text("computer player")
    host.get_by_role("button", name="Deal the cards").click()
    expect(host.locator("#table > .stage .in-hand")).to_have_count(13)
    version = host.locator("#table").get_attribute("data-version")
    asked: list[str] = []
    host.on("request", lambda r: asked.append(r.url) if r.method == "GET" else None)
    busy: list[str] = []

    def trouble(route: Route) -> None:
        if not busy:
            busy.append(route.request.url)
            route.fulfill(status=503, headers={"Retry-After": "1"}, content_type="text/plain", body="busy")
        else:
            route.continue_()

    host.route(re.compile(r"/t/[\w-]+/pass$"), trouble)
    cards = host.locator("#table > .stage .in-hand")
    for i in range(3):
        cards.nth(i).click()
    host.locator("[data-pass-submit]").click()
    host.locator("#connection").wait_for(state="visible", timeout=5000)
    host.locator("#connection").wait_for(state="hidden", timeout=30_000)
    # the page asked again for this table, not for the solo game's
    assert busy and f"/t/{token}/table" in " ".join(asked), asked
    assert not any(re.search(r"//[^/]+/table(\?|$)", url) for url in asked), asked
    expect(host.locator("#table")).to_have_attribute("data-version", version or "")
    expect(host.locator("#table")).to_have_attribute("data-phase", "pass")
    expect(host.locator("#table > .stage .in-hand")).to_have_count(13)


# Two table events made from the table the server draws whole for this page's person: a move
# whose playback takes a few seconds (two pauses) and holds back an addition to the records
# panel, then a table drawn whole that does not draw the records again (as a deal after a
# moon draws the score sheet and the tricks only); with the game and the version they follow.
TWO_EVENTS = """async () => {
  const r = await fetch(location.pathname + "/table", { headers: { "HX-Request": "true" } });
  const text = await r.text();
  const version = Number(document.getElementById("table").dataset.version);
  const made = (next, build) => {
    const holder = document.createElement("template");
    holder.innerHTML = text;
    const table = holder.content.querySelector("#table");
    table.dataset.version = String(next);
    build(table);
    return Array.from(holder.content.childNodes, (n) => n.outerHTML || n.textContent).join("");
  };
  const moving = made(version + 1, (table) => {
    table.insertAdjacentHTML("beforeend", '<template class="frame" data-pause="trick"></template>'.repeat(2)
      + '<template class="deferred" data-target="#records" data-swap="beforeend">'
      + '<p id="held-back">held back</p></template>');
  });
  const whole = made(version + 2, (table) => {
    const records = table.querySelectorAll(':scope > template.deferred[data-target="#records"]');
    if (records.length !== 1) throw new Error("the table drawn whole has no records panel to leave out");
    records[0].remove();
  });
  return [moving, whole, version, document.getElementById("table").dataset.game];
}"""


def sse(event: str, key: str, data: str) -> str:
    return f"id: {key}\nevent: {event}\n" + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n"


def test_a_table_drawn_whole_during_a_playback_keeps_what_that_playback_held_back(
        contexts: list[BrowserContext], base_url: str) -> None:
    """A table event drawn whole (a hand's end, a deal) can arrive while the page still plays
    back the move before it; the side panels that move held back until its playback ended
    (the records after a moon, …) are put in before the new table takes its place."""
    host = contexts[0].new_page()
    errors: list[str] = []
    watch(host, errors)
    open_table(host, base_url)
    for seat in ("1", "2", "3"):
        host.locator(f"#people input[name=seats][value='{seat}']").uncheck()
        expect(host.locator(f"#people .person[data-seat='{seat}'] .what")).to_have_text("computer player")
    host.get_by_role("button", name="Deal the cards").click()
    expect(host.locator("#table > .stage .in-hand")).to_have_count(13)
    moving, whole, version, game = host.evaluate(TWO_EVENTS)
    streams: list[str] = []

    def stream(route: Route) -> None:
        streams.append(route.request.url)
        if len(streams) == 1:
            body = sse("table", f"{game}.{version + 1}.0", moving) + sse("table", f"{game}.{version + 2}.0", whole)
            route.fulfill(status=200, headers={"Cache-Control": "no-store"}, content_type="text/event-stream",
                          body=body)
        else:
            route.fulfill(status=204)  # (no more events: the stream is not opened again)

    host.route(re.compile(r"/t/[\w-]+/events"), stream)
    host.reload()
    expect(host.locator("#table")).to_have_attribute("data-version", str(version + 2), timeout=10_000)
    expect(host.locator("#records #held-back")).to_have_count(1, timeout=10_000)
    assert streams and errors == []


def test_a_table_goes_on_where_it_was_when_the_server_stops_mid_hand_and_starts_again(
        browser: Browser, tmp_path: Path) -> None:
    """Two people and two computer players; the server stops in the middle of the hand and
    starts again: both pages say they are reconnecting, then show the table as it was (no
    move lost or doubled, no turn taken from a person who never left), and the hand goes on,
    each page's table the one the server draws whole."""
    app = AppProcess(tmp_path / "data")
    app.start()
    made = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    try:
        errors: list[str] = []
        host, bob = (watch(c.new_page(), errors) for c in made)
        # (a turn timer longer than the test: only a person taken for absent could lose a turn)
        link = open_table(host, app.url, turn_seconds="600")
        join(bob, link, "Bob")
        for seat in ("2", "3"):
            host.locator(f"#people input[name=seats][value='{seat}']").uncheck()
            expect(bob.locator(f"#people .person[data-seat='{seat}'] .what")).to_have_text("computer player")
        for page in (host, bob):
            fast(page)
        host.get_by_role("button", name="Deal the cards").click()
        for page in (host, bob):
            expect(page.locator("#table > .stage .in-hand")).to_have_count(13)
        dealt = int(host.locator("#table").get_attribute("data-version") or 0)
        deadline = time.monotonic() + 90
        # a few tricks in, both pages at rest on the same table
        while not (min(version_of(p) for p in (host, bob)) >= dealt + 12 and all(idle(p) for p in (host, bob))
                   and version_of(host) == version_of(bob)):
            assert time.monotonic() < deadline
            if not any(take_turn(p) for p in (host, bob)):
                time.sleep(0.1)
        app.stop()
        before = stored_version(app.database_url)
        for page in (host, bob):
            expect(page.locator("#connection")).to_be_visible(timeout=10_000)
        # down for longer than a closed tab's grace and an absent person's pause together
        time.sleep((tables.GONE_AFTER + tables.ABSENT_PAUSE).total_seconds() + 1)
        app.start()
        for page in (host, bob):
            expect(page.locator("#connection")).to_be_hidden(timeout=30_000)
            expect(page.locator("#table")).to_have_attribute("data-version", str(before))
            expect(page.locator("#table > .stage .in-hand").first).to_be_visible()
        assert stored_version(app.database_url) == before
        # and the hand goes on: a few tricks more, each page's table the one the server draws whole
        checked: dict[int, str] = {}
        while not (min(version_of(p) for p in (host, bob)) >= before + 8 and all(idle(p) for p in (host, bob))
                   and version_of(host) == version_of(bob)):
            assert time.monotonic() < deadline
            if not any(take_turn(p) for p in (host, bob)):
                time.sleep(0.1)
        for page in (host, bob):
            check_as_drawn_whole(page, checked)
            assert id(page) in checked
        assert errors == []
    finally:
        for c in made:
            c.close()
        app.stop()


def version_of(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version") or 0)


def stored_version(database_url: str) -> int:
    """The version of the one game in the database (of the one table)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT version FROM game WHERE table_id IS NOT NULL")).scalar_one())
    finally:
        engine.dispose()
