"""What a chat client looks up around the chat itself: who it answers as, and the projects it can scope to.

Same rules as the chat and the conversations: who asks is named in the query (employee_id or telegram_id)
unless the token is bound to one employee, the token must be allowed to act for them (403), and an
unknown person is a 404. The project list answers the one envelope of app/api/listing.py.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import Field

from app.api.chat_schemas import ChatCallerPublic, ProjectChoicePublic
from app.api.deps import EngineDep, GrantDep
from app.api.listing import envelope, page_model, query_model
from app.api.routes.conversations import WhoDep, WhoQuery
from app.api.schemas import ASKER_BY_TOKEN, CURSOR_ISSUED, beyond_schema, error_response
from app.api.types import Name
from app.entities import EMPLOYEES
from app.services import projects
from app.services.askers import resolve_asker

router = APIRouter(prefix="/chat", tags=["chat"])
UNKNOWN = {404: error_response("unknown employee or Telegram id")}
MAX_PAGE = 200
ProjectListQuery = query_model("ProjectListQuery", MAX_PAGE, 50, {
    **{name: (field.annotation, field) for name, field in WhoQuery.model_fields.items()},
    "query": (Name | None, Field(None, description="words naming or describing a project: then the 5 best matches, "
                                                   "best first, scored as the model's search_projects tool scores "
                                                   "them, on one page")),
})
ProjectChoicePage = page_model(ProjectChoicePublic, "ProjectChoicePage")


@router.get("/caller", response_model=ChatCallerPublic, responses=UNKNOWN,
            openapi_extra=beyond_schema(ASKER_BY_TOKEN))
async def read_caller(caller: WhoDep, engine: EngineDep):
    """Who a chat for this person answers as: their first name and role, read from EMPLOYEES now."""
    row = await run_in_threadpool(engine.get, EMPLOYEES, caller.employee_id) or {}
    return {"employee_id": caller.employee_id, "role": caller.role, "first_name": row.get("first_name") or ""}


@router.get("/projects", response_model=ProjectChoicePage, responses=UNKNOWN,
            openapi_extra=beyond_schema(ASKER_BY_TOKEN, CURSOR_ISSUED))
async def list_projects(engine: EngineDep, grant: GrantDep,
                        params: Annotated[ProjectListQuery, Query()]):  # type: ignore[valid-type]
    """The projects this person may scope a conversation to (every employee sees every project), by name;
    or, with `query`, the best matches with their scores."""
    caller = await run_in_threadpool(resolve_asker, engine, grant, params.employee_id,  # type: ignore[attr-defined]
                                     params.telegram_id)  # type: ignore[attr-defined]
    if params.query is None:  # type: ignore[attr-defined]
        found = await run_in_threadpool(projects.listing, engine, params.limit, params.cursor)  # type: ignore[attr-defined]
    else:
        found = await run_in_threadpool(projects.matching, engine, caller, params.query)  # type: ignore[attr-defined]
    return envelope(found)
