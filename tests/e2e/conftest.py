from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from .server import CHROMIUM, CHROMIUM_ARGS, app_server


@pytest.fixture(scope="session")
def e2e_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("e2e-data")


@pytest.fixture(scope="session")
def base_url(e2e_data: Path) -> Iterator[str]:
    with app_server(e2e_data) as url:
        yield url


@pytest.fixture(scope="session")
def database_url(e2e_data: Path, base_url: str) -> str:
    """The served app's database, for tests that set a table up directly (:mod:`.rig`)."""
    return f"sqlite:///{e2e_data / 'hearts.db'}"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser profile each time, so every test is a new anonymous player."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the Content-Security-Policy must never have to block anything the page itself does
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"
    assert blocked == [], f"blocked by the Content-Security-Policy: {blocked}"
