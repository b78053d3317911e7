"""The JSON API's moves skip FastAPI's request handling (:class:`app.routers.api.HotRoutes`):
they must answer exactly what FastAPI's route answers, well formed or not, and only the
well formed ones may take the short way."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.dependencies import utils as fastapi_utils
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.models import GameRecord
from app.routers import api
from app.routers.api import HOT_ROUTES, HotRoutes

from .csrf import with_token


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, bool]]:
    """A switch that sends every request through FastAPI, as if the fast path did not exist,
    and a count of what FastAPI routed."""
    state = {"off": False}
    original = HotRoutes.__call__

    async def switchable(self: HotRoutes, scope: Any, receive: Any, send: Any) -> None:
        if state["off"]:
            await self.app(scope, receive, send)
        else:
            await original(self, scope, receive, send)

    monkeypatch.setattr(HotRoutes, "__call__", switchable)
    yield state


@pytest.fixture
def solved(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths FastAPI solved a route's dependencies for, from now on."""
    seen: list[str] = []
    original = fastapi_utils.solve_dependencies

    async def counting(*, request: Any, **kwargs: Any) -> Any:
        seen.append(request.url.path)
        return await original(request=request, **kwargs)

    monkeypatch.setattr(fastapi_utils, "solve_dependencies", counting)
    return seen


def test_every_hot_route_is_the_routers_route_with_that_body() -> None:
    routes = {r.path: r for r in api.router.routes if isinstance(r, APIRoute)}
    for name, (model, endpoint) in HOT_ROUTES.items():
        route = routes[f"/api/v1/games/{{game_id}}/{name}"]
        assert route.methods == {"POST"} and route.endpoint is endpoint
        body = route.dependant.body_params
        assert len(body) == 1 and body[0].field_info.annotation is model


def shown(r: Any) -> tuple[int, Any, str | None, str | None]:
    """An answer as the client reads it: status, body, content type, CSRF header."""
    try:
        body = r.json()
    except ValueError:
        body = r.text
    return r.status_code, body, r.headers.get("content-type"), r.headers.get("x-csrf-token")


def test_a_whole_game_takes_the_fast_path_and_answers_as_fastapi_does(
        app: FastAPI, client: TestClient, routed: dict[str, bool], solved: list[str]) -> None:
    # two players' games from one seed, one through the fast path and one through FastAPI,
    # move for move: the same answers (but for the game's id) and the same stored games
    clients = [client, with_token(TestClient(app), app)]
    games = []
    for off, c in zip((False, True), clients, strict=True):
        routed["off"] = off
        games.append(c.post("/api/v1/games", json={"seed": 11, "target_score": 30}).json())
    solved.clear()
    moves = 0
    while games[0]["status"] == "active":
        view = games[0]["view"]
        assert view == games[1]["view"]
        if view["phase"] == "pass":
            path, body = "pass", {"cards": view["hand"][:3]}
        elif view["phase"] == "moon":
            path, body = "moon", {"subtract": True}
        elif view["phase"] == "play":
            path, body = "play", {"card": view["legal"][-1]}
        else:
            path, body = "next", {}
        answers = []
        for off, c, game in zip((False, True), clients, games, strict=True):
            routed["off"] = off
            answers.append(c.post(f"/api/v1/games/{game['game_id']}/{path}",
                                       json={"version": game["version"], **body}))
        fast, slow = (shown(r) for r in answers)
        assert fast[0] == 200 and fast[0::2] == slow[0::2] and fast[3] and slow[3]
        assert {**fast[1], "game_id": None} == {**slow[1], "game_id": None}
        games = [r.json() for r in answers]
        moves += 1
    assert moves > 20
    # FastAPI routed only the game played the long way, every move of it
    assert len(solved) == moves and all(games[1]["game_id"] in path for path in solved)
    with Session(app.state.db_engine) as s:
        stored = [s.get(GameRecord, g["game_id"]) for g in games]
        assert stored[0] is not None and stored[1] is not None
        assert (stored[0].record, stored[0].version) == (stored[1].record, stored[1].version)


def refusals(game: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Requests on ``game`` (the person's turn to play) that must change nothing, as
    (path, keyword arguments of the client's ``post``)."""
    gid, version, legal = game["game_id"], game["version"], game["view"]["legal"]
    held = set(game["view"]["hand"])
    illegal = next(c for c in held if c not in legal) if held - set(legal) else "2C"
    yield f"/api/v1/games/{gid}/play", {"json": {"version": version - 1, "card": legal[0]}}  # stale
    yield f"/api/v1/games/{gid}/play", {"json": {"version": version, "card": illegal}}
    yield f"/api/v1/games/{gid}/play", {"json": {"version": version, "card": "ZZ"}}
    yield f"/api/v1/games/{gid}/play", {"json": {"version": True, "card": legal[0]}}
    yield f"/api/v1/games/{gid}/play", {"json": {"version": version}}
    yield f"/api/v1/games/{gid}/play", {"json": [version, legal[0]]}
    yield f"/api/v1/games/{gid}/play", {"content": b'{"version": ', "headers": {"content-type": "application/json"}}
    yield f"/api/v1/games/{gid}/play", {"content": b"\xff\xfe", "headers": {"content-type": "application/json"}}
    yield f"/api/v1/games/{gid}/play", {"content": b'{"version": %d, "card": "%s"}' % (version, legal[0].encode()),
                                        "headers": {"content-type": "text/plain"}}
    yield f"/api/v1/games/{gid}/play", {"json": {"version": version, "card": legal[0]},
                                        "headers": {"X-CSRF-Token": "forged"}}
    yield f"/api/v1/games/{gid}/pass", {"json": {"version": version, "cards": legal[:3]}}  # wrong phase
    yield f"/api/v1/games/{gid}/moon", {"json": {"version": version, "subtract": "yes"}}
    yield f"/api/v1/games/{gid}/next", {"json": {"version": version}}
    yield f"/api/v1/games/{gid}x/play", {"json": {"version": version, "card": legal[0]}}  # not found
    yield f"/api/v1/games/{gid}/play/", {"json": {"version": version, "card": legal[0]},
                                         "follow_redirects": False}  # sent on to /play
    yield "/api/v1/games/%20/play", {"json": {"version": version, "card": legal[0]}}


def test_every_refused_move_is_answered_as_fastapi_answers_it_and_changes_nothing(
        app: FastAPI, client: TestClient, routed: dict[str, bool]) -> None:
    game = client.post("/api/v1/games", json={"seed": 5}).json()
    game = client.post(f"/api/v1/games/{game['game_id']}/pass",
                       json={"version": game["version"], "cards": game["view"]["hand"][:3]}).json()
    assert game["view"]["phase"] == "play" and game["view"]["turn"] == 0

    def stored() -> tuple[str, int]:
        with Session(app.state.db_engine) as s:
            rec = s.get(GameRecord, game["game_id"])
            assert rec is not None
            return rec.record, rec.version

    before = stored()
    for path, kwargs in refusals(game):
        answers = []
        for off in (False, True):
            routed["off"] = off
            answers.append(shown(client.post(path, **kwargs)))
        assert answers[0] == answers[1], (path, kwargs)
        assert answers[0][0] in (307, 400, 403, 404, 405, 409, 422), (path, kwargs, answers[0])
        assert stored() == before
    # and the game still takes the move it was waiting for
    routed["off"] = False
    r = client.post(f"/api/v1/games/{game['game_id']}/play",
                    json={"version": game["version"], "card": game["view"]["legal"][0]})
    assert r.status_code == 200 and stored() != before


def test_a_client_gone_before_its_body_is_whole_plays_nothing(app: FastAPI) -> None:
    # the ASGI conversation of a client that disconnects halfway through its body
    sent: list[dict[str, Any]] = []
    called: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        called.append((await receive())["type"])

    messages = iter([{"type": "http.request", "body": b'{"vers', "more_body": True},
                     {"type": "http.disconnect"}])

    async def receive() -> dict[str, Any]:
        return next(messages)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/v1/games/abc/play", "root_path": "",
             "headers": [(b"content-type", b"application/json")], "query_string": b"", "app": app}
    anyio.run(HotRoutes(inner), scope, receive, send)
    # handed on, and the app hears of the disconnect: nothing was answered by the fast path
    assert called == ["http.disconnect"] and sent == []


def test_other_requests_pass_untouched() -> None:
    seen: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"] + " " + scope["path"])

    for method, path in itertools.product(("GET", "POST", "PUT"), ("/api/v1/games/abc/play", "/api/v1/games",
                                                                    "/api/v1/games/abc/undo", "/game/play")):
        if method == "POST" and path == "/api/v1/games/abc/play":
            continue
        anyio.run(HotRoutes(inner), {"type": "http", "method": method, "path": path}, None, None)
    anyio.run(HotRoutes(inner), {"type": "websocket", "path": "/api/v1/games/abc/play"}, None, None)
    assert len(seen) == 12


def test_fastapis_telemetry_is_on_only_where_opentelemetry_was_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.config import Settings
    from app.main import create_app

    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    off = create_app(Settings(database_url="sqlite://", secret_key="t"))
    assert not any(off._telemetry[k] for k in ("tracing", "metrics", "logs"))
    monkeypatch.setenv("OTEL_SERVICE_NAME", "hearts")
    on = create_app(Settings(database_url="sqlite://", secret_key="t"))
    assert all(on._telemetry[k] for k in ("tracing", "metrics", "logs"))
