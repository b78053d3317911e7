"""Request dependencies as ``Annotated`` aliases: settings, database session, the player."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from itsdangerous import BadData, URLSafeSerializer
from sqlmodel import Session

from . import services
from .config import Settings
from .models import Player

COOKIE_SALT = "hearts-player"


def get_settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


def get_session(request: Request) -> Iterator[Session]:
    with Session(request.app.state.db_engine, expire_on_commit=False) as session:
        # the services hand Hard's searches to the app's worker pool (app.thinking)
        session.info["thinker"] = getattr(request.app.state, "thinker", None)
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]


def signer(settings: Settings) -> URLSafeSerializer:
    return URLSafeSerializer(settings.secret_key, salt=COOKIE_SALT)


def player_id_from_cookie(settings: Settings, value: str | None) -> str | None:
    if not value:
        return None
    try:
        pid = signer(settings).loads(value)
    except (BadData, ValueError, TypeError, UnicodeError):
        # tampered, truncated or not even text: the request simply has no player yet
        return None
    return pid if isinstance(pid, str) and 0 < len(pid) <= 32 else None


def get_player(request: Request, session: SessionDep, settings: SettingsDep) -> Player:
    """The player named by the signed cookie, or a new anonymous one (the cookie is then
    set on the response by the middleware in :mod:`app.main`)."""
    pid = player_id_from_cookie(settings, request.cookies.get(settings.cookie_name))
    player = services.get_player(session, pid)
    if player is None:
        player = services.create_player(session)
        request.state.set_player_cookie = signer(settings).dumps(player.id)
    request.state.player_id = player.id
    return player


CurrentPlayer = Annotated[Player, Depends(get_player)]
