"""Random full rounds per second: our engine against OpenSpiel driven from Python.

    python -m engine.bench [--seconds 6] [--json]

A round runs from a shuffled deal to the scores, passing included (to the left, as
in a first round), every decision uniformly random among the legal moves (``int(random() * k)`` in
every mode).  The
modes are timed in short interleaved slices so that load from other processes on
a shared machine falls on all of them alike; rates are totals over all slices.

- ``openspiel``: ``pyspiel`` hearts; the deck shuffled in Python and dealt through
  its 52 chance actions, then ``legal_actions()``/``apply_action()`` per move.
- ``engine``: our public move-by-move API, ``Game.legal_cards()`` and ``Game.play()``
  (with events, validation and the move log), like the server uses it.
- ``playout``: ``Game.playout(rng)``, the engine's random-rollout loop (same rules
  code, no per-move validation or events).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time
from collections.abc import Callable

from .cards import CardSet, cards_of
from .rules import STANDARD
from .state import Game
from .values import Phase


def engine_round(rng: random.Random, seed: int) -> None:
    g = Game(STANDARD, seed=seed)
    for seat in range(g.players):
        g.pass_cards(seat, CardSet(rng.sample(cards_of(g.hands[seat]), 3)))
    rnd = rng.random
    while g.phase is Phase.PLAY:
        cards = g.legal_cards()
        g.play(g.turn, cards[int(rnd() * len(cards))])  # type: ignore[arg-type]


def playout_round(rng: random.Random, seed: int) -> None:
    Game(STANDARD, seed=seed).playout(rng)


def openspiel_runner() -> Callable[[random.Random, int], None] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("hearts(qs_breaks_hearts=false)")
    pass_left = 1

    def run(rng: random.Random, seed: int) -> None:
        state = game.new_initial_state()
        state.apply_action(pass_left)
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        for card in deck:
            state.apply_action(card)
        rnd = rng.random
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rnd() * len(actions))])
        state.returns()

    return run


def measure(runners: dict[str, Callable[[random.Random, int], None]], seconds: float,
            slice_s: float = 0.25) -> dict[str, float]:
    done = dict.fromkeys(runners, 0)
    spent = dict.fromkeys(runners, 0.0)
    rngs = {name: random.Random(i) for i, name in enumerate(runners)}
    seed = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for name, run in runners.items():
            rng = rngs[name]
            t0 = time.perf_counter()
            t = t0
            while t - t0 < slice_s:
                seed += 1
                run(rng, seed)
                done[name] += 1
                t = time.perf_counter()
            spent[name] += t - t0
    return {name: done[name] / spent[name] for name in runners}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m engine.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=6.0, help="total wall time to spend measuring")
    ap.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = ap.parse_args(argv)
    runners: dict[str, Callable[[random.Random, int], None]] = {"engine": engine_round, "playout": playout_round}
    os_run = openspiel_runner()
    if os_run is not None:
        runners["openspiel"] = os_run
    rates = measure(runners, args.seconds)
    os_rate = rates.get("openspiel")
    print(f"random full rounds per second ({platform.python_implementation()} {platform.python_version()}, "
          f"{args.seconds:g} s interleaved)")
    for name, rate in rates.items():
        ratio = f"  {rate / os_rate:5.2f}x openspiel" if os_rate else ""
        print(f"  {name:10s} {rate:9.0f}{ratio}")
    if args.json:
        print(json.dumps({
            "engine_rounds_per_s": round(rates["engine"], 1),
            "playout_rounds_per_s": round(rates["playout"], 1),
            "openspiel_rounds_per_s": round(os_rate, 1) if os_rate else None,
            "ratio": round(rates["engine"] / os_rate, 3) if os_rate else None,
            "playout_ratio": round(rates["playout"] / os_rate, 3) if os_rate else None,
        }))


if __name__ == "__main__":
    main()
