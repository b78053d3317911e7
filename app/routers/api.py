"""The JSON API, /api/v1: the same services as the page, described by the OpenAPI schema.

Errors are JSON ``{"error": key, "detail": sentence}`` (:mod:`app.errors`): an illegal card
is 422, acting out of turn or on a stale version is 409 with the game as it is now, an
unknown game is 404.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from engine import Card, CardSet
from engine import events as ev

from .. import services
from ..deps import ContextDep, CurrentPlayer, SessionDep, get_session
from ..options import OptionsBase, Whole, options_model
from ..services import GameNotFoundError, Outcome

router = APIRouter(prefix="/api/v1", tags=["game"])

Difficulty = Literal["easy", "medium", "hard"]

CARD_PATTERN = r"^(10|[2-9TJQKAtjqka])[CDSHcdsh♣♦♠♥]$"
"""A card code as the API takes it: rank (2–10, J, Q, K, A; T for 10) then suit letter or symbol."""


CardCode = Annotated[str, Field(pattern=CARD_PATTERN, examples=["QS", "10H"])]


class NewGame(OptionsBase):
    """A new game's options (SPEC §3); everything but the difficulty is stored in its rules."""

    # JSON has real numbers and booleans: "5" or false where an integer belongs is refused
    # (lax parsing would read false as seed 0), as the schema says
    model_config = ConfigDict(strict=True)

    difficulty: Difficulty = "medium"
    seed: Whole | None = Field(None, ge=-(2**63), lt=2**63, description=(
        "deal from this seed (a reproducible deal): the game is then a practice game, which never "
        "counts toward records, since whoever knows the seed can see every hand"))
    replaces: str | None = Field(None, max_length=32, description=(
        'the id of the game this one replaces (your current game, or "" for none); if your current game '
        "is another one by then (a repeated request), nothing is dealt and the answer is 409"))


if TYPE_CHECKING:
    GameOptions = NewGame
else:
    # and a field per option of the rules (engine/rules.py), bounds and help included
    GameOptions = options_model(NewGame, name="GameOptions")


class Versioned(BaseModel):
    model_config = ConfigDict(strict=True)

    version: Whole = Field(ge=0, le=1_000_000,
                           description="the game's version (move count) this action was made against")


class PassBody(Versioned):
    cards: list[CardCode] = Field(min_length=3, max_length=3,
                                  description='the three cards to pass, e.g. ["QS", "AH", "KH"]')


class PlayBody(Versioned):
    card: CardCode = Field(description='the card to play, e.g. "10H"')


class MoonBody(Versioned):
    subtract: bool = Field(description="true: subtract the moon from your own total; false: add it to everyone else")


class GameOut(BaseModel):
    game_id: str
    version: int
    difficulty: str
    status: Literal["active", "finished", "abandoned"] = Field(
        description="only an active game takes moves; a finished or abandoned one answers 409")
    practice: bool = Field(description="a practice game (dealt from a seed you chose): never counted in records")
    view: dict[str, Any] = Field(description="what the person (seat 0) may know: hand, tricks, legal cards, scores…")
    events: list[dict[str, Any]] = Field(description="what happened during this action, in order")


class RecordOut(BaseModel):
    difficulty: str
    played: int
    won: int
    best_score: int | None
    moons: int


class ErrorOut(BaseModel):
    error: str
    detail: str
    game: GameOut | None = Field(None, description="with 409: the game as it is now, to show instead")


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "the body is not JSON"},
    403: {"model": ErrorOut, "description": "the X-CSRF-Token header is missing or wrong, or the request came "
                                            "from another site"},
    404: {"model": ErrorOut, "description": "no such game"},
    409: {"model": ErrorOut, "description": "not your turn, the game has moved on (stale version), or the game "
                                            "is finished or abandoned"},
    413: {"model": ErrorOut, "description": "the request body is larger than 16 KB"},
    422: {"model": ErrorOut, "description": "an illegal move, invalid options or a malformed request"},
    503: {"model": ErrorOut, "description": "the server is busy: retry after the Retry-After header's seconds"},
}
CREATE_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS, 429: {"model": ErrorOut, "description": "too many new games or players from your address: retry "
                                                      "after the Retry-After header's seconds"}}


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code()
    if isinstance(value, CardSet):
        return value.codes()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def event_to_dict(e: ev.Event) -> dict[str, Any]:
    name = type(e).__name__
    key = "".join("_" + ch.lower() if ch.isupper() else ch for ch in name).lstrip("_")
    return {"type": key, **{k: _plain(v) for k, v in e._asdict().items()}}


def game_out(outcome: Outcome) -> GameOut:
    rec = outcome.record
    return GameOut(game_id=rec.id, version=rec.version, difficulty=rec.difficulty, status=rec.status,  # type: ignore[arg-type]
                   practice=rec.practice,
                   view=outcome.view.to_dict(),
                   events=[event_to_dict(e) for e in outcome.events])


def answer(outcome: Outcome, status_code: int = status.HTTP_200_OK) -> Response:
    """The game's answer, serialised here, in the route's thread: a route that returns a
    :class:`GameOut` has FastAPI validate it against ``response_model`` a second time, in
    a thread-pool hop of its own (docs/benchmarks.md, "CPU per action").  The schema is
    still ``response_model``'s, and the body the same JSON."""
    return Response(game_out(outcome).model_dump_json(), status_code, media_type="application/json")


@router.post("/games", status_code=status.HTTP_201_CREATED, response_model=GameOut, responses=CREATE_ERRORS)
def start_game(options: GameOptions, session: SessionDep, player: CurrentPlayer, ctx: ContextDep) -> Response:
    """Deal a new game (abandoning the one in progress) and let the computer players act."""
    return answer(services.start_game(session, player, options.rules(), options.difficulty, seed=options.seed,
                                      replaces=options.replaces, ctx=ctx), status.HTTP_201_CREATED)


@router.get("/games/current", response_model=GameOut, responses=ERRORS)
def current_game(session: SessionDep, player: CurrentPlayer) -> Response:
    """The game this player would resume."""
    rec = services.find_game(session, player, None)
    return answer(Outcome(rec, services.load_game(rec)))


@router.get("/games/{game_id}", response_model=GameOut, responses=ERRORS)
def get_game(game_id: str, session: SessionDep, player: CurrentPlayer) -> Response:
    rec = services.find_game(session, player, game_id)
    return answer(Outcome(rec, services.load_game(rec)))


@router.post("/games/{game_id}/pass", response_model=GameOut, responses=ERRORS)
def pass_cards(game_id: str, body: PassBody, session: SessionDep, player: CurrentPlayer, ctx: ContextDep) -> Response:
    """Pass three cards; the computer players pass too and play up to your turn."""
    return answer(services.pass_cards(session, player, game_id, body.version, body.cards, ctx))


@router.post("/games/{game_id}/play", response_model=GameOut, responses=ERRORS)
def play_card(game_id: str, body: PlayBody, session: SessionDep, player: CurrentPlayer, ctx: ContextDep) -> Response:
    """Play a card; the computer players then play up to your next turn or the end of the hand."""
    return answer(services.play_card(session, player, game_id, body.version, body.card, ctx))


@router.post("/games/{game_id}/moon", response_model=GameOut, responses=ERRORS)
def choose_moon(game_id: str, body: MoonBody, session: SessionDep, player: CurrentPlayer, ctx: ContextDep) -> Response:
    """Shooter's choice, when you shot the moon."""
    return answer(services.choose_moon(session, player, game_id, body.version, body.subtract, ctx))


@router.post("/games/{game_id}/next", response_model=GameOut, responses=ERRORS)
def next_round(game_id: str, body: Versioned, session: SessionDep, player: CurrentPlayer, ctx: ContextDep) -> Response:
    """Deal the next hand after a hand is over."""
    return answer(services.next_round(session, player, game_id, body.version, ctx))


@router.get("/records", response_model=list[RecordOut])
def records(session: SessionDep, player: CurrentPlayer) -> list[RecordOut]:
    """Your records per difficulty: games played and won, lowest final score, moons shot."""
    return [RecordOut(**line.__dict__) for line in services.records(session, player)]


# ---- a refused action's answer carries the game as it is now (app.errors) --------------------------

def game_state(request: Request) -> dict[str, Any] | None:
    """The game a refused action was aimed at, as it is now (a stale client shows this),
    read with the request's own session."""
    session = get_session(request)
    session.rollback()
    player = services.get_player(session, getattr(request.state, "player_id", None))
    if player is None:
        return None
    try:
        rec = services.find_game(session, player, request.path_params.get("game_id"))
    except GameNotFoundError:
        return None
    return game_out(Outcome(rec, services.load_game(rec))).model_dump()
