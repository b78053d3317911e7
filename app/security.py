"""Request hardening: same-origin checks, per-player CSRF tokens, body limits, headers.

* A state-changing request (any method but GET/HEAD/OPTIONS) that a browser marks as
  coming from another site (``Sec-Fetch-Site: cross-site``/``same-site``, or an ``Origin``
  whose host is not the one the request was sent to) is refused with 403, before the app
  sees it.  Clients that send neither header (curl, scripts) are judged by the token alone.
* The player is named by a signed token (:func:`player_token`: the player id and the time
  it was issued, so it expires and can be revoked), carried either by the ``HttpOnly``
  cookie or, where a browser keeps no cookie (a frame on another site with third-party
  cookies blocked), by the ``X-Player-Token`` header that ``static/identity.js`` sends from
  the frame's own storage.  The header wins when both are present.
* A state-changing request made *as an existing player through the cookie* must carry that
  player's CSRF token: the ``X-CSRF-Token`` header (HTMX sends it from ``hx-headers`` on
  ``<body>``; JSON API clients copy it from the ``X-CSRF-Token`` response header) or the
  ``csrf_token`` form field (plain HTML forms).  The token is an HMAC of the player id, so
  nothing is stored and every tab and server process agrees on it.  A request identified by
  the ``X-Player-Token`` header needs none: a page of another site cannot send a custom
  header to us (that takes a CORS preflight, which this app never grants) and cannot read
  the token, so the header itself proves the request came from our own frame.  A request
  with neither acts for a brand-new anonymous player, who has nothing a forged request could
  harm, so it needs no token.
* Bodies above :data:`MAX_BODY_BYTES` are refused with 413, counted as the bytes arrive,
  whatever ``Content-Length`` or ``Transfer-Encoding`` say (the largest real request, the
  options form, is a few hundred bytes).
* Every response carries a Content-Security-Policy without inline script, framing
  forbidden except on the embeddable table, ``nosniff`` and a ``Referrer-Policy``; every
  answer but a static file ``Cache-Control: no-store`` (pages and API answers carry a
  player's tokens).
* HEAD is answered wherever GET is, and a redirect made for a request with a language
  prefix (``/it/embed/`` → ``/it/embed``) keeps the prefix.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import time
from base64 import urlsafe_b64encode
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from itsdangerous import BadData, URLSafeSerializer, URLSafeTimedSerializer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import CsrfError, error_page

CSRF_HEADER = "X-CSRF-Token"
PLAYER_HEADER = "X-Player-Token"
TOKEN_SALT = "hearts-player"
CSRF_FIELD = "csrf_token"
MAX_BODY_BYTES = 16 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# the embeddable table, with or without a language prefix (/embed, /fr/embed, /pt-br/embed)
EMBED_PATH = re.compile(r"^(/[a-z]{2}(-[a-z0-9]{2,8})?)?/embed/?$")
DOCS_PATH = "/api/docs"
STATIC_PREFIX = "/static/"

_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
           "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'")
"""Inline styles stay allowed: the table positions cards with ``style`` attributes, and
styles cannot run code.  Scripts come only from /static: no inline ``<script>``, no
``on…=`` handlers, no eval."""


@functools.lru_cache(maxsize=4096)
def csrf_token(secret_key: str, player_id: str) -> str:
    """The player's token: stable for the player, unforgeable without the secret key.

    Kept for the process's recent players: an API action computed it twice (the CSRF check,
    then the answer's header), an HMAC each time."""
    mac = hmac.new(secret_key.encode(), b"csrf/" + player_id.encode(), hashlib.sha256).digest()
    return urlsafe_b64encode(mac[:24]).decode()


def tokens_match(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode("utf-8", "replace"))


# ---- player tokens ---------------------------------------------------------------------------

def player_token(secret_key: str, player_id: str) -> str:
    """The signed token naming a player, stamped with the time it is issued."""
    return URLSafeTimedSerializer(secret_key, salt=TOKEN_SALT).dumps(player_id)


@dataclass(frozen=True)
class Identity:
    player_id: str
    issued: float | None
    """When the token was issued (seconds since the epoch); None for a cookie from before
    tokens carried the time, which is renewed at once."""
    source: str
    """``"header"`` (``X-Player-Token``) or ``"cookie"``."""


def read_token(secret_key: str, value: str | None, max_age: float) -> tuple[str, float | None] | None:
    """The player id and issue time of a validly signed token younger than ``max_age``
    seconds, else None (tampered, expired, truncated or not even text)."""
    if not value or len(value) > 512:
        return None
    found = _signed(secret_key, value)
    if found is None:
        return None
    pid, when = found
    if when is not None:
        # as itsdangerous judges the age: whole seconds, none in the future
        age = int(time.time()) - int(when)
        if age > int(max_age) or age < 0:
            return None
    return (pid, when) if isinstance(pid, str) and 0 < len(pid) <= 32 else None


@functools.lru_cache(maxsize=4096)
def _signed(secret_key: str, value: str) -> tuple[Any, float | None] | None:
    """What a token signed with ``secret_key`` says and when it was issued (None for the
    untimed cookie of earlier versions), whatever its age; None if it is not validly signed.

    Kept for the process's recent tokens: a signature checked once stays good for the same
    key, and checking it was the dearest part of naming the player on every request (the
    age is judged on every read, by :func:`read_token`)."""
    try:
        pid, issued = URLSafeTimedSerializer(secret_key, salt=TOKEN_SALT).loads(value, return_timestamp=True)
        return pid, issued.timestamp()
    except (BadData, ValueError, TypeError, UnicodeError):
        try:  # the untimed cookie of earlier versions: still this player, renewed on use
            return URLSafeSerializer(secret_key, salt=TOKEN_SALT).loads(value), None
        except (BadData, ValueError, TypeError, UnicodeError):
            return None


def identify(request: Request) -> Identity | None:
    """Who a request says it is: the ``X-Player-Token`` header if it holds a valid token,
    else the cookie.  Shared by the CSRF check and :func:`app.deps.get_player`, so both
    always judge the same player.

    Read once per request (kept in the request's state): checking a token's signature is
    the dearest part, and the CSRF check and the player dependency both ask."""
    state = request.scope.setdefault("state", {})
    if _IDENTITY in state:
        known: Identity | None = state[_IDENTITY]
        return known
    settings = request.app.state.settings
    identity = None
    for source, value in (("header", request.headers.get(PLAYER_HEADER)),
                          ("cookie", request.cookies.get(settings.cookie_name))):
        found = read_token(settings.secret_key, value, settings.cookie_max_age)
        if found is not None:
            identity = Identity(found[0], found[1], source)
            break
    state[_IDENTITY] = identity
    return identity


_IDENTITY = "identity"


def token_is_old(identity: Identity, max_age: float, now: float | None = None) -> bool:
    """Past half its life: the answer carries a fresh token, so a player who comes back
    keeps their games however long they play."""
    now = time.time() if now is None else now
    return identity.issued is None or now - identity.issued > max_age / 2


def content_security_policy(path: str) -> str:
    # the API docs page runs the vendored Swagger UI from /static like every other script
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


class HttpMiddleware:
    """A pure ASGI middleware that acts on HTTP requests only (:meth:`http`; the lifespan
    and anything else pass straight through).  Pure ASGI rather than Starlette's
    ``@app.middleware("http")``, which would stream every response through a second task."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # the dependencies (app.deps) write into this same dict through request.state
        await self.http(scope, scope.setdefault("state", {}), receive, send)

    async def http(self, scope: Scope, state: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        raise NotImplementedError


class SecurityMiddleware(HttpMiddleware):
    """Origin check, body limit (read here, so a body is stopped before the app reads it),
    security and cache headers on every response, and redirects that keep the request's
    language prefix."""

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY_BYTES) -> None:
        super().__init__(app)
        self.max_body = max_body

    async def http(self, scope: Scope, state: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                drop = (b"content-security-policy", b"x-frame-options")
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() not in drop]
                headers.append((b"content-security-policy", content_security_policy(path).encode()))
                if EMBED_PATH.match(path) is None:
                    headers.append((b"x-frame-options", b"DENY"))
                headers.append((b"x-content-type-options", b"nosniff"))
                headers.append((b"referrer-policy", b"same-origin"))
                if not path.startswith(STATIC_PREFIX) and not any(k.lower() == b"cache-control" for k, _ in headers):
                    # pages and API answers carry the player's tokens: never kept by a cache
                    headers.append((b"cache-control", b"no-store"))
                if 300 <= message["status"] < 400:
                    headers = _keep_prefix(headers, state)
                message = {**message, "headers": headers}
            await send(message)

        method = scope.get("method", "GET").upper()
        if method not in SAFE_METHODS and cross_origin(scope):
            await _plain(403, "Requests from other sites are refused.", scope)(scope, receive, send_with_headers)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _plain(400, "Bad Content-Length.", scope)(scope, receive, send_with_headers)
                return
            if declared > self.max_body:
                await _plain(413, "The request is too large.", scope)(scope, receive, send_with_headers)
                return
        if method in SAFE_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        # Read the body here, counting the bytes that really arrive, up to the limit, then
        # replay it.  Content-Length is not trusted: with "Transfer-Encoding: chunked" too, the
        # server reads chunks until the last one, whatever length was declared.
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before its body was whole: none of it is acted on
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _plain(413, "The request is too large.", scope)(scope, _disconnected, send_with_headers)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_headers)


async def _disconnected() -> Message:
    return {"type": "http.disconnect"}


def _keep_prefix(headers: list[tuple[bytes, bytes]], state: MutableMapping[str, Any]) -> list[tuple[bytes, bytes]]:
    """A redirect the app made for ``/it/embed/`` points at ``/embed``: the routes never see
    the prefix.  Put it back on a Location of this site that lacks it."""
    language = state.get("language")
    prefix: str = getattr(language, "prefix", "")
    if not prefix:
        return headers
    out = []
    for key, value in headers:
        if key.lower() == b"location":
            parts = urlsplit(value.decode("latin-1"))
            if not (parts.path == prefix or parts.path.startswith(prefix + "/")) and parts.path.startswith("/"):
                value = urlunsplit(parts._replace(path=prefix + parts.path)).encode("latin-1")
        out.append((key, value))
    return out


class HeadAsGet:
    """HEAD answered wherever GET is (FastAPI routes only answer the methods they name): the
    request is served as a GET and its body is not sent; the headers, Content-Length
    included, are the GET's."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD" or scope.get("path", "").startswith(STATIC_PREFIX):
            await self.app(scope, receive, send)
            return

        async def no_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, no_body)


def _wants_json(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    return path.startswith("/api/") or "application/json" in (_header(scope, b"accept") or "")


def _plain(status: int, message: str, scope: Scope) -> Response:
    if _wants_json(scope):
        key = {403: "forbidden", 413: "too_large"}.get(status, "bad_request")
        return JSONResponse({"error": key, "detail": message}, status_code=status)
    return HTMLResponse(error_page(message), status_code=status)


# ---- CSRF: a dependency on every router, checked before any other work ----------------------

def player_id_of(request: Request) -> str | None:
    """The player id from a valid token (header or cookie), else None."""
    identity = identify(request)
    return identity.player_id if identity else None


async def require_csrf(request: Request) -> None:
    if request.method.upper() in SAFE_METHODS:
        return
    identity = identify(request)
    if identity is None or identity.source == "header":
        # nobody yet, or a custom header that only our own page can send
        return
    expected = csrf_token(request.app.state.settings.secret_key, identity.player_id)
    given = request.headers.get(CSRF_HEADER)
    if given is None and "form" in request.headers.get("content-type", ""):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        given = value if isinstance(value, str) else None
    if not tokens_match(expected, given):
        raise CsrfError("This page is out of date or the request did not come from it; reload the page and try again.")
