"""Role-scoped semantic search."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import EngineDep, GrantDep, SettingsDep
from app.api.schemas import ASKER_BY_TOKEN, SearchRequest, SearchResponse, beyond_schema, error_response
from app.rag.scope import build_scope
from app.services.askers import resolve_asker
from app.services.search import search

router = APIRouter(tags=["search"])


@router.post("/search", response_model=SearchResponse, responses={404: error_response("unknown employee")},
             openapi_extra=beyond_schema(ASKER_BY_TOKEN))
def search_chunks(body: SearchRequest, engine: EngineDep, settings: SettingsDep, grant: GrantDep) -> SearchResponse:
    """Search the chunks the caller may see; the caller's role is read from EMPLOYEES."""
    caller = resolve_asker(engine, grant, body.employee_id, body.telegram_id)
    scope = build_scope(body.project, body.sprint_id, body.source_types, body.doc_types)
    found = search(engine, body.question, caller, body.top_k or settings.top_k, scope,
                   body.mode or settings.search_mode)
    return SearchResponse(
        results=[vars(hit) for hit in found.result.hits],
        mode=found.result.mode,
        answered_by=found.result.answered_by,
        caller={"employee_id": caller.employee_id, "role": caller.role},
        timings_ms={"embed": round(found.embed_ms, 3), "search": round(found.search_ms, 3)},
    )
