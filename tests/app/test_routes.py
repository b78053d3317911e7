"""Pages, fragments, cookies, framing and the JSON API, through HTTP."""

from __future__ import annotations

import json
import re

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.config import Settings
from app.main import create_app
from app.models import GameRecord
from engine import Phase, PlayerView, dumps, loads

from .helpers import moon_game

HX = {"HX-Request": "true"}


def version_of(html: str) -> int:
    m = re.search(r'data-version="(\d+)"', html)
    assert m, "no table in the response"
    return int(m.group(1))


def current(app: FastAPI, client: TestClient) -> tuple[GameRecord, PlayerView]:
    """The stored game of the client's player, read straight from the database."""
    data = client.get("/api/v1/games/current").json()
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, data["game_id"])
        assert rec is not None
        return rec, PlayerView.of(loads(rec.record), 0)


def new_game(client: TestClient, **options: object) -> dict:
    r = client.post("/api/v1/games", json={"seed": 12, **options})
    assert r.status_code == 201, r.text
    return r.json()


# ---- pages, cookies, framing -----------------------------------------------------------

def test_first_visit_sets_a_signed_httponly_cookie_and_offers_a_deal(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    cookie = r.headers["set-cookie"]
    assert "hearts_player=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie
    assert "Ready for a game of Hearts?" in r.text
    assert "Scores will appear here after each hand." in r.text
    assert "No trick has been played in this hand yet." in r.text
    # the same browser keeps its player: no new cookie on the next visit
    assert "set-cookie" not in client.get("/").headers


def test_a_forged_cookie_gets_a_fresh_player(client: TestClient) -> None:
    client.cookies.set("hearts_player", "someone-else.forged")
    r = client.get("/")
    assert "hearts_player=" in r.headers["set-cookie"]


def test_over_https_the_cookie_works_inside_a_cross_site_iframe(app: FastAPI) -> None:
    with TestClient(app, base_url="https://testserver") as c:
        cookie = c.get("/embed").headers["set-cookie"]
    assert "Secure" in cookie and "SameSite=None" in cookie and "Partitioned" in cookie and "HttpOnly" in cookie


def test_only_the_embed_page_may_be_framed(client: TestClient) -> None:
    page = client.get("/")
    assert page.headers["content-security-policy"].endswith("; frame-ancestors 'none'")
    assert page.headers["x-frame-options"] == "DENY"
    embed = client.get("/embed")
    assert embed.status_code == 200
    assert embed.headers["content-security-policy"].endswith("; frame-ancestors *")
    assert "x-frame-options" not in embed.headers
    assert 'id="table"' in embed.text and 'id="rules"' not in embed.text


def test_the_embed_snippet_is_an_iframe_titled_hearts_with_a_link_below(client: TestClient) -> None:
    html = client.get("/").text
    snippet = re.search(r'<textarea class="snippet"[^>]*>(.*?)</textarea>', html, re.S)
    assert snippet
    text = snippet.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&#34;", '"')
    assert '<iframe src="http://testserver/embed" title="Hearts"' in text
    assert text.index("</iframe>") < text.index('<a href="http://testserver/">')


def test_healthz(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["database"] == "ok" and r.json()["bots"] in ("idle", "ok")


# ---- the page's actions ----------------------------------------------------------------

def test_deal_pass_and_play_through_htmx_fragments(app: FastAPI, client: TestClient) -> None:
    r = client.post("/game/new", data={"same": "true"}, headers=HX)
    assert r.status_code == 200
    assert r.text.lstrip().startswith('<section id="table"')
    assert 'data-mode="pass"' in r.text and "Pass three cards to the left" in r.text
    # the new deal is shown first as a shuffle, without the hand
    first = re.search(r'<template class="frame" data-pause="trick" data-say="Shuffling the deck.">(.*?)</template>',
                      r.text, re.S)
    assert first and "Shuffling the deck…" in first.group(1) and "in-hand" not in first.group(1)
    # a new deal draws every side panel again, after the playback
    for panel in ("sheet", "tricks", "current_rules"):
        assert f'<template class="deferred" data-target="#{panel}" data-swap="outerHTML">' in r.text
    rec, view = current(app, client)
    assert version_of(r.text) == rec.version
    # the hand: one button per card, named in full
    for card in view.hand:
        assert f'aria-label="{card.name().capitalize()}"' in r.text
    chosen = [c.code() for c in list(view.hand)[:3]]
    r = client.post("/game/pass", data={"version": rec.version, "cards": chosen}, headers=HX)
    assert r.status_code == 200
    rec, view = current(app, client)
    assert view.phase is Phase.PLAY and view.turn == 0
    assert 'data-mode="play"' in r.text and "Your turn" in r.text
    # legal cards are submit buttons; illegal ones are disabled and marked
    for card in view.hand:
        button = re.search(rf'<button type="submit" name="card" value="{card.code()}"[^>]*>', r.text)
        assert button, card
        assert ("disabled" in button.group(0)) == (card not in view.legal)
        assert ("illegal" in button.group(0)) == (card not in view.legal)
    # the received cards are marked until the first trick ends
    for card in view.received or ():
        assert re.search(rf'value="{card.code()}" data-card="{card.code()}" class="[^"]*received', r.text)
    # side panels arrive as deferred updates, applied after the playback, when they change: a
    # pass changes no panel
    assert '<template class="deferred"' not in r.text
    card = next(iter(view.legal)).code()
    r = client.post("/game/play", data={"version": rec.version, "card": card}, headers=HX)
    assert r.status_code == 200
    assert rec.version < current(app, client)[0].version


def test_the_page_never_shows_another_seats_hidden_cards(app: FastAPI, client: TestClient) -> None:
    new_game(client, passing=False)
    html = client.get("/").text
    rec, view = current(app, client)
    game = loads(rec.record)
    shown = set(re.findall(r'(?:value|data-card|data-select)="(\d{0,1}[0-9JQKA]{1,2}[CDSH])"', html))
    mine = set(view.hand.codes()) | {c.code() for c in view.trick} | {c.code() for t in view.tricks for c in t.cards}
    assert shown <= mine
    for seat in range(1, 4):
        for card in game.hand(seat):
            assert f'aria-label="{card.name().capitalize()}"' not in html


def test_plain_forms_work_without_javascript(app: FastAPI, client: TestClient) -> None:
    r = client.post("/game/new", data={"difficulty": "easy", "players": "3", "target_score": "50",
                                       "max_rounds": "2", "passing": "true", "omnibus": "true"},
                    follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    rec, view = current(app, client)
    assert rec.difficulty == "easy"
    assert view.rules.players == 3 and view.rules.max_rounds == 2 and view.rules.omnibus
    page = client.get("/").text
    assert "3 players" in page and "J♦ −10" in page
    r = client.post("/game/pass", data={"version": rec.version, "cards": [c.code() for c in list(view.hand)[:3]],
                                        "embed": "true"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/embed"


def test_the_tie_break_option_is_offered_stored_and_shown(app: FastAPI, client: TestClient) -> None:
    label = "A tie at the end goes to the lower score in the last hand"
    page = client.get("/").text
    assert re.search(r'name="last_hand_breaks_ties" value="true"> ' + label, page), "unchecked by default"
    r = client.post("/game/new", data={"difficulty": "easy", "players": "4", "target_score": "100",
                                       "passing": "true", "last_hand_breaks_ties": "true"}, follow_redirects=False)
    assert r.status_code == 303
    rec, view = current(app, client)
    assert view.rules.last_hand_breaks_ties and '"last_hand_breaks_ties":true' in rec.record
    page = client.get("/").text
    assert "ties broken by the last hand" in page  # this game's rules, beside the table
    assert re.search(r'name="last_hand_breaks_ties" value="true" checked> ' + label, page), "offered again"
    data = new_game(client)
    assert data["view"]["rules"]["last_hand_breaks_ties"] is False  # the API's default: one more hand
    data = new_game(client, last_hand_breaks_ties=True)
    assert data["view"]["rules"]["last_hand_breaks_ties"] is True


def test_bad_options_are_refused_with_a_message(client: TestClient) -> None:
    r = client.post("/game/new", data={"difficulty": "easy", "players": "7"}, headers=HX)
    assert r.status_code == 422
    assert "Players must be 3, 4, 5 or 6, not 7" in r.text


def test_an_illegal_card_gets_422_and_the_table_as_it_is(app: FastAPI, client: TestClient) -> None:
    new_game(client, passing=False)
    rec, view = current(app, client)
    illegal = next(c for c in view.hand if c not in view.legal)
    r = client.post("/game/play", data={"version": rec.version, "card": illegal.code()}, headers=HX)
    assert r.status_code == 422
    assert 'class="error" data-alert' in r.text  # the page says it in its one assertive region
    assert version_of(r.text) == rec.version
    r = client.post("/game/play", data={"version": rec.version, "card": "QX"}, headers=HX)
    assert r.status_code == 422 and "Not a card: &#39;QX&#39;" in r.text


def test_a_repeated_click_gets_409_and_is_not_applied_twice(app: FastAPI, client: TestClient) -> None:
    new_game(client, passing=False)
    rec, view = current(app, client)
    card = next(iter(view.legal)).code()
    assert client.post("/game/play", data={"version": rec.version, "card": card}, headers=HX).status_code == 200
    after, _ = current(app, client)
    again = client.post("/game/play", data={"version": rec.version, "card": card}, headers=HX)
    assert again.status_code == 409 and "This game continued in another tab; here it is now." in again.text
    assert version_of(again.text) == after.version
    assert current(app, client)[0].version == after.version


def test_round_end_next_hand_and_moon_choice_on_the_page(app: FastAPI, client: TestClient) -> None:
    new_game(client)  # its stored record is replaced by a rigged deal below
    rec, _ = current(app, client)
    game = moon_game(shooters_choice=True, target_score=100)
    with Session(app.state.db_engine) as s:
        row = s.get(GameRecord, rec.id)
        assert row is not None
        row.record, row.version = dumps(game), game.move_count
        s.add(row)
        s.commit()
    html = ""
    for _ in range(13):
        rec, view = current(app, client)
        r = client.post("/game/play", data={"version": rec.version, "card": next(iter(view.legal)).code()},
                        headers=HX)
        assert r.status_code == 200
        html = r.text
    assert "You shot the moon!" in html and "Subtract 26 from my score" in html
    rec, _ = current(app, client)
    r = client.post("/game/moon", data={"version": rec.version, "choice": "maybe"}, headers=HX)
    assert r.status_code == 422
    r = client.post("/game/moon", data={"version": rec.version, "choice": "add"}, headers=HX)
    assert r.status_code == 200
    assert "Hand 1 is over" in r.text and "Next hand" in r.text
    rec, view = current(app, client)
    assert view.totals == (0, 26, 26, 26)
    r = client.post("/game/next", data={"version": rec.version}, headers=HX)
    assert r.status_code == 200 and "Hand 2" in r.text
    assert 'data-say="Shuffling the deck."' in r.text
    sheet = re.search(r'<template class="deferred" data-target="#sheet" data-swap="outerHTML">(.*?)</template>',
                      r.text, re.S)
    assert sheet and "☾" in sheet.group(1)


def test_fast_play_is_remembered(client: TestClient) -> None:
    assert 'data-fast="0"' in client.get("/").text
    assert client.post("/prefs", data={"fast_play": "true"}, headers=HX).status_code == 204
    assert 'data-fast="1"' in client.get("/").text
    client.post("/prefs", data={}, headers=HX)
    assert 'data-fast="0"' in client.get("/").text


def test_the_table_fragment(client: TestClient) -> None:
    new_game(client)
    r = client.get("/table?embed=true", headers=HX)
    assert r.status_code == 200 and r.text.lstrip().startswith('<section id="table"')
    assert 'name="embed" value="true"' in r.text


# ---- resuming -----------------------------------------------------------------------------

def test_the_game_resumes_exactly_after_a_server_restart(settings: Settings, app: FastAPI,
                                                         client: TestClient) -> None:
    data = new_game(client, passing=False)
    card = data["view"]["legal"][0]
    data = client.post(f"/api/v1/games/{data['game_id']}/play", json={"version": data["version"], "card": card}).json()
    cookie = client.cookies.get("hearts_player")
    restarted = create_app(settings)  # a new process: new engine, nothing in memory
    with TestClient(restarted) as again:
        again.cookies.set("hearts_player", cookie or "")
        resumed = again.get("/api/v1/games/current").json()
        page = again.get("/").text
    assert resumed["version"] == data["version"]
    assert resumed["view"] == data["view"]
    assert version_of(page) == data["version"]


# ---- JSON API ------------------------------------------------------------------------------

def test_api_start_game_with_options(client: TestClient) -> None:
    data = new_game(client, difficulty="hard", players=5, target_score=50, omnibus=True, passing=False)
    assert data["difficulty"] == "hard" and data["status"] == "active"
    view = data["view"]
    assert view["seat"] == 0 and view["rules"]["players"] == 5 and view["rules"]["omnibus"]
    assert len(view["hand"]) == 10
    # the computer players have led and followed up to the person's turn
    assert view["turn"] == 0
    assert all(e["type"] == "card_played" and e["seat"] != 0 for e in data["events"])
    assert [e["seat"] for e in data["events"]] == [(view["trick_leader"] + i) % 5 for i in range(len(view["trick"]))]


def test_api_view_is_exactly_the_persons_player_view(app: FastAPI, client: TestClient) -> None:
    data = new_game(client)
    _, view = current(app, client)
    assert client.get(f"/api/v1/games/{data['game_id']}").json()["view"] == view.to_dict()
    assert "hands" not in json.dumps(data)


def test_api_errors(client: TestClient) -> None:
    data = new_game(client, passing=False)
    gid, version, view = data["game_id"], data["version"], data["view"]
    illegal = next(c for c in view["hand"] if c not in view["legal"])
    r = client.post(f"/api/v1/games/{gid}/play", json={"version": version, "card": illegal})
    assert r.status_code == 422 and r.json()["error"] in ("first_lead", "must_follow")
    assert r.json()["detail"][0].isupper()
    r = client.post(f"/api/v1/games/{gid}/pass", json={"version": version, "cards": view["hand"][:3]})
    assert r.status_code == 409
    assert {k: r.json()[k] for k in ("error", "detail")} == {"error": "wrong_phase",
                                                             "detail": "It is not the time to pass cards"}
    assert r.json()["game"]["version"] == version  # the game as it is, to show instead
    r = client.post(f"/api/v1/games/{gid}/play", json={"version": version - 1, "card": view["legal"][0]})
    assert r.status_code == 409 and r.json()["error"] == "stale_version"
    r = client.post("/api/v1/games/nope/play", json={"version": version, "card": view["legal"][0]})
    assert r.status_code == 404 and r.json()["error"] == "game_not_found"
    r = client.post(f"/api/v1/games/{gid}/next", json={"version": version})
    assert r.status_code == 409 and r.json()["error"] == "wrong_phase"
    r = client.post(f"/api/v1/games/{gid}/moon", json={"version": version, "subtract": True})
    assert r.status_code == 409
    r = client.post("/api/v1/games", json={"players": 9})
    assert r.status_code == 422
    r = client.post("/api/v1/games", json={"players": 3, "cancellation": True, "target_score": 0})
    assert r.status_code == 422


def test_api_unknown_game_of_another_player_is_404(app: FastAPI, client: TestClient) -> None:
    data = new_game(client)
    with TestClient(app) as stranger:
        assert stranger.get(f"/api/v1/games/{data['game_id']}").status_code == 404
        assert stranger.get("/api/v1/games/current").status_code == 404


def play_through(client: TestClient, data: dict) -> dict:
    """Play the person's first legal choices until the game is over; the last answer."""
    while data["status"] == "active":
        gid, version, view = data["game_id"], data["version"], data["view"]
        if view["phase"] == "pass":
            r = client.post(f"/api/v1/games/{gid}/pass", json={"version": version, "cards": view["hand"][:3]})
        elif view["phase"] == "play":
            r = client.post(f"/api/v1/games/{gid}/play", json={"version": version, "card": view["legal"][0]})
        elif view["phase"] == "moon_choice":
            r = client.post(f"/api/v1/games/{gid}/moon", json={"version": version, "subtract": False})
        else:
            r = client.post(f"/api/v1/games/{gid}/next", json={"version": version})
        assert r.status_code == 200, r.text
        data = r.json()
    return data


def test_api_plays_a_whole_game_and_counts_the_record(client: TestClient) -> None:
    r = client.post("/api/v1/games", json={"difficulty": "easy", "target_score": 10})  # dealt by the server
    assert r.status_code == 201 and r.json()["practice"] is False
    data = play_through(client, r.json())
    assert data["status"] == "finished" and data["view"]["phase"] == "game_over"
    assert any(e["type"] == "game_over" for e in data["events"])
    records = {r["difficulty"]: r for r in client.get("/api/v1/records").json()}
    won = data["view"]["winner"] == 0
    moons = data["view"]["shooters"].count(0)
    assert records["easy"] == {"difficulty": "easy", "played": 1, "won": int(won),
                               "best_score": data["view"]["totals"][0], "moons": moons}
    assert records["medium"]["played"] == 0


def test_a_game_from_a_chosen_seed_is_practice_and_never_counts(app: FastAPI, client: TestClient) -> None:
    """Whoever chose the seed can replay the deal and see every hand (issue 9, item 5)."""
    app.state.thinker.hard_budget = 3000  # HARD_BUDGET: a light Hard for a whole game's flow
    data = new_game(client, difficulty="hard", target_score=10)
    assert data["practice"] is True
    with Session(app.state.db_engine) as s:
        rec = s.get(GameRecord, data["game_id"])
        assert rec is not None and rec.practice is True
    data = play_through(client, data)
    assert data["status"] == "finished" and data["practice"] is True
    records = client.get("/api/v1/records").json()
    assert all(line["played"] == 0 and line["moons"] == 0 for line in records)
    # the page says so, on the table and in the game's description
    page = client.get("/").text
    assert "Practice game: not counted in your records" in page


def test_openapi_describes_the_api(client: TestClient) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    for path in ("/api/v1/games", "/api/v1/games/current", "/api/v1/games/{game_id}/pass",
                 "/api/v1/games/{game_id}/play", "/api/v1/games/{game_id}/moon", "/api/v1/games/{game_id}/next",
                 "/api/v1/records"):
        assert path in paths
    assert "/game/play" not in paths
