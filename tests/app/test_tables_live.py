"""Tables for friends on real server processes: the event stream each person's page
reads, byte for byte, and two processes on one PostgreSQL database serving one table."""

from __future__ import annotations

import json
import os
import random
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlmodel import Session

from app import tables
from app.models import utcnow
from app.presenter import CARD_NAMES
from engine import Card, Game
from engine.moves import PlayMove
from engine.persist import game_from_dict
from tools.friends import Event, Person, Table, action, csrf_of
from tools.loadtest import app_server

from .databases import PG_ENV


def stored(database_url: str, path: str) -> tuple[str, int]:
    """The table's game as stored: its record text and its version."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            game_id = conn.execute(text("SELECT game_id FROM friend_table WHERE token = :t"),
                                   {"t": path.rsplit("/", 1)[1]}).scalar_one()
            record, version = conn.execute(text("SELECT record, version FROM game WHERE id = :id"),
                                           {"id": game_id}).one()
    finally:
        engine.dispose()
    return record, version


def game_at(record: str, version: int) -> Game:
    data = json.loads(record)
    data["moves"] = data["moves"][:version]
    return game_from_dict(data)


class Reader(threading.Thread):
    """A page's event stream, read to the end of the game (kept as the bytes that came)."""

    def __init__(self, person: Person, base: str | None = None) -> None:
        super().__init__(daemon=True)
        self.person = person
        self.base = base
        self.events: list[Event] = []
        self.error: BaseException | None = None
        self.opened = threading.Event()

    def run(self) -> None:
        try:
            for event in self.person.events(timeout=60, base=self.base):
                self.opened.set()
                self.events.append(event)
                if event.name == "table" and 'data-phase="game_over"' in event.data:
                    return
        except BaseException as exc:  # reported by the test
            self.error = exc


def play_out(people: list[Person], rng: random.Random, paths: list[str] | None = None, limit: int = 3000) -> int:
    """Everyone acts whenever their screen lets them until the game is over."""
    moves = 0
    for _ in range(limit):
        for person in people:
            shown = person.table()
            if shown.phase == "game_over":
                return moves
            move = action(shown, rng)
            if move is None and shown.phase == "round_over":
                move = ("next", {"version": shown.version})
            if move is None:
                continue
            r = person.post(f"{person.path}/{move[0]}", move[1])
            # a computer player may stand in for somebody a moment before they act
            assert r.status_code in (200, 409), r.text
            moves += r.status_code == 200
    raise AssertionError("the game did not end")


def deal_and_watch(people: list[Person], readers: list[Reader], rng: random.Random,
                   database_url: str) -> tuple[str, int, int]:
    """The readers' streams open, the host deals and everybody plays the game out while the
    streams record it; returns the stored record, its version and the moves played."""
    for r in readers:
        r.start()
    for r in readers:
        assert r.opened.wait(30)
    assert people[0].post(f"{people[0].path}/deal", {}).status_code == 200
    moves = play_out(people, rng)
    for r in readers:
        r.join(60)
        assert r.error is None and not r.is_alive()
    record, version = stored(database_url, people[0].path)
    return record, version, moves


def seat_three(base: str, join_base: dict[str, str] | None = None, hands: int = 1) -> list[Person]:
    host = Person(base, "Ann")
    path = host.open_table(difficulty="easy", passing="true", max_rounds=str(hands), turn_seconds="600")
    people = [host]
    for seat, name in ((1, "Bob"), (2, "Cleo")):
        p = Person((join_base or {}).get(name, base), name)
        assert p.join(path, seat).status_code == 200
        people.append(p)
    r = host.post(f"{path}/people", {"seats": ["0", "1", "2"]})
    assert r.status_code == 200
    return people


def forbidden_for(game: Game, seat: int) -> set[Card]:
    """The cards in the other seats' hands that this seat cannot know (the ones it passed
    to a neighbour it does know)."""
    view = game.view(seat)
    known = set(view.passed or ()) if view.passed is not None else set()
    hidden: set[Card] = set()
    for other in range(game.players):
        if other != seat:
            hidden |= set(game.view(other).hand)
    return hidden - known


NAMES = {c: CARD_NAMES[c % 52][:1].upper() + CARD_NAMES[c % 52][1:] for c in range(52)}
ON_TABLE = re.compile(r'data-card="(\w+)" data-seat="(\d)"')
IN_HAND = re.compile(r'class="card in-hand[^"]*" data-card="(\w+)"|data-card="(\w+)" class="card in-hand')


def check_event(record: str, since: int | None, at: int, seat: int, raw: str, before: Table | None = None) -> Table:
    """A ``table`` event of ``seat``'s stream at version ``at``: the table as it is now
    (read on top of ``before``, the table the page showed, when the event sends the parts
    a move changes) shows nothing of the others' hands; its playback (the moves since
    ``since``, the version the page showed) shows only the cards played in those moves (or
    on the table then) and the person's own cards.  Returns the table the page shows then."""
    head, _, rest = raw.partition('<template class="frame"')
    frames, _, deferred = rest.partition('<template class="deferred"')
    now = game_at(record, at)
    shown = Table.read(raw.replace("\ndata: ", "\n"), before)
    assert shown is not None and shown.version == at
    assert sorted(shown.hand) == sorted(c.code() for c in now.view(seat).hand)
    for card in forbidden_for(now, seat):
        for part in (head, deferred):
            assert f'data-card="{card.code()}"' not in part, (seat, at, card)
            assert f'"{NAMES[int(card)]}' not in part and f">{NAMES[int(card)]}" not in part, (seat, at, card)
    if not frames:
        return shown
    assert since is not None and since < at
    then = game_at(record, since)
    trick = then.view(seat)
    own = {c.code() for c in trick.hand}
    played: set[tuple[int, str]] = set()
    if trick.trick_leader is not None:
        played |= {((trick.trick_leader + i) % then.players, c.code()) for i, c in enumerate(trick.trick)}
    for move in now.moves[since:at]:
        then.apply(move)
        own |= {c.code() for c in then.view(seat).hand}
        if isinstance(move, PlayMove):
            played.add((move.seat, move.card.code()))
    for code, on_seat in ON_TABLE.findall(frames):
        assert (int(on_seat), code) in played, (seat, at, code, on_seat)
    for a, b in IN_HAND.findall(frames):
        assert (a or b) in own, (seat, at, a or b)
    return shown


def test_each_stream_carries_only_its_own_persons_cards(database_url: str, tmp_path: Path) -> None:
    rng = random.Random(11)
    with app_server(database_url, tmp_path / "srv") as base:
        people = seat_three(base, hands=2)  # (the second hand's playback starts in the first)
        readers = [Reader(p) for p in people]
        record, version, _ = deal_and_watch(people, readers, rng, database_url)
    for seat, reader in enumerate(readers):
        tables = [e for e in reader.events if e.name == "table" and e.id and not e.id.startswith("-.")]
        assert len(tables) > 10
        assert tables[-1].id is not None and int(tables[-1].id.split(".")[1]) == version
        since: int | None = None
        shown: Table | None = None
        for event in tables:
            assert event.id is not None
            at = int(event.id.split(".")[1])
            shown = check_event(record, since, at, seat, event.raw.decode(), shown)
            since = at
        people_events = [e for e in reader.events if e.name == "people"]
        assert people_events and all("data-card=" not in e.data for e in people_events)
        check_moves_sent_as_parts(tables)
    for p in people:
        p.close()


def check_moves_sent_as_parts(tables: list[Event]) -> None:
    """The moves within a hand come as the parts of the table they change: never the table
    whole (its felt, its seats laid out), the hand only when it changes, and the table after
    a move that leaves the person's hand as it was in far fewer bytes than drawn whole."""
    whole = [len(e.data) for e in tables
             if "data-patch=" not in e.data and re.search(r'data-phase="(pass|play)"', e.data)]
    patches = [e.data for e in tables if "data-patch=" in e.data]
    assert whole and len(patches) > len(tables) // 2
    for data in patches:
        final = data.partition('<template class="final">')[2].partition("</template>")[0]
        now = data.partition('<template class="frame"')[0]
        assert 'class="felt' not in now and 'class="seat' not in now and 'class="result' not in now
        if '<form class="hand-form"' not in final:
            # (the table as it is now: the playback of the moves and the trick list come after it)
            assert "in-hand" not in final and len(now) < min(whole) / 3, len(now)


def test_spectators_see_no_hand_and_each_stream_carries_its_own_token(database_url: str,
                                                                        tmp_path: Path) -> None:
    rng = random.Random(5)
    with app_server(database_url, tmp_path / "srv") as base:
        people = seat_three(base)
        watchers = [Person(base, name) for name in ("Eve", "Fay")]
        tokens = []
        for w in watchers:
            w.path = people[0].path
            tokens.append(csrf_of(w.visit(w.path)))
        assert tokens[0] != tokens[1]
        readers = [Reader(p) for p in (*watchers, people[1])]
        record, version, _ = deal_and_watch(people, readers, rng, database_url)
    for w, token, other, reader in zip(watchers, tokens, reversed(tokens), readers, strict=False):
        tables = [e for e in reader.events if e.name == "table" and e.id and not e.id.startswith("-.")]
        assert len(tables) > 10 and tables[-1].id is not None and int(tables[-1].id.split(".")[1]) == version
        for event in tables:
            at = int(event.id.split(".")[1])  # type: ignore[union-attr]
            raw = event.raw.decode()
            now = game_at(record, at)
            # the cards played, never a hand: not one card of any hand but what is on the table
            assert "in-hand" not in raw, (w.name, at)
            on_table = {code for code, _ in ON_TABLE.findall(raw.partition('<template class="frame"')[0])}
            for seat in range(now.players):
                for card in set(now.view(seat).hand):
                    assert card.code() not in on_table
            # (their table is drawn once for both of them) each gets their own token, not the other's
            # (a move sent as the parts it changes carries no form, so no token at all)
            assert other not in raw and (token in raw or "data-patch=" in raw), (w.name, at)
    # a person's stream carries their own token, not a spectator's
    bob = [e.raw.decode() for e in readers[2].events if e.name == "table"]
    assert bob and not any(t in raw for raw in bob for t in tokens)
    for p in (*people, *watchers):
        p.close()


def test_a_reconnecting_page_gets_exactly_what_it_missed(database_url: str, tmp_path: Path) -> None:
    rng = random.Random(4)
    with app_server(database_url, tmp_path / "srv") as base:
        people = seat_three(base)
        host = people[0]
        assert host.post(f"{host.path}/deal", {}).status_code == 200
        for person in people:  # everybody passes
            move = action(person.table(), rng)
            assert move is not None and move[0] == "pass"
            assert person.post(f"{person.path}/{move[0]}", move[1]).status_code == 200
        stream = people[1].events()
        first = next(e for e in stream if e.name == "table")
        stream.close()  # Bob's page drops
        assert first.id is not None
        shown_then = int(first.id.split(".")[1])
        plays = 0
        while plays < 5:  # the table plays on (Bob acts from his page's last answer)
            for person in people:
                move = action(person.table(), rng)
                if move is not None:
                    assert person.post(f"{person.path}/{move[0]}", move[1]).status_code == 200
                    plays += 1
        now = people[1].table()
        assert now.version > shown_then
        stream = people[1].events(last=first.id)
        resumed = next(e for e in stream if e.name == "table")
        stream.close()
        # the latest table (on a slow machine the server may meanwhile have played a turn for
        # Bob, whose page has been closed longer than the grace: that move is in it too, and
        # another may follow)
        assert resumed.id is not None
        assert now.version <= int(resumed.id.split(".")[1]) <= people[1].table().version
        # the moves it missed come as the playback of this one event, from the table it showed
        assert resumed.data.count('class="frame"') >= plays and 'data-base="previous"' in resumed.data
        # and a page that already shows the latest table gets no table again
        again = people[1].events(last=resumed.id)
        assert next(e for e in again if e.name in ("table", "people")).name == "people"
        for p in people:
            p.close()


if os.environ.get(PG_ENV):
    # (SQLite serves one process: its news never leave it; CI always runs this on PostgreSQL)
    def test_two_processes_on_one_postgresql_serve_one_table_with_people_on_both(tmp_path: Path) -> None:
        from .databases import fresh_url

        database_url = fresh_url("postgresql", tmp_path)
        rng = random.Random(8)
        with app_server(database_url, tmp_path / "a") as a, \
                app_server(database_url, tmp_path / "b", migrate_first=False) as b:
            people = seat_three(a, join_base={"Bob": b})
            assert people[1].base == b
            # Ann and Cleo read their streams from process A, Bob from process B
            readers = [Reader(people[0]), Reader(people[1], base=b), Reader(people[2], base=b)]
            record, version, moves = deal_and_watch(people, readers, rng, database_url)
            game = game_at(record, version)
            assert game.is_over and len(game.moves) == version and moves > 13
            for reader in readers:
                versions = [int(e.id.split(".")[1]) for e in reader.events if e.name == "table" and e.id]
                assert versions[-1] == version and versions == sorted(versions)
            for p in people:
                p.close()



def test_a_person_with_the_table_open_in_two_tabs_stays_connected_when_one_closes(
        database_url: str, tmp_path: Path) -> None:
    engine = create_engine(database_url)

    def rev() -> int:
        with engine.connect() as conn:
            return conn.execute(text("SELECT rev FROM friend_table WHERE token = :t"), {"t": token}).scalar_one()

    def connected_after_the_grace(seat: int) -> bool:
        """The seat as the table will see it once a reload's grace has run out."""
        with Session(engine) as session:
            state = tables.read(session, token)
            state.now = utcnow() + tables.GONE_AFTER + timedelta(seconds=1)
            return state.connected(state.seats[seat])

    def told(stream: Iterator[Event], at: int) -> None:
        """Ann's page reads its stream until it shows the seats' revision ``at``."""
        for event in stream:
            if event.name == "people" and event.id is not None and int(event.id.split(".")[2]) >= at:
                return

    with app_server(database_url, tmp_path / "srv") as base:
        people = seat_three(base)
        ann, bob = people[0], people[1]
        token = ann.path.rsplit("/", 1)[1]
        watching = ann.events()
        tabs = [bob.events(), bob.events()]
        for tab in tabs:  # each of Bob's tabs has its stream open (and has said so)
            assert next(e for e in tab if e.name == "people")
        told(watching, rev())
        # one tab closes: the news reach Ann, and Bob is still there after the grace
        before = rev()
        tabs[0].close()
        told(watching, before + 1)
        assert connected_after_the_grace(1)
        # the last of his tabs closes: after the grace he is away
        tabs[1].close()
        told(watching, before + 2)
        assert not connected_after_the_grace(1)
        watching.close()
        for p in people:
            p.close()
    engine.dispose()
