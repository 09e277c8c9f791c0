"""Index status and on-demand re-indexing."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import EngineDep, SettingsDep, WorkerDep, nudge
from app.api.schemas import ReindexRequest, ReindexResponse
from app.domain import RagStatus
from app.services.indexing import enqueue_reindex

router = APIRouter(prefix="/rag", tags=["rag"])


@router.get("/status", response_model=RagStatus)
def rag_status(engine: EngineDep, settings: SettingsDep) -> RagStatus:
    """Pending entities and queue rows, oldest pending age, failing and stuck rows, chunks by source type, model and
    dimensions."""
    return engine.status(settings.max_attempts)


@router.post("/reindex", response_model=ReindexResponse, status_code=202)
def rag_reindex(engine: EngineDep, worker: WorkerDep, body: ReindexRequest | None = None) -> ReindexResponse:
    """Queue source rows for indexing (all of them with force) and release rows stuck past max attempts."""
    body = body or ReindexRequest()
    counts = enqueue_reindex(
        engine, body.source_types, project_id=body.project_id, force=body.force, retry_failed=body.retry_failed
    )
    nudge(worker)
    return ReindexResponse(**counts)
