"""Security: other players' games, forged cookies, CSRF tokens, other origins, headers,
body limits.  These use bare TestClients (no automatic token), as an attacker would."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from itsdangerous import URLSafeSerializer
from sqlmodel import Session

from app.deps import COOKIE_SALT, signer
from app.models import GameRecord
from app.security import CSRF_HEADER, MAX_BODY_BYTES, csrf_token

COOKIE = "hearts_player"
HX = {"HX-Request": "true"}


@pytest.fixture
def bare(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def player_with_game(app: FastAPI) -> tuple[TestClient, dict]:
    """A player (own client, own cookie) with a game in progress, acting with their token."""
    c = TestClient(app)
    r = c.post("/api/v1/games", json={"seed": 3})  # no cookie yet: a new player needs no token
    assert r.status_code == 201, r.text
    c.headers[CSRF_HEADER] = r.headers[CSRF_HEADER]
    return c, r.json()


def stored_version(app: FastAPI, game_id: str) -> tuple[int, str]:
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, game_id)
        assert rec is not None
        return rec.version, rec.record


# ---- other players' games ------------------------------------------------------------------

def test_another_players_game_is_404_for_every_route(app: FastAPI) -> None:
    alice, game = player_with_game(app)
    mallory, _ = player_with_game(app)
    gid, version = game["game_id"], game["version"]
    before = stored_version(app, gid)
    assert mallory.get(f"/api/v1/games/{gid}").status_code == 404
    for path, body in (("pass", {"version": version, "cards": game["view"]["hand"][:3]}),
                       ("play", {"version": version, "card": "2C"}), ("moon", {"version": version, "subtract": True}),
                       ("next", {"version": version})):
        r = mallory.post(f"/api/v1/games/{gid}/{path}", json=body)
        assert r.status_code == 404, path
        assert r.json()["error"] == "game_not_found"
    assert stored_version(app, gid) == before
    assert alice.get(f"/api/v1/games/{gid}").status_code == 200


def test_game_and_player_ids_are_random_uuid4(app: FastAPI) -> None:
    ids = {player_with_game(app)[1]["game_id"] for _ in range(5)}
    assert len(ids) == 5
    for gid in ids:
        assert re.fullmatch(r"[0-9a-f]{32}", gid)
        assert uuid.UUID(hex=gid).version == 4  # 122 random bits: not guessable, not sequential


# ---- forged cookies ------------------------------------------------------------------------

def forged_cookies(app: FastAPI, victim_id: str) -> list[str]:
    secret = app.state.settings.secret_key
    real = signer(app.state.settings).dumps(victim_id)
    payload, _, sig = real.rpartition(".")
    return [
        "", "garbage", "a.b", ".", "..", real[:-1], real + "x", payload, f"{payload}.{sig[::-1]}",
        victim_id,  # the bare id, unsigned
        URLSafeSerializer("wrong-secret", salt=COOKIE_SALT).dumps(victim_id),  # signed with another key
        URLSafeSerializer(secret, salt="another-salt").dumps(victim_id),  # another use of the key
        signer(app.state.settings).dumps(12345),  # validly signed, not an id
        signer(app.state.settings).dumps("x" * 500),  # validly signed, not an id either
        "%00%ff", "\\x00", "a" * 5000,
    ]


def test_a_forged_cookie_gets_a_fresh_player_never_an_error_or_the_victims_game(app: FastAPI) -> None:
    victim, game = player_with_game(app)
    victim_id = _player_id(victim, app)
    before = stored_version(app, game["game_id"])
    for value in forged_cookies(app, victim_id):
        with TestClient(app) as c:
            c.cookies.set(COOKIE, value)
            page = c.get("/")
            assert page.status_code == 200, value
            assert "Ready for a game of Hearts?" in page.text  # an empty table: a new player
            fresh = re.search(r"hearts_player=([^;]+)", page.headers["set-cookie"])
            assert fresh and fresh.group(1) != value
            assert c.get("/api/v1/games/current").status_code == 404
            assert c.get(f"/api/v1/games/{game['game_id']}").status_code == 404
            # acting with it acts for nobody's game
            r = c.post("/game/play", data={"version": str(game["version"]), "card": "2C"})
            assert r.status_code in (403, 404)
    assert stored_version(app, game["game_id"]) == before
    # bytes that are not even ASCII, as a broken or hostile client may send them
    with TestClient(app) as c:
        r = c.get("/", headers={"cookie": f"{COOKIE}=".encode() + "é✓".encode() * 20})
        assert r.status_code == 200 and "Ready for a game of Hearts?" in r.text


def _player_id(client: TestClient, app: FastAPI) -> str:
    from app.deps import player_id_from_cookie

    pid = player_id_from_cookie(app.state.settings, client.cookies.get(COOKIE))
    assert pid
    return pid


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E,
                                            exclude_characters=";,\\\""), max_size=300))
def test_any_cookie_value_gives_a_page(app: FastAPI, value: str) -> None:
    with TestClient(app) as c:
        c.cookies.set(COOKIE, value)
        assert c.get("/").status_code == 200
        assert c.get("/embed").status_code == 200
        assert c.get("/api/v1/records").status_code == 200


# ---- CSRF ------------------------------------------------------------------------------------

def test_html_actions_need_the_players_token(app: FastAPI, bare: TestClient) -> None:
    page = bare.get("/")
    pid = _player_id(bare, app)
    token = csrf_token(app.state.settings.secret_key, pid)
    assert f'"X-CSRF-Token": "{token}"' in page.text  # hx-headers on <body>
    form = {"same": "true"}
    assert bare.post("/game/new", data=form).status_code == 403
    assert bare.post("/game/new", data={**form, "csrf_token": "wrong"}).status_code == 403
    other = csrf_token(app.state.settings.secret_key, uuid.uuid4().hex)
    assert bare.post("/game/new", data=form, headers={CSRF_HEADER: other}).status_code == 403
    assert bare.get("/api/v1/games/current").status_code == 404  # nothing was dealt

    r = bare.post("/game/new", data={**form, "csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303  # a plain form with the hidden field
    table = bare.get("/").text
    version = re.search(r'data-version="(\d+)"', table)
    assert version and f'name="csrf_token" value="{token}"' in table
    r = bare.post("/game/next", data={"version": version.group(1)}, headers=HX)
    assert r.status_code == 403 and r.headers["HX-Refresh"] == "true"  # the page reloads for a fresh token
    r = bare.post("/prefs", data={"fast_play": "true"}, headers={**HX, CSRF_HEADER: token})
    assert r.status_code == 204


def test_api_actions_need_the_token_from_the_response_header(app: FastAPI, bare: TestClient) -> None:
    r = bare.post("/api/v1/games", json={"seed": 1})
    assert r.status_code == 201
    token = r.headers[CSRF_HEADER]
    game = r.json()
    body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
    refused = bare.post(f"/api/v1/games/{game['game_id']}/pass", json=body)
    assert refused.status_code == 403 and refused.json()["error"] == "csrf"
    assert stored_version(app, game["game_id"])[0] == game["version"]
    ok = bare.post(f"/api/v1/games/{game['game_id']}/pass", json=body, headers={CSRF_HEADER: token})
    assert ok.status_code == 200


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Origin": "http://testserver.evil.example"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "http://testserver", "Sec-Fetch-Site": "cross-site"},
])
def test_requests_from_other_origins_are_refused_even_with_the_token(app: FastAPI, headers: dict[str, str]) -> None:
    c, game = player_with_game(app)
    before = stored_version(app, game["game_id"])
    body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
    r = c.post(f"/api/v1/games/{game['game_id']}/pass", json=body, headers=headers)
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    r = c.post("/game/new", data={"same": "true"}, headers=headers)
    assert r.status_code == 403 and "other sites" in r.text
    assert stored_version(app, game["game_id"]) == before
    # reading is fine from anywhere: the embedded table loads inside other sites' pages
    assert c.get("/embed", headers=headers).status_code == 200


def test_same_origin_browser_requests_pass(app: FastAPI) -> None:
    c, game = player_with_game(app)
    body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
    headers = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert c.post(f"/api/v1/games/{game['game_id']}/pass", json=body, headers=headers).status_code == 200


# ---- headers ---------------------------------------------------------------------------------

class _Inline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inline_scripts = 0
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.inline_scripts += 1
        self.handlers += [f"{tag}[{k}]" for k in names if k.startswith("on") or k.startswith("hx-on")]
        self.handlers += [f"{tag}[{k}]" for k, v in attrs if v and v.strip().lower().startswith("javascript:")]


def directives(header: str) -> dict[str, str]:
    return {p.strip().split(" ", 1)[0]: p.strip().partition(" ")[2] for p in header.split(";") if p.strip()}


def test_pages_have_a_strict_policy_and_no_inline_script(app: FastAPI) -> None:
    c, game = player_with_game(app)
    pages = [c.get("/"), c.get("/embed"), c.get("/table", headers=HX),
             c.post("/game/new", data={"same": "true"}, headers=HX)]
    for r in pages:
        csp = directives(r.headers["content-security-policy"])
        assert csp["script-src"] == "'self'"
        assert csp["object-src"] == "'none'" and csp["base-uri"] == "'none'"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
        parser = _Inline()
        parser.feed(r.text)
        assert parser.inline_scripts == 0 and parser.handlers == [], r.url
    assert directives(pages[0].headers["content-security-policy"])["frame-ancestors"] == "'none'"
    assert pages[0].headers["x-frame-options"] == "DENY"
    assert directives(pages[1].headers["content-security-policy"])["frame-ancestors"] == "*"
    assert "x-frame-options" not in pages[1].headers


@pytest.mark.parametrize("path", ["/static/app.js", "/healthz", "/api/v1/records", "/api/v1/openapi.json",
                                  "/no-such-page"])
def test_every_response_carries_the_headers(bare: TestClient, path: str) -> None:
    r = bare.get(path)
    assert directives(r.headers["content-security-policy"])["frame-ancestors"] == "'none'"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"


def test_the_api_docs_load_only_vendored_scripts(bare: TestClient) -> None:
    """Swagger UI is vendored from the npm registry, pinned: nothing from a CDN, no inline script."""
    r = bare.get("/api/docs")
    assert r.status_code == 200
    assert directives(r.headers["content-security-policy"])["script-src"] == "'self'"
    parser = _Inline()
    parser.feed(r.text)
    assert parser.inline_scripts == 0
    sources = re.findall(r'(?:src|href)="([^"]+)"', r.text)
    assert sources and all(s.startswith("/static/") for s in sources), sources
    for path in sources:
        assert bare.get(path).status_code == 200, path
    assert "cdn" not in r.text.lower()


# ---- body limit ------------------------------------------------------------------------------

def test_bodies_above_the_limit_are_refused_with_413(app: FastAPI) -> None:
    c, game = player_with_game(app)
    before = stored_version(app, game["game_id"])
    big = {"version": game["version"], "cards": ["2C"] * (MAX_BODY_BYTES // 4)}
    r = c.post(f"/api/v1/games/{game['game_id']}/pass", json=big)
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    r = c.post("/game/new", data={"same": "true", "pad": "x" * MAX_BODY_BYTES})
    assert r.status_code == 413

    def chunks(size: int) -> Iterator[bytes]:  # no Content-Length: sent chunked
        sent = 0
        while sent < size:
            yield b" " * 1024
            sent += 1024

    r = c.post(f"/api/v1/games/{game['game_id']}/next", content=chunks(MAX_BODY_BYTES + 2048),
               headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert stored_version(app, game["game_id"]) == before
    # a small chunked body still arrives whole
    small = iter([b'{"version": ', str(game["version"]).encode(), b"}"])
    r = c.post(f"/api/v1/games/{game['game_id']}/next", content=small, headers={"content-type": "application/json"})
    assert r.status_code == 409 and r.json()["error"] == "wrong_phase"


# ---- the player token header (the embed without cookies, issue 10 item 3) -------------------

PLAYER_HEADER = "X-Player-Token"


def test_the_embed_page_carries_its_players_token_for_a_frame_without_cookies(app: FastAPI, bare: TestClient) -> None:
    page = bare.get("/embed")
    token = re.search(r'data-player-token="([^"]+)"', page.text)
    assert token and 'data-player-new="1"' in page.text and "/static/identity.js" in page.text
    assert token.group(1) == re.search(r"hearts_player=([^;]+)", page.headers["set-cookie"]).group(1)  # type: ignore[union-attr]
    assert page.headers["x-player-token"] == token.group(1)
    assert bare.get("/embed").headers.get("x-player-token") is None  # the cookie came back: no new token


def test_a_request_named_by_the_header_needs_no_csrf_token_and_the_header_wins(app: FastAPI) -> None:
    alice, game = player_with_game(app)
    token = alice.cookies.get(COOKIE)
    with TestClient(app) as frame:  # no cookie at all: only the header, as identity.js sends it
        frame.cookies.set(COOKIE, signer(app.state.settings).dumps(uuid.uuid4().hex))  # someone else's cookie
        body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
        r = frame.post(f"/api/v1/games/{game['game_id']}/pass", json=body, headers={PLAYER_HEADER: token})
        assert r.status_code == 200, r.text  # alice's game, by the header, without a CSRF token
        assert r.headers[PLAYER_HEADER] == token
    assert stored_version(app, game["game_id"])[0] == r.json()["version"]


def test_a_broken_header_falls_back_to_the_cookie_and_its_csrf_check(app: FastAPI) -> None:
    alice, game = player_with_game(app)
    body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
    del alice.headers[CSRF_HEADER]
    payload, _, sig = alice.cookies.get(COOKIE).rpartition(".")
    # the signature's first character changed: every bit of it counts (the last character's
    # low bits do not, so a new ending could decode to the same signature once in a thousand)
    wrong = f"{payload}.{'B' if sig[0] == 'A' else 'A'}{sig[1:]}"
    for forged in ("garbage", wrong):
        r = alice.post(f"/api/v1/games/{game['game_id']}/pass", json=body, headers={PLAYER_HEADER: forged})
        assert r.status_code == 403 and r.json()["error"] == "csrf"
    assert stored_version(app, game["game_id"])[0] == game["version"]


def test_another_site_cannot_use_the_header_either(app: FastAPI) -> None:
    alice, game = player_with_game(app)
    body = {"version": game["version"], "cards": game["view"]["hand"][:3]}
    with TestClient(app) as other:
        r = other.post(f"/api/v1/games/{game['game_id']}/pass", json=body,
                       headers={PLAYER_HEADER: alice.cookies.get(COOKIE), "Sec-Fetch-Site": "cross-site"})
        assert r.status_code == 403 and r.json()["error"] == "forbidden"
    assert stored_version(app, game["game_id"])[0] == game["version"]
