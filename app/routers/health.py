"""Liveness for the container HEALTHCHECK and load balancers: the database answers."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import text

from ..deps import SessionDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(session: SessionDep) -> dict[str, str]:
    session.exec(text("SELECT 1"))  # type: ignore[call-overload]
    return {"status": "ok"}
