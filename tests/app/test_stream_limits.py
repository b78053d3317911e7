"""Tables' event streams against a hostile or merely busy client: an address holds a bounded
number of them, a stream's first look waits for a place like any request, and a move is
drawn once for every page that shows it the same, from what the table's read found."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event
from starlette.requests import Request

from app.deps import player_id_from_cookie
from app.limits import AdmissionGate, StreamSlots
from app.routers import tables as table_routes
from tools.friends import HX, Event, Person, Table, action, parse_events
from tools.loadtest import app_server

from .csrf import with_token
from .test_tables import open_table, seat_all


def first_table_event(events: Iterator[Event]) -> Event:
    for e in events:
        if e.name == "table":
            return e
    raise AssertionError("the stream ended without a table event")


def test_streams_past_an_addresss_limit_are_refused_and_the_others_go_on(tmp_path: Path) -> None:
    with app_server(f"sqlite:///{tmp_path / 'hearts.db'}", tmp_path, extra_env={"STREAMS_PER_CLIENT": "3"}) as base:
        host = Person(base, "Ann")
        path = host.open_table(difficulty="easy", passing="true", max_rounds="1", turn_seconds="600")
        watchers = [Person(base, f"W{i}") for i in range(4)]
        for w in watchers:
            w.visit(path)
        with ExitStack() as stack:
            streams: list[Iterator[Event]] = []
            for w in watchers[:3]:
                r = stack.enter_context(w.client.stream("GET", f"{path}/events"))
                assert r.status_code == 200
                streams.append(parse_events(r.iter_bytes()))
                first_table_event(streams[-1])
            # a fourth page from the same address: refused, at once, and it says why
            refused = watchers[3].client.get(f"{path}/events")
            assert refused.status_code == 429
            assert int(refused.headers["Retry-After"]) > 0 and "Too many" in refused.text
            # the three pages that got in still see every change
            assert host.post(f"{path}/deal", {}).status_code == 200
            for s in streams:
                assert 'data-phase="pass"' in first_table_event(s).data
            # one page closed: its place is free again
            stack.pop_all().close()
        deadline = time.monotonic() + 10
        while True:
            with watchers[3].client.stream("GET", f"{path}/events") as r:
                if r.status_code == 200:
                    assert 'data-phase="pass"' in first_table_event(parse_events(r.iter_bytes())).data
                    break
            assert time.monotonic() < deadline, "the closed streams' places were never given back"
            time.sleep(0.1)


def test_slots_are_counted_per_address_and_given_back() -> None:
    slots = StreamSlots(2)
    first, second = slots.take("10.0.0.1"), slots.take("10.0.0.1")
    assert first is not None and second is not None
    assert slots.take("10.0.0.1") is None
    assert slots.take("10.0.0.2") is not None  # another address has its own
    first.release()
    first.release()  # (given back once, however often released)
    assert slots.take("10.0.0.1") is not None and slots.take("10.0.0.1") is None
    unlimited = StreamSlots(0)
    assert all(unlimited.take("10.0.0.1") for _ in range(1000))


def test_the_gates_place_is_refused_when_full_and_free_again_after() -> None:
    async def scenario() -> None:
        gate = AdmissionGate(app=None, limit=1, timeout=0.05, max_queue=8)  # type: ignore[arg-type]
        async with gate.place() as first:
            assert first and gate.active == 1
            async with gate.place() as second:
                assert not second  # waited its 0.05 s, holding nothing
            assert gate.active == 1 and gate.waiting == 0
        assert gate.active == 0
        async with gate.place() as third:
            assert third

    asyncio.run(scenario())


@pytest.fixture
def watcher(app: FastAPI) -> Iterator[TestClient]:
    """A spectator's browser (without the lifespan, as the four people's)."""
    client = with_token(TestClient(app, base_url="http://testserver"), app)
    yield client
    client.close()


def test_a_move_is_drawn_once_for_every_page_showing_it_alike_and_reads_nothing_more(
        app: FastAPI, people: list[TestClient], watcher: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    path = open_table(people[0])
    seat_all(people, path)
    assert people[0].post(f"{path}/deal", data={}, headers=HX).status_code == 200
    watcher.get(path)
    settings = app.state.settings
    wid = player_id_from_cookie(settings, watcher.cookies.get(settings.cookie_name))
    assert wid is not None
    engine = app.state.db_engine
    request = Request({"type": "http", "app": app, "method": "GET", "path": f"{path}/events", "headers": [
        (b"host", b"testserver")], "query_string": b"", "scheme": "http", "server": ("testserver", 80),
        "root_path": ""})
    token = path.rsplit("/", 1)[1]
    # the watcher's page open in three tabs
    snap = table_routes._read(engine, token, None, frozenset({wid}), 0)
    tabs = [table_routes.Shown(None) for _ in range(3)]
    for shown in tabs:
        table_routes._events(request, engine, snap, wid, shown)

    shown_table = Table.read(people[0].get(f"{path}/table", headers=HX).text)
    assert shown_table is not None
    move = action(shown_table, random.Random(3))
    assert move is not None
    assert people[0].post(f"{path}/{move[0]}", data=move[1], headers=HX).status_code == 200
    snap = table_routes._read(engine, None, snap.state.table.id, frozenset({wid}), 1)

    contexts: list[Any] = []
    real_context = table_routes.table_context
    monkeypatch.setattr(table_routes, "table_context",
                        lambda *a, **k: contexts.append(1) or real_context(*a, **k))  # type: ignore[func-returns-value]
    statements: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        drawn = [table_routes._events(request, engine, snap, wid, shown)[0] for shown in tabs]
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(contexts) == 1, "each tab built the watcher's table again"
    assert statements == [], "a stream's event went back to the database"
    tables_sent = [b"".join(chunks) for chunks in drawn]
    assert tables_sent[0] == tables_sent[1] == tables_sent[2]
    assert b"event: table" in tables_sent[0] and b"data-patch=" in tables_sent[0]


def test_a_stream_refused_by_a_full_server_is_answered_busy(tmp_path: Path) -> None:
    # one request at a time and one waiting; the wait is long enough for the host's own
    # requests one after the other on a busy machine (0.01 s refused its table's opening
    # once, with the machine's two cores taken), and the burst overflows the queue anyway
    env = {"MAX_ACTIVE_REQUESTS": "1", "QUEUE_TIMEOUT": "0.5", "MAX_QUEUE": "1"}
    with app_server(f"sqlite:///{tmp_path / 'hearts.db'}", tmp_path, extra_env=env) as base:
        host = Person(base, "Ann")
        path = host.open_table(difficulty="easy", passing="true", max_rounds="1", turn_seconds="600")

        async def burst() -> list[int]:
            async with httpx.AsyncClient(base_url=base, cookies=host.client.cookies, timeout=30) as client:
                async def one() -> int:
                    async with client.stream("GET", f"{path}/events") as r:
                        return r.status_code
                return list(await asyncio.gather(*(one() for _ in range(40))))

        codes = asyncio.run(burst())
        assert set(codes) <= {200, 503} and 503 in codes and 200 in codes
