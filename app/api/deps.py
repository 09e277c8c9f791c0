"""Request dependencies: the engine, settings and worker from app.state, and the bearer-token check."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.config import Settings
from app.engines.base import Engine
from app.logs import current_request_id
from app.worker import Worker

# auto_error=False: we answer 401 with WWW-Authenticate ourselves (HTTPBearer alone says 403).
_bearer = HTTPBearer(auto_error=False, description="A token from RAG_API_TOKENS")


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_engine(request: Request) -> Engine:
    return request.app.state.engine


def get_worker(request: Request) -> Worker | None:
    return request.app.state.worker


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
WorkerDep = Annotated[Worker | None, Depends(get_worker)]


def require_token(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Accept ``Authorization: Bearer <token>`` for a token in RAG_API_TOKENS; an empty set accepts nothing."""
    offered = credentials.credentials.encode() if credentials is not None else b""
    # Compare against every token without stopping early, so timing says nothing about which matched.
    matched = False
    for token in settings.tokens:
        matched |= hmac.compare_digest(offered, token.encode())
    if not matched:
        raise HTTPException(
            status_code=status.HTTP_401_UNAUTHORIZED,
            detail="missing or invalid bearer token" if settings.tokens else "no API tokens are configured (set RAG_API_TOKENS)",
            headers={"WWW-Authenticate": "Bearer"},
        )


def nudge(worker: Worker | None) -> None:
    """After a write: let the worker index it now rather than at the next tick."""
    if worker is not None:
        worker.nudge(request_id=current_request_id())
