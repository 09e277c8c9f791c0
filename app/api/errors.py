"""Domain exceptions -> HTTP answers with a clear ``detail``; never a stack trace.

Every 422 has FastAPI's shape (``detail`` is a list of ``{type, loc, msg}``), whether pydantic,
a service or the UTF-8 check found the problem, so clients parse one format.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from app.embedding import EmbeddingError
from app.engines.base import ConflictError, EngineError, ModelMissingError, UnavailableError, ValueTooLongError
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


MAX_ECHO_CHARS = 100  # of a rejected input echoed back in a 422 (a 100 KB body must not come back)
MAX_MESSAGE_CHARS = 300  # of a message, which may quote the input


def _unprocessable(errors: list[dict[str, Any]]) -> JSONResponse:
    return JSONResponse({"detail": _utf8_safe([_short(e) for e in jsonable_encoder(errors)])}, status_code=422)


def _short(error: Any) -> Any:
    """One validation error with its echoed input cut to a prefix (as JSON text when it was a list or an
    object) and its message to MAX_MESSAGE_CHARS."""
    if not isinstance(error, dict):
        return error
    out = dict(error)
    if "input" in out:
        value = out["input"]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > MAX_ECHO_CHARS:
            out["input"] = text[:MAX_ECHO_CHARS] + "…"
    if isinstance(out.get("msg"), str) and len(out["msg"]) > MAX_MESSAGE_CHARS:
        out["msg"] = out["msg"][:MAX_MESSAGE_CHARS] + "…"
    return out


async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    return _unprocessable(list(exc.errors()))


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


class ClientGone(Exception):
    """The client hung up before its answer was ready; the route stopped and stored nothing."""


async def _client_gone(request: Request, exc: Exception) -> Response:
    log.info("%s %s: the client hung up; stopped, nothing stored", request.method, request.url.path)
    return Response(status_code=499)  # nginx's "client closed request": nobody is left to read it


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("%s %s failed", request.method, request.url.path)
    return JSONResponse({"detail": "internal error (see the server log)"}, status_code=500)


def install(app: FastAPI) -> None:
    # Starlette picks the handler of the most specific class in the exception's MRO.
    app.add_exception_handler(RecordNotFoundError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(UnknownCallerError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(ConversationNotFoundError, _answer(status.HTTP_404_NOT_FOUND))
    app.add_exception_handler(ConflictError, _answer(status.HTTP_409_CONFLICT))
    app.add_exception_handler(UnavailableError, _unavailable)
    app.add_exception_handler(ValueTooLongError, _too_long)
    app.add_exception_handler(ModelMissingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(EngineError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(EmbeddingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE))
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(ValueError, _invalid_value)
    app.add_exception_handler(ClientGone, _client_gone)
    app.add_exception_handler(Exception, _unexpected)


async def http_answer(request: Request, exc: Exception) -> Response:
    """The answer this app's exception handlers give ``exc`` on this request, as if the route had raised
    it: the chat stream reports a failure after its first event with the same status, detail and
    Retry-After as the plain POST /chat would."""
    handlers = request.app.exception_handlers
    for cls in type(exc).__mro__:
        if cls in handlers:
            return await handlers[cls](request, exc)
    return await _unexpected(request, exc)
