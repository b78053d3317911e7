"""The arena: duplicate deals, the summary it prints, and the OpenSpiel IS-MCTS seat."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from engine import arena, openspiel
from engine.arena import IsolatedIsmcts, _init_worker, cheap_stop, main, play_deal, summarise
from engine.bots import MediumBot
from engine.bots.base import view_round
from engine.bots.hardis import FORMER_BUDGET, IS_BUDGET, MAX_ITERATIONS, HardISBot
from engine.bots.policy import choose_card
from engine.cards import CardSet, parse_card
from engine.referee import computer_turns, next_computer_seat
from engine.rules import Rules
from engine.state import Game
from engine.values import Phase

from .test_moon import MOON_HANDS, MOON_MOVES, moon_position


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert main(list(args)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    return json.loads(out[-1])


def test_json_summary_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    res = _run(capsys, "--seats", "medium,easy,easy,easy", "--deals", "6", "--seed", "3", "--json")
    assert res["deals"] == 6 and res["rounds"] == 24 and res["seed"] == 3
    assert res["rules"] == Rules(max_rounds=None).to_dict()
    for kind in ("medium", "easy"):
        p = res["players"][kind]
        for key in ("mean", "ci95", "margin", "margin_ci95", "moons_shot", "moons_suffered",
                    "decision_s_mean", "decision_s_p95"):
            assert key in p
        assert p["ci95"][0] <= p["mean"] <= p["ci95"][1]
    # margins are two views of the same rounds with one seat against three
    assert res["players"]["medium"]["margin"] == pytest.approx(-res["players"]["easy"]["margin"], abs=1e-3)


def test_duplicate_deals_give_each_rotation_the_same_cards() -> None:
    _init_worker({"rules": Rules(), "lineups": [["medium", "easy", "easy", "easy"]], "seed": 5,
                  "hard_budget": None, "ismcts_sims": 10})
    r = play_deal(1)["lineups"][0]
    kinds = [rot["kinds"] for rot in r["rotations"]]
    assert [k.index("medium") for k in kinds] == [0, 1, 2, 3]  # medium sits every seat once
    # each rotation's points add up to the deal's 26 (or a moon's 78)
    for rot in r["rotations"]:
        assert sum(rot["points"]) in (26, 78)


def test_variant_flags_and_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    res = _run(capsys, "--seats", "hard,easy,medium", "--players", "3", "--omnibus", "--deals", "1",
               "--hard-budget", "500", "--json")
    assert res["rules"]["players"] == 3 and res["rules"]["omnibus"]
    assert res["rounds"] == 3
    assert set(res["players"]) == {"hard", "easy", "medium"}


def test_ismcts_seat_mirrors_our_game_in_openspiel(capsys: pytest.CaptureFixture[str]) -> None:
    """Four deals cover every pass direction; the mirror raises if OpenSpiel disagrees
    with our engine on whose turn it is or which cards are legal."""
    res = _run(capsys, "--seats", "ismcts,medium,medium,medium", "--deals", "4", "--ismcts-sims", "20", "--json")
    assert res["rounds"] == 16
    assert "Medium's passing" in res["players"]["ismcts"]["note"]


def _play_phase_histories(seed: int) -> list[list[int]]:
    """OpenSpiel's action history at every play of one round of four Medium players."""
    game = Game(Rules(), seed=seed)
    medium = MediumBot()
    out = []
    while game.phase is not Phase.ROUND_OVER:
        if game.phase is Phase.PLAY:
            out.append(openspiel.state_of(game).history())
        next(iter(computer_turns(game, medium)))
    return out


def test_isolated_ismcts_decides_the_same_whatever_was_decided_before() -> None:
    """A decision depends on the state and the seed only: two helpers asked the same
    questions in opposite orders answer alike.  (In the arena's own process IS-MCTS's ties
    fall by where its tables lie in memory, which depends on everything allocated before.)"""
    histories = _play_phase_histories(3)
    name = openspiel.game_string(Rules())
    first = IsolatedIsmcts()
    assert first.fixed  # address randomisation is off in the helper
    asked = [first.step(name, 100 + i, 300, h) for i, h in enumerate(histories)]
    assert all(cpu > 0 for _, cpu in asked)  # the CPU of each decision, spent in the helper's child
    forward = [a for a, _ in asked]
    second = IsolatedIsmcts()
    backward = {i: second.step(name, 100 + i, 300, histories[i])[0] for i in reversed(range(len(histories)))}
    assert forward == [backward[i] for i in range(len(histories))]
    # and a decision is a legal card of the state
    game = openspiel.load_game(Rules())
    for h, a in zip(histories, forward, strict=True):
        st = game.new_initial_state()
        for x in h:
            st.apply_action(x)
        assert a in st.legal_actions()


def test_cpu_of_an_isolated_ismcts_decision_counts_the_helpers_time() -> None:
    """The arena's decision times take the CPU an isolated IS-MCTS spent in its helper, which
    the arena's own thread does not see (it only waits on the pipe)."""
    game = Game(Rules(), seed=4)
    medium = MediumBot()
    while game.phase is not Phase.PLAY or len(game.legal_cards()) < 3:  # a choice to think over
        next(iter(computer_turns(game, medium)))
    arena.isolated_ismcts()  # started before: its start is this thread's time
    player = arena.IsmctsPlayer(game, 3000, isolated=True)
    cpu: dict[str, list[float]] = {}
    timed = arena.CpuTimed(player, "ismcts", cpu, {})
    seat = next_computer_seat(game, frozenset())
    assert seat is not None
    t0 = time.thread_time()
    timed.decide(game.view(seat), random.Random(1))
    here = time.thread_time() - t0
    assert player.outside_cpu > here  # the search ran in the helper's child, not here
    assert cpu["ismcts"][0] >= player.outside_cpu


def test_runs_with_ismcts_replay_the_same(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """IS-MCTS's rounds replay point for point: in a run of its own on two workers and in the
    second line-up of a paired run on one, so two runs saved apart compare deal by deal."""
    alone, paired = tmp_path / "alone.jsonl", tmp_path / "paired.jsonl"
    _run(capsys, "--seats", "shooter,ismcts,ismcts,ismcts", "--deals", "3", "--seed", "6", "--ismcts-sims", "200",
         "--workers", "2", "--save", str(alone), "--json")
    arena.isolated_ismcts().proc.kill()  # a helper that stopped is started again, and decides alike
    res = _run(capsys, "--seats", "easy,ismcts,ismcts,ismcts", "--paired", "shooter", "--deals", "3", "--seed", "6",
               "--ismcts-sims", "200", "--save", str(paired), "--json")
    assert res["options"]["ismcts_isolated"] is True
    _, a = arena.saved_run(str(alone))
    _, b = arena.saved_run(str(paired))
    assert [[rot["points"] for rot in d["lineups"][0]["rotations"]] for d in a] == \
        [[rot["points"] for rot in d["lineups"][1]["rotations"]] for d in b]
    assert _run(capsys, "--compare", str(alone), str(alone), "--json")["margin_diff"] == 0


def test_a_player_that_fails_stops_the_run_rather_than_let_a_random_card_stand_in(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: MediumBot, view: object, rng: object) -> None:
        raise ValueError("broken")

    monkeypatch.setattr(MediumBot, "decide", broken)
    with pytest.raises(RuntimeError, match="medium.*failed to decide"):
        main(["--seats", "easy,medium,medium,medium", "--deals", "1"])


def test_ismcts_refuses_rules_openspiel_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--seats", "ismcts,medium,medium,medium", "--spot-hearts", "--deals", "1"])


def test_summary_without_other_types_has_no_margin() -> None:
    rot = {"kinds": ["medium"] * 4, "points": [6, 7, 13, 0], "shooter": None}
    s = summarise([{"deal": 0, "rotations": [rot], "times": {"medium": [0.1]}}], ["medium"] * 4)
    assert s["medium"]["margin"] is None and s["medium"]["mean"] == 6.5


def test_shooters_and_moon_statistics(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    save = tmp_path / "run.json"
    res = _run(capsys, "--seats", "medium,shooter,shooter,shooter", "--deals", "12", "--seed", "7", "--json",
               "--save", str(save))
    med = res["players"]["medium"]
    assert med["moons_suffered"] > 0  # the shooters do shoot (12 deals, seed 7)
    assert med["moons_suffered_per_100"] == pytest.approx(100 * med["moons_suffered"] / 48, abs=0.01)
    assert med["missed_cheap_stops"] >= 0 and med["decision_cpu_s_p95"] is not None
    lines = [json.loads(x) for x in save.read_text().splitlines()]
    assert "config" in lines[0] and len([x for x in lines if "deal" in x]) == 12
    assert lines[-1]["summary"]["players"] == res["players"]
    # a run cut short: --report summarises the deals saved so far
    save.write_text("\n".join(save.read_text().splitlines()[:6]) + '\n{"deal": 5, "lin')
    part = _run(capsys, "--report", str(save), "--json")
    assert part["deals"] == 5 and part["rounds"] == 20
    with pytest.raises(SystemExit):
        main(["--report", str(tmp_path / "missing.json")])


def test_paired_mode_plays_the_same_deals_with_the_other_type(capsys: pytest.CaptureFixture[str]) -> None:
    res = _run(capsys, "--seats", "easy,medium,medium,medium", "--paired", "shooter", "--deals", "6", "--seed", "2",
               "--json")
    pr = res["paired"]
    assert pr["seats"] == ["shooter", "medium", "medium", "medium"]
    assert pr["subject"] == "shooter" and pr["baseline"] == "easy"
    diff = pr["players"]["shooter"]["margin"] - res["players"]["easy"]["margin"]
    assert pr["margin_diff"] == pytest.approx(diff, abs=2e-3)
    with pytest.raises(SystemExit):
        main(["--seats", "easy,medium,medium,medium", "--paired", "medium", "--deals", "1"])


def test_two_saved_runs_compare_deal_by_deal_as_a_paired_run_does(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    """``--compare`` on two runs saved apart gives the figures ``--paired`` gives playing both
    in one run (the seats here replay the same), over the deals both finished."""
    base, subject = tmp_path / "easy.jsonl", tmp_path / "shooter.jsonl"
    together = _run(capsys, "--seats", "easy,medium,medium,medium", "--paired", "shooter", "--deals", "6",
                    "--seed", "2", "--json")["paired"]
    _run(capsys, "--seats", "easy,medium,medium,medium", "--deals", "6", "--seed", "2", "--save", str(base), "--json")
    _run(capsys, "--seats", "shooter,medium,medium,medium", "--deals", "6", "--seed", "2", "--save", str(subject),
         "--json")
    apart = _run(capsys, "--compare", str(base), str(subject), "--json")
    assert apart["deals"] == 6 and (apart["baseline"], apart["subject"]) == ("easy", "shooter")
    for key in ("margin_diff", "margin_diff_ci95", "suffered_per_100_diff", "suffered_per_100_diff_ci95"):
        assert apart[key] == together[key], key
    assert apart["subject_margin"] - apart["baseline_margin"] == pytest.approx(apart["margin_diff"], abs=2e-3)
    # a run stopped early is compared over the deals it finished
    lines = subject.read_text().splitlines()
    (tmp_path / "part.jsonl").write_text("\n".join(lines[:4]) + "\n")
    assert _run(capsys, "--compare", str(base), str(tmp_path / "part.jsonl"), "--json")["deals"] == 3
    assert main(["--compare", str(base), str(subject)]) == 0
    assert "shooter - easy: margin" in capsys.readouterr().out


def test_runs_on_other_deals_or_against_other_seats_are_not_compared(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    runs = {}
    for name, seats, seed in (("a", "easy,medium,medium,medium", "2"), ("seed", "shooter,medium,medium,medium", "3"),
                              ("seats", "shooter,easy,medium,medium", "2")):
        runs[name] = tmp_path / f"{name}.jsonl"
        _run(capsys, "--seats", seats, "--deals", "2", "--seed", seed, "--save", str(runs[name]), "--json")
    for other, why in (("seed", "seed differs"), ("seats", "other seats differ")):
        with pytest.raises(SystemExit):
            main(["--compare", str(runs["a"]), str(runs[other])])
        assert why in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--compare", str(runs["a"]), str(tmp_path / "missing.jsonl")])


def test_paired_hard0_and_hard_agree_on_the_deals(capsys: pytest.CaptureFixture[str]) -> None:
    """hard0 is the yardstick: with the same budget it plays as Hard did before issue 14."""
    res = _run(capsys, "--seats", "hard0,medium,medium,medium", "--paired", "hard", "--deals", "1", "--seed", "4",
               "--hard-budget", "800", "--json")
    assert res["rounds"] == 4 and res["paired"]["subject"] == "hard"
    assert res["hard_budget"] == {"hard": 800, "hard0": 800}  # the flag sets both


def test_a_hard_budget_scales_hards_cap_on_iterations() -> None:
    game = Game(Rules(), seed=1)
    full = arena.make_player("hard", game, None, 10)
    assert isinstance(full, HardISBot)
    assert (full.is_budget, full.max_iterations) == (IS_BUDGET, MAX_ITERATIONS)
    # a Hard with the former search (IS_BUDGET / SEARCH), and one with twice today's
    before = arena.make_player("hard", game, FORMER_BUDGET, 10)
    assert isinstance(before, HardISBot)
    assert (before.is_budget, before.max_iterations) == (60000, 2000)
    more = arena.make_player("hardis", game, IS_BUDGET * 2, 10)
    assert isinstance(more, HardISBot) and more.max_iterations == MAX_ITERATIONS * 2
    # a tiny budget keeps the floor of iterations
    tiny = arena.make_player("hard", game, 10, 10)
    assert isinstance(tiny, HardISBot) and tiny.max_iterations == tiny.min_iterations


def test_cheap_stop_is_found_in_the_moon_position() -> None:
    g = moon_position()
    assert cheap_stop(g)  # the 10♦ wins 8♦ A♥ 2♦ for one point
    g.play(3, "3D")
    assert not cheap_stop(g)  # a lead: nothing on the table to take


def _rounds(path: Path) -> dict[int, list[object]]:
    """Each saved deal's rounds (seat types, points, moon, missed stops) by deal number,
    without the timings (the only part that may differ between runs)."""
    out: dict[int, list[object]] = {}
    for line in path.read_text().splitlines():
        item = json.loads(line)
        if "deal" in item:
            assert item["deal"] not in out  # no deal saved twice
            out[item["deal"]] = [lu["rotations"] for lu in item["lineups"]]
    return out


def test_a_stopped_run_resumes_to_the_same_results(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = ["--seats", "medium,shooter,easy,easy", "--paired", "hard", "--hard-budget", "300", "--deals", "5",
           "--seed", "11", "--json"]
    whole = tmp_path / "whole.jsonl"
    full = _run(capsys, *cmd, "--save", str(whole))

    # stopped after three deals (the process killed while playing the fourth) ...
    cut = tmp_path / "cut.jsonl"
    played: list[int] = []

    def stopping(k: int) -> dict[str, object]:
        if len(played) == 3:
            raise KeyboardInterrupt
        played.append(k)
        return play_deal(k)

    monkeypatch.setattr(arena, "play_deal", stopping)
    with pytest.raises(KeyboardInterrupt):
        main([*cmd, "--save", str(cut)])
    monkeypatch.undo()
    assert len(_rounds(cut)) == 3
    part = _run(capsys, "--report", str(cut), "--json")
    assert part["deals"] == 3
    # ... and the same command again plays only the two missing deals
    resumed = _run(capsys, *cmd, "--save", str(cut))
    assert _rounds(cut) == _rounds(whole)
    margins = {k: v["margin"] for k, v in resumed["players"].items()}
    assert margins == {k: v["margin"] for k, v in full["players"].items()}
    assert resumed["paired"]["margin_diff"] == full["paired"]["margin_diff"]

    # a deal's line cut off half-written is played again; --resume needs only the file
    half = tmp_path / "half.jsonl"
    lines = whole.read_text().splitlines()
    half.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])
    again = _run(capsys, "--resume", str(half), "--workers", "2", "--json")
    assert _rounds(half) == _rounds(whole)
    assert again["paired"]["margin_diff"] == full["paired"]["margin_diff"]

    # a longer run extends the saved one; a different run is refused, the file untouched
    _run(capsys, "--resume", str(half), "--deals", "6", "--json")
    assert sorted(_rounds(half)) == [0, 1, 2, 3, 4, 5]
    assert _rounds(half)[4] == _rounds(whole)[4]
    before = half.read_text()
    with pytest.raises(SystemExit):
        main([*cmd[:-3], "--seed", "12", "--save", str(half)])
    assert half.read_text() == before


def test_the_summary_says_how_often_each_type_plays_the_policys_card(capsys: pytest.CaptureFixture[str]) -> None:
    res = _run(capsys, "--seats", "medium,easy,shooter,medium", "--deals", "2", "--seed", "5", "--json")
    medium, easy = res["players"]["medium"]["policy_agreement"], res["players"]["easy"]["policy_agreement"]
    # Medium plays the policy itself; Easy does not (forced plays are not counted)
    assert medium["choices"] > 20 and medium["same"] == medium["alike"] == 1.0
    assert easy["choices"] > 20 and easy["same"] <= easy["alike"] < 1.0
    assert "policy: medium played the careful policy's card in 100.0 %" in arena.format_table(res)


def test_cards_that_play_alike_are_those_with_no_card_out_between_them() -> None:
    game = Game(Rules(passing=False), seed=1, deals=[MOON_HANDS])
    seen_alike = 0
    for seat, code in MOON_MOVES:
        view = game.view(seat)
        policy = choose_card(view_round(view))
        hand = view.hand.mask
        played = sum(1 << int(c) for t in view.tricks for c in t.cards)
        for card in view.legal:
            c = int(card)
            between = range(min(c, policy) + 1, max(c, policy))
            alike = c // 13 == policy // 13 and all(hand >> b & 1 or played >> b & 1 for b in between)
            assert arena.policy_agreement(view, c) == (c == policy, alike)
            seen_alike += alike and c != policy
        game.play(seat, code)
    assert seen_alike  # (8♣ 9♣ 10♣ J♣ in the first trick, for one)


def test_a_card_on_the_table_between_two_keeps_them_from_playing_alike() -> None:
    clubs = {0: "2C 3C 4C 8C 9C", 1: "6C TC JC", 2: "5C 7C", 3: "QC KC AC"}
    others = [f"{r}{s}" for s in "DSH" for r in "23456789TJQKA"]
    hands = []
    for seat in range(4):
        mine = clubs[seat].split()
        while len(mine) < 13:
            mine.append(others.pop())
        hands.append(" ".join(mine))
    game = Game(Rules(passing=False), seed=1, deals=[hands])
    game.play(0, "2C")
    game.play(1, "6C")
    view = game.view(2)  # 5♣ or 7♣, with the 6♣ between them on the table
    assert str(view.legal) == str(CardSet("5C 7C"))
    assert choose_card(view_round(view)) == int(parse_card("5C"))
    assert arena.policy_agreement(view, int(parse_card("7C"))) == (False, False)
