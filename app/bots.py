"""Computer players for the app: the engine's bot registry, with a fallback.

The engine's ``engine.bots.get_bot(name)`` is the source of computer players.  If a
difficulty is not (yet) available there, the strongest one that is stands in, and
if the registry itself is missing a random legal move keeps the table playable.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterable
from typing import Any, Protocol

from engine import Card, CardSet, PlayerView

ORDER = ("easy", "medium", "hard")


class Bot(Protocol):
    def choose_pass(self, view: PlayerView, rng: random.Random) -> Any: ...
    def choose_play(self, view: PlayerView, rng: random.Random) -> Any: ...
    def choose_moon(self, view: PlayerView, rng: random.Random) -> Any: ...


class RandomBot:
    """Any legal move: the stand-in when no computer player is registered."""

    name = "random"

    def choose_pass(self, view: PlayerView, rng: random.Random) -> CardSet:
        return CardSet(rng.sample(list(view.hand), 3))

    def choose_play(self, view: PlayerView, rng: random.Random) -> Card:
        return rng.choice(list(view.legal))

    def choose_moon(self, view: PlayerView, rng: random.Random) -> bool:
        options = view.moon_options()
        seat = view.seat
        # lower own total relative to the best opponent is better
        def margin(points: tuple[int, ...]) -> int:
            totals = [t + p for t, p in zip(view.totals, points, strict=True)]
            return totals[seat] - min(t for i, t in enumerate(totals) if i != seat)
        return margin(options["subtract"]) < margin(options["add"])


def _registry() -> Any:
    try:
        return importlib.import_module("engine.bots")
    except ImportError:
        return None


def get_bot(difficulty: str) -> Bot:
    """The computer player for ``difficulty``, or the strongest available below it."""
    registry = _registry()
    if registry is not None and hasattr(registry, "get_bot"):
        wanted = ORDER.index(difficulty) if difficulty in ORDER else len(ORDER) - 1
        for name in (*ORDER[wanted::-1], *ORDER[wanted + 1:]):
            try:
                bot = registry.get_bot(name)
            except (KeyError, ValueError, LookupError):
                continue
            if bot is not None:
                return bot  # type: ignore[no-any-return]
    return RandomBot()


def as_cards(choice: Any) -> CardSet:
    """A bot's pass as a CardSet, whatever iterable of cards it returned."""
    if isinstance(choice, CardSet):
        return choice
    if isinstance(choice, str):
        return CardSet(choice)
    items: Iterable[Any] = choice
    return CardSet([Card(c) for c in items])


def as_subtract(choice: Any) -> bool:
    """A bot's moon choice as ``subtract`` (True) or add (False)."""
    if isinstance(choice, str):
        return choice.lower() == "subtract"
    return bool(choice)
