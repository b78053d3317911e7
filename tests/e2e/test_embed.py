"""The embed on another site (issue 10, item 3), in Chromium, over HTTPS with a self-signed
certificate, framed by a host page on another site (https://127.0.0.1 framing
https://localhost), with third-party cookies blocked, through a whole hand.

What this Chromium does in such a frame (checked by the tests, not assumed): a partitioned
cookie (CHIPS: ``SameSite=None; Secure; Partitioned``) is kept and sent, an unpartitioned
one is not, and the frame's storage is refused altogether (localStorage and sessionStorage
throw SecurityError, IndexedDB fails).  So the partitioned cookie is what keeps the player
there, across reloads; the cookieless fallback (the signed token from the page, sent as
``X-Player-Token`` by static/identity.js, kept in storage where a browser allows it and in
memory otherwise) keeps a whole game going when every cookie is blocked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Frame, Page

from .server import CHROMIUM, CHROMIUM_ARGS, host_page
from .table import hand_names, phase, take_turn, version, wait_idle
from .tls import chromium_profile, https_app, self_signed

PROBES = """() => {
  const storage = (() => { try { localStorage.setItem('probe', '1'); return 'ok'; } catch (e) { return e.name; } })();
  document.cookie = 'plain=1; SameSite=None; Secure; Path=/';
  document.cookie = 'chips=1; SameSite=None; Secure; Path=/; Partitioned';
  return {storage, plain: document.cookie.includes('plain=1'), chips: document.cookie.includes('chips=1')};
}"""


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory, tls: tuple[Path, Path]) -> Iterator[str]:
    with https_app(tmp_path_factory.mktemp("tls-app"), *tls) as url:
        yield url


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory, app_url: str, tls: tuple[Path, Path]) -> Iterator[str]:
    with host_page(tmp_path_factory.mktemp("tls-host"), app_url, tls=tls) as url:
        yield url


def context(browser: Browser, profile: Path) -> BrowserContext:
    return browser.browser_type.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS, ignore_https_errors=True,
        viewport={"width": 1100, "height": 900})


def game_frame(page: Page) -> Frame:
    page.wait_for_function("() => document.querySelector('iframe') !== null")
    for _ in range(100):
        frames = [f for f in page.frames if f.url.endswith("/embed")]
        if frames:
            frames[0].wait_for_selector("#table")
            return frames[0]
        page.wait_for_timeout(50)
    raise AssertionError("the game's frame never loaded")


def play_a_whole_hand(frame: Frame) -> None:
    frame.get_by_label("Fast play", exact=True).check()
    frame.get_by_role("button", name="New game", exact=True).click()
    frame.wait_for_selector("#table[data-phase=pass]")
    wait_idle(frame)
    seen = []
    for _ in range(40):
        if phase(frame) == "round_over":
            break
        seen.append(take_turn(frame))
        assert not frame.locator(".error").count(), frame.locator(".error").inner_text()
    assert phase(frame) == "round_over" and "pass" in seen and seen.count("play") == 13


def test_a_whole_hand_in_a_frame_on_another_site_with_third_party_cookies_blocked(
        browser: Browser, host: str, tmp_path: Path) -> None:
    ctx = context(browser, chromium_profile(tmp_path / "profile"))
    try:
        page = ctx.new_page()
        page.goto(host)
        frame = game_frame(page)
        probes = frame.evaluate(PROBES)
        # the conditions this test is about: third-party cookies blocked, partitioned ones kept
        assert probes == {"storage": "SecurityError", "plain": False, "chips": True}, probes
        play_a_whole_hand(frame)
        v, hand = version(frame), hand_names(frame)
        # the player came back with every request, and comes back after a reload of the host page
        page.reload()
        frame = game_frame(page)
        wait_idle(frame)
        assert (phase(frame), version(frame), hand_names(frame)) == ("round_over", v, hand)
        assert page.get_by_role("link", name="Play Hearts online").is_visible()
    finally:
        ctx.close()


def test_with_every_cookie_blocked_the_frame_plays_on_by_its_token(browser: Browser, host: str,
                                                                   tmp_path: Path) -> None:
    ctx = context(browser, chromium_profile(tmp_path / "profile", block_all_cookies=True))
    sent: list[str] = []
    try:
        page = ctx.new_page()
        page.on("request", lambda r: sent.append(r.headers.get("x-player-token", "")) if "/game/" in r.url else None)
        page.goto(host)
        frame = game_frame(page)
        probes = frame.evaluate(PROBES)
        assert probes == {"storage": "SecurityError", "plain": False, "chips": False}, probes
        play_a_whole_hand(frame)  # was: "You have no game yet" at the pass
        assert sent and all(sent) and len(set(sent)) == 1  # one player, named by the header throughout
    finally:
        ctx.close()
