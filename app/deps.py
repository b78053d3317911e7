"""Request dependencies as ``Annotated`` aliases: settings, database session, the player.

Each dependency that touches the database ends its transaction before it returns, so no
connection is held across FastAPI's hops between the thread-pool calls of a request's
dependencies and its route (see :mod:`app.limits` for why that matters).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from itsdangerous import URLSafeTimedSerializer
from sqlmodel import Session
from starlette.types import ASGIApp, Receive, Scope, Send

from . import services
from .config import Settings
from .limits import client_key
from .models import GameRecord, Player
from .security import PLAYER_HEADER, TOKEN_SALT, identify, player_token, read_token, token_is_old
from .thinking import Thinker

COOKIE_SALT = TOKEN_SALT
SESSION_KEY = "db_session"


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session(request: Request) -> Session:
    """The request's one database session, opened on first use and closed by
    :class:`CloseSession` once the answer is out, so an exception handler that draws the
    refused page (:mod:`app.errors`) uses it too instead of opening another."""
    state = request.scope.setdefault("state", {})
    session: Session | None = state.get(SESSION_KEY)
    if session is None:
        session = state[SESSION_KEY] = Session(request.app.state.db_engine, expire_on_commit=False)
    return session


def get_thinker(request: Request) -> Thinker:
    """The app's worker pool for Hard's searches (:mod:`app.thinking`)."""
    thinker: Thinker = request.app.state.thinker
    return thinker


# FastAPI runs a plain ``def`` dependency in the thread pool, one hop (and one wake-up of a
# worker thread) each: those that only read the request or the app, and never wait, are
# ``async def`` (run on the event loop), so an action makes two hops, the player's lookup
# and the route (docs/benchmarks.md, "CPU per action").  The plain functions above stay
# callable from anywhere (the refusal handlers use get_session).

async def _settings(request: Request) -> Settings:
    return get_settings(request)


async def _session(request: Request) -> Session:
    # a Session does not connect until it is first used (in the route's thread)
    return get_session(request)


async def _thinker(request: Request) -> Thinker:
    return get_thinker(request)


SettingsDep = Annotated[Settings, Depends(_settings)]
SessionDep = Annotated[Session, Depends(_session)]
ThinkerDep = Annotated[Thinker, Depends(_thinker)]


def context_of(request: Request, game: GameRecord | None = None, views: bool = True) -> services.Context:
    """What the services need besides the session: the client the rate limits count
    against (:mod:`app.limits`), the settings and the worker pool (``game`` and ``views``:
    :class:`app.services.Context`'s)."""
    return services.Context(client=client_key(request.scope), settings=get_settings(request),
                            thinker=get_thinker(request), game=game, views=views)


async def get_context(request: Request) -> services.Context:
    return context_of(request)


ContextDep = Annotated[services.Context, Depends(get_context)]


class CloseSession:
    """Pure ASGI, inside the admission gate: closes the request's session (if it opened
    one) when the answer has been sent, so its connection is back in the pool before the
    next request is let in."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        finally:
            session = scope.get("state", {}).pop(SESSION_KEY, None)
            if session is not None:
                if session.in_transaction():
                    # a rollback may wait for the database: not on the event loop
                    await run_in_threadpool(session.close)
                elif session.identity_map or session.new or session.deleted:
                    # nothing to end (every action commits): no connection is held, so
                    # closing only forgets the loaded objects, without a thread hop
                    session.close()
                # else nothing was loaded or held (an action that read and stored outside
                # the session, app.services): there is nothing to close


def signer(settings: Settings) -> URLSafeTimedSerializer:
    """Makes a player's token, as :func:`app.security.player_token` does (tests, tools)."""
    return URLSafeTimedSerializer(settings.secret_key, salt=TOKEN_SALT)


def player_id_from_cookie(settings: Settings, value: str | None) -> str | None:
    found = read_token(settings.secret_key, value, settings.cookie_max_age)
    return found[0] if found else None


def get_player(request: Request, session: SessionDep, settings: SettingsDep) -> Player:
    """The player named by the request's token (header or cookie): :func:`player_of` as a
    dependency, in a thread-pool hop of its own (the routes that do little else)."""
    return player_of(request, session, settings)


def player_of(request: Request, session: Session, settings: Settings, *, end: bool = True) -> Player:
    """The player named by the request's token (header or cookie).

    A request without a valid token gets a new player that exists only in memory, with a
    token that names it; the row is written only when the player first does something
    worth keeping (:func:`app.services.ensure_player`), so a visitor who only looks at the
    page costs no storage.  A token issued before the player's ``tokens_valid_after``
    (revoked) names nobody.

    ``end``: end the lookup's transaction before returning (a dependency, whose route runs
    in another hop); :func:`as_player` leaves it to the work that follows in the same hop."""
    return _player_and_game(request, session, settings, end=end)[0]


def _player_and_game(request: Request, session: Session, settings: Settings, *, end: bool = True,
                     game_id: str | None = None) -> tuple[Player, GameRecord | None]:
    """:func:`player_of`, and with a ``game_id`` that game of the player's too, read in the
    same statement (None: not found that way, the services then look for it as usual)."""
    identity = identify(request)
    player, game = None, None
    if identity is not None:
        if game_id is None:
            player = services.get_player(session, identity.player_id)
        else:
            player, game = services.get_player_and_game(session, identity.player_id, game_id)
    if identity is not None and player is not None and player.tokens_valid_after is not None:
        revoked = player.tokens_valid_after.replace(tzinfo=player.tokens_valid_after.tzinfo or UTC)
        if identity.issued is None or identity.issued < revoked.timestamp():
            identity, player, game = None, None, None
    if player is None:
        player = Player(id=identity.player_id if identity else services.new_id())
    if end:
        # the lookup's transaction ends here: the connection goes back to the pool before
        # this request waits for its next thread
        session.commit()
    state = request.state
    if identity is None or token_is_old(identity, settings.cookie_max_age):
        token = player_token(settings.secret_key, player.id)
        state.set_player_cookie = token
        state.send_player_token = True
    else:
        token = str(request.headers.get(PLAYER_HEADER) if identity.source == "header"
                    else request.cookies.get(settings.cookie_name))
        # a frame that names its player by header reads it back from every answer
        state.send_player_token = identity.source == "header"
    state.player_id = player.id
    state.player_token = token
    state.player_new = identity is None
    return player, game


CurrentPlayer = Annotated[Player, Depends(get_player)]

T = TypeVar("T")


async def as_player(request: Request, work: Callable[[Session, Player, services.Context], T],
                    game_id: str | None = None, views: bool = True) -> T:
    """``work(session, player, context)`` for the request's player, the player's lookup and
    the work in one thread-pool hop: the JSON API's routes, where the dependencies above
    (FastAPI solves their tree again for every request) and a hop for the lookup alone were
    most of an action's CPU (docs/benchmarks.md, "CPU per action").

    The lookup's transaction is not ended on its own: the work's first read (the game)
    continues it, on the same pooled connection, and every work ends its transaction
    before anything slow (the computer players, a search) and before it returns.

    ``game_id``: the game the request names, read in the same statement as the player and
    handed to the work in its context (:attr:`app.services.Context.game`).  ``views``: the
    context's (:attr:`app.services.Context.views`)."""
    def lookup_and_work() -> T:
        session = get_session(request)
        settings = get_settings(request)
        player, game = _player_and_game(request, session, settings, end=False, game_id=game_id)
        return work(session, player, context_of(request, game, views))

    return await run_in_threadpool(lookup_and_work)
