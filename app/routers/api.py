"""The JSON API, /api/v1: the same services as the page, described by the OpenAPI schema.

Errors are JSON ``{"error": key, "detail": sentence}`` (:mod:`app.errors`): an illegal card
is 422, acting out of turn or on a stale version is 409 with the game as it is now, an
unknown game is 404.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlmodel import Session
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine import Card, CardSet
from engine import events as ev

from .. import coaching, review_view, services
from ..deps import CurrentPlayer, SessionDep, as_player, get_session
from ..errors import GAME_NOW, REFUSED, CsrfError, refusal
from ..models import Player
from ..options import OptionsBase, Whole, with_rule_options
from ..security import require_csrf
from ..services import Context, GameNotFoundError, Outcome

router = APIRouter(prefix="/api/v1", tags=["game"])

Difficulty = Literal["easy", "medium", "hard"]

CARD_PATTERN = r"^(10|[2-9TJQKAtjqka])[CDSHcdsh♣♦♠♥]$"
"""A card code as the API takes it: rank (2–10, J, Q, K, A; T for 10) then suit letter or symbol."""


CardCode = Annotated[str, Field(pattern=CARD_PATTERN, examples=["QS", "10H"])]


@with_rule_options()  # a field per option of the rules (engine/rules.py), bounds and help included
class GameOptions(OptionsBase):
    """A new game's options (SPEC §3); everything but the difficulty is stored in its rules."""

    # JSON has real numbers and booleans: "5" or false where an integer belongs is refused
    # (lax parsing would read false as seed 0), as the schema says
    model_config = ConfigDict(strict=True)

    difficulty: Difficulty = "medium"
    seed: Whole | None = Field(None, ge=-(2**63), lt=2**63, description=(
        "deal from this seed (a reproducible deal): the game is then a practice game, which never "
        "counts toward records, since whoever knows the seed can see every hand"))
    practice: bool = Field(False, description=(
        "a practice game: hints and undo, and it never counts toward records (a game dealt from a seed is one "
        "anyway)"))
    replaces: str | None = Field(None, max_length=32, description=(
        'the id of the game this one replaces (your current game, or "" for none); if your current game '
        "is another one by then (a repeated request), nothing is dealt and the answer is 409"))


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
    practice: bool = Field(description="a practice game (chosen, or dealt from a seed you chose): hints and undo, "
                                       "never counted in records")
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
    kind = type(e)
    key = _EVENT_KEYS.get(kind)
    if key is None:
        key = _EVENT_KEYS[kind] = "".join("_" + ch.lower() if ch.isupper() else ch for ch in kind.__name__).lstrip("_")
    return {"type": key, **{k: _plain(v) for k, v in zip(e._fields, e, strict=True)}}


_EVENT_KEYS: dict[type, str] = {}
"""Each event class's ``type`` in the JSON (``TrickWon`` → ``trick_won``), spelt once."""


def _game_fields(outcome: Outcome) -> dict[str, Any]:
    """:class:`GameOut`'s fields, in its order, for the model and for the JSON alike."""
    rec = outcome.record
    return {"game_id": rec.id, "version": rec.version, "difficulty": rec.difficulty, "status": rec.status,
            "practice": rec.practice, "view": outcome.view.to_dict(),
            "events": [event_to_dict(e) for e in outcome.events]}


def game_out(outcome: Outcome) -> GameOut:
    # validated from a dict: the stored status is a plain string, checked here against the
    # model's three values
    return GameOut.model_validate(_game_fields(outcome))


def game_json(outcome: Outcome) -> bytes:
    """:func:`game_out` as JSON, the same bytes as ``game_out(outcome).model_dump_json()``
    (tests/app/test_hot_path.py compares them) without building the model: its
    validation walked the whole view a second time, a quarter of the answer's cost."""
    return json.dumps(_game_fields(outcome), separators=(",", ":"), ensure_ascii=False).encode()


def answer(outcome: Outcome, status_code: int = status.HTTP_200_OK) -> Response:
    """The game's answer, serialised here, in the route's thread: a route that returns a
    :class:`GameOut` has FastAPI validate it against ``response_model`` a second time, in
    a thread-pool hop of its own (docs/benchmarks.md, "CPU per action").  The schema is
    still ``response_model``'s, and the body the same JSON."""
    return Response(game_json(outcome), status_code, media_type="application/json")


# The game's routes are ``async def`` with no dependencies of their own (the CSRF check is the
# router's): :func:`app.deps.as_player` looks the player up and does the route's work in one
# thread-pool hop, where the dependencies took one hop for the lookup and one for the route.

T = TypeVar("T")


async def acting(request: Request, work: Callable[[Session, Player, Context], T]) -> T:
    """:func:`app.deps.as_player`, with a refusal's answer prepared in the same hop: its
    transaction rolled back there, and for a 409 the game as it is now read there too
    (:mod:`app.errors` answers with it).  The refusal's handler read the player and the game
    again in a hop of its own, and the session's close rolled back in a third."""
    def guarded(session: Session, player: Player, ctx: Context) -> T:
        player_id = player.id  # a rollback in the work expires the player
        try:
            return work(session, player, ctx)
        except REFUSED as exc:
            session.rollback()
            if refusal(exc).status == 409:
                request.scope.setdefault("state", {})[GAME_NOW] = game_now(
                    session, player_id, request.path_params.get("game_id"))
                session.commit()
            raise

    # the API answers with the game as the action leaves it: no step's view is drawn
    return await as_player(request, guarded, request.path_params.get("game_id"), views=False)


@router.post("/games", status_code=status.HTTP_201_CREATED, response_model=GameOut, responses=CREATE_ERRORS)
async def start_game(options: GameOptions, request: Request) -> Response:
    """Deal a new game (abandoning the one in progress) and let the computer players act."""
    return await acting(request, lambda session, player, ctx: answer(services.start_game(
        session, player, options.rules(), options.difficulty, seed=options.seed, replaces=options.replaces,
        practice=options.practice or None, ctx=ctx), status.HTTP_201_CREATED))


def _shown(session: Session, player: Player, game_id: str | None, ctx: Context) -> Response:
    rec = services.find_game(session, player, game_id, ctx.game)
    # the read ends here, in this hop: a session left in a transaction is closed in a hop of
    # its own (app.deps.CloseSession)
    session.commit()
    return answer(Outcome(rec, services.load_game(rec)))


@router.get("/games/current", response_model=GameOut, responses=ERRORS)
async def current_game(request: Request) -> Response:
    """The game this player would resume."""
    return await acting(request, lambda session, player, ctx: _shown(session, player, None, ctx))


@router.get("/games/{game_id}", response_model=GameOut, responses=ERRORS)
async def get_game(game_id: str, request: Request) -> Response:
    return await acting(request, lambda session, player, ctx: _shown(session, player, game_id, ctx))


async def moving(request: Request, game_id: str, version: int, move: Callable[..., Outcome], *args: object) -> Response:
    """A move on game ``game_id`` as the person saw it at ``version``: ``move`` is one of
    :mod:`app.services`' moves, called as ``move(session, player, game_id, version, *args, ctx)``."""
    return await acting(request, lambda session, player, ctx: answer(
        move(session, player, game_id, version, *args, ctx)))


@router.post("/games/{game_id}/pass", response_model=GameOut, responses=ERRORS)
async def pass_cards(game_id: str, body: PassBody, request: Request) -> Response:
    """Pass three cards; the computer players pass too and play up to your turn."""
    return await moving(request, game_id, body.version, services.pass_cards, body.cards)


@router.post("/games/{game_id}/play", response_model=GameOut, responses=ERRORS)
async def play_card(game_id: str, body: PlayBody, request: Request) -> Response:
    """Play a card; the computer players then play up to your next turn or the end of the hand."""
    return await moving(request, game_id, body.version, services.play_card, body.card)


@router.post("/games/{game_id}/moon", response_model=GameOut, responses=ERRORS)
async def choose_moon(game_id: str, body: MoonBody, request: Request) -> Response:
    """Shooter's choice, when you shot the moon."""
    return await moving(request, game_id, body.version, services.choose_moon, body.subtract)


@router.post("/games/{game_id}/next", response_model=GameOut, responses=ERRORS)
async def next_round(game_id: str, body: Versioned, request: Request) -> Response:
    """Deal the next hand after a hand is over."""
    return await moving(request, game_id, body.version, services.next_round)


class HintOut(BaseModel):
    cards: list[str] = Field(description="the card Hard would play, or the three cards it would pass")
    reason: str = Field(description="why, as a stable key (e.g. dump_queen, duck_points, pass_queen)")
    text: str = Field(description="the hint as the page says it, in the request's language")


class RatingOut(BaseModel):
    kind: Literal["pass", "play"]
    trick: int = Field(description="the trick's number (from 1) of a play; 0 for the pass")
    chosen: list[str]
    best: list[str]
    chosen_points: float = Field(description="expected points you take in the hand after what you chose")
    best_points: float = Field(description="the same after the best choice")
    label: Literal["best", "good", "inaccuracy", "mistake", "blunder", "forced"]
    samples: int = Field(description="deals of the unseen cards the search played out")
    seconds: float


class ReviewOut(BaseModel):
    hand: int = Field(description="the hand's number, from 1")
    decisions: list[RatingOut]
    lost: float = Field(description="expected points lost in the hand, over every decision")


@router.post("/games/{game_id}/undo", response_model=GameOut, responses=ERRORS)
async def undo(game_id: str, body: Versioned, request: Request) -> Response:
    """A practice game only: take back your last pass or card and the computer players' moves
    after it (the version goes up by one, so a repeated request is refused as stale)."""
    return await acting(request, lambda session, player, ctx: answer(
        coaching.undo(session, player, game_id, body.version, ctx)))


@router.post("/games/{game_id}/hint", response_model=HintOut, responses=ERRORS)
async def hint(game_id: str, body: Versioned, request: Request) -> HintOut:
    """A practice game only, on your turn: what Hard would do in your place, from your view, and why."""
    def work(session: Session, player: Player, ctx: Context) -> HintOut:
        found = coaching.hint(session, player, game_id, body.version, ctx)
        shown = review_view.hint_view(found.cards, found.reason, found.values, found.game.view(found.record.seat))
        return HintOut(cards=list(found.cards), reason=found.reason, text=shown.text)

    return await acting(request, work)


@router.get("/games/{game_id}/hands/{hand}/review", response_model=ReviewOut, responses=ERRORS)
async def review(game_id: str, hand: int, request: Request) -> ReviewOut:
    """A finished hand (from 1) of your game reviewed: each of your decisions rated by Hard's
    search from what you could see then (computed once, then kept with the game)."""
    def work(session: Session, player: Player, ctx: Context) -> ReviewOut:
        found = coaching.review(session, player, game_id, hand - 1, ctx)
        return ReviewOut(hand=hand, decisions=[RatingOut(**r.to_dict()) for r in found.ratings],
                         lost=round(sum(r.lost for r in found.ratings), 3))

    return await acting(request, work)


@router.get("/records", response_model=list[RecordOut])
def records(session: SessionDep, player: CurrentPlayer) -> list[RecordOut]:
    """Your records per difficulty: games played and won, lowest final score, moons shot."""
    return [RecordOut(**line.__dict__) for line in services.records(session, player)]


# ---- a refused action's answer carries the game as it is now (app.errors) --------------------------

def game_state(request: Request) -> dict[str, Any] | None:
    """The game a refused action was aimed at, as it is now (a stale client shows this),
    read with the request's own session (when the route did not leave it: :func:`acting`)."""
    session = get_session(request)
    session.rollback()
    player_id = getattr(request.state, "player_id", None)
    return None if player_id is None else game_now(session, player_id, request.path_params.get("game_id"))


def game_now(session: Session, player_id: str, game_id: str | None) -> dict[str, Any] | None:
    """The game ``game_id`` of the player (their current one for None) as the API shows it,
    or None when they have no such game."""
    try:
        rec = services.find_game_of(session, player_id, game_id)
    except GameNotFoundError:
        return None
    return game_out(Outcome(rec, services.load_game(rec))).model_dump()


# ---- the moves' fast path -----------------------------------------------------------------

HOT_ROUTES: dict[str, tuple[type[Versioned], Callable[..., Awaitable[Response]]]] = {
    "pass": (PassBody, pass_cards), "play": (PlayBody, play_card),
    "moon": (MoonBody, choose_moon), "next": (Versioned, next_round)}
"""The game's moves (``POST /api/v1/games/{game_id}/<name>``): the body each one takes and
its route, which :class:`HotRoutes` calls without FastAPI's request handling."""

_HOT_PATH = re.compile(r"/api/v1/games/([^/]+)/(" + "|".join(HOT_ROUTES) + ")")


class HotRoutes:
    """Pure ASGI, innermost (inside every middleware of :mod:`app.main`): a move of the
    JSON API that is well formed goes straight to its route function, with the router's
    CSRF check, its body parsed by the route's own model and its refusal answered by the
    app's own handler (:mod:`app.errors`).  FastAPI's matching of ~70 routes, its solving
    of the dependencies and its request handling were a third of the event loop's CPU an
    action (docs/benchmarks.md, "CPU per action").

    Anything else, and any move that is not well formed (no JSON content type, a body that
    is not JSON or not the model, a CSRF check that fails, a ``root_path``), is handed to
    the app with its body as read, so FastAPI answers it exactly as it always has: the
    fast path never gives an answer FastAPI would not have given."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hot = (scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path")
               and _HOT_PATH.fullmatch(scope["path"]))
        if not hot:
            await self.app(scope, receive, send)
            return
        body, receive = await _read_body(receive)
        model, route = HOT_ROUTES[hot.group(2)]
        request = Request(scope, receive)
        parsed = None if body is None else _parsed(request, body, model)
        if parsed is None:
            await self.app(scope, receive, send)
            return
        try:
            await require_csrf(request)
        except CsrfError:
            await self.app(scope, receive, send)
            return
        scope["path_params"] = {"game_id": hot.group(1)}
        try:
            response = await route(hot.group(1), parsed, request)
        except Exception as exc:  # answered as FastAPI's exception middleware would
            handler = _handler_of(request.app, exc)
            if handler is None:
                raise
            response = (await handler(request, exc) if inspect.iscoroutinefunction(handler)
                        else await run_in_threadpool(handler, request, exc))
        await response(scope, receive, send)


async def _read_body(receive: Receive) -> tuple[bytes | None, Receive]:
    """The request's whole body, and a ``receive`` that gives it again, then waits as the
    original does (for the client's disconnect); None if the client left before it was
    whole."""
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            # the client left: the app (given the body as None) sees the same
            return None, _gone(message)
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _gone(message: Message) -> Receive:
    async def gone() -> Message:
        return message
    return gone


def _parsed(request: Request, body: bytes, model: type[Versioned]) -> Versioned | None:
    """The body as the route's model, as FastAPI reads it (JSON, validated in Python mode),
    or None when FastAPI would refuse it or read it otherwise."""
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        return None
    try:
        return model.model_validate(json.loads(body))
    except (ValueError, ValidationError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None


def _handler_of(app: Any, exc: Exception) -> Callable[..., Any] | None:
    """The handler the app registered for ``exc``'s class or the nearest base, leaving out
    the server error's (500), which is answered outside, as it is for any route."""
    handlers = app.exception_handlers
    for kind in type(exc).__mro__:
        if kind in handlers and kind is not Exception:
            handler: Callable[..., Any] = handlers[kind]
            return handler
    return None
