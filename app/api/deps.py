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
from app.services.search import UnknownCallerError, resolve_caller
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
    """A router dependency: the token must carry `needed` (admin covers bot). app.api.middleware.ScopeGate
    applies the same rule before the body is read; this one is the route's own (and puts 403 in OpenAPI)."""

    def check(grant: GrantDep) -> None:
        if not grant.allows(needed):
            raise HTTPException(status.HTTP_403_FORBIDDEN, scope_refusal(grant, needed))

    return check


def scope_refusal(grant: TokenGrant, needed: Permission) -> str:
    return f"this token's scope ({grant.scope}) does not allow this endpoint (it needs {needed})"


def caller_for(engine: Engine, grant: TokenGrant, employee_id: int | None, telegram_id: str | None) -> Caller:
    """Who asks, from EMPLOYEES, if this token may act for them (403 otherwise).

    A token limited to some employees (by id or role) gets the same 403, naming what it asked for, for
    anyone outside its reach, whether that person exists or not: it cannot probe which ids or Telegram
    ids exist, which are managers, or which employee a Telegram id is. An id outside its list is refused
    before the lookup; a role limit needs the row."""
    asked = f"employee {employee_id}" if employee_id is not None else f"Telegram user {telegram_id}"
    if employee_id is not None and not grant.may_act_as(employee_id):
        raise _forbidden(asked)
    try:
        caller = resolve_caller(engine, employee_id, telegram_id)
    except UnknownCallerError:
        if grant.limited:
            raise _forbidden(asked) from None
        raise
    if not grant.may_act_as(caller.employee_id, caller.role):
        raise _forbidden(asked)
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
