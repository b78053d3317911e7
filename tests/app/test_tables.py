"""Tables for friends through the page's routes (no browser, no event stream): opening a
table, names, seats, the host's powers, the version guard between people, the turns of the
late and the absent, records, closing and clean-up."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlmodel import Session, col, select

from app import retention, tables
from app.models import FRIENDS, FriendTable, GameRecord, Player, Record, TableSeat, utcnow
from app.services import load_game
from engine import Phase
from tools.friends import HX, Table, action

from .csrf import with_token


def open_table(host: TestClient, **options: object) -> str:
    # (as the options dialog sends them: its "Pass cards" box is ticked for the standard game)
    r = host.post("/tables/new", data={"difficulty": "easy", "name": "Ann", "passing": "true", **options},
                  headers=HX)
    assert r.status_code == 204, r.text
    path = r.headers["HX-Redirect"]
    assert re.fullmatch(r"/t/[A-Za-z0-9_-]{32}", path)
    return path


def state_of(session: Session, path: str) -> tables.TableState:
    return tables.read(session, path.rsplit("/", 1)[1])


def seat_all(people: list[TestClient], path: str, names: tuple[str, ...] = ("Bob", "Cleo", "Dan")) -> None:
    for seat, (c, name) in enumerate(zip(people[1:], names, strict=False), start=1):
        r = c.post(f"{path}/join", data={"seat": seat, "name": name}, headers=HX)
        assert r.status_code == 200, r.text


def test_a_table_is_opened_with_an_unguessable_link_and_the_host_seated(people: list[TestClient],
                                                                         session: Session) -> None:
    host = people[0]
    a, b = open_table(host), open_table(host)
    assert a != b
    page = host.get(a).text
    assert "Table for friends" in page and 'id="invite-link"' in page and a in page
    state = state_of(session, a)
    assert [s.person for s in state.seats] == [True] * 4
    assert state.seats[0].name == "Ann" and state.seats[0].player_id == state.table.host_id
    assert state.record is None and state.table.turn_seconds == 30
    # a wrong token is a clear 404 and shows no table
    r = people[1].get("/t/" + "x" * 32)
    assert r.status_code == 404 and "closed, or the link is not right" in r.text


@pytest.mark.parametrize("name, reason", [
    ("", "Choose a name"), ("   ", "Choose a name"), ("A" * 21, "at most 20 characters"),
    ("You", "taken by the table"), ("  you ", "taken by the table"), ("West", "taken by the table"),
    ("Nordost", "taken by the table"), ("Ouest", "taken by the table"), ("Host", "taken by the table"),
    ("Bob\u0007", "control characters"), ("Bo\u200bb", "control characters"),
])
def test_a_name_that_is_empty_too_long_or_impersonates_the_table_is_refused(
        people: list[TestClient], session: Session, name: str, reason: str) -> None:
    path = open_table(people[0])
    r = people[1].post(f"{path}/join", data={"seat": 1, "name": name}, headers=HX)
    assert r.status_code == 422 and reason in r.text
    assert state_of(session, path).seats[1].player_id is None  # nothing changed


def test_a_name_is_escaped_everywhere_and_two_people_cannot_share_a_seat_or_a_name(
        people: list[TestClient], session: Session) -> None:
    path = open_table(people[0])
    evil = '<img src=x onerror="alert(1)">'[:20]
    assert people[1].post(f"{path}/join", data={"seat": 1, "name": evil}, headers=HX).status_code == 200
    for c in people:
        html = c.get(path).text
        assert evil not in html and "&lt;img src=x" in html
    taken = people[2].post(f"{path}/join", data={"seat": 1, "name": "Cleo"}, headers=HX)
    assert taken.status_code == 409 and "not free" in taken.text
    same = people[2].post(f"{path}/join", data={"seat": 2, "name": evil.upper()}, headers=HX)
    assert same.status_code == 409 and "already has that name" in same.text
    twice = people[1].post(f"{path}/join", data={"seat": 3, "name": "Again"}, headers=HX)
    assert twice.status_code == 409 and "already have a seat" in twice.text
    seats = state_of(session, path).seats
    assert [s.name for s in seats] == ["Ann", evil, None, None]


def test_only_the_host_chooses_seats_deals_removes_and_closes(people: list[TestClient], session: Session) -> None:
    host, bob, cleo = people[0], people[1], people[2]
    path = open_table(host)
    seat_all(people[:3], path)
    for what, data in (("people", {"seats": [0, 1]}), ("deal", {}), ("remove", {"seat": 2}), ("close", {})):
        r = bob.post(f"{path}/{what}", data=data, headers=HX)
        assert r.status_code == 403 and "Only the host" in r.text
    # the host makes seat 3 a computer's; a seat somebody sits at stays a person's
    assert host.post(f"{path}/people", data={"seats": [0]}, headers=HX).status_code == 200
    assert [s.person for s in state_of(session, path).seats] == [True, True, True, False]
    assert host.post(f"{path}/remove", data={"seat": 2}, headers=HX).status_code == 200
    assert state_of(session, path).seats[2].player_id is None
    assert "Take a seat" in cleo.get(path).text
    assert host.post(f"{path}/close", data={}, headers=HX).headers["HX-Redirect"] == "/"
    assert bob.get(path).status_code == 404


def test_a_spectator_sees_the_cards_played_and_no_hand(people: list[TestClient], session: Session) -> None:
    host = people[0]
    path = open_table(host)
    seat_all(people, path)
    assert host.post(f"{path}/deal", data={}, headers=HX).status_code == 200
    watcher = with_token(TestClient(host.app, base_url="http://testserver"), host.app)
    try:  # (no lifespan: no background watch)
        page = watcher.get(path).text
        assert "you are watching" in page and "Take a seat" not in page
        shown = Table.read(page)
        assert shown is not None and shown.hand == () and 'class="hand-form"' in page
        assert "in-hand" not in page and "You" not in re.findall(r'<strong class="name">([^<]*)</strong>', page)
        state = state_of(session, path)
        game = load_game(state.record)  # type: ignore[arg-type]
        for seat in range(4):
            for card in game.view(seat).hand:
                assert f'data-card="{card.code()}"' not in page
    finally:
        watcher.close()


def drive(people: list[TestClient], path: str, rng: random.Random, limit: int = 2000) -> int:
    """Everyone acts whenever their page lets them; returns how many moves were made."""
    moves = 0
    for _ in range(limit):
        acted = False
        for c in people:
            shown = Table.read(c.get(f"{path}/table", headers=HX).text)
            assert shown is not None
            if shown.phase == "game_over":
                return moves
            move = action(shown, rng)
            if move is None and shown.phase == "round_over":
                move = ("next", {"version": shown.version})
            if move is not None:
                r = c.post(f"{path}/{move[0]}", data=move[1], headers=HX)
                assert r.status_code == 200, r.text
                moves += 1
                acted = True
        assert acted, "nobody could act"
    raise AssertionError("the game did not end")


def test_four_people_play_a_whole_game_and_it_counts_in_their_friends_records_once(
        people: list[TestClient], session: Session) -> None:
    path = open_table(people[0], max_rounds=1)
    seat_all(people, path)
    assert people[0].post(f"{path}/deal", data={}, headers=HX).status_code == 200
    moves = drive(people, path, random.Random(3))
    assert moves > 13 * 4
    state = state_of(session, path)
    assert state.record is not None and state.record.status == "finished"
    game = load_game(state.record)
    for seat in state.seats:
        row = session.get(Record, (seat.player_id, FRIENDS))
        assert row is not None and row.played == 1 and row.won == (game.winner == seat.seat)
        assert row.best_score == game.totals[seat.seat]
        # the games against the computer are untouched
        assert session.exec(select(Record).where(Record.player_id == seat.player_id,
                                                 Record.difficulty != FRIENDS)).first() is None
    page = people[1].get("/").text
    assert "With friends" in page
    # the host plays again: a new game at the same table, the records not counted twice
    assert people[0].post(f"{path}/deal", data={}, headers=HX).status_code == 200
    session.expire_all()
    assert session.get(Record, (state.seats[1].player_id, FRIENDS)).played == 1  # type: ignore[union-attr]


def test_a_move_is_made_once_out_of_turn_never_and_a_stale_one_refused(
        people: list[TestClient], session: Session) -> None:
    path = open_table(people[0])
    seat_all(people, path)
    people[0].post(f"{path}/deal", data={}, headers=HX)
    rng = random.Random(5)
    shown = [Table.read(c.get(f"{path}/table", headers=HX).text) for c in people]
    # everybody passes from the same version: passes are chosen at the same time
    for c, t in zip(people, shown, strict=True):
        assert t is not None and t.phase == "pass" and t.version == shown[0].version  # type: ignore[union-attr]
        move = action(t, rng)
        assert move is not None
        assert c.post(f"{path}/pass", data=move[1], headers=HX).status_code == 200
        again = c.post(f"{path}/pass", data=move[1], headers=HX)
        assert again.status_code in (409, 422)
    state = state_of(session, path)
    game = load_game(state.record)  # type: ignore[arg-type]
    assert game.phase is Phase.PLAY
    turn = game.to_act[0]
    other = (turn + 1) % 4
    other_table = Table.read(people[other].get(f"{path}/table", headers=HX).text)
    assert other_table is not None and other_table.mode == "wait"
    card = next(iter(game.view(other).hand)).code()
    out_of_turn = people[other].post(f"{path}/play", data={"version": other_table.version, "card": card}, headers=HX)
    assert out_of_turn.status_code == 409
    mine = Table.read(people[turn].get(f"{path}/table", headers=HX).text)
    assert mine is not None and mine.mode == "play"
    body = {"version": mine.version, "card": mine.legal[0]}
    assert people[turn].post(f"{path}/play", data=body, headers=HX).status_code == 200
    twice = people[turn].post(f"{path}/play", data=body, headers=HX)
    assert twice.status_code == 409 and "Somebody else moved first" in twice.text
    session.expire_all()
    assert state_of(session, path).record.version == mine.version + 1  # type: ignore[union-attr]


def test_a_late_or_absent_person_is_played_for_once_and_takes_the_seat_back(
        people: list[TestClient], session: Session, app: FastAPI) -> None:
    path = open_table(people[0], turn_seconds=5)
    seat_all(people, path)
    people[0].post(f"{path}/deal", data={}, headers=HX)
    state = state_of(session, path)
    table_id = state.table.id
    # everybody is connected (their pages' streams say so): nothing is due before the timer
    session.exec(update(TableSeat).where(col(TableSeat.table_id) == table_id)
                 .values(connected_until=utcnow() + timedelta(minutes=5)))
    session.commit()
    assert table_id not in tables.due_tables(session)  # (the watch loop does not even look)
    assert not tables.play_for_absent(session, table_id)
    # the timer runs out: each seat that had not passed is passed for, once
    session.exec(update(FriendTable).where(col(FriendTable.id) == table_id)
                 .values(deadline=utcnow() - timedelta(seconds=1)))
    session.commit()
    assert table_id in tables.due_tables(session)
    assert tables.play_for_absent(session, table_id)
    state = state_of(session, path)
    game = load_game(state.record)  # type: ignore[arg-type]
    assert game.phase is Phase.PLAY and len(game.moves) == 4
    turn = game.to_act[0]
    assert state.table.waiting == 1 << turn and state.table.deadline is not None
    # the person whose turn it is closes the tab: after a short pause a computer plays that turn
    session.exec(update(TableSeat).where(col(TableSeat.table_id) == table_id, col(TableSeat.seat) == turn)
                 .values(connected_until=utcnow() - timedelta(seconds=1)))
    session.exec(update(FriendTable).where(col(FriendTable.id) == table_id)
                 .values(deadline=utcnow() + timedelta(seconds=5)))
    session.commit()
    assert table_id not in tables.due_tables(session)  # (not before the pause: the others see it coming)
    session.exec(update(FriendTable).where(col(FriendTable.id) == table_id)
                 .values(deadline=utcnow() + timedelta(seconds=5) - tables.ABSENT_PAUSE - timedelta(seconds=1)))
    session.commit()
    assert table_id in tables.due_tables(session)
    assert tables.play_for_absent(session, table_id)
    state = state_of(session, path)
    after = load_game(state.record)  # type: ignore[arg-type]
    assert after.moves[4].seat == turn and len(after.moves) == 5  # type: ignore[union-attr]
    # the seat is still theirs: coming back, they play their next turn themselves
    assert state.seats[turn].player_id is not None
    assert state.table.deadline is not None


def test_tables_nobody_is_connected_to_are_closed_then_cleaned_up(people: list[TestClient], session: Session,
                                                                   app: FastAPI) -> None:
    path = open_table(people[0])
    people[0].post(f"{path}/deal", data={}, headers=HX)
    state = state_of(session, path)
    table_id, game_id, host_id = state.table.id, state.record.id, state.table.host_id  # type: ignore[union-attr]
    assert tables.close_idle(session) == 0
    session.exec(update(FriendTable).where(col(FriendTable.id) == table_id)
                 .values(seen_at=utcnow() - tables.IDLE_CLOSE - timedelta(seconds=1)))
    session.commit()
    assert tables.close_idle(session) == 1
    assert people[1].get(path).status_code == 404
    session.expire_all()
    assert session.get(GameRecord, game_id).status == "abandoned"  # type: ignore[union-attr]
    later = utcnow() + timedelta(days=200)
    removed = retention.clean(app.state.db_engine, 180, now=later)
    assert removed.tables == 1 and removed.games == 1
    session.expunge_all()
    assert session.get(FriendTable, table_id) is None
    assert session.exec(select(TableSeat)).first() is None
    # the host, idle for as long, goes too (their table no longer names them)
    assert session.get(Player, host_id) is None


def test_a_person_is_connected_while_any_of_their_pages_is(people: list[TestClient], session: Session) -> None:
    path = open_table(people[0])
    seat_all(people, path)
    state = state_of(session, path)
    table_id, bob = state.table.id, state.seats[1].player_id

    def bob_after_the_grace() -> bool:
        session.expire_all()
        later = state_of(session, path)
        later.now = utcnow() + tables.GONE_AFTER + timedelta(seconds=1)
        return later.connected(later.seats[1])

    def page(streams: int) -> None:
        until = utcnow() + (tables.CONNECTED_FOR if streams > 0 else tables.GONE_AFTER)
        tables.present(session, table_id, 1, bob, until, arrived=True, streams=streams)

    page(+1)
    page(+1)
    page(-1)  # one of two tabs closed: still there
    assert bob_after_the_grace()
    page(-1)  # the last one: away once a reload's grace is over
    assert not bob_after_the_grace()
    # when the grace runs out, every page at the table is told (the seats' revision goes up)
    rev = state_of(session, path).table.rev
    now = utcnow()
    assert tables.lapsed(session, now - timedelta(seconds=1), now) == []
    later = now + tables.GONE_AFTER + timedelta(seconds=1)
    assert tables.lapsed(session, now, later) == [table_id]
    session.expire_all()
    assert state_of(session, path).table.rev == rev + 1
    assert tables.lapsed(session, later, later + tables.CONNECTED_FOR) == []  # (told once)
    # a server process that died left a count behind: once its lease has run out, a new
    # page counts from one, and closing it is leaving
    session.exec(update(TableSeat).where(col(TableSeat.table_id) == table_id, col(TableSeat.seat) == 1)
                 .values(connections=3, connected_until=utcnow() - timedelta(seconds=1)))
    session.commit()
    page(+1)
    page(-1)
    assert not bob_after_the_grace()


def qr_modules(svg: str) -> set[tuple[int, int]]:
    """The dark modules of a QR code drawn as segno draws SVG: a path of horizontal runs
    (``M``/``m`` move, ``h`` draws a run), each row at its middle line; (row, column) pairs."""
    path = re.search(r'<path [^>]*stroke="#000"[^>]*\bd="([^"]+)"', svg)  # (the other path: the white ground)
    assert path is not None, svg
    x = y = 0.0
    dark = set()
    for op, args in re.findall(r"([MmHhVv])([^MmHhVv]*)", path.group(1)):
        nums = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", args)]
        if op == "M":
            x, y = nums
        elif op == "m":
            x, y = x + nums[0], y + nums[1]
        elif op == "h":
            dark |= {(int(y), int(x) + i) for i in range(int(nums[0]))}
            x += nums[0]
        else:
            raise AssertionError(f"not a run of modules: {op}{args}")
    return dark


def segno_modules(text: str) -> set[tuple[int, int]]:
    """The dark modules of ``text``'s QR code as segno makes it (the page's settings)."""
    import segno

    made = segno.make(text, error="m", micro=False)
    return {(row, col) for row, line in enumerate(made.matrix) for col, bit in enumerate(line) if bit}


def test_the_host_sees_the_invite_link_as_a_qr_code_of_exactly_that_link(people: list[TestClient]) -> None:
    host, bob = people[0], people[1]
    path = open_table(host)
    page = host.get(path).text
    invite = re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', page)
    img = re.search(r'<img class="qr" src="([^"]+)" alt="([^"]+)"', page)
    assert invite is not None and img is not None
    assert img.group(1) == f"{path}/qr.svg" and img.group(2) == "QR code of the invite link"
    r = host.get(img.group(1))
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    border = 4
    served = {(row - border, col - border) for row, col in qr_modules(r.text)}
    assert served == segno_modules(invite.group(1))
    # (and not the code of another link: one character of the token changed)
    other = invite.group(1)[:-1] + ("A" if invite.group(1)[-1] != "A" else "B")
    assert served != segno_modules(other)
    # the same link in the host's language
    it = host.get(f"/it{path}").text
    assert f'src="/it{path}/qr.svg"' in it
    assert qr_modules(host.get(f"/it{path}/qr.svg").text) != qr_modules(r.text)
    # only for the host: a friend's page has no code, and asking for it is refused
    assert "qr.svg" not in bob.get(path).text
    refused = bob.get(f"{path}/qr.svg")
    assert refused.status_code == 403 and refused.headers["content-type"].startswith("text/html")
    assert "Only the host can do that." in refused.text and "qr.svg" not in refused.text
