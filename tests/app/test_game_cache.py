"""The in-process cache of loaded games (app.services.GAMES): a hit is the game a replay
of the stored record gives, other versions miss, and a failed action leaves it as it was."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import Session

from app import services
from app.models import GameRecord, Player
from app.services import GAMES, SOLO_SEAT, StaleStateError
from app.thinking import Thinker
from engine import Game, PlayerView, Rules, dumps, loads
from engine.moves import NextRound
from engine.rules import PRESETS

from .helpers import first_legal, three_cards


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    GAMES.clear()
    yield
    GAMES.clear()


def state(game: Game) -> dict[str, Any]:
    # all but the log's JSON spelt so far, which only dumps reads (and is checked through it)
    return {k: v for k, v in vars(game).items() if k != "_log_json"}


def fresh(session: Session, game_id: str) -> GameRecord:
    session.expire_all()
    rec = session.get(GameRecord, game_id)
    assert rec is not None
    return rec


def started(session: Session, seed: int = 7) -> tuple[Player, GameRecord]:
    p = services.create_player(session)
    out = services.start_game(session, p, Rules(), "medium", seed=seed)
    out = services.pass_cards(session, p, None, out.record.version, three_cards(out.view))
    return p, fresh(session, out.record.id)


def test_a_hit_is_the_game_the_stored_record_replays_to(session: Session) -> None:
    p, rec = started(session)
    for _ in range(5):
        game = services.load_game(rec)
        out = services.play_card(session, p, None, rec.version, first_legal(PlayerView.of(game, SOLO_SEAT)))
        rec = fresh(session, out.record.id)
        hit = GAMES.get(rec)
        assert hit is not None
        replayed = loads(rec.record)
        assert state(hit) == state(replayed)
        assert dumps(hit) == rec.record
        assert PlayerView.of(hit, SOLO_SEAT).to_dict() == PlayerView.of(replayed, SOLO_SEAT).to_dict()


def test_a_hit_skips_the_replay(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    _, rec = started(session)

    def no_replay(text: str) -> Game:
        raise AssertionError("the cached version was replayed")

    monkeypatch.setattr(services, "loads", no_replay)
    assert dumps(services.load_game(rec)) == rec.record


def test_other_versions_and_other_record_texts_miss(session: Session) -> None:
    p, rec = started(session)
    old = GameRecord(id=rec.id, player_id=rec.player_id, difficulty=rec.difficulty, record=rec.record,
                     version=rec.version)
    game = services.load_game(rec)
    services.play_card(session, p, None, rec.version, first_legal(PlayerView.of(game, SOLO_SEAT)))
    new = fresh(session, rec.id)
    assert new.version > old.version
    # the newer version is not served from the older one, nor the other way round
    assert GAMES.get(GameRecord(id=rec.id, player_id=rec.player_id, difficulty=rec.difficulty,
                                record=new.record, version=old.version)) is None
    assert GAMES.get(GameRecord(id=rec.id, player_id=rec.player_id, difficulty=rec.difficulty,
                                record=old.record, version=new.version)) is None
    # a record rewritten in the database at the same version is loaded from its text
    edited = loads(old.record)
    edited.apply(first_legal_move(edited))
    assert GAMES.get(GameRecord(id=rec.id, player_id=rec.player_id, difficulty=rec.difficulty,
                                record=dumps(edited), version=old.version)) is None


def first_legal_move(game: Game) -> Any:
    return game.legal_moves(game.to_act[0])[0]


def test_a_failed_action_leaves_the_cached_game_unchanged(session: Session,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    p, rec = started(session)
    before = state(services.load_game(rec))
    card = first_legal(PlayerView.of(services.load_game(rec), SOLO_SEAT))

    def broken(thinker: Thinker | None, game: Game, difficulty: str, seat: int) -> list[services.Step]:
        raise RuntimeError("the computer players failed after the person's card was applied")

    with monkeypatch.context() as m:
        m.setattr(services, "_bots", broken)
        with pytest.raises(RuntimeError):
            services.play_card(session, p, None, rec.version, card)
    hit = GAMES.get(rec)
    assert hit is not None and state(hit) == before == state(loads(rec.record))

    # an action refused by the version guard when it stores, after its moves were
    # applied: another request has stored the same move meanwhile
    real_bots = services._bots
    version = rec.version
    at_failure = GameRecord(id=rec.id, player_id=rec.player_id, difficulty=rec.difficulty, record=rec.record,
                            version=rec.version)
    overtakers = [1]

    def overtaken(thinker: Thinker | None, game: Game, difficulty: str, seat: int) -> list[services.Step]:
        if not overtakers:  # the other request's own computer players
            return real_bots(thinker, game, difficulty, seat)
        overtakers.pop()
        with Session(session.get_bind(), expire_on_commit=False) as other:
            mine = other.get(Player, p.id)
            assert mine is not None
            services.play_card(other, mine, None, version, card)
        return real_bots(thinker, game, difficulty, seat)

    with monkeypatch.context() as m:
        m.setattr(services, "_bots", overtaken)
        with pytest.raises(StaleStateError):
            services.play_card(session, p, None, version, card)
    hit = GAMES.get(at_failure)
    assert hit is not None and state(hit) == before
    newer = fresh(session, rec.id)
    assert newer.version > version
    hit = GAMES.get(newer)
    assert hit is not None and state(hit) == state(loads(newer.record))


def test_callers_get_copies_that_share_nothing_mutable(session: Session) -> None:
    _, rec = started(session)
    mine = services.load_game(rec)
    mine.apply(first_legal_move(mine))
    again = services.load_game(rec)
    assert state(again) == state(loads(rec.record)) != state(mine)


@pytest.mark.parametrize("preset", ["standard", "cancellation", "house", "six"])
def test_copy_copies_every_state_of_a_whole_game(preset: str) -> None:
    # whole games, so every attribute the engine sets on the way (passes, pots, moon
    # choices, round totals) is copied at least once
    rng = random.Random(preset)
    game = Game(PRESETS[preset], seed=11)
    while not game.is_over:
        copy = game.copy()
        assert state(copy) == state(game) and dumps(copy) == dumps(game)
        seats = game.to_act
        move = NextRound() if not seats else rng.choice(game.legal_moves(seats[0]))
        game.apply(move)
        # the copy did not follow the original
        assert copy.move_count == game.move_count - 1
        assert state(copy) == state(loads(dumps(copy)))
