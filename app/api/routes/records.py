"""Create/read/update/delete for the tracker entities, one router per entry of app/entities.py."""

# No `from __future__ import annotations`: the handlers below are annotated with per-entity model
# classes held in local variables, which FastAPI could not resolve from strings.
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Response, status
from pydantic import BaseModel, Field

from app.api.deps import EngineDep, WorkerDep, nudge
from app.api.listing import QueryId, envelope, page_model, query_model
from app.api.routes import erasure
from app.api.schemas import CURSOR_ISSUED, DATE_ORDER, ENTITY_SCHEMAS, beyond_schema, error_response
from app.api.types import JSON_MAX_ID, TELEGRAM_PATTERN, Day, Label, SourceName
from app.domain import Role
from app.entities import ENTITIES, EntitySpec
from app.services import records

RowId = Annotated[int, Path(gt=0, le=JSON_MAX_ID, description="the row's primary key")]
DEFAULT_PAGE = 100
# How each kind of filter (app.services.records.Filter) reads in a query string.
_FILTER_TYPES: dict[str, Any] = {
    "id": (QueryId | Literal["none"], "an id, or none for rows without one"),
    "label": (Label, "equal, ignoring case"),
    "exact": (Annotated[str, Field(max_length=64, pattern=TELEGRAM_PATTERN)], "equal"),
    "key": (SourceName, "equal, exactly as stored (an imported row's source or key)"),
    "before": (Day, "strictly before this day (YYYY-MM-DD); rows without a date never match"),
    "after": (Day, "strictly after this day (YYYY-MM-DD); rows without a date never match"),
}
_TYPED_FILTERS = {("employees", "role"): (Role, "the role")}


def list_query(spec: EntitySpec) -> type[BaseModel]:
    """``limit``, ``cursor`` and the entity's filters (app.services.records.FILTERS), each optional."""
    fields = {}
    for name, flt in records.FILTERS[spec.name].items():
        annotation, what = _TYPED_FILTERS.get((spec.name, name)) or _FILTER_TYPES[flt.kind]
        fields[name] = (annotation | None, Field(None, description=f"{flt.column.lower()}: {what}"))
    return query_model(f"{_singular_title(spec)}ListQuery", records.MAX_PAGE, DEFAULT_PAGE, fields)


def _singular_title(spec: EntitySpec) -> str:
    return spec.name[:-1].capitalize()


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
    page = page_model(public, f"{public.__name__.removesuffix('Public')}Page")
    query = list_query(spec)
    not_found = {404: error_response(f"unknown {singular} id")}
    dated = beyond_schema(DATE_ORDER) if "end_date" in create_model_.model_fields else None
    conflict = {409: error_response("constraint violated (a referenced row is missing, or rows still refer to this one)")}

    @router.post("", name=f"create_{singular}", response_model=public, status_code=status.HTTP_201_CREATED, responses=conflict,
                 openapi_extra=dated)
    def create(body: create_model_, engine: EngineDep, worker: WorkerDep):  # type: ignore[valid-type]
        row = records.create_record(engine, spec, body.model_dump(mode="python"))
        nudge(worker)
        return row

    filters = ", ".join(records.FILTERS[spec.name])

    @router.get("", name=f"read_{spec.name}", response_model=page, openapi_extra=beyond_schema(CURSOR_ISSUED),
                description=(
            f"One page of {spec.name}, by id, filtered by any of: {filters} (all given filters apply). "
            "Unknown query parameters are a 422."))
    def read_all(engine: EngineDep, params: Annotated[query, Query()]):  # type: ignore[valid-type]
        values = params.model_dump(exclude={"limit", "cursor"})  # type: ignore[attr-defined]
        return envelope(records.list_records(engine, spec, values, params.limit, params.cursor))  # type: ignore


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
