"""Bot-vs-bot matches with duplicate deals: ``python -m engine.arena --help``.

Each deal is one round, played once per rotation of the seats, so every player type
holds every hand from every seat and the luck of the deal cancels out.  Deal ``k`` is
round ``k mod cycle`` of a game seeded ``"{seed}:{k}"``, so every pass direction comes
up; the rounds before it are played by fixed Easy players (the same for every
rotation), which also gives the measured round a realistic score context.

Seat type ``ismcts`` is OpenSpiel's IS-MCTS (``pyspiel.ISMCTSBot``) deciding the play
phase on OpenSpiel's own hearts, mirrored move by move from our game; our engine stays
the referee.  OpenSpiel's bot would pass at random, so that seat uses Medium's passing.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import openspiel
from .bots import BOTS, EasyBot, HardBot, MediumBot
from .moves import Move, PlayMove
from .referee import Player, computer_turns
from .rules import PRESETS, Rules, RulesError, rule_options
from .state import Game
from .values import Phase
from .view import PlayerView

ISMCTS = "ismcts"
SEAT_TYPES = (*BOTS, ISMCTS)


class IsmctsPlayer:
    """OpenSpiel's IS-MCTS for the play phase, Medium's habits for the pass (and it never
    faces the shooter's choice: OpenSpiel has none).

    Unlike our computer players it is bound to the arena's :class:`Game`, which it mirrors
    into OpenSpiel; the OpenSpiel state reveals to IS-MCTS only what its own rules do (the
    bot searches over determinisations of the hidden cards itself)."""

    name = ISMCTS

    def __init__(self, game: Game, simulations: int = 1000) -> None:
        self.game = game
        self.simulations = simulations
        self.medium = MediumBot()

    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        if view.phase is not Phase.PLAY:
            return self.medium.decide(view, rng)
        import pyspiel

        game = self.game
        seat = view.seat
        state = openspiel.state_of(game)
        if state.current_player() != openspiel.os_player(seat):
            raise RuntimeError(f"OpenSpiel mirror out of step: its player {state.current_player()}, ours {seat}")
        legal = {openspiel.action_to_card(a) for a in state.legal_actions()}
        if legal != set(game.legal_cards()):
            raise RuntimeError("OpenSpiel mirror disagrees on the legal cards")
        seed = rng.randrange(1 << 31)
        bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 10.0, self.simulations, -1,
                                pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
        return PlayMove(seat, openspiel.action_to_card(bot.step(state)))


def make_player(kind: str, game: Game, hard_budget: int | None, ismcts_sims: int) -> Player:
    if kind == ISMCTS:
        return IsmctsPlayer(game, ismcts_sims)
    if kind == "hard" and hard_budget is not None:
        return HardBot(budget=hard_budget)
    return BOTS[kind]()


# ---- playing one deal ------------------------------------------------------------------------

_CONFIG: dict[str, Any] = {}


def _warmed_up_game(rules: Rules, seed: int, k: int) -> Game:
    """Deal ``k``: a game whose next round to play is round ``k mod cycle``."""
    cycle = len({rules.pass_direction(i) for i in range(6)}) if rules.passing else 1
    warm = k % min(cycle, rules.max_rounds or cycle)  # a round the game reaches
    attempt = 0
    while True:
        game = Game(rules, seed=f"{seed}:{k}:{attempt}" if attempt else f"{seed}:{k}")
        easy = EasyBot()
        while game.round_index < warm and not game.is_over:
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            for _ in computer_turns(game, easy):
                pass
        if not game.is_over:
            return game
        attempt += 1


def play_deal(k: int) -> dict[str, Any]:
    """Play deal ``k`` once per rotation; per rotation the seat types, points and moon."""
    cfg = _CONFIG
    rules: Rules = cfg["rules"]
    lineup: list[str] = cfg["seats"]
    n = rules.players
    start = _warmed_up_game(rules, cfg["seed"], k)
    rotations = []
    times: dict[str, list[float]] = {}
    for rot in range(n):
        kinds = [lineup[(s - rot) % n] for s in range(n)]
        game = start.copy()  # the same deal for every rotation
        players = [make_player(kind, game, cfg["hard_budget"], cfg["ismcts_sims"]) for kind in kinds]
        for step in computer_turns(game, dict(enumerate(players))):
            times.setdefault(kinds[step.seat], []).append(step.seconds)
        rotations.append({"kinds": kinds, "points": list(game.round_points[-1]), "shooter": game.shooters[-1]})
    return {"deal": k, "rotations": rotations, "times": times}


def _init_worker(cfg: dict[str, Any]) -> None:
    _CONFIG.clear()
    _CONFIG.update(cfg)


# ---- statistics -------------------------------------------------------------------------------


def _mean_ci(xs: Sequence[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.nan, math.nan
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - h, m + h


def summarise(results: list[dict[str, Any]], lineup: list[str]) -> dict[str, Any]:
    kinds = sorted(set(lineup), key=lineup.index)
    players: dict[str, Any] = {}
    for kind in kinds:
        means: list[float] = []
        margins: list[float] = []
        shot = suffered = 0
        times: list[float] = []
        for r in results:
            own_sum = marg_sum = 0.0
            has_margin = True
            for rot in r["rotations"]:
                own = [p for kd, p in zip(rot["kinds"], rot["points"], strict=True) if kd == kind]
                other = [p for kd, p in zip(rot["kinds"], rot["points"], strict=True) if kd != kind]
                own_sum += statistics.fmean(own)
                if other:
                    marg_sum += statistics.fmean(other) - statistics.fmean(own)
                else:
                    has_margin = False
                s = rot["shooter"]
                for seat, kd in enumerate(rot["kinds"]):
                    if kd == kind and s is not None:
                        if seat == s:
                            shot += 1
                        else:
                            suffered += 1
            nrot = len(r["rotations"])
            means.append(own_sum / nrot)
            if has_margin:
                margins.append(marg_sum / nrot)
            times.extend(r["times"].get(kind, []))
        m, lo, hi = _mean_ci(means)
        entry: dict[str, Any] = {"seats": lineup.count(kind), "mean": round(m, 3), "ci95": [round(lo, 3), round(hi, 3)]}
        if margins:
            mm, mlo, mhi = _mean_ci(margins)
            entry.update(margin=round(mm, 3), margin_ci95=[round(mlo, 3), round(mhi, 3)])
        else:
            entry.update(margin=None, margin_ci95=None)
        times.sort()
        entry.update(moons_shot=shot, moons_suffered=suffered,
                     decision_s_mean=round(statistics.fmean(times), 6) if times else None,
                     decision_s_p95=round(times[min(len(times) - 1, int(0.95 * len(times)))], 6) if times else None,
                     decisions=len(times))
        if kind == ISMCTS:
            entry["note"] = "plays with OpenSpiel ISMCTSBot; passes with Medium's passing"
        players[kind] = entry
    return players


def format_table(summary: dict[str, Any]) -> str:
    head = (f"{'player':<8} {'seats':>5} {'mean':>7} {'95% CI':>17} {'margin':>7} {'margin 95% CI':>17} "
            f"{'moons':>5} {'suffered':>8} {'mean s':>8} {'p95 s':>8}")
    lines = [head, "-" * len(head)]
    for kind, e in summary["players"].items():
        ci = f"[{e['ci95'][0]:.2f}, {e['ci95'][1]:.2f}]"
        if e["margin"] is None:
            mg, mci = "-", "-"
        else:
            mg, mci = f"{e['margin']:.2f}", f"[{e['margin_ci95'][0]:.2f}, {e['margin_ci95'][1]:.2f}]"
        lines.append(f"{kind:<8} {e['seats']:>5} {e['mean']:>7.2f} {ci:>17} {mg:>7} {mci:>17} "
                     f"{e['moons_shot']:>5} {e['moons_suffered']:>8} {e['decision_s_mean']:>8.4f} "
                     f"{e['decision_s_p95']:>8.4f}")
    for kind, e in summary["players"].items():
        if "note" in e:
            lines.append(f"note: {kind} {e['note']}")
    return "\n".join(lines)


# ---- command line --------------------------------------------------------------------------------


def add_rule_flags(p: argparse.ArgumentParser, rules: type[Rules] = Rules) -> None:
    """A flag per option of ``rules`` (:func:`engine.rules.rule_options`), each changing the preset."""
    group = p.add_argument_group("rules", "each changes the --preset's rules")
    for o in rule_options(rules):
        flag = "--" + o.name.replace("_", "-")
        if o.kind is bool:
            group.add_argument(flag, action=argparse.BooleanOptionalAction, help=o.about.help)
        else:
            group.add_argument(flag, type=int, choices=o.about.values or None, metavar="N",
                               help=f"{o.about.help} ({o.minimum}..{o.maximum})")


def build_rules(args: argparse.Namespace, rules: type[Rules] = Rules) -> Rules:
    """The preset with the options the flags set."""
    base = PRESETS[args.preset]
    changes = {o.name: getattr(args, o.name) for o in rule_options(rules) if getattr(args, o.name) is not None}
    return rules(**{**base.to_dict(), **changes})


def parser(rules: type[Rules] = Rules) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__.split("\n")[0])
    p.add_argument("--seats", default="hard,medium,medium,medium",
                   help=f"comma-separated seat types, one per player ({', '.join(SEAT_TYPES)})")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the result as one JSON object on the last line")
    p.add_argument("--preset", choices=sorted(PRESETS), default="standard")
    p.add_argument("--hard-budget", type=int, help="Hard's simulated card plays per decision")
    p.add_argument("--ismcts-sims", type=int, default=1000)
    add_rule_flags(p, rules)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    try:
        rules = build_rules(args)
    except RulesError as exc:
        p.error(str(exc))
    seats = [s.strip().lower() for s in args.seats.split(",")]
    if len(seats) != rules.players:
        p.error(f"{len(seats)} seat types for {rules.players} players")
    bad = [s for s in seats if s not in SEAT_TYPES]
    if bad:
        p.error(f"unknown seat type(s) {', '.join(bad)}; choose from {', '.join(SEAT_TYPES)}")
    if ISMCTS in seats:
        try:
            openspiel.game_string(rules)
        except ValueError as exc:
            p.error(str(exc))
    cfg = {"rules": rules, "seats": seats, "seed": args.seed, "hard_budget": args.hard_budget,
           "ismcts_sims": args.ismcts_sims}
    t0 = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.Pool(args.workers, initializer=_init_worker, initargs=(cfg,)) as pool:
            results = list(pool.imap_unordered(play_deal, range(args.deals), chunksize=1))
    else:
        _init_worker(cfg)
        results = [play_deal(k) for k in range(args.deals)]
    results.sort(key=lambda r: r["deal"])
    elapsed = time.perf_counter() - t0
    summary = {"deals": args.deals, "rounds": sum(len(r["rotations"]) for r in results), "seed": args.seed,
               "seats": seats, "rules": rules.to_dict(),
               "hard_budget": (args.hard_budget or HardBot().budget) if "hard" in seats else None,
               "ismcts_sims": args.ismcts_sims if ISMCTS in seats else None,
               "elapsed_s": round(elapsed, 1), "players": summarise(results, seats)}
    print(f"{args.deals} duplicate deals x {rules.players} rotations = {summary['rounds']} rounds, "
          f"seed {args.seed}, rules: {', '.join(rules.describe())}; {elapsed:.0f} s")
    print(format_table(summary))
    if args.json:
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

