"""The Learn section (issue 12, item 1): every moment of seed 001 is a position the rules
reach, it is the moment its caption describes, and the learner's moves are judged by the
engine's rules (an illegal card by the rule it breaks, a poor one with advice)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app import i18n, lessons
from app.presenter import card_name
from engine import Card, CardSet, Game, PassDirection, Phase, PlayerView, Rules, Suit, dumps, loads

from .test_routes import HX, current

SOUTH, WEST, NORTH, EAST = range(4)


def view(slug: str) -> PlayerView:
    return lessons.position(slug).view(SOUTH)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(Card(c) for c in text.split())


def caption(slug: str) -> str:
    return lessons.BY_SLUG[slug].caption


def named(slug: str, *codes: str) -> None:
    """The caption names these cards, as a player says them."""
    for code in codes:
        assert card_name(Card(code)) in caption(slug), f"{slug}: the caption does not name the {code}"


# ---- the story is a game the rules can reach ------------------------------------------------

def test_the_story_replays_through_the_rules_and_every_moment_is_in_it() -> None:
    story = lessons.story()
    assert [le.slug for le in lessons.LESSONS] == list(story.marks)
    assert list(story.marks.values()) == sorted(story.marks.values())
    game = Game(lessons.RULES, seed=0, deals=lessons.DEALS)
    for move in story.moves:
        game.apply(move)  # every move is checked by the engine again
    back = loads(dumps(game))  # and a saved copy replays it once more
    assert back.moves == game.moves
    for slug, at in story.marks.items():
        position = lessons.position(slug)
        assert position.move_count == at
        assert loads(dumps(position)).view(SOUTH) == position.view(SOUTH)
    assert lessons.RULES == Rules()  # the standard game, as a first game is dealt


def test_a_lesson_position_is_a_copy_the_caller_may_play_on() -> None:
    one = lessons.position("lead")
    one.play(SOUTH, "2C")
    assert lessons.position("lead").view(SOUTH).hand != one.view(SOUTH).hand


# ---- each moment is what its caption says (seed 001's eight diagrams) -----------------------

def test_1_the_deal_three_backs_and_thirteen_cards_face_up() -> None:
    v = view("deal")
    assert v.phase is Phase.PASS and v.hand_sizes == (13, 13, 13, 13) and len(v.hand) == 13
    assert v.passes_chosen == (False,) * 4 and not v.tricks
    assert "13 cards face down" in caption("deal")


def test_2_passing_across_to_north_the_queen_and_two_high_hearts() -> None:
    v = view("pass")
    assert v.round_index == 2 and v.pass_direction is PassDirection.ACROSS and v.pass_target == NORTH
    assert "third hand" in caption("pass") and "across, to North" in caption("pass")
    assert set(cards("QS AH KH")) <= set(v.hand)
    assert [c for c in v.hand if c.suit == Suit.SPADES] == list(cards("4S QS")), "a queen with one small guard"
    assert lessons.right_choice("pass") == ["QS", "KH", "AH"]
    done = lessons.attempt("pass", ["QS", "AH", "KH"])
    assert done.verdict is not None and done.verdict.kind == "right" and done.done
    after = done.view
    assert after.passed == CardSet("QS AH KH") and after.received_from == NORTH
    assert lessons.position("lead").hand(NORTH) >= CardSet("QS AH KH")


def test_3_the_first_trick_is_led_with_the_two_of_clubs_and_the_others_follow() -> None:
    v = view("lead")
    assert v.turn == SOUTH and v.first_trick and not v.trick and v.legal == CardSet("2C")
    named("lead", "2C")
    done = lessons.attempt("lead", ["2C"])
    trick = done.view.tricks[-1]
    assert (trick.leader, trick.cards, trick.winner) == (SOUTH, cards("2C AC 10C 4C"), WEST)
    assert [t.face.code for t in done.table.trick.cards] == ["2C", "AC", "10C", "4C"] and done.arrive_from == 0


def test_4_mid_trick_west_led_the_five_north_the_queen_east_the_eight() -> None:
    v = view("follow")
    assert (v.trick_leader, v.trick, v.turn) == (WEST, cards("5C QC 8C"), SOUTH)
    assert v.tricks[-1].winner == WEST, "West won the first trick, so leads"
    assert max(v.trick) == Card("QC"), "the queen is winning so far"
    assert v.legal == CardSet("9C") and any(c.suit != Suit.CLUBS for c in v.hand)
    named("follow", "5C")
    assert "North plays the queen" in caption("follow") and "East the eight" in caption("follow")


def test_5_the_queen_wins_a_clean_trick_and_north_leads_next() -> None:
    v = view("trick")
    t = v.tricks[-1]
    assert (t.leader, t.cards, t.winner, t.points) == (WEST, cards("5C QC 8C 9C"), NORTH, 0)
    assert v.turn == NORTH and not v.trick
    screen = lessons.lesson_screen("trick")
    assert [c.winner for c in screen.table.trick.cards] == [False, True, False, False]
    assert lessons.attempt("follow", ["9C"]).view == v, "lesson 4 played out is lesson 5"


def test_6_west_leads_the_king_north_discards_the_seven_of_hearts_and_hearts_are_broken() -> None:
    v = view("hearts")
    t = v.tricks[-1]
    assert (t.leader, t.cards[:3], t.winner) == (WEST, cards("KD 7H 8D"), WEST)
    assert Suit.DIAMONDS in v.voids[NORTH] and v.hearts_broken
    before = lessons.position("hearts")
    assert not any(c.suit == Suit.HEARTS for tr in before.tricks[:-1] for c in tr.cards), "this trick broke them"
    named("hearts", "KD", "7H", "8D")


def test_7_north_leads_the_ace_of_spades_and_takes_the_queen_in_its_own_trick() -> None:
    v = view("queen")
    assert v.round_index == 3 and v.pass_direction is PassDirection.NONE
    t = v.tricks[-1]
    assert (t.leader, t.cards[:2], t.winner) == (NORTH, cards("AS QS"), NORTH)
    assert all(tr.winner == NORTH for tr in v.tricks), "North has won every trick of the hand"
    assert v.taken_points[NORTH] > 13 and sum(v.taken_points) == v.taken_points[NORTH], "every point so far"
    named("queen", "AS")


def test_8_north_leads_the_king_of_clubs_you_are_out_of_clubs_and_the_five_of_hearts_stops_the_moon() -> None:
    v = view("moon")
    assert all(tr.winner == NORTH for tr in v.tricks) and sum(v.taken_points) == v.taken_points[NORTH]
    assert (v.trick_leader, v.trick, v.turn) == (NORTH, cards("KC 5C"), SOUTH)
    assert Suit.CLUBS not in {c.suit for c in v.hand} and v.legal == v.hand, "any card is legal"
    assert Card("5H") in v.hand and Card("AC") in v.unseen, "the ace of clubs is still out"
    named("moon", "KC", "AC")
    done = lessons.attempt("moon", ["5H"])
    after = done.view
    t = after.tricks[-1]
    assert (t.cards, t.winner, t.points) == (cards("KC 5C 5H AC"), WEST, 1)
    # a heart is in another pile than North's: the moon can no longer be shot
    game = lessons.position("moon")
    game.play(SOUTH, "5H")
    game.play(WEST, "AC")
    while game.phase is Phase.PLAY:
        game.play(game.turn, game.legal_cards()[-1])  # type: ignore[arg-type]
    assert game.shooters[-1] is None and game.round_points[-1][WEST] >= 1


# ---- the learner's moves ---------------------------------------------------------------------

@pytest.mark.parametrize("slug", ["lead", "follow", "moon"])
def test_every_card_of_the_hand_gets_a_verdict_from_the_rules(slug: str) -> None:
    v = view(slug)
    right = lessons.right_choice(slug)
    for card in v.hand:
        screen = lessons.attempt(slug, [card.code()])
        verdict = screen.verdict
        assert verdict is not None
        if card.code() in right:
            assert verdict.kind == "right" and screen.done
        elif card in v.legal:
            assert verdict.kind == "poor" and not screen.done and screen.view == v, "nothing is played"
        else:
            with pytest.raises(Exception) as caught:
                lessons.position(slug).play(SOUTH, card)
            assert verdict.kind == "illegal" and verdict.rule == caught.value.rule  # type: ignore[attr-defined]
            assert verdict.text == lessons.RULE_TEXTS[verdict.rule]
            assert screen.view == v and not screen.done


def test_the_rule_sentences_name_the_rule_broken() -> None:
    lead = lessons.attempt("lead", ["8H"]).verdict
    assert lead is not None and lead.rule == "first_lead" and "two of clubs" in lead.text
    follow = lessons.attempt("follow", ["QD"]).verdict
    assert follow is not None and follow.rule == "must_follow" and "follow suit" in follow.text


def test_a_pass_without_the_queen_or_without_the_high_hearts_is_explained() -> None:
    no_queen = lessons.attempt("pass", ["AH", "KH", "9C"]).verdict
    assert no_queen is not None and no_queen.kind == "poor" and "queen of spades" in no_queen.text
    no_king = lessons.attempt("pass", ["QS", "AH", "8H"]).verdict
    assert no_king is not None and no_king.kind == "poor" and "ace and king of hearts" in no_king.text
    assert lessons.attempt("pass", ["QS", "KH", "AH"]).done  # in any order


@pytest.mark.parametrize(("slug", "choice", "rule"), [
    ("pass", ["QS", "AH"], "pass_cards"), ("pass", ["QS", "AH", "KS"], "pass_cards"),
    ("lead", ["ZZ"], "not_a_card"), ("lead", ["KS"], "not_in_hand"), ("lead", ["2C", "9C"], "not_a_card"),
])
def test_a_choice_the_page_cannot_make_is_invalid(slug: str, choice: list[str], rule: str) -> None:
    verdict = lessons.attempt(slug, choice).verdict
    assert verdict is not None and verdict.kind == "invalid" and verdict.rule == rule


def test_what_the_lesson_says_after_a_right_move_tells_the_trick() -> None:
    said = lessons.attempt("lead", ["2C"]).say
    assert said.startswith("Right: the two of clubs opens the hand.")
    assert said.endswith("West takes the trick, 0 points.")
    said = lessons.attempt("pass", ["QS", "AH", "KH"]).say
    assert "Received from North: ten of diamonds, jack of diamonds, and queen of diamonds." in said


def test_the_lessons_speak_every_language() -> None:
    with i18n.using(i18n.BY_SLUG["it"]):
        screen = lessons.attempt("follow", ["2D"])
        assert screen.verdict is not None and screen.verdict.text != lessons.RULE_TEXTS["must_follow"]
        assert screen.status == "Tocca a te"


# ---- the pages ------------------------------------------------------------------------------

def test_the_learn_page_has_the_eight_lessons_and_is_linked_from_the_header_and_the_welcome(
        client: TestClient) -> None:
    page = client.get("/learn")
    assert page.status_code == 200
    html = page.text
    assert re.findall(r'<section class="lesson[^"]*" id="lesson-([a-z]+)"', html) == list(lessons.BY_SLUG)
    assert '<a href="/learn" aria-current="page">Learn</a>' in html
    home = client.get("/").text
    assert '<a href="/learn">Learn</a>' in home
    assert re.search(r'<p class="learn-link"><a href="/learn">New to Hearts\?', home)
    # the language prefix is kept by every link and form
    it = client.get("/it/learn").text
    assert '<html lang="it"' in it and 'hx-get="/it/learn/lead"' in it and 'action="/it/game/new"' in it
    assert '<a href="/pl/learn" lang="pl"' in it


def test_a_move_answers_the_lesson_alone_to_htmx_and_the_whole_page_without_script(client: TestClient) -> None:
    r = client.get("/learn/lead", params={"card": "9C"}, headers=HX)
    assert r.status_code == 200 and r.text.lstrip().startswith('<section class="lesson" id="lesson-lead"')
    assert 'data-verdict="illegal"' in r.text and "must lead it to the first trick" in r.text
    r = client.get("/learn/lead", params={"card": "2C"}, headers=HX)
    assert 'data-verdict="right"' in r.text and "West takes the trick" in r.text
    r = client.get("/learn/pass", params={"cards": ["QS", "AH", "KH"]})
    assert r.status_code == 200 and "<h1>Learn to play Hearts</h1>" in r.text
    assert r.text.count('data-verdict="right"') == 1 and r.text.count("<section class=\"lesson") == 8


def test_bad_requests_get_a_clear_answer(client: TestClient) -> None:
    assert client.get("/learn/lead", params={"card": "ZZ"}, headers=HX).status_code == 422
    assert client.get("/learn/pass", params={"cards": ["QS"] * 40}, headers=HX).status_code == 422
    assert client.get("/learn/nothing").status_code == 404
    assert client.get("/learn/deal", params={"card": "2C"}, headers=HX).status_code == 200  # nothing to do there


def test_play_your_first_hand_deals_an_easy_standard_game(app: FastAPI, client: TestClient) -> None:
    html = client.get("/learn").text
    form = re.search(r'<form action="/game/new" method="post">(.*?)</form>', html, re.S)
    assert form and "Play your first hand" in form.group(1)
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(1)))
    assert "game in progress" not in html
    r = client.post("/game/new", data=fields, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    rec, v = current(app, client)
    assert rec.difficulty == "easy" and v.rules == Rules() and not rec.practice
    # with a game in progress the page says a new one replaces it, and links back to it
    client.post("/api/v1/games", json={"seed": 3})
    rec, v = current(app, client)
    client.post(f"/api/v1/games/{rec.id}/pass", json={"version": rec.version, "cards": [c.code() for c in v.hand][:3]})
    html = client.get("/learn").text
    assert "You have a game in progress: a new one replaces it." in html
    assert f'name="replaces" value="{rec.id}"' in html
