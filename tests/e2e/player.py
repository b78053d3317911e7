"""A scripted player that knows the page only through its accessibility tree.

It reads the card table's accessibility snapshot (roles, names, states: what a screen
reader is given), and clicks buttons found by role and name: a card by its name ("Queen of
spades"), "Pass three cards …", "Next hand", "Add 26 to everyone else", "New game".  It
clicks the moment the page lets it (Playwright's own actionability: visible, stable,
enabled, hit by the pointer) and, like an impatient person, clicks a second time at once
where its first click landed.

Every click must do something: a card chosen for passing changes its pressed state, and
every other click sends exactly one request, after which nothing that could send another
is enabled until the answer is shown.  No answer may be an error (no 409, no 5xx).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from playwright.sync_api import Page, Response, Route

RANKS = "Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King|Ace"
CARD = re.compile(rf"^({RANKS}) of (clubs|diamonds|spades|hearts)\b")
BUTTON = re.compile(r'^\s*- button "(?P<name>(?:[^"\\]|\\.)*)"(?P<states>(?: \[[^\]]+\])*)')
ACTIONS = (re.compile(r"^Next hand$"), re.compile(r"^New game$"), re.compile(r"^Add \d+ to everyone else$"))
PASS = re.compile(r"^Pass three cards\b")
TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class Button:
    name: str
    disabled: bool
    pressed: bool


@dataclass
class Tally:
    clicks: int = 0
    requests: int = 0
    games: int = 0
    hands: int = 0
    errors: list[str] = field(default_factory=list)


class ScriptedPlayer:
    def __init__(self, page: Page, seed: int = 0) -> None:
        self.page = page
        self.rng = random.Random(seed)
        self.tally = Tally()
        self.held: list[Route] = []
        page.on("response", self._check)
        page.on("console", lambda m: self.tally.errors.append(f"console: {m.text}") if m.type == "error" else None)
        # the table's actions are held on their way, so the page can be read while one is in flight
        page.route(re.compile(r"/game/(new|pass|play|moon|next)$"), lambda route: self.held.append(route))

    def _check(self, response: Response) -> None:
        if response.status >= 400:
            self.tally.errors.append(f"{response.status} {response.request.method} {response.url}")

    # ---- reading the accessibility tree ----

    def buttons(self) -> list[Button]:
        tree = self.page.get_by_role("region", name="Card table").aria_snapshot(timeout=TIMEOUT_MS)
        out = []
        for line in tree.splitlines():
            m = BUTTON.match(line)
            if m:
                name = m.group("name").replace('\\"', '"')
                states = m.group("states")
                out.append(Button(name, "[disabled]" in states, "[pressed]" in states))
        return out

    def live(self) -> list[Button]:
        """What a click could act on now: enabled cards and the table's action buttons."""
        return [b for b in self.buttons() if not b.disabled and (
            CARD.match(b.name) or PASS.match(b.name) or any(a.match(b.name) for a in ACTIONS))]

    def wait_for_live(self) -> list[Button]:
        # the table's answer, then its playback: the buttons come back when it is the person's turn
        for _ in range(TIMEOUT_MS // 50):
            live = self.live()
            if live:
                return live
            self.page.wait_for_timeout(50)
        raise AssertionError("nothing on the table could be clicked for a minute")

    # ---- clicking ----

    def submit(self, name: str) -> None:
        """Click a button that sends the table's form: exactly one request, and while it is on
        its way nothing on the table that could send another is enabled."""
        button = self.page.get_by_role("button", name=name, exact=True)
        button.click(timeout=TIMEOUT_MS)
        box = button.bounding_box()
        if box:  # the impatient second click, where the first landed
            self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self.tally.clicks += 2
        for _ in range(200):
            if self.held:
                break
            self.page.wait_for_timeout(25)
        assert self.held, f"clicking {name!r} sent nothing"
        live = self.live()
        assert not live, f"while {name!r} was on its way these could still be clicked: {live}"
        held, self.held[:] = list(self.held), []
        assert len(held) == 1, f"clicking {name!r} sent {len(held)} requests"
        request = held[0].request
        held[0].continue_()
        self.tally.requests += 1
        response = request.response()  # waits for the answer
        assert response is not None and response.status < 400, f"{name!r} was answered {response and response.status}"

    def toggle(self, name: str) -> None:
        button = self.page.get_by_role("button", name=name, exact=True)
        was = button.get_attribute("aria-pressed") == "true"
        button.click(timeout=TIMEOUT_MS)
        self.tally.clicks += 1
        assert (button.get_attribute("aria-pressed") == "true") != was, f"clicking {name!r} did nothing"

    def pass_three(self, live: list[Button]) -> None:
        cards = [b.name for b in live if CARD.match(b.name) and not b.pressed]
        for name in self.rng.sample(cards, 3):
            self.toggle(name)
        submit = next(b.name for b in self.buttons() if PASS.match(b.name))
        self.submit(submit)

    def play_game(self, max_actions: int = 2000) -> None:
        """Play until the game is over (its "New game" button shows)."""
        for _ in range(max_actions):
            live = self.wait_for_live()
            names = [b.name for b in live]
            if "New game" in names:
                self.tally.games += 1
                return
            action = next((n for n in names if any(a.match(n) for a in ACTIONS)), None)
            if action:
                self.tally.hands += action == "Next hand"
                self.submit(action)
            elif any(PASS.match(b.name) for b in self.buttons()):
                self.pass_three(live)
            else:
                self.submit(self.rng.choice([n for n in names if CARD.match(n)]))
        raise AssertionError(f"the game did not end in {max_actions} actions")

    def new_game(self) -> None:
        self.submit("New game")
