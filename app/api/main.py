"""The FastAPI application factory. ``ragctl serve`` runs ``create_app()`` under uvicorn."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.concurrency import run_in_threadpool

from app import metrics
from app.api import errors
from app.api.middleware import RequestContext
from app.api.deps import require_token
from app.api.routes import chat, health, rag, records, search
from app.api.routes import metrics as metrics_route
from app.config import Settings
from app.engines import open_engine
from app.engines.base import Engine
from app.worker import Worker

log = logging.getLogger(__name__)

API_PREFIX = "/api/v1"


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> FastAPI:
    """Build the app. An injected engine stays open after shutdown (its owner closes it)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_engine = engine is None
        app.state.engine = await run_in_threadpool(open_engine, settings) if own_engine else engine
        app.state.worker = None
        app.state.metrics = metrics.registry_for(app.state.engine, settings.max_attempts)
        try:
            worker = Worker(app.state.engine, settings)
            if settings.backfill_on_startup:
                await run_in_threadpool(worker.startup_backfill)
            if settings.run_worker:
                worker.start()
                app.state.worker = worker
            if not settings.tokens:
                log.warning("RAG_API_TOKENS is empty: every data endpoint answers 401")
            yield
        finally:
            if app.state.worker is not None:
                await run_in_threadpool(app.state.worker.stop)
            if own_engine:
                app.state.engine.close()

    app = FastAPI(
        title="RAG backend",
        version="0.1.0",
        summary="Role-scoped search and chat over a team's tasks, sprints, projects and documents.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    errors.install(app)
    app.add_middleware(RequestContext)
    app.include_router(health.router)
    app.include_router(metrics_route.router)
    secured = [Depends(require_token)]
    app.include_router(search.router, prefix=API_PREFIX, dependencies=secured)
    app.include_router(chat.router, prefix=API_PREFIX, dependencies=secured)
    app.include_router(rag.router, prefix=API_PREFIX, dependencies=secured)
    for router in records.routers():
        app.include_router(router, prefix=API_PREFIX, dependencies=secured)
    return app
