"""Request hardening (issue 9 items 3 and 7): the body limit counts real bytes, answers
carrying tokens are never cached, the player token expires and can be revoked, HEAD
wherever GET, language prefixes kept on redirects, a schema that says what the server
takes, and the deployment files (Docker image, SQLite file mode)."""

from __future__ import annotations

import re
import socket
import stat
import time
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlmodel import Session
from starlette.types import Message, Receive, Scope, Send

from app.config import Settings
from app.deps import player_id_from_cookie
from app.main import create_app
from app.models import Player, utcnow
from app.security import MAX_BODY_BYTES, TOKEN_SALT, SecurityMiddleware, read_token

from .live import LiveServer

ROOT = Path(__file__).resolve().parents[2]
COOKIE = "hearts_player"


# ---- item 3: the body limit counts what arrives -------------------------------------------------

def test_a_body_cut_off_by_its_clients_leaving_is_not_acted_on() -> None:
    """A client gone halfway through its body (it left, or app.protocol's deadline cut it
    off): the app never sees the half that came, which could read as another request."""
    import asyncio

    messages: list[Message] = [{"type": "http.request", "body": b"card=10", "more_body": True},
                               {"type": "http.disconnect"}]
    called: list[Scope] = []

    async def receive() -> Message:
        return messages.pop(0)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        called.append(scope)

    async def send(message: Message) -> None:
        raise AssertionError("nobody is there to answer")

    scope = {"type": "http", "method": "POST", "path": "/t/x/play", "headers": []}
    asyncio.run(SecurityMiddleware(app)(scope, receive, send))
    assert called == [], "the app acted on half a body"


def test_a_declared_small_length_does_not_let_a_large_body_through() -> None:
    """Content-Length: 10 with a chunked body of megabytes: the bytes are counted as they
    arrive, and reading stops just past the limit."""
    pulled = 0
    read_by_app = 0

    async def endless() -> Message:
        nonlocal pulled
        pulled += 64 * 1024
        return {"type": "http.request", "body": b"x" * 64 * 1024, "more_body": pulled < 4 * 1024 * 1024}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal read_by_app
        while True:
            message = await receive()
            read_by_app += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"read"})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/api/v1/games",
             "headers": [(b"content-length", b"10"), (b"transfer-encoding", b"chunked")]}
    import asyncio

    asyncio.run(SecurityMiddleware(app)(scope, endless, send))
    assert sent[0]["status"] == 413
    assert read_by_app == 0 and pulled <= MAX_BODY_BYTES + 64 * 1024


def test_the_real_server_refuses_a_smuggled_large_body_before_reading_it(tmp_path: Path) -> None:
    live = LiveServer(tmp_path / "live")
    live.start()
    try:
        # a body sent in chunks whatever Content-Length says: the app's body limit counts
        # the bytes as they arrive (app.security) and answers 413
        _send_large_body(live, b"Transfer-Encoding: chunked\r\n", b"HTTP/1.1 413")
        # both framings at once (request smuggling): uvicorn's HTTP parser (httptools, in the
        # locks) refuses the request as malformed before the app or the body is read
        _send_large_body(live, b"Content-Length: 10\r\nTransfer-Encoding: chunked\r\n", b"HTTP/1.1 400")
    finally:
        live.stop()


def _send_large_body(live: LiveServer, framing: bytes, expected: bytes) -> None:
    total = 32 * 1024 * 1024
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     + framing + b"\r\n")
        chunk = b"%x\r\n" % 65536 + b" " * 65536 + b"\r\n"
        sent, answer = 0, b""
        sock.setblocking(False)
        try:
            while sent < total and not answer:
                try:
                    sock.sendall(chunk)
                    sent += 65536
                except BlockingIOError:
                    time.sleep(0.001)
                try:
                    answer = sock.recv(4096)
                except BlockingIOError:
                    pass
        except (BrokenPipeError, ConnectionResetError):
            pass
        sock.setblocking(True)
        if not answer:
            answer = sock.recv(4096)
    assert answer.startswith(expected), answer[:100]
    assert sent < total  # answered long before the body was all sent: it was never read whole


# ---- item 7: caching, tokens, HEAD, prefixes, schema, deployment ------------------------------

def test_answers_with_tokens_are_never_cached_but_static_files_are(client: TestClient) -> None:
    client.post("/api/v1/games", json={"difficulty": "easy"})
    for path in ("/", "/embed", "/table", "/api/v1/records", "/api/v1/games/current", "/healthz"):
        assert client.get(path).headers["cache-control"] == "no-store", path
    assert "no-store" not in client.get("/static/app.js").headers.get("cache-control", "")


def _token(settings: Settings, player_id: str, issued: float) -> str:
    """A token as the server would have issued it at ``issued``."""

    class At(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(issued)

    return URLSafeTimedSerializer(settings.secret_key, salt=TOKEN_SALT, signer=At).dumps(player_id)


def test_the_player_token_carries_its_issue_time_and_expires(app: FastAPI, client: TestClient) -> None:
    settings = app.state.settings
    client.post("/api/v1/games", json={"difficulty": "easy"})
    cookie = client.cookies.get(COOKIE)
    found = read_token(settings.secret_key, cookie, settings.cookie_max_age)
    assert found is not None and abs(found[1] - time.time()) < 60  # type: ignore[operator]
    pid = found[0]
    expired = _token(settings, pid, time.time() - settings.cookie_max_age - 10)
    with TestClient(app) as c:
        c.cookies.set(COOKIE, expired)
        r = c.get("/api/v1/games/current")
        assert r.status_code == 404  # names nobody any more: a new player, with a new token
        fresh = re.search(r"hearts_player=([^;]+)", r.headers["set-cookie"])
        assert fresh and player_id_from_cookie(settings, fresh.group(1)) not in (None, pid)
    # past half its life it still works, and the answer brings a fresh one for the same player
    aging = _token(settings, pid, time.time() - settings.cookie_max_age * 0.6)
    with TestClient(app) as c:
        c.cookies.set(COOKIE, aging)
        r = c.get("/api/v1/games/current")
        assert r.status_code == 200
        renewed = re.search(r"hearts_player=([^;]+)", r.headers["set-cookie"])
        assert renewed and player_id_from_cookie(settings, renewed.group(1)) == pid


def test_a_revoked_token_names_nobody(app: FastAPI, client: TestClient) -> None:
    client.post("/api/v1/games", json={"difficulty": "easy"})
    pid = player_id_from_cookie(app.state.settings, client.cookies.get(COOKIE))
    with Session(app.state.db_engine) as s:
        player = s.get(Player, pid)
        assert player is not None
        player.tokens_valid_after = utcnow() + timedelta(seconds=1)
        s.add(player)
        s.commit()
    assert client.get("/api/v1/games/current").status_code == 404
    assert player_id_from_cookie(app.state.settings, client.cookies.get(COOKIE)) != pid


def test_an_untimed_cookie_from_before_is_still_the_player_and_is_renewed(app: FastAPI, client: TestClient) -> None:
    from itsdangerous import URLSafeSerializer

    client.post("/api/v1/games", json={"difficulty": "easy"})
    pid = player_id_from_cookie(app.state.settings, client.cookies.get(COOKIE))
    assert pid
    with TestClient(app) as c:
        c.cookies.set(COOKIE, URLSafeSerializer(app.state.settings.secret_key, salt=TOKEN_SALT).dumps(pid))
        r = c.get("/api/v1/games/current")
        assert r.status_code == 200 and "hearts_player=" in r.headers["set-cookie"]


@pytest.mark.parametrize("path", ["/", "/embed", "/it/", "/api/v1/records", "/healthz", "/api/v1/openapi.json",
                                  "/api/docs", "/static/app.js"])
def test_head_is_answered_wherever_get_is(client: TestClient, path: str) -> None:
    get, head = client.get(path), client.head(path)
    assert get.status_code == head.status_code == 200, path
    assert head.content == b""
    assert head.headers["content-type"] == get.headers["content-type"]


@pytest.mark.parametrize("lang", ["it", "pt-br"])
def test_a_trailing_slash_redirect_keeps_the_language(client: TestClient, lang: str) -> None:
    r = client.get(f"/{lang}/embed/", follow_redirects=False)
    assert r.status_code in (307, 308)
    assert r.headers["location"].endswith(f"/{lang}/embed")
    assert client.get(f"/{lang}/embed/").url.path == f"/{lang}/embed"


def test_the_schema_states_the_card_pattern_and_the_real_bounds(client: TestClient) -> None:
    schema = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    card = schema["PlayBody"]["properties"]["card"]
    assert card["pattern"] and re.fullmatch(card["pattern"], "10H") and not re.fullmatch(card["pattern"], "")
    assert schema["PassBody"]["properties"]["cards"]["minItems"] == 3
    target = schema["GameOptions"]["properties"]["target_score"]
    assert (target["minimum"], target["maximum"]) == (1, 10_000)
    # what the schema allows the server takes: a whole number written as 481.0 is 481
    r = client.post("/api/v1/games", json={"difficulty": "easy", "target_score": 481.0})
    assert r.status_code == 201 and r.json()["view"]["rules"]["target_score"] == 481
    for bad in ({"target_score": 481.5}, {"target_score": "481"}, {"target_score": True}, {"players": 4.2}):
        assert client.post("/api/v1/games", json=bad).status_code == 422, bad
    game = r.json()
    r = client.post(f"/api/v1/games/{game['game_id']}/play", json={"version": game["version"], "card": ""})
    assert r.status_code == 422 and r.json()["error"] == "invalid_request"


def test_the_sqlite_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "data" / "hearts.db"
    app = create_app(Settings(database_url=f"sqlite:///{db}", secret_key="s"))
    try:
        from sqlmodel import SQLModel

        SQLModel.metadata.create_all(app.state.db_engine)
        with TestClient(app) as c:
            assert c.post("/api/v1/games", json={"difficulty": "easy"}).status_code == 201
        for path in (db, db.with_name("hearts.db-wal")):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    finally:
        app.state.db_engine.dispose()
        app.state.health_engine.dispose()


def test_the_docker_image_runs_under_an_init_and_trusts_only_a_configured_proxy() -> None:
    text = (ROOT / "Dockerfile").read_text()
    entry = re.search(r"^ENTRYPOINT (.+)$", text, re.M)
    assert entry and "tini" in entry.group(1)  # signals forwarded, zombies reaped
    assert "--forwarded-allow-ips='*'" not in text and '--forwarded-allow-ips=\\"$FORWARDED_ALLOW_IPS\\"' in text
    assert re.search(r"^ENV[^\n]*(\\\n[^\n]*)*FORWARDED_ALLOW_IPS=127\.0\.0\.1", text, re.M)
    assert "--require-hashes" in text and "requirements.lock" in text
