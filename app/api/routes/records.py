"""Create/read/update/delete for the tracker entities, one router per entry of app/entities.py."""

# No `from __future__ import annotations`: the handlers below are annotated with per-entity model
# classes held in local variables, which FastAPI could not resolve from strings.
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Response, status
from pydantic import BaseModel, create_model

from app.api.deps import EngineDep, WorkerDep, nudge, only_query
from app.api.routes import erasure
from app.api.schemas import DATE_ORDER, ENTITY_SCHEMAS, beyond_schema, error_response
from app.api.types import JSON_MAX_ID, TELEGRAM_PATTERN
from app.entities import ENTITIES, EntitySpec
from app.services import records

RowId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the row's primary key")]


Limit = Annotated[int, Query(ge=1, le=records.MAX_PAGE)]
Offset = Annotated[int, Query(ge=0, le=JSON_MAX_ID)]


def read_employees(engine: EngineDep, limit: Limit = 100, offset: Offset = 0,
                   telegram_id: Annotated[str | None, Query(
                       max_length=64, pattern=TELEGRAM_PATTERN,
                       description="only the employee with this EMPLOYEES.TELEGRAM_ID (none or one)")] = None):
    """Employees, or the one a Telegram user is (a bot maps its users with ?telegram_id=)."""
    if telegram_id is None:
        rows = records.list_records(engine, ENTITIES["employees"], limit, offset)
    else:
        rows = engine.employees_by_telegram(telegram_id)[offset:offset + limit]
    return {"data": rows, "count": len(rows)}


def routers() -> list[APIRouter]:
    # Employees get their DELETE from routes/erasure.py (the plain delete, or the erasure).
    crud = [crud_router(ENTITIES[name], *schemas, with_delete=name != "employees")
            for name, schemas in ENTITY_SCHEMAS.items()]
    return [*crud, erasure.router]


def crud_router(spec: EntitySpec, create_model_: type[BaseModel], update_model: type[BaseModel], public: type[BaseModel],
                with_delete: bool = True) -> APIRouter:
    """The five endpoints of one entity. Every write nudges the worker so it is searchable at once."""
    router = APIRouter(prefix=f"/{spec.name}", tags=[spec.name])
    singular = spec.name[:-1]
    page = create_model(f"{public.__name__.removesuffix('Public')}sPublic", data=(list[public], ...), count=(int, ...))
    not_found = {404: error_response(f"unknown {singular} id")}
    dated = beyond_schema(DATE_ORDER) if "end_date" in create_model_.model_fields else None
    conflict = {409: error_response("constraint violated (a referenced row is missing, or rows still refer to this one)")}

    @router.post("", name=f"create_{singular}", response_model=public, status_code=status.HTTP_201_CREATED, responses=conflict,
                 openapi_extra=dated)
    def create(body: create_model_, engine: EngineDep, worker: WorkerDep):  # type: ignore[valid-type]
        row = records.create_record(engine, spec, body.model_dump(mode="python"))
        nudge(worker)
        return row

    if spec.name == "employees":
        router.get("", name="read_employees", response_model=page,
                   dependencies=[Depends(only_query("limit", "offset", "telegram_id"))])(read_employees)
    else:
        @router.get("", name=f"read_{spec.name}", response_model=page,
                     dependencies=[Depends(only_query("limit", "offset"))])
        def read_all(engine: EngineDep, limit: Limit = 100, offset: Offset = 0):
            rows = records.list_records(engine, spec, limit, offset)
            return {"data": rows, "count": len(rows)}

    @router.get("/{row_id}", name=f"read_{singular}", response_model=public, responses=not_found)
    def read_one(row_id: RowId, engine: EngineDep):
        return records.get_record(engine, spec, row_id)

    @router.patch("/{row_id}", name=f"update_{singular}", response_model=public, responses={**not_found, **conflict},
                  openapi_extra=dated)
    def update(row_id: RowId, body: update_model, engine: EngineDep, worker: WorkerDep):  # type: ignore[valid-type]
        row = records.update_record(engine, spec, row_id, body.model_dump(mode="python", exclude_unset=True))
        nudge(worker)
        return row

    if with_delete:
        @router.delete("/{row_id}", name=f"delete_{singular}", status_code=status.HTTP_204_NO_CONTENT,
                       responses={**not_found, **conflict})
        def delete(row_id: RowId, engine: EngineDep, worker: WorkerDep) -> Response:
            records.delete_record(engine, spec, row_id)
            nudge(worker)
            return Response(status_code=status.HTTP_204_NO_CONTENT)

    return router
