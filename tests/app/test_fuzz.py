"""Bad input: schemathesis against the OpenAPI schema (no 5xx, every answer as documented),
and random form posts to the page's endpoints (a clear 4xx and the game untouched, unless
the post happens to be a legal action, which is then applied)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance
from sqlmodel import Session, col, select

from app.config import Settings
from app.models import GameRecord
from app.security import CSRF_HEADER
from engine import CARDS, Rules, RulesError, loads

from .csrf import with_token

HX = {"HX-Request": "true"}
EXAMPLES = 25
"""Per API operation; enough to reach every validation branch, bounded for `make test`."""


@pytest.fixture(name="settings")
def unlimited_settings(database_url: str) -> Settings:
    """The app's settings without the new-game rate limit: the random options' test deals two
    games for every valid example, all from one client, and past the limit's burst a valid
    deal was refused 429, failing the test on the runs that drew many valid options.  The
    limit itself is tested in test_anonymous_data.py."""
    return Settings(database_url=database_url, secret_key="test-secret", games_per_minute=0)


# ---- schemathesis ----------------------------------------------------------------------------

@pytest.fixture
def known_game(app: FastAPI) -> dict[str, str]:
    """A player with a game in progress: about half the generated requests aim at it."""
    c = TestClient(app)
    r = c.post("/api/v1/games", json={"seed": 11})
    assert r.status_code == 201
    return {"game_id": r.json()["game_id"], "cookie": c.cookies["hearts_player"], "token": r.headers[CSRF_HEADER]}


def api_operations(app: FastAPI) -> list[APIOperation]:
    schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


def test_the_api_answers_every_generated_request_as_documented(app: FastAPI, known_game: dict[str, str]) -> None:
    """Schemathesis's checks on every operation: no 5xx, status codes, content types,
    headers and bodies as the schema documents them."""
    operations = api_operations(app)
    assert len(operations) >= 8

    for operation in operations:
        @settings(max_examples=EXAMPLES, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
        # requests that fit the schema, and requests that break it (which must get a 4xx)
        @given(case=st.one_of(operation.as_strategy(GenerationMode.POSITIVE),
                              operation.as_strategy(GenerationMode.NEGATIVE)))
        def check(case: Case) -> None:
            if case.path_parameters and len(str(case.path_parameters.get("game_id", ""))) % 2:
                case.path_parameters["game_id"] = known_game["game_id"]
            # as the player's own client: their cookie and token
            case.call_and_validate(headers={CSRF_HEADER: known_game["token"]},
                                   cookies={"hearts_player": known_game["cookie"]},
                                   # a schema cannot say which card is legal now: a well-formed
                                   # illegal move is rightly refused with the documented 422
                                   excluded_checks=[positive_data_acceptance])

        check()


# ---- random posts to the page's endpoints --------------------------------------------------------

@pytest.fixture
def table(app: FastAPI) -> Iterator[tuple[TestClient, str]]:
    with TestClient(app) as c:
        with_token(c, app)
        r = c.post("/game/new", data={"difficulty": "medium", "players": "4", "passing": "true"}, headers=HX)
        assert r.status_code == 200
        yield c, current_id(app)


def current_id(app: FastAPI) -> str:
    with Session(app.state.db_engine) as s:
        rec = s.exec(select(GameRecord).order_by(col(GameRecord.created_at).desc())).first()
        assert rec is not None
        return rec.id


def stored(app: FastAPI, game_id: str) -> tuple[int, str]:
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, game_id)
        assert rec is not None
        return rec.version, rec.record


card_codes = st.one_of(
    st.sampled_from([c.code() for c in CARDS]),
    st.sampled_from(["", "1C", "11H", "ZZ", "QX", "2c", "10", "Q♠", "♠", "0", "-1", "QS QS", "AH,KH"]),
    st.text(max_size=8),
)
versions = st.one_of(st.integers(-5, 400).map(str), st.sampled_from(["", "1.5", "1e3", "x", "99999999999999999999"]))
seats = st.one_of(st.integers(-3, 9).map(str), st.text(max_size=3))


def assert_clear_refusal(r: Any) -> None:
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code == 422 or r.status_code == 409 or r.status_code == 404:
        # the table as it really is, with the reason on top
        assert 'class="error"' in r.text


def assert_applied_or_refused(app: FastAPI, gid: str, before: tuple[int, str], r: Any, legal: bool) -> None:
    """A ``legal`` action was applied (the stored game moved on); any other was refused
    clearly and the stored game is as ``before``."""
    if legal:
        assert r.status_code == 200 and stored(app, gid)[0] > before[0]
    else:
        assert_clear_refusal(r)
        assert stored(app, gid) == before


def _version_of(html: str) -> int:
    m = re.search(r'data-version="(\d+)"', html)
    assert m
    return int(m.group(1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(card=card_codes, version=versions, seat=seats, extra=st.booleans())
def test_random_plays_are_refused_or_applied_exactly(app: FastAPI, table: tuple[TestClient, str], card: str,
                                                     version: str, seat: str, extra: bool) -> None:
    c, gid = table
    before = stored(app, gid)
    game = loads(before[1])
    data: dict[str, Any] = {"card": card, "version": version}
    if extra:
        data["seat"] = seat
    r = c.post("/game/play", data=data, headers=HX)
    legal = (version == str(before[0]) and game.phase.value == "play" and game.turn == 0
             and card in {x.code() for x in game.legal_cards()})
    assert_applied_or_refused(app, gid, before, r, legal)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cards=st.lists(card_codes, max_size=5), version=versions)
def test_random_passes_are_refused_or_applied_exactly(app: FastAPI, table: tuple[TestClient, str],
                                                      cards: list[str], version: str) -> None:
    c, gid = table
    before = stored(app, gid)
    game = loads(before[1])
    r = c.post("/game/pass", data={"cards": cards, "version": version}, headers=HX)
    hand = {x.code() for x in game.hand(0)}
    legal = (version == str(before[0]) and game.phase.value == "pass" and 0 in game.to_act
             and len(set(cards)) == 3 and len(cards) == 3 and set(cards) <= hand)
    assert_applied_or_refused(app, gid, before, r, legal)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/game/moon", "/game/next"]), version=versions,
       choice=st.one_of(st.sampled_from(["add", "subtract", "", "ADD", "both"]), st.text(max_size=6)))
def test_random_moon_and_next_are_refused_in_the_wrong_phase(app: FastAPI, table: tuple[TestClient, str], path: str,
                                                             version: str, choice: str) -> None:
    c, gid = table
    before = stored(app, gid)  # the game is in passing: neither a moon choice nor a next hand fits
    r = c.post(path, data={"version": version, "choice": choice}, headers=HX)
    assert_clear_refusal(r)
    assert stored(app, gid) == before


option_values = st.one_of(st.integers(-10, 20_000).map(str), st.sampled_from(["", "abc", "1.5", "true", "off"]),
                          st.text(max_size=5))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(difficulty=st.one_of(st.sampled_from(["easy", "medium", "hard", "HARD", "impossible"]), st.text(max_size=5)),
       players=option_values, target=option_values, rounds=option_values,
       flags=st.dictionaries(st.sampled_from(["omnibus", "spot_hearts", "cancellation", "passing", "no_breaking"]),
                             st.sampled_from(["true", "false", "on", "yes", "2", ""]), max_size=3))
def test_random_options_either_deal_that_game_or_change_nothing(app: FastAPI, table: tuple[TestClient, str],
                                                                difficulty: str, players: str, target: str,
                                                                rounds: str, flags: dict[str, str]) -> None:
    c, _ = table
    gid = current_id(app)  # the last example may have dealt a new one
    before = stored(app, gid)
    # "hard" deals would send the computer players' passes to the process pool; the
    # options' validity is the point here, so a valid hard deal is asked for as medium
    level = "medium" if difficulty == "hard" else difficulty
    data = {"difficulty": level, "players": players, "target_score": target, "max_rounds": rounds, **flags}
    r = c.post("/game/new", data=data, headers=HX)
    plain = all(re.fullmatch(r"-?[0-9]*", v) for v in (players, target, rounds))
    if r.status_code == 200:
        new = current_id(app)
        assert new != gid and stored(app, gid)[0] == before[0]
        rules = loads(stored(app, new)[1]).rules
        if level:  # no level at all deals the standard game at the player's level
            # an empty field is the form's default
            assert (rules.players, rules.target_score) == (int(players or 4), int(target or 100))
            assert rules.max_rounds == (int(rounds) if rounds.strip() else None)
        else:
            assert rules == Rules()
        c.post("/game/new", data={"difficulty": "medium"}, headers=HX)  # a fresh table for the next example
        assert not plain or not level or _valid_options(level, players, target, rounds, flags)
        return
    assert_clear_refusal(r)
    assert current_id(app) == gid and stored(app, gid) == before
    assert not (plain and _valid_options(level, players, target, rounds, flags))


TRUE = {"true", "on", "yes", "1"}
FALSE = {"false", "off", "no", "0", ""}


def _valid_options(difficulty: str, players: str, target: str, rounds: str, flags: dict[str, str]) -> bool:
    """What the options form accepts: a known level, whole numbers, rules the engine allows."""
    if difficulty not in ("easy", "medium", "hard"):
        return False
    if any(v.lower() not in TRUE | FALSE for v in flags.values()):
        return False
    try:
        n, t = int(players or 4), int(target or 100)
        r = int(rounds) if rounds.strip() else None
        Rules(players=n, target_score=t, max_rounds=r, **{k: v.lower() in TRUE for k, v in flags.items()})
    except (ValueError, RulesError):
        return False
    return True
