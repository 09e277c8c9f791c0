"""Domain exceptions -> HTTP answers with a clear ``detail``; never a stack trace.

Every 422 has FastAPI's shape (``detail`` is a list of ``{type, loc, msg}``), whether pydantic,
a service or the UTF-8 check found the problem, so clients parse one format. Under the OpenAI-compatible
prefix (/v1/) every error is OpenAI's error object instead, and a 422 is OpenAI's 400.
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
from app.api.openai_schemas import OPENAI_PREFIX, OpenAIError, error_body
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


class ClientGone(Exception):
    """The client hung up before its answer was ready; the route stopped and stored nothing."""


async def _client_gone(request: Request, exc: Exception) -> Response:
    log.info("%s %s: the client hung up; stopped, nothing stored", request.method, request.url.path)
    return Response(status_code=499)  # nginx's "client closed request": nobody is left to read it


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("%s %s failed", request.method, request.url.path)
    return JSONResponse({"detail": "internal error (see the server log)"}, status_code=500)


async def _openai_error(request: Request, exc: Exception) -> JSONResponse:
    """An error the OpenAI-compatible face raised in OpenAI's own terms (status, code, param)."""
    return JSONResponse(error_body(str(exc), exc.status, exc.code, exc.param), status_code=exc.status)  # type: ignore


def openai_shaped(response: Response) -> Response:
    """A ``{"detail": ...}`` error answer as OpenAI's error object (a 422 becomes OpenAI's 400)."""
    try:
        detail = json.loads(bytes(response.body)).get("detail")
    except (ValueError, AttributeError):
        return response
    param = None
    if isinstance(detail, list):
        first = detail[0] if detail and isinstance(detail[0], dict) else {}
        param = ".".join(str(p) for p in first.get("loc", [])[1:]) or None
        detail = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', [])[1:]) or 'body'}: {e.get('msg')}"
                           for e in detail if isinstance(e, dict))
    code = 400 if response.status_code == 422 else response.status_code
    headers = {k: v for k, v in response.headers.items() if k.lower() in ("retry-after", "allow", "www-authenticate")}
    return JSONResponse(error_body(str(detail), code, param=param), status_code=code, headers=headers)


def _shaped_by_path(handler):
    async def wrapped(request: Request, exc: Exception) -> Response:
        response = await handler(request, exc)
        return openai_shaped(response) if request.url.path.startswith(OPENAI_PREFIX) else response

    return wrapped


def install(app: FastAPI) -> None:
    # Starlette picks the handler of the most specific class in the exception's MRO.
    for exc_class, handler in (
        (RecordNotFoundError, _answer(status.HTTP_404_NOT_FOUND)),
        (UnknownCallerError, _answer(status.HTTP_404_NOT_FOUND)),
        (ConversationNotFoundError, _answer(status.HTTP_404_NOT_FOUND)),
        (ConflictError, _answer(status.HTTP_409_CONFLICT)),
        (CursorError, _bad_cursor),
        (ForbiddenAskerError, _answer(status.HTTP_403_FORBIDDEN)),
        (UnavailableError, _unavailable),
        (ValueTooLongError, _too_long),
        (ModelMissingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE)),
        (EngineError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE)),
        (EmbeddingError, _answer(status.HTTP_503_SERVICE_UNAVAILABLE)),
        (RequestValidationError, _invalid_request),
        (HTTPException, _http_error),
        (ValueError, _invalid_value),
        (ClientGone, _client_gone),
        (Exception, _unexpected),
    ):
        app.add_exception_handler(exc_class, _shaped_by_path(handler))
    app.add_exception_handler(OpenAIError, _openai_error)


async def http_answer(request: Request, exc: Exception) -> Response:
    """The answer this app's exception handlers give ``exc`` on this request, as if the route had raised
    it: the chat stream reports a failure after its first event with the same status, detail and
    Retry-After as the plain POST /chat would."""
    handlers = request.app.exception_handlers
    for cls in type(exc).__mro__:
        if cls in handlers:
            return await handlers[cls](request, exc)
    return await _unexpected(request, exc)
