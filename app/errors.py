"""Refusals in one place: each error's status, key and message, and the exception handlers
that answer them in the form the route's client reads.

* The JSON API (``/api/…``) gets ``{"error": key, "detail": sentence}``; a 409 also carries
  the game as it is now (``"game"``), which a stale client shows instead.
* The page gets the table as it is now with the message (an HTMX request the table
  fragment, a plain form post the whole page): see :func:`app.routers.pages.refused`.

Routes raise and never catch.  The handlers draw with the request's own database session
(:func:`app.deps.get_session`), after rolling back what the refused action left; none
opens another.  The routers hand their drawing functions to :func:`install`, so this module
imports no router.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from engine import RulesError
from engine.errors import HeartsError, IllegalMoveError, NotYourTurnError, WrongPhaseError

from .i18n import gettext
from .limits import RateLimitedError, ServerBusyError

log = logging.getLogger(__name__)


# ---- the app's own errors -----------------------------------------------------------------

class GameNotFoundError(LookupError):
    """No such game for this player (another player's game is not found either)."""


class StaleStateError(Exception):
    """The action was made against an older version of the game (a repeated or late click)."""

    def __init__(self, expected: int, got: int) -> None:
        super().__init__(f"the game has moved on (it is at move {expected}, the request was made at move {got}); "
                         "reload the game and try again")
        self.expected = expected
        self.got = got


class GameClosedError(StaleStateError):
    """The game is finished or was abandoned: it is kept as it is and takes no more moves."""

    def __init__(self, status: str) -> None:
        Exception.__init__(self, "this game is over; start a new one" if status == "finished"
                           else "this game was abandoned when a new one was dealt; it takes no more moves")
        self.status = status
        self.expected = self.got = -1


class StaleGameError(StaleStateError):
    """A new game was asked for from a table that is no longer the player's current one
    (a double click on "New game", or another tab has dealt since)."""

    def __init__(self) -> None:
        Exception.__init__(self, "a new game has already been dealt; here it is")
        self.expected = self.got = -1


class PracticeOnlyError(IllegalMoveError):
    """Hints and undo are for practice games only: a game that counts is played unaided."""

    def __init__(self) -> None:
        super().__init__("hints and undo are only for practice games", "practice_only")


class NothingToUndoError(IllegalMoveError):
    """Undo with no pass or card of the person's left in the game to take back."""

    def __init__(self) -> None:
        super().__init__("there is nothing of yours to take back", "nothing_to_undo")


class NotReviewableError(IllegalMoveError):
    """A review of a hand that does not exist or is not finished yet."""

    def __init__(self, hand: int) -> None:
        super().__init__(f"hand {hand} is not finished yet, or there is no such hand", "not_reviewable")


class BadChoiceError(ValueError):
    """A request names something that does not exist (a difficulty, a moon choice)."""


class TableError(Exception):
    """A refusal at a table for friends (a name taken, a seat not free, only the host may…),
    raised with its sentence already in the person's language."""

    def __init__(self, message: str, key: str = "table", status: int = 409) -> None:
        super().__init__(message)
        self.key = key
        self.status = status


class TableNotFoundError(LookupError):
    """No open table behind this invite link (a wrong link, or the table was closed)."""


class CsrfError(Exception):
    """A state-changing request as an existing player without that player's token."""


# ---- status, key and message, once ----------------------------------------------------------

@dataclass(frozen=True)
class Refusal:
    status: int
    key: str
    message: str
    """The English sentence (the API's ``detail``; the page says it in the player's language)."""


def refusal(exc: Exception) -> Refusal:
    """What a refused request is answered, for an error a route or a service raised."""
    text = str(exc.args[0]) if isinstance(exc, LookupError) and exc.args else str(exc)
    message = text[:1].upper() + text[1:]
    if isinstance(exc, GameNotFoundError):
        return Refusal(404, "game_not_found", message)
    if isinstance(exc, TableNotFoundError):
        return Refusal(404, "table_not_found", message)
    if isinstance(exc, TableError):
        return Refusal(exc.status, exc.key, message)
    if isinstance(exc, GameClosedError):
        return Refusal(409, "game_" + exc.status, message)
    if isinstance(exc, StaleStateError):
        return Refusal(409, "stale_version", message)
    if isinstance(exc, NotYourTurnError | WrongPhaseError):
        return Refusal(409, exc.rule, message)
    if isinstance(exc, IllegalMoveError):
        return Refusal(422, exc.rule, message)
    if isinstance(exc, RulesError):
        return Refusal(422, "bad_options", message)
    if isinstance(exc, HeartsError):
        return Refusal(422, "invalid_move", message)
    if isinstance(exc, RateLimitedError):
        return Refusal(429, "rate_limited", gettext(
            "You are starting games too quickly. Please wait %(seconds)s seconds and try again.",
            seconds=exc.retry_after))
    if isinstance(exc, CsrfError):
        return Refusal(403, "csrf", message)
    if isinstance(exc, RequestValidationError):
        return Refusal(422, "invalid_request", validation_message(exc))
    return Refusal(422, "invalid", message)


REFUSED = (GameNotFoundError, StaleStateError, HeartsError, RulesError, BadChoiceError, TableError,
           TableNotFoundError)
"""What an action may be refused for: answered 4xx with the table or JSON, never 500."""


def validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
    return "Invalid request (" + "; ".join(parts) + ")"


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


# ---- the handlers -------------------------------------------------------------------------------

PageAnswer = Callable[[Request, "Exception | str", int], Response]
"""The page's answer to a refusal: the table as it is now, with the message for the
exception (or the message itself), at this status."""
GameState = Callable[[Request], "dict[str, Any] | None"]
"""The game a refused API action was aimed at, as it is now (for a 409)."""

GAME_NOW = "game_now"
"""The request's state key under which a route that was refused 409 left the game as it is
now (``None``: no such game), so that the handler need not read it again."""


def install(app: FastAPI, page: PageAnswer, game_state: GameState) -> None:
    """Register every handler; ``page`` and ``game_state`` draw for the pages and the API."""

    async def refused(request: Request, exc: Exception) -> Response:
        r = refusal(exc)
        if is_api(request):
            body: dict[str, Any] = {"error": r.key, "detail": r.message}
            if r.status == 409:
                # the game as it is now: read by the route's own hop when it could
                # (app.routers.api.acting), else read here
                state = request.scope.get("state", {})
                body["game"] = (state[GAME_NOW] if GAME_NOW in state
                                else await run_in_threadpool(game_state, request))
            return JSONResponse(body, status_code=r.status)
        return await run_in_threadpool(page, request, exc, r.status)

    async def invalid_request(request: Request, exc: Exception) -> Response:
        # FastAPI's validation errors: a malformed JSON body, a forged or garbled form
        assert isinstance(exc, RequestValidationError)
        r = refusal(exc)
        if is_api(request):
            return JSONResponse({"error": r.key, "detail": r.message}, status_code=r.status)
        return await run_in_threadpool(page, request, r.message, r.status)

    async def too_many(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RateLimitedError)
        r = refusal(exc)
        headers = {"Retry-After": str(exc.retry_after)}
        if is_api(request):
            return JSONResponse({"error": r.key, "detail": r.message}, status_code=r.status, headers=headers)
        response = await run_in_threadpool(page, request, r.message, r.status)
        response.headers.update(headers)
        return response

    async def forged(request: Request, exc: Exception) -> Response:
        r = refusal(exc)
        if is_api(request):
            return JSONResponse({"error": r.key, "detail": r.message}, status_code=r.status)
        if is_htmx(request):
            # the page holds a token for another player (the cookie changed in another tab):
            # load the page again, which brings the right token
            return Response(status_code=r.status, headers={"HX-Refresh": "true"})
        return HTMLResponse(error_page(r.message), status_code=r.status)

    for kind in REFUSED:
        app.add_exception_handler(kind, refused)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(RateLimitedError, too_many)
    app.add_exception_handler(CsrfError, forged)
    app.add_exception_handler(StarletteHTTPException, http_error)
    for busy_error in (ServerBusyError, PoolTimeoutError, OperationalError):
        app.add_exception_handler(busy_error, server_busy)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (a body that is not JSON, an unknown route) in the API's shape."""
    assert isinstance(exc, StarletteHTTPException)
    if not is_api(request):
        return await http_exception_handler(request, exc)
    key = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
    return JSONResponse({"error": key, "detail": str(exc.detail)}, status_code=exc.status_code,
                        headers=getattr(exc, "headers", None))


async def server_busy(request: Request, exc: Exception) -> Response:
    """503 with Retry-After: the admission gate, the database pool or a locked database
    (any other database error is a bug, and stays a 500)."""
    if isinstance(exc, OperationalError) and not _is_busy_database(exc):
        raise exc
    log.warning("answered 503 for %s %s: %s", request.method, request.url.path, type(exc).__name__)
    headers = {"Retry-After": str(ServerBusyError.retry_after)}
    if is_api(request) or not is_htmx(request):
        return JSONResponse({"error": "busy", "detail": "The server is busy; try again in a moment."},
                            status_code=503, headers=headers)
    return Response(status_code=503, headers=headers)


def _is_busy_database(exc: OperationalError) -> bool:
    """SQLite's "database is locked" after its busy timeout, or PostgreSQL refusing a
    connection for too many clients: load, not a bug."""
    text = str(exc.orig).lower()
    return "locked" in text or "busy" in text or "too many clients" in text


def error_page(message: str) -> str:
    """A bare page for a refusal that comes before there is a table to show."""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Hearts</title></head>"
            f"<body><p>{message}</p><p><a href=\"/\">Back to the game</a></p></body></html>")
