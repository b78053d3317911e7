"""The scripted player (:mod:`.player`) plays whole games as fast as the page lets it."""

from __future__ import annotations

from playwright.sync_api import Page

from .player import ScriptedPlayer
from .table import new_game


def test_a_scripted_player_plays_whole_games_through_the_accessibility_tree(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    # short games: every hand still has its pass, its thirteen tricks and its result
    new_game(page, fast=True, target=20)
    player = ScriptedPlayer(page, seed=1)
    player.play_game()
    player.new_game()  # the same short game again, from the game's own "New game" button
    player.play_game()
    assert player.tally.games == 2 and player.tally.errors == [], player.tally
    print(f"\n{player.tally}")
