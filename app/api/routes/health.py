"""Liveness and readiness probes: no token, so orchestrators can call them."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from app.api.deps import EngineDep
from app.api.schemas import Message
from app.engines.base import EngineError, UnavailableError

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Message)
def healthz() -> Message:
    """Liveness: the process answers."""
    return Message(status="ok")


@router.get("/readyz", response_model=Message, responses={503: {"model": Message}})
async def readyz(engine: EngineDep):
    """Readiness: the database answers, its schema is migrated and it can take writes (not full, not read-only)."""
    try:
        await run_in_threadpool(engine.ping)
    except EngineError as exc:
        headers = {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, UnavailableError) else None
        return JSONResponse(Message(status="unavailable", detail=str(exc)).model_dump(), status_code=503,
                            headers=headers)
    return Message(status="ready")
