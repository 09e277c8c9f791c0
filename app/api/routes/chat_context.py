"""What a chat client looks up around the chat itself: who it answers as, and the projects it can scope to.

Same rules as the chat: the person is named in the query (employee_id or telegram_id, exactly one), the
token must be allowed to act for them (403), and an unknown person is a 404.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool

from app.api.chat_schemas import ChatCallerPublic, ProjectChoicePublic
from app.api.deps import EngineDep, WhoDep, only_query
from app.api.schemas import EXACTLY_ONE_ASKER, beyond_schema, error_response
from app.api.types import JSON_MAX_ID, Name
from app.entities import EMPLOYEES
from app.services import projects

router = APIRouter(prefix="/chat", tags=["chat"])
UNKNOWN = {404: error_response("unknown employee or Telegram id")}
MAX_PAGE = 200


@router.get("/caller", response_model=ChatCallerPublic, responses=UNKNOWN,
            dependencies=[Depends(only_query("employee_id", "telegram_id"))],
            openapi_extra=beyond_schema(EXACTLY_ONE_ASKER))
async def read_caller(caller: WhoDep, engine: EngineDep):
    """Who a chat for this person answers as: their first name and role, read from EMPLOYEES now."""
    row = await run_in_threadpool(engine.get, EMPLOYEES, caller.employee_id) or {}
    return {"employee_id": caller.employee_id, "role": caller.role, "first_name": row.get("first_name") or ""}


@router.get("/projects", response_model=list[ProjectChoicePublic], responses=UNKNOWN,
            dependencies=[Depends(only_query("employee_id", "telegram_id", "query", "limit", "offset"))],
            openapi_extra=beyond_schema(EXACTLY_ONE_ASKER))
async def list_projects(
    caller: WhoDep, engine: EngineDep,
    query: Annotated[Name | None, Query(description="words naming or describing a project: then the 5 best "
                                                    "matches, best first, scored as the model's search_projects "
                                                    "tool scores them")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="page size of the plain listing")] = 50,
    offset: Annotated[int, Query(ge=0, le=JSON_MAX_ID, description="rows of the plain listing to skip")] = 0,
):
    """The projects this person may scope a conversation to (every employee sees every project), by name;
    or, with `query`, the best matches with their scores."""
    if query is None:
        return await run_in_threadpool(projects.listing, engine, limit, offset)
    return await run_in_threadpool(projects.matching, engine, caller, query)
