"""The moon report: the rounds a seat type suffered a moon in, replayed from a saved arena run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.arena import main as arena_main
from engine.arena import sure_stops
from engine.cards import parse_card
from engine.moon_report import analyse, main

from .test_moon import moon_position


def _saved_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict[str, Any]]:
    """Seed 3's first four deals: Medium suffers moons from the shooters in several rounds."""
    path = tmp_path / "run.jsonl"
    assert arena_main(["--seats", "medium,shooter,shooter,shooter", "--deals", "4", "--seed", "3",
                       "--save", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return path, summary


def test_sure_stops_of_the_moon_position() -> None:
    g = moon_position()
    # 8♦ A♥ 2♦ on the table: the 10♦ wins it surely (nobody after holds a higher diamond)
    assert sure_stops(g) == [(int(parse_card("TD")), 1, False)]
    g.play(3, "3D")
    assert sure_stops(g) == []  # a lead: nothing on the table to take


def test_every_moon_suffered_is_replayed_as_it_was_played(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path, summary = _saved_run(tmp_path, capsys)
    moons = summary["players"]["medium"]["moons_suffered"]
    assert moons >= 2
    r = analyse(str(path), "medium")
    assert r["moons_suffered"] == moons
    assert r["replayed"] == moons and r["replay_differs"] == 0
    assert sum(v["moons"] for v in r["by_direction"].values()) == moons
    assert sum(v["rounds"] for v in r["by_direction"].values()) == summary["rounds"]
    with_pass = sum(v["moons"] for d, v in r["by_direction"].items() if d != "none")
    assert r["passing"] == with_pass
    assert 0 <= r["passed_to_shooter"] <= r["passing"]
    assert r["a_cheap_stop_offered"] <= r["a_sure_stop_offered"] <= r["replayed"]
    # the cheap stops offered and missed are those the arena counted as it played
    assert (r["a_cheap_stop_offered"] > 0) == (summary["players"]["medium"]["missed_cheap_stops"] > 0)


def test_a_round_that_replays_otherwise_is_left_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, summary = _saved_run(tmp_path, capsys)
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        d = json.loads(line)
        if "deal" not in d:
            continue
        rot = next((r for r in d["lineups"][0]["rotations"]
                    if r["shooter"] is not None and r["kinds"][r["shooter"]] != "medium"), None)
        if rot is not None:
            rot["points"] = list(reversed(rot["points"]))  # not what these seats play
            lines[i] = json.dumps(d)
            break
    path.write_text("\n".join(lines) + "\n")
    r = analyse(str(path), "medium")
    assert r["replay_differs"] == 1 and r["replayed"] == r["moons_suffered"] - 1


def test_the_command_refuses_a_seat_type_not_in_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _saved_run(tmp_path, capsys)
    assert main([str(path), "--kind", "medium"]) == 0
    out = capsys.readouterr().out
    assert "medium suffered" in out and "per pass direction" in out
    with pytest.raises(SystemExit):
        main([str(path), "--kind", "hard"])
