"""Bot-vs-bot matches with duplicate deals: ``python -m engine.arena --help``.

Each deal is one round, played once per rotation of the seats, so every player type
holds every hand from every seat and the luck of the deal cancels out.  Deal ``k`` is
round ``k mod cycle`` of a game seeded ``"{seed}:{k}"``, so every pass direction comes
up; the rounds before it are played by fixed Easy players (the same for every
rotation), which also gives the measured round a realistic score context.

Seat type ``ismcts`` is OpenSpiel's IS-MCTS (``pyspiel.ISMCTSBot``) deciding the play
phase on OpenSpiel's own hearts, mirrored move by move from our game; our engine stays
the referee.  OpenSpiel's bot would pass at random, so that seat uses Medium's passing.
It decides in a helper process (:mod:`engine.ismcts_helper`) where its decisions replay the
same, so runs with it are reproducible and can be compared deal by deal like any other.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import openspiel
from .bots import BOTS, EasyBot, HardBot, MediumBot
from .bots.base import view_round
from .bots.hard import HUNT_PRIOR_BEFORE
from .bots.hardis import HardISBot
from .bots.policy import choose_card
from .bots.shooter import ShooterBot
from .bots.tree import moves_of
from .cards import LOW, QUEEN_OF_SPADES, SUIT_MASK, iter_cards
from .moves import Move, PlayMove
from .persist import dumps
from .referee import Player, computer_turns
from .review import review_hand
from .rules import PRESETS, Rules, RulesError, rule_options
from .state import Game
from .values import Phase
from .view import PlayerView

ISMCTS = "ismcts"
SHOOTER = "shooter"
HARD0 = "hard0"
HARD1 = "hard1"
HARDFLAT = "hardflat"
HARDIS = "hardis"
HARDKEEP = "hardkeep"
"""Hard as before issue 14's twenty-second session: its tree's seats keep the Q♠ when last
to a spade trick won by the K♠ or A♠, as the careful policy does."""
HARD24 = "hard24"
"""Hard as before issue 14's twenty-fifth session: its opponents hunt the Q♠ with a prior of
0.5, and its pass's rollouts keep the Q♠ when last to a spade trick won by the K♠ or A♠."""
HARD27 = "hard27"
"""Hard as before issue 14's twenty-eighth session: its tree deals the unseen cards uniformly,
blind to what the passes tell (:mod:`~engine.bots.passinfo`)."""
HARD30 = "hard30"
"""Hard as before issue 14's thirty-first session: its own seat in its rollouts never leads a
spade while holding the K♠ or A♠ (it does not hunt the queen)."""
HARDWARY = "hardwary"
"""Hard whose imagined opponents keep their penalty cards off its tricks once it nears a moon
(``HardISBot(wary=True)``), as IS-MCTS does and Medium does not: −0.00 against IS-MCTS over
600 deals, −0.03 against Medium over 240, −0.28 against the shooters over 342 (docs/strength.md,
issue 14's thirty-third and thirty-fourth sessions)."""
HARDWH = "hardwh"
"""``hardwary`` with a wary table in one sampled deal of two (``wary_every=2``): −0.18 against
IS-MCTS over 100 deals, −0.39 against Medium over 120."""
TREE_KINDS = ("hard", HARDIS, HARDKEEP, HARD24, HARD27, HARD30, HARDWARY, HARDWH)
"""The Hard seats that play with the tree search (:class:`~engine.bots.hardis.HardISBot`)."""
SEAT_TYPES = (*BOTS, SHOOTER, HARDFLAT, HARD0, HARD1, *TREE_KINDS[1:], ISMCTS)
QS = int(QUEEN_OF_SPADES)
ADDR_NO_RANDOMIZE = 0x0040000
"""Linux's personality flag that turns address randomisation off."""
CHEAP_STOP_POINTS = 4
"""A stop of a moon is cheap when it takes at most this many points (and not the Q♠)."""


class IsmctsPlayer:
    """OpenSpiel's IS-MCTS for the play phase, Medium's habits for the pass (and it never
    faces the shooter's choice: OpenSpiel has none).

    Unlike our computer players it is bound to the arena's :class:`Game`, which it mirrors
    into OpenSpiel; the OpenSpiel state reveals to IS-MCTS only what its own rules do (the
    bot searches over determinisations of the hidden cards itself)."""

    name = ISMCTS

    def __init__(self, game: Game, simulations: int = 1000, isolated: bool = False) -> None:
        self.game = game
        self.simulations = simulations
        self.isolated = isolated
        """Decide in a helper process, so that the decisions replay the same
        (:class:`IsolatedIsmcts`)."""
        self.medium = MediumBot()
        self.outside_cpu = 0.0
        """CPU seconds its decisions have spent outside this process (in the helper's children)."""

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
        if self.isolated:
            name = openspiel.game_string(game.rules)
            try:
                action, cpu = isolated_ismcts().step(name, seed, self.simulations, state.history())
            except BrokenPipeError:  # the helper was stopped: a new one decides alike
                del _ISOLATED[os.getpid()]
                action, cpu = isolated_ismcts().step(name, seed, self.simulations, state.history())
            self.outside_cpu += cpu
        else:
            bot = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 10.0, self.simulations, -1,
                                    pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
            action = bot.step(state)
        return PlayMove(seat, openspiel.action_to_card(action))


class IsolatedIsmcts:
    """IS-MCTS deciding in a helper process (:mod:`engine.ismcts_helper`) started with address
    randomisation off, which forks a fresh child for every decision: a decision then depends
    only on the state, the seed and the simulations, not on what the arena's process did
    before, so runs with IS-MCTS replay the same and two runs on the same deals can be
    compared deal by deal (``--compare``), as runs against Medium can."""

    def __init__(self) -> None:
        import ctypes
        import importlib.util

        spec = importlib.util.find_spec("pyspiel")
        if spec is None or spec.origin is None:
            raise RuntimeError("pyspiel is not installed (pip install -e '.[test]')")
        source = (Path(__file__).parent / "ismcts_helper.py").read_text(encoding="utf-8")
        libc = ctypes.CDLL(None, use_errno=True)

        def no_aslr() -> None:  # in the child, before it runs Python
            current = libc.personality(0xFFFFFFFF)
            libc.personality(current | ADDR_NO_RANDOMIZE)

        # the same arguments, environment and directory from any checkout: the helper's
        # memory at its start must not depend on where it was started from
        self.proc = subprocess.Popen(
            [os.path.realpath(sys.executable), "-I", "-S", "-c", source,
             os.path.dirname(os.path.realpath(spec.origin))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={}, cwd="/", preexec_fn=no_aslr)
        assert self.proc.stdout is not None
        self.fixed = self.proc.stdout.readline().strip() == b"1"
        """Whether address randomisation is off in the helper (if not, its decisions do not
        replay the same)."""

    def step(self, game: str, seed: int, simulations: int, history: Sequence[int]) -> tuple[int, float]:
        """IS-MCTS's action in the state reached by ``history``, and the CPU seconds it took."""
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"{game} {seed} {simulations} {' '.join(map(str, history))}\n".encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise BrokenPipeError("the IS-MCTS helper has stopped")
        fields = line.split()
        if len(fields) != 2 or int(fields[0]) < 0:
            raise RuntimeError("the IS-MCTS helper failed to decide")
        return int(fields[0]), float(fields[1])


_ISOLATED: dict[int, IsolatedIsmcts] = {}
"""Each process's helper, by process id: a worker forked from a process that has one must not
share it (two processes asking on one pipe would read each other's answers)."""


def isolated_ismcts() -> IsolatedIsmcts:
    """This process's IS-MCTS helper (started on first use)."""
    pid = os.getpid()
    if pid not in _ISOLATED:
        _ISOLATED[pid] = IsolatedIsmcts()
    return _ISOLATED[pid]


def make_player(kind: str, game: Game, hard_budget: int | None, ismcts_sims: int, isolated: bool = False) -> Player:
    if kind == ISMCTS:
        return IsmctsPlayer(game, ismcts_sims, isolated)
    if kind == SHOOTER:
        return ShooterBot()
    if kind in (HARDFLAT, HARD0, HARD1):
        kwargs: dict[str, Any] = {"classic": kind == HARD0, "model": kind != HARD1}
        if hard_budget is not None:
            kwargs["budget"] = hard_budget
        return HardBot(**kwargs)
    if kind in TREE_KINDS:
        # the cap on iterations goes with the budget (HardISBot), so --hard-budget 60000 is the
        # Hard of the eighth to sixteenth sessions and 240000 the seventeenth's "four times"
        tree: dict[str, Any] = {"opponents_tree": kind == HARDIS, "dump": kind != HARDKEEP}
        if kind in (HARD24, HARD27):
            tree["read_passes"] = False
        if kind == HARD30:
            tree["self_hunt"] = False
        if kind in (HARDWARY, HARDWH):
            tree.update(wary=True, wary_every=2 if kind == HARDWH else 1)
        if kind == HARD24:
            tree.update(hunt_prior=HUNT_PRIOR_BEFORE, pass_dump=False)
        if hard_budget is not None:
            tree["is_budget"] = hard_budget
        return HardISBot(**tree)
    return BOTS[kind]()


def hard_budget_of(kind: str) -> int:
    """The default budget of a Hard seat type, in simulated card plays per play decision."""
    if kind in TREE_KINDS:
        return HardISBot().is_budget
    return HardBot(classic=kind == HARD0).budget


class CpuTimed:
    """A player whose decisions' CPU time (this thread's, and the IS-MCTS helper's for its
    decisions, so other processes on a busy machine do not count) is recorded by seat type
    in ``cpu``, and in ``policy`` how often its play is the careful policy's
    (:func:`policy_agreement`)."""

    def __init__(self, player: Player, kind: str, cpu: dict[str, list[float]],
                 policy: dict[str, list[int]]) -> None:
        self.player = player
        self.kind = kind
        self.cpu = cpu
        self.policy = policy
        self.name = kind

    def decide(self, view: PlayerView, rng: random.Random) -> Move:
        before = getattr(self.player, "outside_cpu", 0.0)
        t0 = time.thread_time()
        move = self.player.decide(view, rng)
        spent = time.thread_time() - t0
        spent += getattr(self.player, "outside_cpu", 0.0) - before  # an isolated IS-MCTS's helper
        self.cpu.setdefault(self.kind, []).append(spent)
        if isinstance(move, PlayMove) and len(view.legal) > 1:
            same, alike = policy_agreement(view, int(move.card))
            counts = self.policy.setdefault(self.kind, [0, 0, 0])
            counts[0] += 1
            counts[1] += same
            counts[2] += alike
        return move


def policy_agreement(view: PlayerView, card: int) -> tuple[bool, bool]:
    """Whether ``card``, played from ``view``, is the careful policy's card (Medium's, the
    model of the opponents in Hard's rollouts), and whether it plays alike: one move of
    Hard's tree (:func:`~engine.bots.tree.moves_of`: the same suit and points with no card
    still out between them; with two decks only the card itself)."""
    st = view_round(view)
    mine = choose_card(st)
    if mine == card:
        return True, True
    runs = moves_of(st)  # the lowest card of each run, in order

    def run(c: int) -> int:
        return max(r for r in runs if r <= c)

    return False, run(mine) == run(card)


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


def sure_stops(game: Game) -> list[tuple[int, int, bool]]:
    """The legal cards with which the seat to play would surely win the trick on the table
    with a penalty card in it, which ends any moon: (card, the trick's points with it,
    whether the Q♠ is in it).  Read from the true state, by the arena only; single deck."""
    if game.phase is not Phase.PLAY or not game.trick or game.rules.cancellation:
        return []
    rules = game.rules
    pts = rules.card_points
    pen = rules.penalty_mask
    n = game.players
    trick = [int(c) for c in game.trick]
    led = trick[0] // 13
    top = max(c for c in trick if c // 13 == led)
    on_table = sum(pts[c] for c in trick)
    table_pen = any(pen >> c & 1 for c in trick)
    later = 0
    for i in range(len(trick) + 1, n):
        later |= game.hands[(game.leader + i) % n] & LOW  # type: ignore[operator]
    later &= SUIT_MASK[led]
    stops: list[tuple[int, int, bool]] = []
    for c in iter_cards(game.legal_mask):
        if c // 13 != led or c < top or later >> (c + 1):
            continue
        if table_pen or pen >> c & 1:
            stops.append((c, on_table + pts[c], c == QS or QS in trick))
    return stops


def cheap_stop(game: Game) -> bool:
    """Could the seat to play end a moon cheaply now: is there a legal card that surely
    wins a trick already holding a penalty card, for at most CHEAP_STOP_POINTS points and
    no Q♠?"""
    return any(points <= CHEAP_STOP_POINTS and not queen for _, points, queen in sure_stops(game))


def play_lineup(start: Game, lineup: list[str]) -> dict[str, Any]:
    """Play the round of ``start`` once per rotation of ``lineup``."""
    cfg = _CONFIG
    n = len(lineup)
    rotations = []
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    policy: dict[str, list[int]] = {}
    for rot in range(n):
        kinds = [lineup[(s - rot) % n] for s in range(n)]
        game = start.copy()  # the same deal for every rotation
        players = {s: CpuTimed(make_player(kind, game, cfg["hard_budget"], cfg["ismcts_sims"],
                                           cfg.get("ismcts_isolated", False)), kind, cpu, policy)
                   for s, kind in enumerate(kinds)}
        chances = [0] * n  # decisions where a cheap stop of a moon was on offer
        for step in computer_turns(game, players):
            if step.stood_in:
                # the referee played a random card for a player that failed: not a measurement
                raise RuntimeError(f"deal's seat {step.seat} ({kinds[step.seat]}) failed to decide; see the log")
            times.setdefault(kinds[step.seat], []).append(step.seconds)
            if cheap_stop(game):
                chances[game.turn] += 1  # type: ignore[index]
        shooter = game.shooters[-1]
        missed = [0 if shooter is None or s == shooter else chances[s] for s in range(n)]
        rotation: dict[str, Any] = {"kinds": kinds, "points": list(game.round_points[-1]), "shooter": shooter,
                                    "missed_cheap_stops": missed}
        if cfg.get("review"):
            # --review: every decision of every seat in the round, rated by the coach from
            # that seat's view, as (expected points lost, label)
            record = dumps(game)
            rotation["review"] = [[[round(r.lost, 3), r.label] for r in review_hand(record, s, game.round_index)]
                                  for s in range(n)]
        rotations.append(rotation)
    return {"rotations": rotations, "times": times, "cpu": cpu, "policy": policy}


def play_deal(k: int) -> dict[str, Any]:
    """Play deal ``k`` once per rotation of each line-up (two with ``--paired``); per
    rotation the seat types, points, moon and missed cheap stops."""
    cfg = _CONFIG
    start = _warmed_up_game(cfg["rules"], cfg["seed"], k)
    return {"deal": k, "lineups": [play_lineup(start, lineup) for lineup in cfg["lineups"]]}


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


def _p95(xs: list[float]) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(0.95 * len(xs)))], 6)


def deal_values(deal: dict[str, Any], kind: str) -> tuple[float, float | None]:
    """``kind``'s mean points per round in one deal's rotations, and its margin (the other
    types' mean minus its own; ``None`` when every seat is ``kind``)."""
    own_sum = marg_sum = 0.0
    has_margin = True
    for rot in deal["rotations"]:
        own = [p for kd, p in zip(rot["kinds"], rot["points"], strict=True) if kd == kind]
        other = [p for kd, p in zip(rot["kinds"], rot["points"], strict=True) if kd != kind]
        own_sum += statistics.fmean(own)
        if other:
            marg_sum += statistics.fmean(other) - statistics.fmean(own)
        else:
            has_margin = False
    nrot = len(deal["rotations"])
    return own_sum / nrot, (marg_sum / nrot if has_margin else None)


def deal_moons(deal: dict[str, Any], kind: str) -> tuple[int, int, int, int]:
    """``kind``'s moons shot, moons suffered, missed cheap stops and seat-rounds in one deal."""
    shot = suffered = missed = seat_rounds = 0
    for rot in deal["rotations"]:
        s = rot["shooter"]
        for seat, kd in enumerate(rot["kinds"]):
            if kd != kind:
                continue
            seat_rounds += 1
            missed += rot.get("missed_cheap_stops", [0] * len(rot["kinds"]))[seat]
            if s is not None:
                if seat == s:
                    shot += 1
                else:
                    suffered += 1
    return shot, suffered, missed, seat_rounds


def summarise(results: list[dict[str, Any]], lineup: list[str]) -> dict[str, Any]:
    """Per seat type of ``lineup``: points, margin, moons and decision times over ``results``
    (deals, each with its ``rotations`` and ``times``)."""
    kinds = sorted(set(lineup), key=lineup.index)
    players: dict[str, Any] = {}
    for kind in kinds:
        means: list[float] = []
        margins: list[float] = []
        shot = suffered = missed = seat_rounds = 0
        times: list[float] = []
        cpu: list[float] = []
        for r in results:
            own, margin = deal_values(r, kind)
            means.append(own)
            if margin is not None:
                margins.append(margin)
            a, b, c, d = deal_moons(r, kind)
            shot += a
            suffered += b
            missed += c
            seat_rounds += d
            times.extend(r["times"].get(kind, []))
            cpu.extend(r.get("cpu", {}).get(kind, []))
        m, lo, hi = _mean_ci(means)
        entry: dict[str, Any] = {"seats": lineup.count(kind), "mean": round(m, 3), "ci95": [round(lo, 3), round(hi, 3)]}
        if margins:
            mm, mlo, mhi = _mean_ci(margins)
            entry.update(margin=round(mm, 3), margin_ci95=[round(mlo, 3), round(mhi, 3)])
        else:
            entry.update(margin=None, margin_ci95=None)
        entry.update(moons_shot=shot, moons_suffered=suffered,
                     moons_suffered_per_100=round(100 * suffered / seat_rounds, 2) if seat_rounds else None,
                     missed_cheap_stops=missed,
                     decision_s_mean=round(statistics.fmean(times), 6) if times else None,
                     decision_s_p95=_p95(times),
                     decision_cpu_s_p95=_p95(cpu),
                     decision_cpu_s_max=round(max(cpu), 6) if cpu else None,
                     decisions=len(times))
        rated = [d for r in results for rot in r["rotations"] if "review" in rot
                 for s, k in enumerate(rot["kinds"]) if k == kind for d in rot["review"][s]]
        if rated:
            # the coach's rating of the seat type's decisions (--review); forced ones excluded
            chosen = [lost for lost, label in rated if label != "forced"]
            lm, llo, lhi = _mean_ci(chosen) if len(chosen) > 1 else (0.0, 0.0, 0.0)
            entry["review"] = {"decisions": len(chosen), "forced": len(rated) - len(chosen),
                               "mean_loss": round(lm, 3), "mean_loss_ci95": [round(llo, 3), round(lhi, 3)],
                               "labels": {name: sum(1 for _, lab in rated if lab == name)
                                          for name in ("best", "good", "inaccuracy", "mistake", "blunder")}}
        agreed = [r["policy"][kind] for r in results if kind in r.get("policy", {})]
        if agreed:
            # its plays with a choice of cards (a count exists only once one was counted): how
            # many were the careful policy's card, or alike
            choices, same, alike = (sum(a[i] for a in agreed) for i in range(3))
            entry["policy_agreement"] = {"choices": choices, "same": round(same / choices, 4),
                                         "alike": round(alike / choices, 4)}
        if kind == ISMCTS:
            entry["note"] = "plays with OpenSpiel ISMCTSBot; passes with Medium's passing"
        players[kind] = entry
    return players


def compare(results: list[dict[str, Any]], lineups: list[list[str]]) -> dict[str, Any]:
    """``--paired``: the second line-up's first seat type against the first's, deal by deal
    (the same cards, the same seats): the difference of their margins and of the moons they
    suffered, with 95% confidence intervals over deals."""
    return paired(lineups[0][0], lineups[1][0], [(r["lineups"][0], r["lineups"][1]) for r in results])


def paired(a: str, b: str, pairs: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Seat type ``b`` against ``a`` over ``pairs`` of one deal's line-ups (``a``'s, ``b``'s)."""
    dm: list[float] = []
    ds: list[float] = []
    for ra, rb in pairs:
        ma = deal_values(ra, a)[1]
        mb = deal_values(rb, b)[1]
        if ma is None or mb is None:
            raise ValueError("a paired comparison needs other seat types beside the one compared")
        dm.append(mb - ma)
        _, suffered_a, _, rounds_a = deal_moons(ra, a)
        _, suffered_b, _, rounds_b = deal_moons(rb, b)
        ds.append(100 * (suffered_b / rounds_b - suffered_a / rounds_a))
    m, lo, hi = _mean_ci(dm)
    sm, slo, shi = _mean_ci(ds)
    return {"subject": b, "baseline": a, "margin_diff": round(m, 3), "margin_diff_ci95": [round(lo, 3), round(hi, 3)],
            "suffered_per_100_diff": round(sm, 2), "suffered_per_100_diff_ci95": [round(slo, 2), round(shi, 2)]}


def compare_saved(baseline: str, subject: str) -> dict[str, Any]:
    """``--compare BASELINE SUBJECT``: two runs saved with ``--save`` on the same deals (seed,
    rules and the other seats the same), the first seat type of the subject's against the
    baseline's, deal by deal over the deals both have finished.  Its figures (the
    :func:`paired` ones, each run's margin over those deals) are those of ``--paired``
    without playing the baseline again; a run with IS-MCTS seats does not replay the same,
    so there only the cards are shared."""
    (ha, ra), (hb, rb) = saved_run(baseline), saved_run(subject)
    da = {r["deal"]: r["lineups"][0] for r in ra}
    db = {r["deal"]: r["lineups"][0] for r in rb}
    for key in ("seed", "rules"):
        if ha[key] != hb[key]:
            raise ValueError(f"the two runs were not played on the same deals: their {key} differs")
    a, b = ha["seats"][0], hb["seats"][0]
    if ha["seats"][1:] != hb["seats"][1:]:
        raise ValueError(f"the other seats differ: {','.join(ha['seats'][1:])} against {','.join(hb['seats'][1:])}")
    common = sorted(set(da) & set(db))
    if len(common) < 2:
        raise ValueError("the two runs have fewer than two finished deals in common")
    result = paired(a, b, [(da[k], db[k]) for k in common])
    if a == b:
        result["subject"] = f"{b} ({subject})"
        result["baseline"] = f"{a} ({baseline})"
    for name, kind, deals in (("baseline_margin", a, da), ("subject_margin", b, db)):
        margins = [deal_values(deals[k], kind)[1] for k in common]
        m, lo, hi = _mean_ci([x for x in margins if x is not None])
        result[name] = round(m, 3)
        result[name + "_ci95"] = [round(lo, 3), round(hi, 3)]
    result["deals"] = len(common)
    return result


def format_table(summary: dict[str, Any]) -> str:
    head = (f"{'player':<8} {'seats':>5} {'mean':>7} {'95% CI':>17} {'margin':>7} {'margin 95% CI':>17} "
            f"{'moons':>5} {'suffered':>8} {'/100':>6} {'missed':>6} {'mean s':>8} {'p95 s':>8} {'p95 cpu':>8}")
    lines = [head, "-" * len(head)]
    for kind, e in summary["players"].items():
        ci = f"[{e['ci95'][0]:.2f}, {e['ci95'][1]:.2f}]"
        if e["margin"] is None:
            mg, mci = "-", "-"
        else:
            mg, mci = f"{e['margin']:.2f}", f"[{e['margin_ci95'][0]:.2f}, {e['margin_ci95'][1]:.2f}]"
        lines.append(f"{kind:<8} {e['seats']:>5} {e['mean']:>7.2f} {ci:>17} {mg:>7} {mci:>17} "
                     f"{e['moons_shot']:>5} {e['moons_suffered']:>8} {e['moons_suffered_per_100']:>6.2f} "
                     f"{e['missed_cheap_stops']:>6} {e['decision_s_mean']:>8.4f} "
                     f"{e['decision_s_p95']:>8.4f} {e['decision_cpu_s_p95']:>8.4f}")
    for kind, e in summary["players"].items():
        if "review" in e:
            rv = e["review"]
            labels = ", ".join(f"{k} {v}" for k, v in rv["labels"].items())
            lines.append(f"review: {kind} loses {rv['mean_loss']:.3f} expected points per decision "
                         f"[{rv['mean_loss_ci95'][0]:.3f}, {rv['mean_loss_ci95'][1]:.3f}] over {rv['decisions']} "
                         f"decisions ({rv['forced']} forced not counted): {labels}")
    for kind, e in summary["players"].items():
        pa = e.get("policy_agreement")
        if pa:
            lines.append(f"policy: {kind} played the careful policy's card in {100 * pa['same']:.1f} % of "
                         f"{pa['choices']} plays with a choice ({100 * pa['alike']:.1f} % counting cards that "
                         "play alike)")
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
    p.add_argument("--hard-budget", type=int,
                   help="simulated card plays per play decision of the Hard seats (hard, hardis, hardkeep, "
                        "hard24, hard27, hardflat, hard0, hard1); for the tree's seats (all but hardflat, hard0 "
                        "and hard1) the cap on a decision's iterations scales with it")
    p.add_argument("--ismcts-sims", type=int, default=1000)
    p.add_argument("--ismcts-in-process", action="store_true",
                   help="let IS-MCTS decide in the arena's own process, as before issue 14's twenty-fifth session: "
                        "its decisions then differ from run to run (by default it decides in a helper process "
                        "where they replay the same)")
    p.add_argument("--paired", metavar="TYPE",
                   help="play every deal (same cards, same seats) a second time with the first seat type "
                        "replaced by TYPE, and report the difference, e.g. --seats hard0,medium,medium,medium "
                        "--paired hard")
    p.add_argument("--review", action="store_true",
                   help="rate every decision with the hand review's coach (engine.bots.coach) and report each seat "
                        "type's mean expected points lost per decision")
    p.add_argument("--save", metavar="PATH",
                   help="also write every deal's rounds to PATH as it finishes (JSON lines, appended and "
                        "flushed), then the result; if PATH holds this run already (stopped or shorter), the "
                        "deals in it are kept and only the others played")
    p.add_argument("--report", metavar="PATH", help="print the result of a run saved with --save (even unfinished)")
    p.add_argument("--compare", nargs=2, metavar=("BASELINE", "SUBJECT"),
                   help="two runs saved with --save on the same deals: the subject's first seat type against "
                        "the baseline's, deal by deal, over the deals both finished (as --paired, without "
                        "playing the baseline again)")
    p.add_argument("--resume", metavar="PATH",
                   help="continue the run saved in PATH with the settings saved there (the deals already in it "
                        "are kept, the others played and appended); --deals N extends it, --workers and --json "
                        "apply; the same as running the command that started it again")
    add_rule_flags(p, rules)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.compare:
        try:
            diff = compare_saved(*args.compare)
        except (OSError, ValueError) as exc:
            p.error(str(exc))
        print(json.dumps(diff) if args.json else format_compare(diff))
        return 0
    if args.report:
        try:
            summary = report_file(args.report)
        except (OSError, ValueError) as exc:
            p.error(str(exc))
        if args.json:
            print(json.dumps(summary))
        return 0
    if args.resume:
        try:
            resume_args(args, p.parse_args([]), args.resume)
        except (OSError, ValueError) as exc:
            p.error(str(exc))
    try:
        rules = Rules.from_dict(args.saved_rules) if args.resume else build_rules(args)
    except RulesError as exc:
        p.error(str(exc))
    seats = [s.strip().lower() for s in args.seats.split(",")]
    if len(seats) != rules.players:
        p.error(f"{len(seats)} seat types for {rules.players} players")
    lineups = [seats]
    if args.paired is not None:
        other = args.paired.strip().lower()
        if other == seats[0] or other in seats:
            p.error(f"--paired {other}: choose a seat type not already at the table")
        lineups.append([other if s == seats[0] else s for s in seats])
        if len(set(seats)) < 2:
            p.error("--paired needs other seat types beside the one compared")
    bad = sorted({s for lu in lineups for s in lu if s not in SEAT_TYPES})
    if bad:
        p.error(f"unknown seat type(s) {', '.join(bad)}; choose from {', '.join(SEAT_TYPES)}")
    if any(ISMCTS in lu for lu in lineups):
        try:
            openspiel.game_string(rules)
        except ValueError as exc:
            p.error(str(exc))
    isolated = any(ISMCTS in lu for lu in lineups) and not args.ismcts_in_process
    if isolated and not isolated_ismcts().fixed:
        print("warning: address randomisation could not be turned off for IS-MCTS's helper: "
              "its decisions will not replay the same", file=sys.stderr)
    cfg = {"rules": rules, "lineups": lineups, "seed": args.seed, "hard_budget": args.hard_budget,
           "ismcts_sims": args.ismcts_sims, "review": args.review, "ismcts_isolated": isolated}
    hard_kinds = {*TREE_KINDS, HARDFLAT, HARD0, HARD1} & {s for lu in lineups for s in lu}
    head = {"deals": args.deals, "seed": args.seed, "seats": seats, "lineups": lineups, "rules": rules.to_dict(),
            "hard_budget": {k: args.hard_budget or hard_budget_of(k) for k in sorted(hard_kinds)}
            if hard_kinds else None,
            "ismcts_sims": args.ismcts_sims if any(ISMCTS in lu for lu in lineups) else None,
            "options": {"hard_budget": args.hard_budget, "review": args.review,
                        **({"ismcts_isolated": True} if isolated else {})}}
    done: list[dict[str, Any]] = []
    save = None
    if args.save:
        try:
            done, save = open_save(args.save, head)
        except (OSError, ValueError) as exc:
            p.error(str(exc))
        if done:
            print(f"{args.save}: {len(done)} deals already played, resuming", file=sys.stderr)
    saved = {r["deal"] for r in done}
    todo = [k for k in range(args.deals) if k not in saved]
    t0 = time.perf_counter()
    results = list(done)

    def finished(r: dict[str, Any]) -> None:
        results.append(r)
        if save:
            save.write(json.dumps(r) + "\n")
            save.flush()

    try:
        if args.workers > 1:
            with multiprocessing.Pool(args.workers, initializer=_init_worker, initargs=(cfg,)) as pool:
                for r in pool.imap_unordered(play_deal, todo, chunksize=1):
                    finished(r)
        else:
            _init_worker(cfg)
            for k in todo:
                finished(play_deal(k))
        summary = report(head, [r for r in results if r["deal"] < args.deals], time.perf_counter() - t0)
        if save:
            save.write(json.dumps({"summary": summary}) + "\n")
    finally:
        if save:
            save.close()
    if args.json:
        print(json.dumps(summary))
    return 0


def report(head: dict[str, Any], results: list[dict[str, Any]], elapsed: float | None) -> dict[str, Any]:
    """Summarise and print ``results`` (deals played with the settings ``head``)."""
    results = sorted(results, key=lambda r: r["deal"])
    rules = Rules.from_dict(head["rules"])
    seats = head["seats"]
    lineups = head["lineups"]
    summary: dict[str, Any] = {**{k: v for k, v in head.items() if k != "lineups"}, "deals": len(results),
                               "rounds": sum(len(r["lineups"][0]["rotations"]) for r in results),
                               "elapsed_s": None if elapsed is None else round(elapsed, 1),
                               "players": summarise([r["lineups"][0] for r in results], seats)}
    took = "" if elapsed is None else f"; {elapsed:.0f} s"
    print(f"{len(results)} duplicate deals x {rules.players} rotations = {summary['rounds']} rounds, "
          f"seed {head['seed']}, rules: {', '.join(rules.describe())}{took}")
    print(format_table(summary))
    if len(lineups) > 1:
        summary["paired"] = {"seats": lineups[1], "players": summarise([r["lineups"][1] for r in results], lineups[1])}
        summary["paired"].update(compare(results, lineups))
        pr = summary["paired"]
        print(f"\nthe same deals with {pr['subject']} in place of {pr['baseline']}:")
        print(format_table(pr))
        print(format_difference(pr))
    return summary


def format_difference(pr: dict[str, Any]) -> str:
    """The line of a paired comparison (:func:`paired`)."""
    return (f"{pr['subject']} - {pr['baseline']}: margin {pr['margin_diff']:+.2f} "
            f"[{pr['margin_diff_ci95'][0]:+.2f}, {pr['margin_diff_ci95'][1]:+.2f}], moons suffered per 100 rounds "
            f"{pr['suffered_per_100_diff']:+.2f} [{pr['suffered_per_100_diff_ci95'][0]:+.2f}, "
            f"{pr['suffered_per_100_diff_ci95'][1]:+.2f}]")


def format_compare(diff: dict[str, Any]) -> str:
    """``--compare``'s answer: each run's margin over the deals both finished, then the difference."""
    lines = [f"{diff['deals']} deals finished in both runs"]
    for who in ("baseline", "subject"):
        lo, hi = diff[who + "_margin_ci95"]
        lines.append(f"{who} {diff[who]}: margin {diff[who + '_margin']:+.2f} [{lo:+.2f}, {hi:+.2f}]")
    lines.append(format_difference(diff))
    return "\n".join(lines)


def read_saved(path: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], int]:
    """A file written by ``--save``: its settings (the last ``config`` line), the deals
    finished in it (each once, those beyond the settings' ``deals`` left out) and the
    length of its complete lines (a last line without its newline is a deal being
    written when the run stopped, and is not counted)."""
    with open(path, "rb") as f:
        data = f.read()
    complete = data.rfind(b"\n") + 1
    head: dict[str, Any] | None = None
    deals: dict[int, dict[str, Any]] = {}
    for line in data[:complete].decode("utf-8").splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"{path}: not a file written by --save (a line is not JSON)") from None
        if "config" in item:
            head = item["config"]
        elif "deal" in item:
            deals.setdefault(item["deal"], item)
    if head is not None:
        deals = {k: r for k, r in deals.items() if k < head["deals"]}
    return head, [deals[k] for k in sorted(deals)], complete


def open_save(path: str, head: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
    """Open ``--save PATH`` for the run ``head``: a new file gets the settings line; a file
    holding the same run (the same settings, any number of deals) is continued after its
    last complete line, and its finished deals are returned so that they are not played
    again.  A file holding another run is refused, not overwritten."""
    try:
        saved, done, complete = read_saved(path)
    except FileNotFoundError:
        saved, done, complete = None, [], 0
    if saved is None and complete:
        raise ValueError(f"{path}: holds no arena run; choose another file for --save")
    if saved is None:
        f = open(path, "w", encoding="utf-8")  # noqa: SIM115 (written deal by deal)
        f.write(json.dumps({"config": head}) + "\n")
        f.flush()
        return [], f
    want = json.loads(json.dumps(head))
    differ = sorted(k for k in set(want) | set(saved) if k != "deals" and want.get(k) != saved.get(k))
    if differ:
        raise ValueError(f"{path}: holds another run (settings differ: {', '.join(differ)}); "
                         "choose another file for --save, or --resume it")
    with open(path, "r+b") as raw:
        raw.truncate(complete)  # a deal cut off in the middle of its line is played again
    f = open(path, "a", encoding="utf-8")  # noqa: SIM115 (written deal by deal)
    if saved["deals"] != want["deals"]:
        f.write(json.dumps({"config": head}) + "\n")  # the run extended (or shortened)
        f.flush()
    return [r for r in done if r["deal"] < head["deals"]], f


def resume_args(args: argparse.Namespace, defaults: argparse.Namespace, path: str) -> None:
    """``--resume PATH``: the settings of the run saved in ``path`` in ``args`` (``--deals``
    given on the command line wins, to extend the run)."""
    head, _, _ = read_saved(path)
    if head is None:
        raise ValueError(f"{path}: no arena run saved there")
    opts = head.get("options", {})
    lineups = head["lineups"]
    args.save = path
    args.seats = ",".join(head["seats"])
    args.paired = lineups[1][0] if len(lineups) > 1 else None
    args.seed = head["seed"]
    if args.deals == defaults.deals:
        args.deals = head["deals"]
    args.hard_budget = opts.get("hard_budget")
    args.review = bool(opts.get("review"))
    args.ismcts_in_process = not opts.get("ismcts_isolated", False)
    if head.get("ismcts_sims") is not None:
        args.ismcts_sims = head["ismcts_sims"]
    args.saved_rules = head["rules"]


def saved_run(path: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The settings and the finished deals of a file written by ``--save``; refused when it
    holds no run or no finished deal yet."""
    head, results, _ = read_saved(path)
    if head is None or not results:
        raise ValueError(f"{path}: no arena run saved there (or no deal finished yet)")
    return head, results


def report_file(path: str) -> dict[str, Any]:
    """``--report``: the summary of a file written by ``--save``, finished or not (the
    deals played so far)."""
    return report(*saved_run(path), None)

if __name__ == "__main__":
    sys.exit(main())
