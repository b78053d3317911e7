"""Setting a table up directly, for states that chance reaches too rarely or too slowly: a
game is built and played on with the engine, then stored as the player's current game
(the row the page dealt, so the player, its cookie and the version guard are the real ones).

Every seat plays its lowest legal card and passes its three lowest, so a rigged game is the
same on every run whatever the computer players' strategies become.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import create_engine, text

from engine import Card, CardSet, Game, Phase, Rules, dumps

from .table import Surface, game_id, wait_idle

PERSON = 0


def step(game: Game) -> None:
    """One move by the simplest player in every seat."""
    if game.phase is Phase.PASS:
        seat = game.to_act[0]
        game.pass_cards(seat, CardSet(list(game.hand(seat))[:3]))
    elif game.phase is Phase.PLAY:
        game.play(game.turn, game.legal_cards()[0])  # type: ignore[arg-type]
    elif game.phase is Phase.MOON_CHOICE:
        game.choose_moon(game.to_act[0], False)
    elif game.phase is Phase.ROUND_OVER:
        game.next_round()
    else:
        raise ValueError("the game is over")


def play_until(game: Game, done: Callable[[Game], bool]) -> Game:
    for _ in range(10_000):
        if done(game):
            return game
        step(game)
    raise AssertionError("the rigged game never reached the state asked for")


def last_card(game: Game) -> bool:
    """The person's turn with one card left: one click ends the hand."""
    return game.phase is Phase.PLAY and game.turn == PERSON and len(game.hand(PERSON)) == 1


def before_last_trick(rules: Rules, seed: int = 1) -> Game:
    return play_until(Game(rules, seed=seed), last_card)


def decisive_last_trick(rules: Rules, place: int | None = None) -> Game:
    """A game whose last trick ends it with one clear winner (no tie sends it on to
    another hand), the person to play the last card, and finishing at ``place`` if given;
    ``rules`` should end after a hand."""
    for seed in range(1, 400):
        game = before_last_trick(rules, seed)
        final = game.copy()
        play_until(final, lambda g: g.phase in (Phase.GAME_OVER, Phase.ROUND_OVER, Phase.MOON_CHOICE))
        mine = final.totals[PERSON]
        placed = 1 + sum(t < mine for t in final.totals) == place and final.totals.count(mine) == 1
        if final.phase is Phase.GAME_OVER and (place is None or placed):
            return game
    raise AssertionError("no seed ends the game in one hand as asked")


def moon_for_the_person(**rule_changes: object) -> Game:
    """No passing; the person holds every club, so leads the 2♣ and wins every trick, and
    the others must throw away all their hearts and the Q♠: the person shoots the moon."""
    clubs = CardSet([Card(f"{r}C") for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")])
    others = [c for c in Rules().deck if c not in clubs]
    deal = [clubs, CardSet(others[0::3]), CardSet(others[1::3]), CardSet(others[2::3])]
    return Game(Rules(passing=False, **rule_changes), seed=7, deals=[deal])  # type: ignore[arg-type]


def store(database_url: str, gid: str, game: Game) -> None:
    engine = create_engine(database_url)
    try:
        with engine.begin() as db:
            changed = db.execute(text("UPDATE game SET record = :record, version = :version, status = 'active'"
                                      " WHERE id = :id"),
                                 {"record": dumps(game), "version": game.move_count, "id": gid}).rowcount
    finally:
        engine.dispose()
    assert changed == 1, f"no game {gid} to rig"


def rig(s: Surface, database_url: str, game: Game) -> None:
    """Make ``game`` the game on this page's table (the page must have dealt one) and show it."""
    store(database_url, game_id(s), game)
    s.goto(s.url)
    wait_idle(s)
