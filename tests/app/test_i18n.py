"""Languages: the catalogues are complete and in step with the source, and each request
gets its language from the URL, else Accept-Language, else English."""

from __future__ import annotations

import html
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from fastapi.testclient import TestClient

from app import i18n, presenter
from engine import Card, Game, Rules

PLACEHOLDER = re.compile(r"%\((\w+)\)s")
SPEC_LANGUAGES = {"en", "it", "pl", "id", "ms", "de", "es", "fil", "fr", "nl", "pt_BR", "vi", "tr", "ru", "uk",
                  "ar", "fa", "he", "hi", "th", "zh_Hans", "zh_Hant", "ja", "ko"}


ROOT = Path(__file__).resolve().parents[2]


def po_path(code: str) -> Path:
    return i18n.LOCALES / code / "LC_MESSAGES" / "messages.po"


def load(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def keys(catalog: Catalog) -> set[tuple[str | None, object]]:
    return {(m.context, m.id) for m in catalog if m.id}


def test_the_page_offers_the_24_languages_of_the_spec() -> None:
    assert {lang.code for lang in i18n.LANGUAGES} == SPEC_LANGUAGES
    assert {lang.code for lang in i18n.LANGUAGES if lang.rtl} == {"ar", "fa", "he"}
    for lang in i18n.LANGUAGES:
        assert po_path(lang.code).is_file(), f"no catalogue for {lang.code}"


def test_every_template_and_app_string_is_in_the_committed_pot(tmp_path: Path) -> None:
    fresh_pot = tmp_path / "fresh.pot"
    # the Makefile's own extraction (pybabel extract with the project's keywords)
    subprocess.run(["make", "--no-print-directory", "-s", "pot", f"POT={fresh_pot}",
                    f"BIN={Path(sys.executable).parent}"], cwd=ROOT, check=True)
    committed, fresh = load(i18n.POT), load(fresh_pot)
    missing = keys(fresh) - keys(committed)
    stale = keys(committed) - keys(fresh)
    assert not missing, f"not extracted yet (run make messages): {sorted(map(str, missing))}"
    assert not stale, f"no longer used (run make messages): {sorted(map(str, stale))}"
    assert ("%(num)s player", "%(num)s players") in {m.id for m in fresh}  # NP_ in engine/rules.py


@pytest.mark.parametrize("code", sorted(SPEC_LANGUAGES - {"en"}))
def test_the_app_reads_each_catalogue_as_committed(code: str) -> None:
    """The compiled .mo says what the .po says: none is missing or older than its .po (make catalogues)."""
    po = load(po_path(code), locale=code)
    compiled = i18n.translations(code)
    for m in po:
        if not m.id:
            continue
        if isinstance(m.id, tuple):
            n = 5
            got = compiled.npgettext(m.context, *m.id, n) if m.context else compiled.ngettext(*m.id, n)
            want = m.string[compiled.plural(n)]
        else:
            got = compiled.pgettext(m.context, m.id) if m.context else compiled.gettext(m.id)
            want = m.string
        assert got == want, f"{code}: the compiled catalogue is stale (make catalogues): {m.id!r}"


def test_the_page_has_no_text_left_out_of_the_catalogue(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A language whose catalogue turns every message into "¤": the home page and a table
    in it show no English sentence of the source, so no template text escaped gettext."""
    template = load(i18n.POT)
    marked = Catalog(locale="it")
    for m in template:
        if m.id:
            marked.add(m.id, tuple("¤" for _ in m.id) if isinstance(m.id, tuple) else "¤", context=m.context)
    buf = io.BytesIO()
    write_mo(buf, marked)
    monkeypatch.setattr(i18n, "translations", lambda code: Translations(fp=io.BytesIO(buf.getvalue())))
    table = client.post("/it/game/new", data={"difficulty": "easy", "players": "4", "target_score": "100"})
    # the Learn page too, with a lesson's answer in it
    learn = client.get("/it/learn/moon", params={"card": "JD"})
    for r in (table, learn):
        assert r.status_code == 200
        body = r.text.split("<body", 1)[1]
        visible = re.sub(r"<(script|svg|textarea)[^>]*>.*?</\1>", " ", body, flags=re.S)
        visible = re.sub(r"<[^>]+>", " ", visible)
        leftovers = [w for w in re.findall(r"[A-Za-z][a-z]+(?: [a-z]+){2,}", html.unescape(visible))]
        assert leftovers == []
        attributes = re.findall(r'(?:aria-label|title|placeholder|hx-confirm|data-say[\w-]*|data-status)="([^"]*)"',
                                body)
        english = [a for a in attributes if re.search(r"[A-Za-z][a-z]+ [a-z]+ [a-z]+", html.unescape(a))]
        assert english == []


@pytest.mark.parametrize("code", sorted(SPEC_LANGUAGES))
def test_every_catalogue_is_complete_and_its_placeholders_match(code: str) -> None:
    catalog = load(po_path(code), locale=code)
    assert keys(catalog) == keys(load(i18n.POT)), f"{code}: not merged with the .pot (run make messages)"
    untranslated, fuzzy, wrong = [], [], []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if "fuzzy" in m.flags:
            fuzzy.append(ids[0])
        if not all(strings):
            untranslated.append(ids[0])
            continue
        expected = set(PLACEHOLDER.findall(ids[0])) | set(PLACEHOLDER.findall(ids[-1]))
        for s in strings:
            found = set(PLACEHOLDER.findall(s))
            # a plural form may leave the number out ("one card" for 1), never add a name
            if not (found <= expected and expected - {"num"} <= found):
                wrong.append((ids[0], s))
            if re.search(r"%(?!\(\w+\)s|%)", s):
                wrong.append((ids[0], s))
    assert not untranslated, f"{code}: {len(untranslated)} untranslated, e.g. {untranslated[:3]}"
    assert not fuzzy, f"{code}: fuzzy: {fuzzy[:5]}"
    assert not wrong, f"{code}: placeholders differ: {wrong[:5]}"


# ---- choosing the language ----------------------------------------------------------------

def lang_of(html: str) -> tuple[str, str]:
    m = re.search(r'<html lang="([^"]+)" dir="(ltr|rtl)">', html)
    assert m, "no <html lang dir>"
    return m.group(1), m.group(2)


def test_the_url_prefix_decides_then_accept_language_then_english(client: TestClient) -> None:
    assert lang_of(client.get("/it/").text) == ("it", "ltr")
    assert lang_of(client.get("/pl/embed").text) == ("pl", "ltr")
    assert lang_of(client.get("/ar/").text) == ("ar", "rtl")
    assert lang_of(client.get("/he/embed").text) == ("he", "rtl")
    assert lang_of(client.get("/fa/").text) == ("fa", "rtl")
    assert lang_of(client.get("/zh-hant/").text) == ("zh-Hant", "ltr")
    assert lang_of(client.get("/pt-BR/").text) == ("pt-BR", "ltr")
    # the prefix wins over the header
    assert lang_of(client.get("/it/", headers={"Accept-Language": "pl"}).text) == ("it", "ltr")
    r = client.get("/", headers={"Accept-Language": "fr-CA;q=0.4, pl-PL;q=0.9, xx;q=1"})
    assert lang_of(r.text) == ("pl", "ltr")
    assert "Accept-Language" in r.headers["vary"] and r.headers["content-language"] == "pl"
    assert lang_of(client.get("/", headers={"Accept-Language": "sw, kk"}).text) == ("en", "ltr")
    assert lang_of(client.get("/").text) == ("en", "ltr")
    assert "vary" not in client.get("/it/").headers or "Accept-Language" not in client.get("/it/").headers["vary"]


@pytest.mark.parametrize(("header", "expected"), [
    ("zh-TW,zh;q=0.8", "zh-Hant"), ("zh-Hant-HK", "zh-Hant"), ("zh-CN", "zh-Hans"), ("zh", "zh-Hans"),
    ("pt-PT", "pt-BR"), ("tl", "fil"), ("iw", "he"), ("de-AT", "de"), ("en-GB,it;q=0.5", "en"),
    ("it;q=0, es", "es"), ("*", "en"), ("", "en"),
])
def test_accept_language_is_matched_by_quality_and_region(header: str, expected: str) -> None:
    assert i18n.negotiate(header).tag == expected


def test_forms_and_redirects_keep_the_language(client: TestClient) -> None:
    page = client.get("/pl/").text
    assert 'hx-post="/pl/game/new"' in page and 'data-table-url="/pl/table"' in page
    options = {"difficulty": "easy", "players": "4", "target_score": "100", "passing": "true"}
    r = client.post("/pl/game/new", data=options, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/pl/"
    page = client.get("/pl/").text
    assert 'hx-post="/pl/game/pass"' in page
    assert "Oddaj trzy karty w lewo" in page  # the status line, from the presenter
    # the same game, asked for without a prefix, answers in the browser's language
    assert "Passa tre carte a sinistra" in client.get("/", headers={"Accept-Language": "it"}).text


def test_the_language_picker_links_every_language_in_its_own_name(client: TestClient) -> None:
    page = client.get("/it/").text
    for lang in i18n.LANGUAGES:
        assert f'<a href="/{lang.slug}/" lang="{lang.tag}" hreflang="{lang.tag}"' in page
        assert f">{lang.name}</a>" in page
    assert 'aria-current="true">Italiano</a>' in page


def test_card_names_as_players_say_them() -> None:
    qs, two = Card("QS"), Card("2C")
    with i18n.using(i18n.BY_SLUG["it"]):
        assert presenter.CardFace.of(qs).name == "Regina di picche"
        assert presenter.CardFace.of(two).name == "Due di fiori"
        assert i18n.pgettext("suit", "Hearts") == "Cuori"
    with i18n.using(i18n.BY_SLUG["pl"]):
        assert presenter.CardFace.of(qs).name == "Dama pik"
        assert presenter.CardFace.of(Card("AH")).name == "As kier"
        assert i18n.ngettext("%(num)s card", "%(num)s cards", 3) == "3 karty"
        assert i18n.ngettext("%(num)s card", "%(num)s cards", 5) == "5 kart"
    assert presenter.CardFace.of(qs).name == "Queen of spades"


def test_announcements_follow_the_language() -> None:
    game = Game(Rules(passing=False), seed=3)
    view = game.view(0)
    names_it = None
    with i18n.using(i18n.BY_SLUG["it"]):
        names_it = presenter.seat_names(4)
        summary = presenter.hand_summary(view)
        assert summary.startswith("Fiori: ") and " Cuori: " in summary
        assert presenter.build_table(view).score_say == "Punteggi: Tu 0, Ovest 0, Nord 0 e Est 0."
    assert names_it == ("Tu", "Ovest", "Nord", "Est")
    with i18n.using(i18n.BY_SLUG["pl"]):
        assert presenter.rules_lines(Rules(players=3, target_score=50)) == ["3 graczy", "do 50 punktów"]


def test_the_script_gets_its_words_from_the_page(client: TestClient) -> None:
    page = client.get("/it/").text
    m = re.search(r"data-i18n='([^']*)'", page)
    assert m
    import json

    words = json.loads(html.unescape(m.group(1)))
    assert words["no_cards"] == "Nessuna carta sul tavolo."
    assert set(words) == set(i18n.js_strings())


def test_a_refused_move_is_explained_in_the_page_language(client: TestClient) -> None:
    options = {"difficulty": "easy", "players": "4", "target_score": "100"}  # no passing: play at once
    client.post("/it/game/new", data=options)
    page = client.get("/it/").text
    version = int(re.search(r'data-version="(\d+)"', page).group(1))  # type: ignore[union-attr]
    cards = re.findall(r'name="card" value="(\w+)"[^>]*class="card in-hand[^"]*illegal', page)
    assert cards, "every card is playable on this deal"
    r = client.post("/it/game/play", data={"version": version, "card": cards[0]}, headers={"HX-Request": "true"})
    assert r.status_code == 422
    message = re.search(r'<p class="error" data-alert>([^<]*)</p>', r.text)
    assert message and message.group(1) in {
        "Devi rispondere al seme.", "La prima presa si apre con il due di fiori.",
        "I cuori non sono ancora aperti: apri con un altro seme.",
        "Niente cuori né regina di picche nella prima presa."}
