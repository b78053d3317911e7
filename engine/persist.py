"""Saving and loading games as JSON: the rules, the seed and the ordered moves.

Loading replays every move through the rules, so a record that was edited into
something impossible is rejected with :class:`CorruptRecordError`, never loaded.
"""

from __future__ import annotations

import json
from typing import Any

from .cards import Card
from .errors import CorruptRecordError, HeartsError
from .moves import PlayMove, parse_move
from .rules import Rules, RulesError
from .state import Game

SCHEMA_VERSION = 1


def game_to_dict(game: Game) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "moves": move_codes(game),
    }
    if game._deals:
        data["deals"] = _deal_codes(game)
    return data


_PLAY_CODES: dict[tuple[int, Card], str] = {}
"""The code of every card play seen so far, by ``(seat, card)``: at most seats × 52 short
strings, and most of a game's log is plays.  Storing an action writes the whole log again,
so spelling each play anew was most of :func:`dumps` (docs/benchmarks.md)."""


def move_codes(game: Game) -> list[str]:
    """``[m.code() for m in game.moves]``, without making a :class:`PlayMove` per play."""
    return _codes(game._log)


def _codes(log: list[Any]) -> list[str]:
    """The codes of the moves of a game's log: plays as (seat, card) tuples, the other
    moves as values."""
    codes = []
    for m in log:
        if type(m) is tuple:
            code = _PLAY_CODES.get(m)
            if code is None:
                code = _PLAY_CODES[m] = PlayMove(*m).code()
        else:
            code = m.code()
        codes.append(code)
    return codes


def _deal_codes(game: Game) -> list[list[str]]:
    """The game's explicit deals, each seat's hand as its card codes."""
    return [[str(_cs(h)) for h in d] for d in game._deals]


def _cs(mask: int) -> object:
    from .cards import CardSet
    return CardSet.from_mask(mask)


def game_from_dict(data: Any) -> Game:
    if not isinstance(data, dict):
        raise CorruptRecordError("a saved game must be a JSON object")
    schema = data.get("schema")
    if type(schema) is not int or schema != SCHEMA_VERSION:
        raise CorruptRecordError(f"unsupported saved-game schema {schema!r} (expected {SCHEMA_VERSION})")
    try:
        rules = Rules.from_dict(data["rules"])
    except (KeyError, TypeError, RulesError) as exc:
        raise CorruptRecordError(f"bad rules in saved game: {exc}") from None
    seed = data.get("seed")
    if not isinstance(seed, (int, str)) or isinstance(seed, bool):
        raise CorruptRecordError("the saved game has no valid seed")
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise CorruptRecordError("the saved game has no move list")
    try:
        game = Game(rules, seed=seed, deals=data.get("deals"))
    except (ValueError, TypeError) as exc:
        raise CorruptRecordError(f"bad deals in saved game: {exc}") from None
    for i, code in enumerate(moves):
        try:
            game.apply(parse_move(code))
        except HeartsError as exc:
            raise CorruptRecordError(f"move {i + 1} ({code!r}) does not replay: {exc}") from None
    return game


def dumps(game: Game) -> str:
    """``json.dumps(game_to_dict(game))``, compact, the same text, with the move log spelt
    only from where the game's last ``dumps`` stopped: an action stores the whole game
    again, and spelling hundreds of moves anew was most of storing it."""
    count, text = game._log_json
    log: list[Any] = game._log
    if count != len(log):
        new = ",".join(map(_json, _codes(log[int(count):])))
        text = f"{text},{new}" if text else new
        game._log_json[:] = [len(log), text]
    deals = (',"deals":' + _json(_deal_codes(game))) if game._deals else ""
    return (f'{{"schema":{SCHEMA_VERSION},"rules":{_rules_json(game.rules)},"seed":{_json(game.seed)},'
            f'"moves":[{text}]{deals}}}')


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_RULES_JSON: dict[Rules, str] = {}


def _rules_json(rules: Rules) -> str:
    """The rules as JSON, once per distinct rules (a frozen value; a handful in use)."""
    text = _RULES_JSON.get(rules)
    if text is None:
        if len(_RULES_JSON) > 1000:
            _RULES_JSON.clear()
        text = _RULES_JSON[rules] = _json(rules.to_dict())
    return text


def loads(text: str) -> Game:
    try:
        data = json.loads(text)
    except (ValueError, TypeError) as exc:
        raise CorruptRecordError(f"a saved game must be JSON: {exc}") from None
    return game_from_dict(data)
