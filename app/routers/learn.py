"""The Learn section: /learn, and /learn/<lesson>?card=… for the learner's move.

An attempt changes nothing on the server (the lessons are positions of a fixed story game),
so it is a GET: an HTMX request gets the lesson's fragment, a plain one the whole page with
that lesson as the attempt left it.  "Play your first hand" posts to /game/new like the table.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response
from jinja2_fragments import render_block

from engine import PlayerView

from .. import lessons, presenter, services
from ..deps import CurrentPlayer, SessionDep

router = APIRouter(include_in_schema=False)

TEMPLATE = "learn.html"
MAX_CARDS = 13
"""A hand's worth: more cards than that in one attempt is not a choice the page can make."""


def _context(request: Request, session: SessionDep, player: CurrentPlayer,
             screens: list[lessons.Screen]) -> dict[str, Any]:
    rec = services.current_game(session, player)
    in_progress = False
    if rec is not None and rec.status == "active":
        in_progress = presenter.in_progress(PlayerView.of(services.load_game(rec), rec.seat))
    return {"player": player, "screens": screens, "game": rec, "in_progress": in_progress,
            "pauses": {}, "embed": False, "base_url": str(request.base_url).rstrip("/")}


@router.get("/learn", response_class=HTMLResponse)
def learn(request: Request, session: SessionDep, player: CurrentPlayer) -> Response:
    ctx = _context(request, session, player, lessons.all_screens())
    return request.app.state.templates.TemplateResponse(request, TEMPLATE, ctx)


@router.get("/learn/{slug}", response_class=HTMLResponse)
def attempt(request: Request, slug: str, session: SessionDep, player: CurrentPlayer,
            card: Annotated[list[str] | None, Query()] = None,
            cards: Annotated[list[str] | None, Query()] = None) -> Response:
    """The lesson after the learner's move: ``card`` to play, or three ``cards`` to pass
    (none: the lesson as it starts, e.g. to try it again)."""
    if slug not in lessons.BY_SLUG:
        raise HTTPException(status_code=404, detail="no such lesson")
    choice = [*(card or ()), *(cards or ())]
    screen = lessons.attempt(slug, choice[:MAX_CARDS + 1])
    status = 422 if screen.verdict is not None and screen.verdict.kind == "invalid" else 200
    if request.headers.get("HX-Request") == "true":
        env = request.app.state.templates.env
        return HTMLResponse(render_block(env, TEMPLATE, "lesson", {"s": screen}), status_code=status)
    screens = [screen if s.slug == slug else s for s in lessons.all_screens()]
    ctx = _context(request, session, player, screens)
    return request.app.state.templates.TemplateResponse(request, TEMPLATE, ctx,
                                                        status_code=status)
