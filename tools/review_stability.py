"""How stable is the review's "best"?  ``python -m tools.review_stability [--decisions 200] [--seed 1] [--flat]``

Positions come from games where every seat plays as Medium; at each decision of seat 0
(passes and plays with more than one card to choose from) the review's best choice
(:func:`engine.bots.coach.rate`, with the review's own random source) is compared with
Hard's own choice from the same view with another random seed: the server's Hard (its tree
search, which also gives the hints), or with ``--flat`` the flat search Hard played with
before issue 14's tree (the review's own search, and the figures of docs/review.md before
2026-12-06).  Reported: how often
they agree, with a 95% interval, for plays and passes apart, the mean expected points
the review says Hard's choice loses when they differ (a small loss means the two were
close calls), and how often the review labels Hard's own choice "best".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from typing import Any

from engine import Card, CardSet, Game, Phase, Rules
from engine.bots import HardBot, MediumBot, get_bot
from engine.bots.coach import LABELS, rate, review_rng
from engine.moves import PassMove, PlayMove


def wilson(k: int, n: int) -> tuple[float, float]:
    if not n:
        return (0.0, 0.0)
    p, z = k / n, 1.96
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (round(c - h, 3), round(c + h, 3))


def hard_player(flat: bool) -> HardBot:
    """The Hard whose choices the review is compared with (see the module)."""
    bot = HardBot() if flat else get_bot("hard")
    assert isinstance(bot, HardBot)
    return bot


def measure(decisions: int, seed: int, flat: bool = False) -> dict[str, Any]:
    medium, hard = MediumBot(), hard_player(flat)
    out: dict[str, list[tuple[bool, float]]] = {"play": [], "pass": []}
    g = 0
    t0 = time.perf_counter()
    while len(out["play"]) + len(out["pass"]) < decisions:
        game = Game(Rules(), seed=f"{seed}:{g}")
        g += 1
        while not game.is_over and len(out["play"]) + len(out["pass"]) < decisions:
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            seat = game.to_act[0]
            view = game.view(seat)
            rng = random.Random(f"{seed}/{game.move_count}")
            move = medium.decide(view, rng)
            choosing = seat == 0 and (
                (isinstance(move, PassMove)) or (isinstance(move, PlayMove) and len(view.legal) > 1))
            if choosing:
                assert isinstance(move, PassMove | PlayMove)
                rating = rate(view, move, review_rng(game.seed, game.move_count))
                other = random.Random(f"other/{seed}/{game.move_count}")
                if isinstance(move, PassMove):
                    own: tuple[str, ...] = tuple(hard.choose_pass(view, other).codes())
                    kind = "pass"
                else:
                    own = (hard.choose_play(view, other).code(),)
                    kind = "play"
                same = tuple(sorted(own)) == tuple(sorted(rating.best))
                lost = 0.0
                if not same:
                    mine = rate(view, _as_move(kind, own), review_rng(game.seed, game.move_count))
                    lost = mine.lost
                out[kind].append((same, lost))
            game.apply(move)
    result: dict[str, Any] = {"decisions": decisions, "seed": seed, "hard": "flat" if flat else "tree", "games": g,
                              "seconds": round(time.perf_counter() - t0, 1)}
    for kind, xs in out.items():
        k = sum(1 for same, _ in xs if same)
        diff = [lost for same, lost in xs if not same]
        fine = sum(1 for _, lost in xs if lost < LABELS[0][0])
        result[kind] = {"n": len(xs), "agree": k, "rate": round(k / len(xs), 3) if xs else None,
                        "ci95": wilson(k, len(xs)),
                        "mean_loss_when_different": round(sum(diff) / len(diff), 3) if diff else None,
                        # Hard's own choice as the review labels it: "best" (within the first threshold)
                        "hard_labelled_best": round(fine / len(xs), 3) if xs else None,
                        "hard_labelled_best_ci95": wilson(fine, len(xs))}
    allx = out["play"] + out["pass"]
    k = sum(1 for same, _ in allx if same)
    result["all"] = {"n": len(allx), "agree": k, "rate": round(k / len(allx), 3), "ci95": wilson(k, len(allx))}
    return result


def _as_move(kind: str, cards: tuple[str, ...]) -> PassMove | PlayMove:
    return PassMove(0, CardSet(list(cards))) if kind == "pass" else PlayMove(0, Card(cards[0]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decisions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--flat", action="store_true", help="compare with the flat search, not the server's Hard")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    r = measure(args.decisions, args.seed, args.flat)
    r["load_average_before"] = round(load, 2)
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
