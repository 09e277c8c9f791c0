"""Domain exceptions -> HTTP answers with a clear ``detail``; never a stack trace.

Every 422 has FastAPI's shape (``detail`` is a list of ``{type, loc, msg}``), whether pydantic,
a service or the UTF-8 check found the problem, so clients parse one format.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from app.embedding import EmbeddingError
from app.engines.base import ConflictError, EngineError, ModelMissingError, UnavailableError, ValueTooLongError
from app.paging import CursorError
from app.services.askers import ForbiddenAskerError
from app.services.conversations import ConversationNotFoundError
from app.services.records import RecordNotFoundError
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


def _unprocessable(errors: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse({"detail": _utf8_safe(jsonable_encoder(errors))}, status_code=422)


async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    for error in errors:
        if error.get("type") == "extra_forbidden" and error.get("loc", ())[:1] == ("query",):
            error["msg"] = f"unknown query parameter (this endpoint takes: {', '.join(_query_names(request))})"
    return _unprocessable(errors)


def _query_names(request: Request) -> list[str]:
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return []
    names: list[str] = []
    for param in _all_query_params(dependant):
        annotation = getattr(param.field_info, "annotation", None)
        fields = getattr(annotation, "model_fields", None)  # a query model: its fields are the parameters
        names += list(fields) if fields else [param.alias]
    return sorted(set(names))


def _all_query_params(dependant: Any) -> list[Any]:
    return [*dependant.query_params, *(p for d in dependant.dependencies for p in _all_query_params(d))]


async def _bad_cursor(request: Request, exc: Exception) -> JSONResponse:
    return _unprocessable([{"type": "value_error", "loc": ["query", "cursor"], "msg": str(exc)}])


async def _invalid_value(request: Request, exc: Exception) -> JSONResponse:
    # ScopeError, InvalidRecordError and any ValueError a service raises on input the schemas let by.
    return _unprocessable([{"type": "value_error", "loc": ["body"], "msg": str(exc)}])


async def _too_long(request: Request, exc: Exception) -> JSONResponse:
    # Text the schema let by that its column cannot hold (Oracle): the client's input, nothing written.
    field = getattr(exc, "field", None)
    return _unprocessable([{"type": "string_too_long", "loc": ["body", field] if field else ["body"],
                            "msg": str(exc)}])


async def _http_error(request: Request, exc: HTTPException):
    # FastAPI answers 400 "error parsing the body" for anything json.loads raises besides a
    # JSONDecodeError; a body that is not UTF-8 is invalid input like any malformed JSON.
    if exc.status_code == 400 and isinstance(exc.__cause__, UnicodeDecodeError):
        return _unprocessable([{"type": "json_invalid", "loc": ["body"], "msg": "the body is not valid UTF-8"}])
    if exc.status_code == 405:
        # Starlette lists only the methods of the first route on the path; name them all.
        exc.headers = {**(exc.headers or {}), "Allow": ", ".join(_methods_on(request))}
    return await http_exception_handler(request, exc)


def _methods_on(request: Request) -> list[str]:
    path = request.url.path
    return sorted({m for route in request.app.router.routes if isinstance(route, APIRoute)
                   and route.path_regex.match(path) for m in route.methods})


def _utf8_safe(value: Any) -> Any:
    """Echoed input may hold lone surrogates, which cannot be encoded as UTF-8: replace them."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, list):
        return [_utf8_safe(v) for v in value]
    if isinstance(value, dict):
        return {_utf8_safe(k): _utf8_safe(v) for k, v in value.items()}
    return value


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("%s %s failed", request.method, request.url.path)
    return JSONResponse({"detail": "internal error (see the server log)"}, status_code=500)


def install(app: FastAPI) -> None:
    # Starlette picks the handler of the most specific class in the exception's MRO.
    app.add_exception_handler(RecordNotFoundError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(UnknownCallerError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(ConversationNotFoundError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(ConflictError, _answer(status.HTTP_409_CONFLICT))
    app.add_exception_handler(CursorError, _bad_cursor)
    app.add_exception_handler(ForbiddenAskerError, _answer(status.HTTP_403_FORBIDDEN))
    app.add_exception_handler(UnavailableError, _unavailable)
    app.add_exception_handler(ValueTooLongError, _too_long)
    app.add_exception_handler(ModelMissingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(EngineError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(EmbeddingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(ValueError, _invalid_value)
    app.add_exception_handler(Exception, _unexpected)
