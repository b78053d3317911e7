"""Health for the container HEALTHCHECK and load balancers: what works and what does not.

200 ``{"status": "ok", ...}`` when the database answers and the bot pool can take work;
503 ``{"status": "degraded", ...}`` otherwise, naming the part.  It never queues behind
the requests being served (the admission gate lets it through, and it has its own
database connection), so it answers during a burst too.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from ..feed import FEEDS

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(request: Request) -> JSONResponse:
    state = request.app.state
    try:
        with state.health_engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        database = "ok"
    except SQLAlchemyError:
        database = "unavailable"
    thinker = state.thinker
    bots = thinker.state()
    if bots == "broken":
        # said once, then replaced: the next action (or check) finds a working pool
        thinker.heal()
    ok = database == "ok" and bots != "broken"
    body: dict[str, Any] = {"status": "ok" if ok else "degraded", "database": database, "bots": bots}
    # the tables' event streams this process holds open (each a page of a table for friends),
    # the tables they show and the reads of those tables (one per change, shared by their streams)
    body["tables"] = FEEDS.stats()
    gate = getattr(state, "gate", None)
    if gate is not None:
        body["requests"] = {"active": gate.active, "waiting": gate.waiting}
    return JSONResponse(body, status_code=200 if ok else 503)
