"""The Hearts rules engine: standard library only, no knowledge of the web.

Public API (see README.md): cards, rules, the game state, moves, events, the
player's view and persistence.
"""

from .cards import CARDS, FULL_DECK, Card, CardSet, Rank, Suit, parse_card
from .errors import (
                     CorruptRecordError,
                     HeartsError,
                     IllegalMoveError,
                     InvalidMoveError,
                     NotYourTurnError,
                     WrongPhaseError,
)
from .moves import MoonMove, Move, NextRound, PassMove, PlayMove, parse_move
from .persist import SCHEMA_VERSION, dumps, game_from_dict, game_to_dict, loads
from .rules import PRESETS, STANDARD, PassDirection, Rules, RulesError
from .state import Game
from .values import Phase, Trick
from .view import PlayerView

__all__ = [
    "CARDS", "FULL_DECK", "Card", "CardSet", "Rank", "Suit", "parse_card",
    "CorruptRecordError", "HeartsError", "IllegalMoveError", "InvalidMoveError",
    "NotYourTurnError", "WrongPhaseError",
    "MoonMove", "Move", "NextRound", "PassMove", "PlayMove", "parse_move",
    "SCHEMA_VERSION", "dumps", "game_from_dict", "game_to_dict", "loads",
    "PRESETS", "STANDARD", "PassDirection", "Rules", "RulesError",
    "Game", "Phase", "Trick", "PlayerView",
]
