"""Test clients that behave like the page: every request carries the player's CSRF token."""

from __future__ import annotations

from http.cookies import SimpleCookie

import httpx
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.deps import player_id_from_cookie
from app.security import CSRF_HEADER, csrf_token


def with_token(client: TestClient, app: FastAPI) -> TestClient:
    """Add the token for whichever player the request's cookie names (none without a cookie),
    the way the page's hx-headers and hidden fields do; security tests use a bare client."""
    settings = app.state.settings

    def add(request: httpx.Request) -> None:
        if CSRF_HEADER in request.headers:
            return
        jar: SimpleCookie = SimpleCookie()
        jar.load(request.headers.get("cookie", ""))
        morsel = jar.get(settings.cookie_name)
        pid = player_id_from_cookie(settings, morsel.value if morsel else None)
        if pid:
            request.headers[CSRF_HEADER] = csrf_token(settings.secret_key, pid)

    client.event_hooks["request"].append(add)
    return client
