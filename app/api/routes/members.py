"""Project membership (issue 32): PUT / DELETE /projects/{project_id}/members/{employee_id} and the list
GET /projects/{project_id}/members (the list envelope). Admin tokens only: membership decides who sees what."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Response, status
from pydantic import BaseModel, Field

from app.api.deps import EngineDep
from app.api.listing import envelope, page_model, query_model
from app.api.schemas import CURSOR_ISSUED, beyond_schema, error_response
from app.api.types import JSON_MAX_ID
from app.services import members

router = APIRouter(prefix="/projects", tags=["projects"])
ProjectId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the project's id")]
EmployeeId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the employee's id")]
NOT_FOUND = {404: error_response("unknown project or employee id")}


class MemberPublic(BaseModel):
    project_id: int
    employee_id: int
    source: Literal["manual", "jira", "github", "file", "activity"] = Field(
        description="who set it: a PUT (manual), a tracker sync (jira, github), a mapping file, or derived from "
                    "activity (ragctl import --members-from-activity)")
    added_at: dt.datetime = Field(description="when the membership was first set (UTC); a repeated PUT keeps it")


MemberPage = page_model(MemberPublic, "MemberPage")
MemberListQuery = query_model("MemberListQuery", members.MAX_PAGE, 100, {})


@router.put("/{project_id}/members/{employee_id}", name="put_project_member", response_model=MemberPublic,
            responses=NOT_FOUND, description=(
                "Make the employee a member of the project (idempotent: a repeated PUT changes nothing but the "
                "source, which becomes manual). Under RAG_ACCESS_RULE=project a developer sees every task of the "
                "projects they are a member of, from their next question."))
def put_member(project_id: ProjectId, employee_id: EmployeeId, engine: EngineDep):
    return members.as_dict(members.add_member(engine, project_id, employee_id))


@router.delete("/{project_id}/members/{employee_id}", name="delete_project_member",
               status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND, description=(
                   "End the membership (idempotent: 204 whether or not it existed). Counts from the person's next "
                   "question: answers of their conversations that rested on a task they no longer see are withdrawn."))
def delete_member(project_id: ProjectId, employee_id: EmployeeId, engine: EngineDep) -> Response:
    members.remove_member(engine, project_id, employee_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{project_id}/members", name="read_project_members", response_model=MemberPage,
            responses={404: error_response("unknown project id")}, openapi_extra=beyond_schema(CURSOR_ISSUED),
            description="One page of the project's members, by employee id. Unknown query parameters are a 422.")
def read_members(project_id: ProjectId, engine: EngineDep,
                 params: Annotated[MemberListQuery, Query()]):  # type: ignore[valid-type]
    listing = members.list_members(engine, project_id, params.limit, params.cursor)  # type: ignore[attr-defined]
    return envelope(listing, members.as_dict)
