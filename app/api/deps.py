"""Request dependencies: the engine, settings and worker from app.state, and the token's scope check."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.auth import Permission, TokenGrant
from app.config import Settings
from app.engines.base import Engine
from app.logs import current_request_id
from app.worker import Worker

# auto_error=False: TokenGate has already authenticated; this only puts the scheme in OpenAPI.
_bearer = HTTPBearer(auto_error=False, description="A token from RAG_API_TOKENS or RAG_API_TOKEN_SCOPES")


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_engine(request: Request) -> Engine:
    return request.app.state.engine


def get_worker(request: Request) -> Worker | None:
    return request.app.state.worker


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
WorkerDep = Annotated[Worker | None, Depends(get_worker)]


def current_grant(
    request: Request,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],  # documents the scheme
) -> TokenGrant:
    """The grant app.api.middleware.TokenGate found for this request's token."""
    grant = getattr(request.state, "grant", None)
    if grant is None:  # only if the gate is not mounted: refuse rather than serve unauthenticated
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing or invalid bearer token",
                            headers={"WWW-Authenticate": "Bearer"})
    return grant


GrantDep = Annotated[TokenGrant, Depends(current_grant)]


def require_scope(needed: Permission):
    """A router dependency: the token must carry `needed` or more (admin > bot > user). app.api.middleware.ScopeGate
    applies the same rule before the body is read; this one is the route's own (and puts 403 in OpenAPI)."""

    def check(grant: GrantDep) -> None:
        if not grant.allows(needed):
            raise HTTPException(status.HTTP_403_FORBIDDEN, scope_refusal(grant, needed))

    return check


def scope_refusal(grant: TokenGrant, needed: Permission) -> str:
    return f"this token's scope ({grant.scope}) does not allow this endpoint (it needs {needed})"


def nudge(worker: Worker | None) -> None:
    """After a write: let the worker index it now rather than at the next tick."""
    if worker is not None:
        worker.nudge(request_id=current_request_id())


