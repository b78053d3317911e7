"""Translation between our engine and OpenSpiel's ``hearts`` (open-spiel 2.0.2).

Used by the differential test (tests/engine/test_openspiel.py) and by the arena's
``ismcts`` seat.  ``pyspiel`` (the ``test`` extra) is imported only when a game is
loaded, so the engine itself stays standard-library only.

Cards: ours are ``suit * 13 + rank`` with suits C, D, S, H; OpenSpiel's actions are
``rank * 4 + suit`` with suits C, D, H, S (rank 0 = two in both).

Seats: both engines number seats clockwise, and in both "next seat" (+1) is the seat
to the left, which is where play goes and where a left pass goes.  OpenSpiel's player
0 is North, ours is South; we map by compass point (our South = its South) rather
than by number, so the bridge also gets names right, and so a mapping that forgot
a rotation anywhere would show up in the differential test instead of cancelling out.

Only 4-player, one-deck games without spot hearts exist in OpenSpiel; OpenSpiel has
no shooter's choice (its moon always adds to the others), so such rules are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .cards import CARDS, Card, cards_of
from .rules import PassDirection, Rules
from .state import Game

PLAYERS = 4

_OS_SUIT_OF_OURS = (0, 1, 3, 2)
"""Our suit index (C, D, S, H) -> OpenSpiel's (C, D, H, S): spades and hearts swap."""

CARD_TO_ACTION: tuple[int, ...] = tuple((c % 13) * 4 + _OS_SUIT_OF_OURS[c // 13] for c in range(52))
ACTION_TO_CARD: tuple[Card, ...] = tuple(
    sorted(CARDS, key=lambda c: CARD_TO_ACTION[c])
)

_OS_OF_SEAT = (2, 3, 0, 1)
"""Our seat -> OpenSpiel player: S, W, N, E -> 2 (South), 3 (West), 0 (North), 1 (East)."""
_SEAT_OF_OS = tuple(_OS_OF_SEAT.index(p) for p in range(PLAYERS))

PASS_DIR_ACTION = {
    PassDirection.NONE: 0,
    PassDirection.LEFT: 1,
    PassDirection.ACROSS: 2,
    PassDirection.RIGHT: 3,
}
"""The first chance action of an OpenSpiel hearts game: where the cards are passed."""


def card_to_action(card: int) -> int:
    return CARD_TO_ACTION[card]


def action_to_card(action: int) -> Card:
    return ACTION_TO_CARD[action]


def os_player(seat: int) -> int:
    """OpenSpiel's player number for our ``seat``."""
    return _OS_OF_SEAT[seat]


def our_seat(player: int) -> int:
    """Our seat for OpenSpiel's ``player``."""
    return _SEAT_OF_OS[player]


def mask_of_actions(actions: Iterable[int]) -> int:
    """Our card mask for a list of OpenSpiel card actions."""
    m = 0
    for a in actions:
        m |= 1 << ACTION_TO_CARD[a]
    return m


def actions_of_mask(mask: int) -> list[int]:
    """OpenSpiel card actions, sorted, for one of our (one-deck) card masks."""
    return sorted(CARD_TO_ACTION[c] for c in cards_of(mask))


def game_string(rules: Rules) -> str:
    """The ``pyspiel.load_game`` string playing one round under ``rules``.

    Raises ``ValueError`` for rules OpenSpiel cannot express.  Target score and round
    limit do not matter: an OpenSpiel hearts game is a single round.
    """
    unsupported = [name for name, on in (
        ("players other than 4", rules.players != PLAYERS),
        ("spot hearts", rules.spot_hearts),
        ("shooter's choice", rules.shooters_choice),
        ("cancellation", rules.cancellation),
    ) if on]
    if unsupported:
        raise ValueError(f"OpenSpiel hearts has no {', '.join(unsupported)}")
    params: dict[str, bool] = {
        "pass_cards": rules.passing,
        "no_pts_on_first_trick": not rules.points_on_first_trick,
        "must_break_hearts": not rules.no_breaking,
        "qs_breaks_hearts": rules.queen_breaks_hearts,
        "jd_bonus": rules.omnibus,
        # OpenSpiel-only options, kept at the values SPEC.md §2 implies: the 2♣ opens,
        # a leader with only the Q♠ and unbroken hearts must lead the Q♠, no bonus for
        # taking no tricks.
        "can_lead_any_club": False,
        "can_lead_hearts_instead_of_qs": False,
        "avoid_all_tricks_bonus": False,
    }
    inner = ",".join(f"{k}={str(v).lower()}" for k, v in params.items())
    return f"hearts({inner})"


_LOADED: dict[str, Any] = {}


def load_game(rules: Rules) -> Any:
    """OpenSpiel's game for ``rules`` (loaded once per option string)."""
    import pyspiel

    text = game_string(rules)
    if text not in _LOADED:
        _LOADED[text] = pyspiel.load_game(text)
    return _LOADED[text]


def deal_actions(hands: Sequence[int]) -> list[int]:
    """The 52 deal chance actions giving each of our seats its hand (masks by our seat).

    OpenSpiel gives the k-th dealt card to player ``k % 4``.
    """
    by_player = [actions_of_mask(hands[our_seat(p)]) for p in range(PLAYERS)]
    if any(len(h) != 13 for h in by_player):
        raise ValueError("OpenSpiel needs 13 distinct cards per hand")
    return [by_player[k % PLAYERS][k // PLAYERS] for k in range(52)]


def pass_actions(passes: Sequence[int]) -> list[int]:
    """The 12 pass actions (OpenSpiel players 0..3 in turn) for passes as masks by our seat."""
    return [a for p in range(PLAYERS) for a in actions_of_mask(passes[our_seat(p)])]


def new_round_state(game: Any, hands: Sequence[int], direction: PassDirection) -> Any:
    """An OpenSpiel state with the pass direction chosen and ``hands`` dealt."""
    state = game.new_initial_state()
    state.apply_action(PASS_DIR_ACTION[direction])
    for a in deal_actions(hands):
        state.apply_action(a)
    return state


def state_of(ours: Game, game: Any | None = None) -> Any:
    """An OpenSpiel state at the same point of the current round as our ``ours``.

    Needs every pass chosen (OpenSpiel passes one seat at a time, we simultaneously)
    and a round in the play phase or just finished.
    """
    if game is None:
        game = load_game(ours.rules)
    state = new_round_state(game, ours.dealt, ours.pass_direction)
    if ours.pass_direction is not PassDirection.NONE:
        if any(p is None for p in ours.passes):
            raise ValueError("OpenSpiel needs every pass before play: not all seats have passed")
        for a in pass_actions(ours.passes):  # type: ignore[arg-type]
            state.apply_action(a)
    for trick in ours.tricks:
        for card in trick.cards:
            state.apply_action(CARD_TO_ACTION[card])
    for card in ours.trick:
        state.apply_action(CARD_TO_ACTION[card])
    return state


def points_from_returns(returns: Sequence[float]) -> tuple[int, ...]:
    """Our round points by seat from OpenSpiel's returns (26 − points by player)."""
    return tuple(26 - round(returns[os_player(s)]) for s in range(PLAYERS))
