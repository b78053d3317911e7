"""The app factory: ``create_app(Settings.from_env())``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from . import i18n
from .config import Settings
from .db import make_engine
from .routers import api, health, pages


def _root() -> Path:
    """Where templates/ and static/ live: next to the package in a checkout, or the
    working directory when the package is installed (the Docker image)."""
    here = Path(__file__).resolve().parent.parent
    return here if (here / "templates").is_dir() else Path.cwd()


ROOT = _root()
EMBED_PATHS = ("/embed",)


def create_app(settings: Settings) -> FastAPI:
    app = FastAPI(
        title="Hearts",
        version="1.0",
        description="Play Hearts against computer players. The JSON API under /api/v1 drives the same "
                    "games as the page; an anonymous player is identified by a signed cookie.",
        docs_url="/api/docs", redoc_url=None, openapi_url="/api/v1/openapi.json",
    )
    app.state.settings = settings
    app.state.db_engine = make_engine(settings.database_url)
    app.state.templates = Jinja2Templates(directory=str(ROOT / "templates"))
    i18n.install(app.state.templates.env)
    app.mount("/static", StaticFiles(directory=str(ROOT / "static")), name="static")
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(health.router)
    api.install_error_handlers(app)

    @app.middleware("http")
    async def cookies_and_framing(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        value = getattr(request.state, "set_player_cookie", None)
        if value:
            secure = request.url.scheme == "https" or settings.force_secure_cookie
            # inside a cross-site iframe a cookie is only sent when it is SameSite=None and
            # Secure; Partitioned keeps it to this embedding site (CHIPS)
            # (written by hand: Starlette only emits Partitioned on Python 3.14+)
            attrs = "SameSite=None; Secure; Partitioned" if secure else "SameSite=lax"
            response.headers.append(
                "set-cookie",
                f"{settings.cookie_name}={value}; Max-Age={settings.cookie_max_age}; Path=/; HttpOnly; {attrs}")
        if request.url.path in EMBED_PATHS:
            response.headers["Content-Security-Policy"] = "frame-ancestors *"
        else:
            response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
            response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        return response

    # added last, so outermost: the language prefix is gone before anything else sees the path
    app.add_middleware(i18n.LanguageMiddleware)
    return app


def app_from_env() -> FastAPI:
    """For ``uvicorn --factory app.main:app_from_env``."""
    return create_app(Settings.from_env())
