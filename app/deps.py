"""Request dependencies as ``Annotated`` aliases: settings, database session, the player.

Each dependency that touches the database ends its transaction before it returns, so no
connection is held across FastAPI's hops between the thread-pool calls of a request's
dependencies and its route (see :mod:`app.limits` for why that matters).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from typing import Annotated

from fastapi import Depends, Request
from itsdangerous import URLSafeTimedSerializer
from sqlmodel import Session

from . import services
from .config import Settings
from .limits import client_key
from .models import Player
from .security import PLAYER_HEADER, TOKEN_SALT, identify, player_token, read_token, token_is_old

COOKIE_SALT = TOKEN_SALT


def get_settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def get_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.db_engine, expire_on_commit=False) as session:
        # the services hand Hard's searches to the app's worker pool (app.thinking) and
        # rate-limit creations per client (app.limits)
        session.info["thinker"] = getattr(request.app.state, "thinker", None)
        session.info["client"] = client_key(request.scope)
        session.info["settings"] = request.app.state.settings
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]


def signer(settings: Settings) -> URLSafeTimedSerializer:
    """Makes a player's token, as :func:`app.security.player_token` does (tests, tools)."""
    return URLSafeTimedSerializer(settings.secret_key, salt=TOKEN_SALT)


def player_id_from_cookie(settings: Settings, value: str | None) -> str | None:
    found = read_token(settings.secret_key, value, settings.cookie_max_age)
    return found[0] if found else None


def get_player(request: Request, session: SessionDep, settings: SettingsDep) -> Player:
    """The player named by the request's token (header or cookie).

    A request without a valid token gets a new player that exists only in memory, with a
    token that names it; the row is written only when the player first does something
    worth keeping (:func:`app.services.ensure_player`), so a visitor who only looks at the
    page costs no storage.  A token issued before the player's ``tokens_valid_after``
    (revoked) names nobody."""
    identity = identify(request)
    player = services.get_player(session, identity.player_id) if identity else None
    if identity is not None and player is not None and player.tokens_valid_after is not None:
        revoked = player.tokens_valid_after.replace(tzinfo=player.tokens_valid_after.tzinfo or UTC)
        if identity.issued is None or identity.issued < revoked.timestamp():
            identity, player = None, None
    if player is None:
        player = Player(id=identity.player_id if identity else services.new_id())
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
    return player


CurrentPlayer = Annotated[Player, Depends(get_player)]
