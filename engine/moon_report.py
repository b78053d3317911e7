"""Where the moons a seat type suffered in an arena run came from:
``python -m engine.moon_report RUN.jsonl [--kind hard] [--json]``.

An arena run saved with ``--save`` holds each round's points and shooter, not its moves.
Every player but IS-MCTS decides the same for the same seed, so this replays each round in
which ``--kind`` suffered a moon, with the same seats, and reads from the replay:

- the pass: did the three cards go to the eventual shooter, and were hearts from the J up
  or the Q♠ among them; did the seat still hold the A♥ or the K♥ when play began;
- the stops: the decisions at which the seat held a card that surely won the trick on the
  table with a penalty card in it (:func:`engine.arena.sure_stops`), cheap ones (at most
  ``CHEAP_STOP_POINTS`` points, no Q♠) and dear ones.  A moon happened, so none was played.

With the moons suffered per pass direction over the whole run it tells a moon lost in the
play (a stop was on offer) from one set up before (none ever was).  A replay that does not
end with the saved points is counted and left out (an IS-MCTS seat at the table, or a run
saved by other code).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from . import arena
from .arena import CHEAP_STOP_POINTS, QS, make_player, sure_stops
from .cards import parse_card
from .referee import computer_turns
from .rules import Rules
from .state import Game
from .values import Phase

HIGH_HEARTS = [int(parse_card(c)) for c in ("JH", "QH", "KH", "AH")]
STOPPERS = [int(parse_card(c)) for c in ("KH", "AH")]


def suffered(head: dict[str, Any], deals: list[dict[str, Any]],
             kind: str) -> tuple[int, list[tuple[int, int, int, int]]]:
    """The line-up holding ``kind`` and its moon rounds: (deal, rotation, ``kind``'s seat,
    shooter)."""
    lineups = head["lineups"]
    index = next((i for i, lu in enumerate(lineups) if kind in lu), None)
    if index is None:
        raise ValueError(f"no seat of type {kind!r} in this run (line-ups: {lineups})")
    rounds = []
    for d in deals:
        for rot, r in enumerate(d["lineups"][index]["rotations"]):
            me = r["kinds"].index(kind)
            if r["shooter"] is not None and r["shooter"] != me:
                rounds.append((d["deal"], rot, me, r["shooter"]))
    return index, rounds


def replay(start: Game, kinds: list[str], me: int, hard_budget: int | None,
           ismcts_sims: int) -> tuple[Game, list[list[tuple[int, int, bool]]], int]:
    """Play the round of ``start`` again with these seats; the finished game, the sure
    stops offered to seat ``me`` at each of its plays, and its hand when play began."""
    game = start.copy()
    players = {s: make_player(kind, game, hard_budget, ismcts_sims) for s, kind in enumerate(kinds)}
    offered: list[list[tuple[int, int, bool]]] = []
    held = game.hands[me] if game.phase is Phase.PLAY else None
    for _ in computer_turns(game, players):
        if held is None and game.phase is Phase.PLAY:
            held = game.hands[me]
        if game.phase is Phase.PLAY and game.turn == me:
            offered.append(sure_stops(game))
    assert held is not None
    return game, offered, held


def analyse(path: str, kind: str) -> dict[str, Any]:
    head, deals, _ = arena.read_saved(path)
    if head is None or not deals:
        raise ValueError(f"{path}: no arena run saved there (or no deal finished yet)")
    rules = Rules.from_dict(head["rules"])
    index, moons = suffered(head, deals, kind)
    seed = head["seed"]
    budget = head.get("options", {}).get("hard_budget")
    sims = head.get("ismcts_sims") or 1000
    n = rules.players
    # every deal's start once: its pass direction counts the moons per direction over the
    # whole run, and the moon rounds are replayed from it
    starts = {d["deal"]: arena._warmed_up_game(rules, seed, d["deal"]) for d in deals}
    direction = {k: start.pass_direction.name.lower() for k, start in starts.items()}
    rounds: Counter[str] = Counter()
    for d in deals:
        rounds[direction[d["deal"]]] += len(d["lineups"][index]["rotations"])
    by_direction: Counter[str] = Counter(direction[k] for k, _, _, _ in moons)
    c: Counter[str] = Counter()
    by_deal = {d["deal"]: d for d in deals}
    for k, rot, me, shooter in moons:
        saved = by_deal[k]["lineups"][index]["rotations"][rot]
        game, offered, held = replay(starts[k], saved["kinds"], me, budget, sims)
        if list(game.round_points[-1]) != saved["points"] or game.shooters[-1] != shooter:
            c["replay_differs"] += 1
            continue
        c["replayed"] += 1
        passed = game.passes[me]
        if passed:
            c["passing"] += 1
            if game.pass_direction.target(me, n) == shooter:
                c["passed_to_shooter"] += 1
            if any(passed >> h & 1 for h in HIGH_HEARTS):
                c["passed_high_hearts"] += 1
            if passed >> QS & 1:
                c["passed_queen"] += 1
        if any(held >> s & 1 for s in STOPPERS):
            c["held_ah_or_kh"] += 1
        stops = [s for decision in offered for s in decision]
        if stops:
            c["a_sure_stop_offered"] += 1
            if any(p <= CHEAP_STOP_POINTS and not q for _, p, q in stops):
                c["a_cheap_stop_offered"] += 1
    return {"path": path, "kind": kind, "deals": len(deals), "moons_suffered": len(moons),
            "by_direction": {d: {"moons": by_direction[d], "rounds": rounds[d],
                                 "per_100": round(100 * by_direction[d] / rounds[d], 2)} for d in rounds},
            **{k: c[k] for k in ("replayed", "replay_differs", "passing", "passed_to_shooter", "passed_high_hearts",
                                 "passed_queen", "held_ah_or_kh", "a_sure_stop_offered", "a_cheap_stop_offered")}}


def show(r: dict[str, Any]) -> str:
    lines = [f"{r['path']}: {r['kind']} suffered {r['moons_suffered']} moons in {r['deals']} deals"]
    lines.append("  per pass direction: " + ", ".join(
        f"{d} {v['moons']}/{v['rounds']} ({v['per_100']:.1f} per 100)" for d, v in r["by_direction"].items()))
    lines.append(f"  replayed {r['replayed']} (differing from the saved round, left out: {r['replay_differs']})")
    lines.append(f"  of {r['passing']} with a pass: to the shooter {r['passed_to_shooter']}, "
                 f"with a heart from the J up {r['passed_high_hearts']}, with the Q♠ {r['passed_queen']}")
    lines.append(f"  held the A♥ or K♥ when play began: {r['held_ah_or_kh']}")
    lines.append(f"  a sure stop offered at some play: {r['a_sure_stop_offered']} "
                 f"(a cheap one: {r['a_cheap_stop_offered']})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.moon_report", description=__doc__.split("\n")[0])
    p.add_argument("path", help="an arena run saved with --save")
    p.add_argument("--kind", default="hard", help="the seat type whose moons suffered are replayed")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = p.parse_args(argv)
    try:
        result = analyse(args.path, args.kind)
    except (OSError, ValueError) as exc:
        p.error(str(exc))
    print(json.dumps(result) if args.json else show(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
