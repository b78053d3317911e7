"""What a player downloads, as Chromium counts it: the table's first load and one move.

Sizes are bytes on the wire (compressed bodies plus headers), from Playwright's
``request.sizes()``.  The figures are printed (``pytest -s``) and bounded: the first load
of the table with an empty cache at most 100 KB, a move's answer at most 10 KB.
"""

from __future__ import annotations

from playwright.sync_api import Browser, Page, Request

from .table import CORNER, new_game, pass_three, phase, version, wait_idle, wait_new_version

FIRST_LOAD_LIMIT = 100 * 1024
MOVE_LIMIT = 10 * 1024


def wire_bytes(request: Request) -> int:
    sizes = request.sizes()
    return int(sizes["responseBodySize"] + sizes["responseHeadersSize"])


def deal(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    new_game(page, fast=True)


def test_the_table_loads_in_under_100_kb_and_a_move_answers_in_under_10_kb(browser: Browser, base_url: str) -> None:
    # a player with a game under way comes back with an empty cache
    first = browser.new_context(viewport={"width": 1280, "height": 800})
    setup = first.new_page()
    deal(setup, base_url)
    if phase(setup) == "pass":
        pass_three(setup)
    cookies = first.cookies()
    first.close()

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_cookies(cookies)
    page = context.new_page()
    loaded: list[tuple[str, int, str]] = []
    page.on("requestfinished", lambda r: loaded.append(
        (r.url, wire_bytes(r), (r.response().all_headers() if r.response() else {}).get("content-encoding", ""))))
    page.goto(base_url + "/")
    page.wait_for_load_state("networkidle")
    wait_idle(page)
    assert phase(page) == "play"
    first_load = sum(n for _, n, _ in loaded)
    print(f"\nfirst load of the table: {first_load} bytes in {len(loaded)} requests")
    for url, n, encoding in loaded:
        print(f"  {n:>7}  {encoding or '-':<5} {url.removeprefix(base_url)}")
    compressed = {url.removeprefix(base_url): encoding for url, _, encoding in loaded}
    assert compressed["/"] == "gzip"
    assert first_load <= FIRST_LOAD_LIMIT

    legal = page.locator(".stage .hand-form[data-mode=play] .in-hand:not(:disabled)")
    before = version(page)
    with page.expect_request_finished(lambda r: r.method == "POST") as posted:
        legal.first.click(position=CORNER)
    wait_new_version(page, before)
    move = posted.value
    answer = move.response()
    assert answer is not None and answer.status == 200
    move_bytes = wire_bytes(move)
    print(f"a move's answer: {move_bytes} bytes ({answer.all_headers().get('content-encoding', 'not compressed')}, "
          f"{len(answer.body())} bytes unpacked)")
    assert move_bytes <= MOVE_LIMIT
    context.close()
