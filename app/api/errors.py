"""Domain exceptions -> HTTP answers with a clear ``detail``; never a stack trace."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse

from app.embedding import EmbeddingError
from app.engines.base import ConflictError, EngineError, ModelMissingError, UnavailableError
from app.rag.scope import ScopeError
from app.services.records import InvalidRecordError, RecordNotFoundError
from app.services.search import UnknownCallerError

log = logging.getLogger(__name__)


def _answer(code: int):
    async def handler(request: Request, exc: Exception) -> JSONResponse:
        if code >= 500:
            log.error("%s %s -> %d: %s", request.method, request.url.path, code, exc)
        return JSONResponse({"detail": str(exc)}, status_code=code)

    return handler


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    """Disk full, read-only database: nothing changed, the client may retry once the operator acts."""
    log.error("%s %s -> 503: %s", request.method, request.url.path, exc)
    retry_after = getattr(exc, "retry_after_s", 30)
    return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": str(retry_after)})


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("%s %s failed", request.method, request.url.path)
    return JSONResponse({"detail": "internal error (see the server log)"}, status_code=500)


def install(app: FastAPI) -> None:
    # Starlette picks the handler of the most specific class in the exception's MRO.
    app.add_exception_handler(RecordNotFoundError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(UnknownCallerError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(ConflictError, _answer(status.HTTP_409_CONFLICT))
    app.add_exception_handler(UnavailableError, _unavailable)
    app.add_exception_handler(ModelMissingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(EngineError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(EmbeddingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(ScopeError, _answer(422))
    app.add_exception_handler(InvalidRecordError, _answer(422))
    app.add_exception_handler(ValueError, _answer(status.HTTP_400_BAD_REQUEST))
    app.add_exception_handler(Exception, _unexpected)
