"""What the game screen plays back after a move, shared by the solo game's page and a table
for friends: the pauses between the moments, which side panels the moves change, and those
panels drawn to be swapped in once the playback is over (never before: the score sheet and
the trick list must not give away a result the table has not shown yet)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment
from jinja2_fragments import render_block
from markupsafe import Markup

from engine import events as ev

TEMPLATE = "game.html"
PANELS = ("sheet", "tricks", "records", "current_rules")
"""The side panels (blocks of :data:`TEMPLATE`, each a section with that id)."""
PAUSES_MS = {"normal": {"play": 750, "trick": 1600, "": 0}, "fast": {"play": 220, "trick": 650, "": 0}}
"""How long the playback stays on a card played and on a trick taken, at normal and fast play."""


@dataclass(frozen=True)
class Deferred:
    """A side panel's update, swapped in by the page once the playback has finished
    (``swap`` as htmx's hx-swap: the whole panel, or lines added at its end)."""

    target: str
    swap: str
    html: Markup


Panels = tuple[list[str], int | None]
"""The side panels to draw again, and from which trick on the trick list only grows (None:
the list is drawn again, or is unchanged when "tricks" is not named)."""


def changed_panels(events: Iterable[ev.Event], tricks: int, dealt: bool = False) -> Panels:
    """The side panels that the moves' ``events`` change, with ``tricks`` the tricks of the
    hand on the list after them; ``dealt``: a new game was dealt (its rules too)."""
    events = list(events)
    over = dealt or any(isinstance(e, ev.RoundStarted | ev.RoundScored) for e in events)
    names = ["sheet"] if over else []
    if any(isinstance(e, ev.GameOver | ev.MoonShot) for e in events):
        names.append("records")
    if dealt:
        names.append("current_rules")
    taken = sum(1 for e in events if isinstance(e, ev.TrickWon | ev.TrickCancelled))
    before = tricks - taken
    if over or (taken and before <= 0):
        names.append("tricks")
    elif taken:
        return names, before
    return names, None


def every_panel() -> Panels:
    """A table drawn whole brings every side panel."""
    return list(PANELS), None


def deferred(env: Environment, ctx: dict[str, Any], panels: Panels) -> list[Deferred]:
    """The ``panels`` drawn from ``ctx`` as the page swaps them in after the playback."""
    names, new_tricks = panels
    out = [Deferred("#" + name, "outerHTML", Markup(render_block(env, TEMPLATE, name, ctx))) for name in names]
    if new_tricks is not None:
        lines = render_block(env, TEMPLATE, "trick_lines", {**ctx, "tricks": ctx["tricks"][new_tricks:]})
        out.append(Deferred("#tricks .trick-list", "beforeend", Markup(lines)))
    return out
