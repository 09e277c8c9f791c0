"""The FastAPI application factory. ``ragctl serve`` runs ``create_app()`` under uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi_offline import FastAPIOffline
from starlette.routing import Route

from app import metrics
from app.api import errors
from app.api.deps import require_scope
from app.api.middleware import (MCP_PATH, BodyLimit, JsonDepthLimit, RouteScope, SchemaGate, ScopeGate, TokenGate,
                                scopes_of)
from app.api.request_context import RequestContext
from app.api.openai_schemas import error_responses
from app.api.routes import chat, chat_context, conversations, health, openai, rag, records, search, token
from app.api.routes import members as members_route
from app.api.routes import metrics as metrics_route
from app.api.schemas import error_response
from app.api.slots import Slots
from app.api.streams import OpenStreams, StreamGuard
from app.auth import TokenGrant
from app.console import routes as console
from app.config import Settings
from app.engines import open_engine
from app.engines.base import Engine
from app.mcp.server import McpHttp
from app.metrics_history import MetricsHistory, run_sampler
from app.services import understanding
from app.services.llm import llm_client
from app.sources.job import start_sync_job
from app.summaries_job import start_summary_job
from app.worker import Worker

log = logging.getLogger(__name__)

API_PREFIX = "/api/v1"


# Statuses every /api/v1 route can answer, whatever it does (the OpenAPI schema lists them all).
COMMON_RESPONSES = {
    401: error_response("missing or invalid bearer token"),
    403: error_response("the token's scope does not allow this endpoint, or this employee"),
    413: error_response("request body over RAG_MAX_BODY_BYTES"),
    503: error_response("the database or the embedding model is unavailable"),
}


def create_app(settings: Settings | None = None, engine: Engine | None = None) -> FastAPI:
    """Build the app. An injected engine stays open after shutdown (its owner closes it)."""
    settings = settings or Settings()
    grants = settings.token_grants()
    # FastAPIOffline: /docs and /redoc load Swagger UI and ReDoc from assets the app serves itself
    # (/static-offline-docs), so the documentation works on a network without internet access.
    app = FastAPIOffline(
        title="RAG backend",
        version="0.1.0",
        summary="Role-scoped search and chat over a team's tasks, sprints, projects and documents.",
        lifespan=_lifespan(settings, engine, grants),
        # No validator badge: Swagger UI would fetch it from validator.swagger.io.
        swagger_ui_parameters={"validatorUrl": None},
    )
    app.state.settings = settings
    app.state.grants = grants
    app.state.chat_slots = Slots(settings.chat_max_concurrency, "chats")
    app.state.streams = OpenStreams(settings.streams_per_token)
    errors.install(app)
    # The last added runs first: give the request its id (so every answer and log line carries it),
    # authenticate, check the token's scope against the route, refuse while the schema is not migrated,
    # then limit the body and its nesting: all before any route reads it; innermost, the streams' cap and
    # idle timeout (app/api/streams.py).
    app.add_middleware(StreamGuard, streams=app.state.streams, idle_timeout_s=settings.stream_idle_timeout_s)
    app.add_middleware(JsonDepthLimit)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(SchemaGate)
    route_scopes: list[RouteScope] = []
    app.add_middleware(ScopeGate, scopes=route_scopes)
    app.add_middleware(TokenGate, grants=grants)
    app.add_middleware(RequestContext)
    app.include_router(health.router)
    app.include_router(metrics_route.router)
    console.install(app)
    # MCP over streamable HTTP (app/mcp/server.py): behind the same TokenGate as /api/, out of the OpenAPI
    # schema (it speaks JSON-RPC, described by the MCP specification).
    app.state.mcp = McpHttp(lambda: app.state.engine, settings)
    app.router.routes.append(Route(MCP_PATH, endpoint=app.state.mcp, methods=["GET", "POST", "DELETE"]))
    # Scoping is decided per router group: user-bound tokens and bots may search, chat and keep the asker's
    # conversations (and look up who asks, the projects to scope to, their own token); everything else is admin.
    for router, needed in ((search.router, "user"), (chat.router, "user"), (chat_context.router, "user"),
                           (conversations.router, "user"), (token.router, "user"), (rag.router, "admin"),
                           *((r, "admin") for r in records.routers()), (members_route.router, "admin")):
        app.include_router(router, prefix=API_PREFIX, dependencies=[Depends(require_scope(needed))],
                           responses=COMMON_RESPONSES)
        route_scopes += scopes_of(router, API_PREFIX, needed)
    # The OpenAI-compatible face (/v1/...): any token that may chat; errors in OpenAI's shape.
    app.include_router(openai.router, dependencies=[Depends(require_scope("user"))],
                       responses=error_responses(401, 403, 413, 503))
    route_scopes += scopes_of(openai.router, "", "user")
    return app


def _lifespan(settings: Settings, engine: Engine | None, grants: tuple[TokenGrant, ...]):
    """Open the engine (unless injected), start the worker, the summaries and the tracker sync jobs; undo it all at
    shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_engine = engine is None
        app.state.engine = await run_in_threadpool(open_engine, settings) if own_engine else engine
        app.state.worker = None
        app.state.metrics = metrics.registry_for(app.state.engine, settings.max_attempts)
        app.state.history = MetricsHistory(app.state.metrics, settings.console_sample_s)
        sampler = asyncio.create_task(run_sampler(app.state.history, settings.console_sample_s))
        app.state.llm_client = llm_client(settings)
        app.state.summaries = None
        app.state.sync = None
        try:
            worker = Worker(app.state.engine, settings)
            if settings.backfill_on_startup:
                await run_in_threadpool(worker.startup_backfill)
            await run_in_threadpool(understanding.warm, app.state.engine)  # not in the first turn's deadline
            if settings.run_worker:
                worker.start()
                app.state.worker = worker
                app.state.summaries = start_summary_job(app.state.engine, settings)
                app.state.sync = start_sync_job(app.state.engine, settings)
            _warn_about_tokens(grants)
            async with app.state.mcp.running():
                yield
        finally:
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
            await app.state.llm_client.aclose()
            if app.state.summaries is not None:
                await run_in_threadpool(app.state.summaries.stop)
            if app.state.sync is not None:
                await run_in_threadpool(app.state.sync.stop)
            if app.state.worker is not None:
                await run_in_threadpool(app.state.worker.stop)
            if own_engine:
                app.state.engine.close()

    return lifespan


def _warn_about_tokens(grants: tuple[TokenGrant, ...]) -> None:
    if not grants:
        log.warning("no API tokens are configured (RAG_API_TOKENS, RAG_API_TOKEN_SCOPES): "
                    "every data endpoint answers 401")
    legacy = [g for g in grants if g.name.startswith("RAG_API_TOKENS")]
    if legacy:
        log.warning(
            "RAG_API_TOKENS holds %d token(s) with full admin access (CRUD, reindex, search and chat as any "
            "employee); give bots a scoped token in RAG_API_TOKEN_SCOPES instead", len(legacy))
