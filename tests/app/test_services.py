"""The game services: one transaction per action, versions, bots, records."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from app import services
from app.models import GameRecord, Player, Record
from app.services import SOLO_SEAT, GameNotFoundError, StaleStateError
from app.thinking import Thinker
from engine import Phase, Rules, dumps, loads
from engine import events as ev
from engine.errors import IllegalMoveError, WrongPhaseError

from .helpers import first_legal, moon_game, three_cards


def player(session: Session) -> Player:
    return services.create_player(session)


def stored(session: Session, game_id: str) -> GameRecord:
    session.expire_all()
    rec = session.get(GameRecord, game_id)
    assert rec is not None
    return rec


def test_start_game_stores_the_deal_and_the_bots_passes(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(), "easy", seed=5)
    rec = stored(session, out.record.id)
    game = loads(rec.record)
    assert game.phase is Phase.PASS
    assert rec.version == game.move_count == 3  # the three computer players have chosen their pass
    assert game.to_act == (SOLO_SEAT,)
    assert rec.status == "active" and rec.difficulty == "easy"


def test_a_new_game_abandons_the_one_in_progress(session: Session) -> None:
    p = player(session)
    first = services.start_game(session, p, Rules(), "medium", seed=1)
    second = services.start_game(session, p, Rules(), "medium", seed=2)
    assert stored(session, first.record.id).status == "abandoned"
    current = services.current_game(session, p)
    assert current is not None and current.id == second.record.id


def test_passing_moves_on_to_the_persons_turn_and_returns_every_step(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(), "medium", seed=3)
    view = out.view
    chosen = three_cards(view)
    out = services.pass_cards(session, p, None, out.record.version, chosen)
    view = out.view
    assert view.phase is Phase.PLAY and view.turn == SOLO_SEAT
    assert not set(chosen) & set(view.hand.codes())
    assert view.received is not None and len(view.received) == 3
    kinds = [type(e) for e in out.events]
    assert ev.PassesExchanged in kinds
    assert out.record.version == loads(stored(session, out.record.id).record).move_count
    # every step's view is the person's, taken right after that move
    assert all(s.view.seat == SOLO_SEAT for s in out.steps)


def test_an_illegal_card_is_refused_and_nothing_is_stored(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(passing=False), "easy", seed=11)
    view = out.view
    illegal = next(c for c in view.hand if c not in view.legal)
    before = stored(session, out.record.id).record
    with pytest.raises(IllegalMoveError):
        services.play_card(session, p, None, out.record.version, illegal.code())
    assert stored(session, out.record.id).record == before


def test_a_stale_or_repeated_action_is_refused(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(passing=False), "easy", seed=11)
    version = out.record.version
    services.play_card(session, p, None, version, first_legal(out.view))
    after = stored(session, out.record.id)
    with pytest.raises(StaleStateError, match="moved on"):
        services.play_card(session, p, None, version, first_legal(out.view))  # the same click again
    assert stored(session, out.record.id).version == after.version


def test_acting_in_the_wrong_phase_is_refused(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(), "easy", seed=4)
    with pytest.raises(WrongPhaseError):
        services.play_card(session, p, None, out.record.version, "2C")
    with pytest.raises(WrongPhaseError):
        services.next_round(session, p, None, out.record.version)
    with pytest.raises(WrongPhaseError):
        services.choose_moon(session, p, None, out.record.version, True)
    with pytest.raises(IllegalMoveError, match="pass exactly 3"):
        services.pass_cards(session, p, None, out.record.version, three_cards(out.view)[:2])
    with pytest.raises(IllegalMoveError, match="pass exactly 3"):
        services.pass_cards(session, p, None, out.record.version, ["ZZ", "2C", "3C"])


def test_another_players_game_is_not_found(session: Session) -> None:
    alice, bob = player(session), player(session)
    out = services.start_game(session, alice, Rules(), "easy", seed=1)
    with pytest.raises(GameNotFoundError):
        services.find_game(session, bob, out.record.id)
    with pytest.raises(GameNotFoundError):
        services.find_game(session, bob, None)


def play_to_the_end(session: Session, p: Player, out: services.Outcome,
                    ctx: services.Context = services.HERE) -> services.Outcome:
    while not out.game.is_over:
        view = out.view
        version = out.record.version
        if view.phase is Phase.PASS:
            out = services.pass_cards(session, p, None, version, three_cards(view), ctx)
        elif view.phase is Phase.PLAY:
            out = services.play_card(session, p, None, version, first_legal(view), ctx)
        elif view.phase is Phase.MOON_CHOICE:
            out = services.choose_moon(session, p, None, version, False, ctx)
        else:
            out = services.next_round(session, p, None, version, ctx)
    return out


LIGHT_HARD = services.Context(thinker=Thinker(workers=0, hard_budget=3000))
"""Hard with a fortieth of its search (``HARD_BUDGET``), in this process: for tests of a
whole game's flow, where Hard's strength is not what is tested."""


def test_a_whole_game_ends_once_and_counts_in_the_records_once(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(target_score=20), "hard", seed=21, practice=False, ctx=LIGHT_HARD)
    out = play_to_the_end(session, p, out, LIGHT_HARD)
    rec = stored(session, out.record.id)
    assert rec.status == "finished"
    game = loads(rec.record)
    assert game.is_over and game.winner is not None
    lines = {r.difficulty: r for r in services.records(session, p)}
    assert lines["hard"].played == 1
    assert lines["hard"].won == (1 if game.winner == SOLO_SEAT else 0)
    assert lines["hard"].best_score == game.totals[SOLO_SEAT]
    assert lines["easy"].played == 0
    # nothing more can be done with a finished game, and it is never counted again
    with pytest.raises(services.GameClosedError):
        services.next_round(session, p, None, rec.version)
    services.start_game(session, p, Rules(), "hard", seed=22)
    rows = session.exec(select(Record).where(Record.player_id == p.id)).all()
    assert [(r.difficulty, r.played) for r in rows] == [("hard", 1)]


def test_shooters_choice_asks_the_person_and_the_moon_is_recorded(session: Session) -> None:
    p = player(session)
    game = moon_game(shooters_choice=True, max_rounds=1)
    rec = GameRecord(id=services.new_id(), player_id=p.id, difficulty="medium", record=dumps(game),
                     version=game.move_count)
    session.add(rec)
    session.commit()
    out = services.Outcome(rec, game)
    while out.view.phase is Phase.PLAY:
        out = services.play_card(session, p, None, out.record.version, first_legal(out.view))
    view = out.view
    assert view.phase is Phase.MOON_CHOICE and view.pending_shooter == SOLO_SEAT
    assert view.moon_options()["subtract"][SOLO_SEAT] == -26
    out = services.choose_moon(session, p, None, out.record.version, True)
    assert out.game.is_over and out.game.totals == [-26, 0, 0, 0]
    line = next(r for r in services.records(session, p) if r.difficulty == "medium")
    assert (line.played, line.won, line.best_score, line.moons) == (1, 1, -26, 1)


def test_every_rule_variant_plays_through_the_service(session: Session) -> None:
    p = player(session)
    for rules in (Rules(players=3, target_score=15), Rules(players=6, target_score=15, omnibus=True),
                  Rules(cancellation=True, target_score=30, spot_hearts=True)):
        out = play_to_the_end(session, p, services.start_game(session, p, rules, "easy", seed=9))
        assert out.record.status == "finished"
        assert loads(stored(session, out.record.id).record).rules == rules


def test_preferences(session: Session) -> None:
    p = player(session)
    services.set_preferences(session, p, fast_play=True, difficulty="hard")
    session.expire_all()
    again = session.get(Player, p.id)
    assert again is not None and again.fast_play and again.difficulty == "hard"
    with pytest.raises(ValueError, match="difficulty"):
        services.set_preferences(session, p, difficulty="impossible")


def test_two_simultaneous_actions_on_the_same_version_cannot_both_be_stored(session: Session) -> None:
    p = player(session)
    out = services.start_game(session, p, Rules(passing=False), "easy", seed=11)
    engine = session.get_bind()
    # two requests, each with its own session, load the game at the same version
    with Session(engine, expire_on_commit=False) as a, Session(engine, expire_on_commit=False) as b:
        rec_a, rec_b = a.get(GameRecord, out.record.id), b.get(GameRecord, out.record.id)
        assert rec_a is not None and rec_b is not None and rec_a.version == rec_b.version
        game_a, game_b = loads(rec_a.record), loads(rec_b.record)
        game_a.play(SOLO_SEAT, game_a.legal_cards()[0])
        game_b.play(SOLO_SEAT, game_b.legal_cards()[-1])
        services._store(a, rec_a, game_a, [], game_a.move_count)  # the first commits…
        with pytest.raises(StaleStateError):  # …the second matches no row and is refused
            services._store(b, rec_b, game_b, [], game_b.move_count)
    assert loads(stored(session, out.record.id).record).moves == game_a.moves
