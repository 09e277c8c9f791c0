"""Request dependencies: the engine, settings and worker from app.state, and the token's scope check."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.types import JSON_MAX_ID, TELEGRAM_PATTERN
from app.auth import Permission, TokenGrant
from app.config import Settings
from app.domain import Caller
from app.engines.base import Engine
from app.logs import current_request_id
from app.services.search import resolve_caller
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
    """A router dependency: the token must carry `needed` (admin covers bot)."""

    def check(grant: GrantDep) -> None:
        if not grant.allows(needed):
            raise HTTPException(status.HTTP_403_FORBIDDEN, f"this token's scope ({grant.scope}) does not "
                                f"allow this endpoint (it needs {needed})")

    return check


def caller_for(engine: Engine, grant: TokenGrant, employee_id: int | None, telegram_id: str | None) -> Caller:
    """Who asks, from EMPLOYEES, if this token may act for them (403 otherwise).

    An id outside the token's list is refused before the lookup, so such a token cannot probe
    which employee ids exist; a role limit needs the row, so it is checked after it.
    """
    if employee_id is not None and not grant.may_act_as(employee_id):
        raise _forbidden(f"employee {employee_id}")
    caller = resolve_caller(engine, employee_id, telegram_id)
    if not grant.may_act_as(caller.employee_id, caller.role):
        raise _forbidden(f"employee {caller.employee_id}")
    return caller


def who(engine: EngineDep, grant: GrantDep,
        employee_id: Annotated[int | None, Query(gt=0, le=JSON_MAX_ID, description="the person's "
                                                 "EMPLOYEES.EMPLOYEE_ID")] = None,
        telegram_id: Annotated[str | None, Query(max_length=64, pattern=TELEGRAM_PATTERN,
                                                 description="or their EMPLOYEES.TELEGRAM_ID")] = None) -> Caller:
    """The person a GET/PATCH/DELETE acts for, named in the query (exactly one of the two ids)."""
    if (employee_id is None) == (telegram_id is None):
        raise HTTPException(422, [{
            "type": "value_error", "loc": ["query"], "msg": "give exactly one of employee_id or telegram_id"}])
    return caller_for(engine, grant, employee_id, telegram_id)


WhoDep = Annotated[Caller, Depends(who)]


def _forbidden(employee: str) -> HTTPException:
    return HTTPException(status.HTTP_403_FORBIDDEN, f"this token may not act on behalf of {employee}")


def nudge(worker: Worker | None) -> None:
    """After a write: let the worker index it now rather than at the next tick."""
    if worker is not None:
        worker.nudge(request_id=current_request_id())


def only_query(*allowed: str):
    """A dependency refusing query parameters the endpoint does not define (422, not silently ignored:
    a misspelt filter such as ?telegramid= must not return the whole list)."""

    def check(request: Request) -> None:
        unknown = sorted(set(request.query_params) - set(allowed))
        if unknown:
            raise HTTPException(422, [
                {"type": "extra_forbidden", "loc": ["query", name], "msg": "unknown query parameter"}
                for name in unknown])

    return check
