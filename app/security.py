"""Request hardening: same-origin checks, per-player CSRF tokens, body limits, headers.

* A state-changing request (any method but GET/HEAD/OPTIONS) that a browser marks as
  coming from another site (``Sec-Fetch-Site: cross-site``/``same-site``, or an ``Origin``
  whose host is not the one the request was sent to) is refused with 403, before the app
  sees it.  Clients that send neither header (curl, scripts) are judged by the token alone.
* A state-changing request made *as an existing player* (a validly signed player cookie)
  must carry that player's token: the ``X-CSRF-Token`` header (HTMX sends it from
  ``hx-headers`` on ``<body>``; JSON API clients copy it from the ``X-CSRF-Token`` response
  header) or the ``csrf_token`` form field (plain HTML forms).  The token is an HMAC of the
  player id, so nothing is stored and every tab and server process agrees on it.  A
  request with no valid cookie acts for a brand-new anonymous player, who has nothing a
  forged request could harm, so it needs no token.
* Bodies above :data:`MAX_BODY_BYTES` are refused with 413 (the largest real request,
  the options form, is a few hundred bytes).
* Every response carries a Content-Security-Policy without inline script, framing
  forbidden except on the embeddable table, ``nosniff`` and a ``Referrer-Policy``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from base64 import urlsafe_b64encode
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlmodel import Session
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
MAX_BODY_BYTES = 16 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# the embeddable table, with or without a language prefix (/embed, /fr/embed, /pt-br/embed)
EMBED_PATH = re.compile(r"^(/[a-z]{2}(-[a-z0-9]{2,8})?)?/embed/?$")
DOCS_PATH = "/api/docs"

_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
           "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'")
"""Inline styles stay allowed: the table positions cards with ``style`` attributes, and
styles cannot run code.  Scripts come only from /static: no inline ``<script>``, no
``on…=`` handlers, no eval."""


def csrf_token(secret_key: str, player_id: str) -> str:
    """The player's token: stable for the player, unforgeable without the secret key."""
    mac = hmac.new(secret_key.encode(), b"csrf/" + player_id.encode(), hashlib.sha256).digest()
    return urlsafe_b64encode(mac[:24]).decode()


def tokens_match(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode("utf-8", "replace"))


class CsrfError(Exception):
    """A state-changing request as an existing player without that player's token."""


def content_security_policy(path: str, nonce: str | None = None) -> str:
    if path == DOCS_PATH and nonce:
        # the API docs page is FastAPI's Swagger UI: its loader script gets a nonce and
        # the UI itself comes from the CDN that page names
        cdn = "https://cdn.jsdelivr.net"
        return (f"default-src 'self'; script-src 'self' 'nonce-{nonce}' {cdn}; style-src 'self' 'unsafe-inline' {cdn}; "
                "img-src 'self' data: https://fastapi.tiangolo.com; connect-src 'self'; object-src 'none'; "
                "base-uri 'none'; frame-ancestors 'none'")
    ancestors = "*" if EMBED_PATH.match(path) else "'none'"
    return f"{_POLICY}; frame-ancestors {ancestors}"


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def cross_origin(scope: Scope) -> bool:
    """Whether a browser says this request comes from a page of another origin."""
    site = _header(scope, b"sec-fetch-site")
    if site is not None and site.strip().lower() in ("cross-site", "same-site"):
        return True
    origin = _header(scope, b"origin")
    if origin is None:
        return False
    if origin.strip().lower() == "null":
        # sandboxed frames and some redirects send "null": never our own page
        return True
    host = (_header(scope, b"host") or "").strip().lower()
    return urlsplit(origin.strip()).netloc.lower() != host


class _TooLarge(Exception):
    pass


class SecurityMiddleware:
    """Pure ASGI (so it can stop a body before the app reads it): origin check, body
    limit, and the security headers on every response."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        state: MutableMapping[str, Any] = scope.setdefault("state", {})
        nonce = secrets.token_urlsafe(16)
        state["csp_nonce"] = nonce

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ())
                           if k.lower() not in (b"content-security-policy", b"x-frame-options")]
                framable = EMBED_PATH.match(path) is not None or bool(state.get("framable"))
                policy = content_security_policy(path, nonce)
                if state.get("framable") and not EMBED_PATH.match(path):
                    policy = policy.replace("frame-ancestors 'none'", "frame-ancestors *")
                headers.append((b"content-security-policy", policy.encode()))
                if not framable:
                    headers.append((b"x-frame-options", b"DENY"))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"same-origin"))
                message = {**message, "headers": headers}
            await send(message)

        method = scope.get("method", "GET").upper()
        if method not in SAFE_METHODS and cross_origin(scope):
            await _plain(403, "Requests from other sites are refused.", scope)(scope, receive, send_with_headers)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                too_big = int(length) > self.max_body
            except ValueError:
                await _plain(400, "Bad Content-Length.", scope)(scope, receive, send_with_headers)
                return
            if too_big:
                await _plain(413, "The request is too large.", scope)(scope, receive, send_with_headers)
                return
            await self.app(scope, receive, send_with_headers)
            return
        if method in SAFE_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        # no declared length (chunked): read the body here, up to the limit, then replay it
        body = bytearray()
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                body += message.get("body", b"")
                if len(body) > self.max_body:
                    raise _TooLarge
                if not message.get("more_body", False):
                    break
        except _TooLarge:
            await _plain(413, "The request is too large.", scope)(scope, receive, send_with_headers)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)


def _wants_json(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    return path.startswith("/api/") or "application/json" in (_header(scope, b"accept") or "")


def _plain(status: int, message: str, scope: Scope) -> Response:
    if _wants_json(scope):
        key = {403: "forbidden", 413: "too_large"}.get(status, "bad_request")
        return JSONResponse({"error": key, "detail": message}, status_code=status)
    return HTMLResponse(_error_page(message), status_code=status)


def _error_page(message: str) -> str:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Hearts</title></head>"
            f"<body><p>{message}</p><p><a href=\"/\">Back to the game</a></p></body></html>")


# ---- CSRF: a dependency on every router, checked before any other work ----------------------

def player_id_of(request: Request) -> str | None:
    """The player id from a validly signed cookie, else None (import here to avoid a cycle)."""
    from .deps import player_id_from_cookie

    settings = request.app.state.settings
    return player_id_from_cookie(settings, request.cookies.get(settings.cookie_name))


async def require_csrf(request: Request) -> None:
    if request.method.upper() in SAFE_METHODS:
        return
    pid = player_id_of(request)
    if pid is None:
        return
    expected = csrf_token(request.app.state.settings.secret_key, pid)
    given = request.headers.get(CSRF_HEADER)
    if given is None and "form" in request.headers.get("content-type", ""):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        given = value if isinstance(value, str) else None
    if not tokens_match(expected, given):
        raise CsrfError("This page is out of date or the request did not come from it; reload the page and try again.")


async def csrf_failed(request: Request, exc: Exception) -> Response:
    message = str(exc)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": "csrf", "detail": message}, status_code=403)
    if request.headers.get("HX-Request") == "true":
        # the page holds a token for another player (the cookie changed in another tab):
        # load the page again, which brings the right token
        return Response(status_code=403, headers={"HX-Refresh": "true"})
    return HTMLResponse(_error_page(message), status_code=403)



# ---- malformed requests: a clear 422 in the form the client reads -------------------------------

def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
        parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else str(err.get("msg", "invalid")))
    return "Invalid request (" + "; ".join(parts) + ")"


async def invalid_request(request: Request, exc: Exception) -> Response:
    """FastAPI's validation errors, in the API's ``{"error", "detail"}`` shape, and for the
    pages as the table with the message (what a forged or garbled form post gets)."""
    assert isinstance(exc, RequestValidationError)
    message = _validation_message(exc)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": "invalid_request", "detail": message}, status_code=422)
    return await run_in_threadpool(_invalid_form, request, message)


def _invalid_form(request: Request, message: str) -> Response:
    from . import services
    from .routers import pages

    with Session(request.app.state.db_engine, expire_on_commit=False) as session:
        player = services.get_player(session, player_id_of(request))
        if player is None:
            return HTMLResponse(_error_page(message), status_code=422)
        response = pages._failed(request, session, player, ValueError(message), embed=False)
        response.status_code = 422
        return response


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (a body that is not JSON, an unknown route) in the API's shape."""
    assert isinstance(exc, StarletteHTTPException)
    if not request.url.path.startswith("/api/"):
        return await http_exception_handler(request, exc)
    key = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
    return JSONResponse({"error": key, "detail": str(exc.detail)}, status_code=exc.status_code,
                        headers=getattr(exc, "headers", None))
