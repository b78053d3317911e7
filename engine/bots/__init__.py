"""Computer players: Easy, Medium and Hard, each deciding from a PlayerView only.

``get_bot("hard").choose_play(view, random.Random(seed))``; see :mod:`engine.bots.base`.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import BaseBot, Bot, check_view
from .easy import EasyBot
from .hard import HardBot
from .hardis import HardISBot
from .medium import MediumBot

BOTS: dict[str, Callable[[], BaseBot]] = {
    "easy": EasyBot,
    "medium": MediumBot,
    "hard": HardISBot,
}
"""Every computer player by name (the difficulty levels of SPEC.md §5)."""


def get_bot(name: str, hard_budget: int | None = None) -> BaseBot:
    """A new computer player of the named level ("easy", "medium" or "hard"); Hard with
    ``hard_budget`` simulated card plays per play decision when given (its own default
    otherwise: :data:`engine.bots.hardis.IS_BUDGET`)."""
    try:
        factory = BOTS[name.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"no computer player {name!r}; choose from {', '.join(BOTS)}") from None
    if hard_budget is not None and factory is HardISBot:
        return HardISBot(is_budget=hard_budget)
    return factory()


__all__ = ["BOTS", "Bot", "BaseBot", "EasyBot", "HardBot", "HardISBot", "MediumBot", "check_view", "get_bot"]
