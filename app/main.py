"""The app factory: ``create_app(Settings.from_env())``."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import errors, i18n, retention, tables
from .config import Settings
from .db import make_engine
from .deps import CloseSession
from .limits import AdmissionGate, StreamSlots
from .live import BROKER
from .routers import api, health, learn, pages
from .routers import tables as table_pages
from .security import (
    CSRF_HEADER,
    PLAYER_HEADER,
    HeadAsGet,
    HttpMiddleware,
    SecurityMiddleware,
    csrf_token,
    require_csrf,
)
from .services import Context
from .thinking import Thinker

log = logging.getLogger(__name__)

SWAGGER_UI = "/static/vendor/swagger-ui-dist-5.35.0"

GZIP_MIN_BYTES = 4096
"""The smallest answer sent gzipped: below it the bytes saved are at most two TCP segments
of a connection already open, and the compressor's set-up is most of its cost."""


def _root() -> Path:
    """Where templates/ and static/ live: next to the package in a checkout, or the
    working directory when the package is installed (the Docker image)."""
    here = Path(__file__).resolve().parent.parent
    return here if (here / "templates").is_dir() else Path.cwd()


ROOT = _root()


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tasks = []
        if settings.retention_interval_hours > 0:
            tasks.append(asyncio.create_task(retention.every(app.state.db_engine, settings)))
        # tables for friends: the news between processes, and the turns of the absent
        BROKER.start(app.state.db_engine)
        ctx = Context(settings=settings, thinker=app.state.thinker)
        tasks.append(asyncio.create_task(tables.watch(app.state.db_engine, ctx)))
        # what is loaded by now (modules, the app, its schemas and catalogues) lives as long
        # as the process: out of the garbage collector's sight, a full collection no longer
        # walks it (~35 ms each, a few per thousand actions; docs/benchmarks.md).  No
        # collection first: it would cost every start (each test's app) ~50 ms, and what is
        # freed by reference counting is freed frozen or not
        gc.freeze()
        yield
        gc.unfreeze()
        for task in tasks:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        BROKER.stop()
        app.state.thinker.close()

    app = FastAPI(
        lifespan=lifespan,
        title="Hearts",
        version="1.0",
        description="Play Hearts against computer players. The JSON API under /api/v1 drives the same "
                    "games as the page; an anonymous player is identified by a signed cookie (or the "
                    "X-Player-Token header). Every POST made with that cookie carries the player's "
                    "X-CSRF-Token header, whose value every API response also carries. Games dealt from a "
                    "seed you choose are practice games: they never count toward records. Too many new "
                    "games from one address get 429, and a full server 503; both say when to retry in "
                    "Retry-After.",
        docs_url=None, redoc_url=None, openapi_url="/api/v1/openapi.json",
        # FastAPI's own OpenTelemetry spans and metrics, only where the operator set OpenTelemetry
        # up (an OTEL_* variable): otherwise it asks the global providers at every request
        # whether they are configured (docs/benchmarks.md, "CPU per action")
        telemetry=None if _otel_configured() else {"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.db_engine = make_engine(settings.database_url, pool_size=settings.pool_size)
    # /healthz has its own connection, so it answers while every pooled one is in use
    app.state.health_engine = make_engine(settings.database_url, pool_size=1, overflow=1)
    app.state.thinker = Thinker()
    app.state.streams = StreamSlots(settings.streams_per_client)
    app.state.templates = Jinja2Templates(directory=str(ROOT / "templates"))
    # the templates are read once: not looked at on disk again for every page drawn
    app.state.templates.env.auto_reload = False
    i18n.install(app.state.templates.env)
    app.mount("/static", StaticFiles(directory=str(ROOT / "static")), name="static")
    app.state.templates.env.globals["csrf_token"] = lambda player_id: csrf_token(settings.secret_key, player_id)
    csrf = [Depends(require_csrf)]
    # the JSON API first: a request is matched against the routes in order, and the page's
    # routers have ~30 between them (none under /api/, so the order changes no answer)
    app.include_router(api.router, dependencies=csrf)
    app.include_router(pages.router, dependencies=csrf)
    app.include_router(learn.router, dependencies=csrf)
    app.include_router(table_pages.router, dependencies=csrf)
    app.include_router(health.router)
    errors.install(app, page=_refused, game_state=api.game_state)

    @app.get("/api/docs", include_in_schema=False)
    def api_docs() -> HTMLResponse:
        # Swagger UI vendored from the npm registry (pinned), started by a script file
        return HTMLResponse(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Hearts API</title><link rel="stylesheet" href="{SWAGGER_UI}/swagger-ui.css"></head>
<body><div id="swagger-ui" data-schema="/api/v1/openapi.json"></div>
<script src="{SWAGGER_UI}/swagger-ui-bundle.js"></script><script src="/static/api-docs.js"></script>
</body></html>""")

    # innermost: the JSON API's moves go to their routes without FastAPI's request handling
    app.add_middleware(api.HotRoutes)
    # the request's database session is closed once its answer is out
    app.add_middleware(CloseSession)
    # it sees the path after the language prefix is gone
    app.add_middleware(PlayerCookieMiddleware, settings=settings)

    # pages, fragments and static files go out gzipped (when the client accepts it).  Not
    # an answer under GZIP_MIN_BYTES: the JSON API's answers (1.5-2.7 KB) fit in two or
    # three TCP segments either way, and compressing each was 6 % of the server's CPU per
    # action (docs/benchmarks.md, "CPU per action, the long tail")
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES, compresslevel=6)

    # bounded work: at most max_active_requests inside, the rest wait a bounded time (app.limits)
    app.add_middleware(AdmissionGate, limit=settings.max_active_requests, timeout=settings.queue_timeout,
                       max_queue=settings.max_queue, state=app.state)

    # security headers, origin check and body limit (app.security)
    app.add_middleware(SecurityMiddleware)
    app.add_middleware(HeadAsGet)

    # added last, so outermost: the language prefix is gone before anything else sees the path
    app.add_middleware(i18n.LanguageMiddleware)
    return app


def _otel_configured() -> bool:
    return any(name.startswith("OTEL_") for name in os.environ)


def _refused(request: Request, reason: Exception | str, status: int) -> Response:
    """A refused page action: at a table for friends its table, else the game's."""
    if request.scope.get("path", "").startswith("/t/"):
        return table_pages.refused(request, reason, status)
    return pages.refused(request, reason, status)


class PlayerCookieMiddleware(HttpMiddleware):
    """Sets the cookie of a player whose token this request issued (a new or renewed one),
    gives JSON API clients their CSRF token in a response header (the page has it in
    hx-headers), and gives a frame that names its player by header the token back.  It
    only adds headers to ``http.response.start``."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        super().__init__(app)
        self.settings = settings

    async def http(self, scope: Scope, state: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        settings = self.settings

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra: list[tuple[bytes, bytes]] = []
                value = state.get("set_player_cookie")
                if value:
                    secure = scope.get("scheme") == "https" or settings.force_secure_cookie
                    # inside a cross-site iframe a cookie is only sent when it is SameSite=None and
                    # Secure; Partitioned keeps it to this embedding site (CHIPS)
                    # (written by hand: Starlette only emits Partitioned on Python 3.14+)
                    attrs = "SameSite=None; Secure; Partitioned" if secure else "SameSite=lax"
                    cookie = (f"{settings.cookie_name}={value}; Max-Age={settings.cookie_max_age}; "
                              f"Path=/; HttpOnly; {attrs}")
                    extra.append((b"set-cookie", cookie.encode("latin-1")))
                pid = state.get("player_id")
                headers = message.get("headers", ())
                if pid and scope.get("path", "").startswith("/api/"):
                    # JSON API clients read their CSRF token here (the page has it in hx-headers)
                    csrf = _CSRF_KEY
                    headers = [(k, v) for k, v in headers if k.lower() != csrf]
                    extra.append((csrf, csrf_token(settings.secret_key, pid).encode("latin-1")))
                if state.get("send_player_token") and state.get("player_token"):
                    extra.append((_PLAYER_KEY, str(state["player_token"]).encode("latin-1")))
                if extra:
                    message = {**message, "headers": [*headers, *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


_CSRF_KEY = CSRF_HEADER.lower().encode("latin-1")
_PLAYER_KEY = PLAYER_HEADER.lower().encode("latin-1")


def app_from_env() -> FastAPI:
    """For ``uvicorn --factory app.main:app_from_env``."""
    return create_app(Settings.from_env())
