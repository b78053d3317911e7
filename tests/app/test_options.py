"""One source for every option: a field of Rules with its Option is offered by the form,
parsed from it, described by the API schema, taken by the arena and said in the rules line."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.options import option_choices, options_model, rules_lines
from app.routers.api import GameOptions
from app.routers.pages import NewGameForm
from engine.arena import build_rules, parser
from engine.rules import Option, Rules, RulesError, option, rule_options
from tools import options_table


@dataclass(frozen=True)
class MoonRules(Rules):
    """A copy of the rules with one more flag, as a new option would be written."""

    moon_bonus: bool = option(False, Option("Moon bonus", "A moon scores a bonus.", "moon bonus"))
    moon_limit: int | None = option(None, Option("Moon limit", "At most this many moons.",
                                                 ("%(num)s moon", "%(num)s moons"), low=1, high=9, empty="none"))


def test_a_new_flag_is_checked_and_described_by_the_engine() -> None:
    assert [o.name for o in rule_options(MoonRules)][-2:] == ["moon_bonus", "moon_limit"]
    assert MoonRules(moon_bonus=True, moon_limit=1).describe()[-2:] == ["moon bonus", "1 moon"]
    with pytest.raises(RulesError, match="moon_bonus must be true or false, not 1"):
        MoonRules(moon_bonus=1)
    with pytest.raises(RulesError, match=r"moon_limit must be empty \(none\) or 1 to 9, not 10"):
        MoonRules(moon_limit=10)


def test_a_number_without_bounds_or_a_text_option_is_refused_when_first_used() -> None:
    @dataclass(frozen=True)
    class Unbounded(Rules):
        jokers: int = option(0, Option("Jokers", "How many jokers.", ("%(num)s joker", "%(num)s jokers")))

    @dataclass(frozen=True)
    class Texty(Rules):
        deck: str = option("french", Option("Deck", "Which deck.", "deck"))

    with pytest.raises(TypeError, match="jokers: a number option needs its values or its low and high"):
        rule_options(Unbounded)
    with pytest.raises(TypeError, match="deck: an option is a bool or an int"):
        rule_options(Texty)


def test_a_new_flag_is_in_the_form(app: FastAPI) -> None:
    macro = app.state.templates.env.get_template("options.html").module.rule_fields
    html = str(macro(option_choices(MoonRules(moon_bonus=True), "easy")))
    assert re.search(r'<input type="checkbox" name="moon_bonus" value="true" checked> Moon bonus</label>', html)
    assert re.search(r'name="moon_limit" value="" min="1" max="9" placeholder="none"', html)
    assert 'name="omnibus" value="true">' in html  # and the options that were there already
    form = options_model(NewGameForm, MoonRules, form=True)
    rules = form.model_validate({"difficulty": "easy", "moon_bonus": "true", "moon_limit": "3", "players": "3"}).rules()
    assert rules == MoonRules(moon_bonus=True, moon_limit=3, players=3, passing=False)
    # an unticked box is not sent: off; an empty number is no limit
    assert form.model_validate({"moon_limit": " "}).rules() == MoonRules(passing=False)


def test_a_new_flag_is_in_the_api_schema() -> None:
    model = options_model(GameOptions, MoonRules)
    props = model.model_json_schema()["properties"]
    assert props["moon_bonus"]["description"] == "A moon scores a bonus." and props["moon_bonus"]["default"] is False
    assert (props["moon_limit"]["minimum"], props["moon_limit"]["maximum"]) == (1, 9)
    assert model.model_validate({"moon_bonus": True}).rules() == MoonRules(moon_bonus=True)
    with pytest.raises(ValueError):
        model.model_validate({"moon_bonus": "yes"})  # JSON is strict: a boolean is a boolean


def test_a_new_flag_is_in_the_arena() -> None:
    p = parser(MoonRules)
    assert "--moon-bonus" in p.format_help() and "A moon scores a bonus." in p.format_help()
    args = p.parse_args(["--preset", "omnibus", "--moon-bonus", "--moon-limit", "2", "--no-passing"])
    assert build_rules(args, MoonRules) == MoonRules(omnibus=True, moon_bonus=True, moon_limit=2, passing=False)
    with pytest.raises(SystemExit):
        p.parse_args(["--players", "7"])


def test_every_option_of_the_real_rules_is_on_the_page_in_the_schema_and_in_the_arena(client: TestClient) -> None:
    page = client.get("/").text
    schema = client.get("/api/v1/openapi.json").json()["components"]["schemas"]["GameOptions"]["properties"]
    arena = parser().format_help()
    for o in rule_options():
        assert f'name="{o.name}"' in page, o.name
        assert schema[o.name]["description"] == o.about.help
        assert "--" + o.name.replace("_", "-") in arena
    assert '<datalist id="target_score-suggested"><option value="50"><option value="100"><option value="200">' in page


def test_the_rules_line_is_translated_from_the_same_words() -> None:
    assert rules_lines(Rules(players=3, max_rounds=1, passing=False, omnibus=True)) == [
        "3 players", "to 100 points", "at most 1 hand", "no passing", "J♦ −10"]


def test_readme_lists_every_option_as_the_metadata_says() -> None:
    text = options_table.README.read_text(encoding="utf-8")
    assert options_table.with_table(text) == text, "README's options table is stale: python -m tools.options_table"
    assert "| `moon_bonus` | false | true, false | A moon scores a bonus. |" in options_table.table(MoonRules)
