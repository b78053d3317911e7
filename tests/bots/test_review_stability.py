"""The review's stability tool compares the review with the Hard that gives the hints."""

from __future__ import annotations

from engine.bots.hard import HardBot
from engine.bots.hardis import HardISBot
from tools import review_stability


def test_the_tool_compares_with_the_servers_hard_unless_asked_for_the_flat_search() -> None:
    assert isinstance(review_stability.hard_player(False), HardISBot)
    flat = review_stability.hard_player(True)
    assert isinstance(flat, HardBot) and not isinstance(flat, HardISBot)


def test_a_small_run_counts_every_decision_once() -> None:
    result = review_stability.measure(3, 7)
    assert result["hard"] == "tree"
    assert result["play"]["n"] + result["pass"]["n"] == 3 == result["all"]["n"]
    for kind in ("play", "pass"):
        if result[kind]["n"]:
            assert 0 <= result[kind]["agree"] <= result[kind]["n"]
