"""Pure ASGI guards that run before any route reads a byte of the body.

``TokenGate`` authenticates every /api/, /v1/ (OpenAI-compatible) and /mcp request from its headers alone,
so a client without a valid token costs no body read, no parsing and no memory (401 first, whatever the
body). The token's grant goes into the request state; what it may do is decided per router (app.api.deps)
or per MCP call (app/mcp/server.py). Under /v1/ every refusal here is OpenAI's error object.
The token comes from ``Authorization: Bearer``, or from the operator console's session cookie when
the request also carries that session's CSRF value (app.auth.CONSOLE_COOKIE): the console's chat
playground calls the API like any client, and the cookie alone never authenticates a request.

``ScopeGate`` refuses a token whose scope the matched route does not allow (a bot token on an admin
route) with 403 before the body is read or parsed: whatever it sends, malformed JSON included.

``SchemaGate`` answers every /api/ request 503 (naming ``ragctl migrate``) while the database schema
is not migrated, instead of letting each route fail on a missing table; once the schema is there it
costs nothing (the engine remembers it).

``JsonDepthLimit`` refuses a JSON body nested deeper than MAX_JSON_DEPTH arrays and objects with a 422
that names the limit, before the parser meets it (Python's parser would give up at its recursion limit,
which FastAPI answers as a bare 400).

``BodyLimit`` refuses a body over the limit: at once when Content-Length says so, and while
streaming otherwise (chunked bodies have no length), so no request can make the server buffer
more than the limit.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from fastapi import APIRouter
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import cookie_parser
from starlette.responses import JSONResponse
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.deps import scope_refusal
from app.api.openai_schemas import OPENAI_PREFIX, error_body
from app.auth import CONSOLE_COOKIE, CSRF_HEADER, Permission, TokenGrant, csrf_matches, match
from app.engines.base import SchemaNotMigratedError

PROTECTED_PREFIX = "/api/"
MCP_PATH = "/mcp"


def protected(path: str) -> bool:
    return (path.startswith((PROTECTED_PREFIX, OPENAI_PREFIX)) or path == MCP_PATH
            or path.startswith(MCP_PATH + "/"))


def _error(path: str, status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"detail"}``, or OpenAI's error object under its prefix (what an OpenAI client parses)."""
    body = error_body(detail, status) if path.startswith(OPENAI_PREFIX) else {"detail": detail}
    return JSONResponse(body, status_code=status, headers=headers)


def unauthorized(detail: str, path: str = "") -> JSONResponse:
    return _error(path, 401, detail, {"WWW-Authenticate": "Bearer"})


def offered_token(scope: Scope) -> str | None:
    """The bearer token, else the console session's (see console_token)."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return console_token(scope)


def console_token(scope: Scope) -> str | None:
    """The console session's token, only when the request carries the session's CSRF value too."""
    cookies = "; ".join(value.decode("latin-1") for name, value in scope["headers"] if name == b"cookie")
    token = cookie_parser(cookies).get(CONSOLE_COOKIE)
    csrf = next((value.decode("latin-1") for name, value in scope["headers"] if name == CSRF_HEADER.encode()), None)
    return token if token and csrf_matches(token, csrf) else None


class TokenGate:
    def __init__(self, app: ASGIApp, grants: tuple[TokenGrant, ...]) -> None:
        self.app, self.grants = app, grants

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not protected(scope["path"]):
            await self.app(scope, receive, send)
            return
        token = offered_token(scope)
        grant = match(self.grants, token) if token is not None else None
        if grant is None:
            detail = ("missing or invalid bearer token" if self.grants
                      else "no API tokens are configured (set RAG_API_TOKENS or RAG_API_TOKEN_SCOPES)")
            await unauthorized(detail, scope["path"])(scope, receive, send)
            return
        scope.setdefault("state", {})["grant"] = grant
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class RouteScope:
    """The scope one route needs, matched by its full path and methods (``scopes_of``)."""

    path: re.Pattern[str]
    methods: frozenset[str]
    needed: Permission


def scopes_of(router: APIRouter, prefix: str, needed: Permission) -> list[RouteScope]:
    """What ScopeGate checks for every route of a router included under ``prefix`` with ``needed``."""
    return [RouteScope(compile_path(prefix + route.path)[0], frozenset(route.methods), needed)
            for route in router.routes if isinstance(route, APIRoute)]


class ScopeGate:
    def __init__(self, app: ASGIApp, scopes: list[RouteScope]) -> None:
        self.app, self.scopes = app, scopes  # filled by create_app as it includes the routers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        grant = scope.get("state", {}).get("grant") if scope["type"] == "http" else None
        if grant is not None:
            needed = next((r.needed for r in self.scopes
                           if scope["method"] in r.methods and r.path.match(scope["path"])), None)
            if needed is not None and not grant.allows(needed):
                await _error(scope["path"], 403, scope_refusal(grant, needed))(scope, receive, send)
                return
        await self.app(scope, receive, send)


MIGRATE_RETRY_AFTER_S = 30


class SchemaGate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.migrated = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.migrated and scope["type"] == "http" and scope["path"].startswith(PROTECTED_PREFIX):
            try:
                await run_in_threadpool(scope["app"].state.engine.check_schema)
                self.migrated = True
            except SchemaNotMigratedError as exc:
                await JSONResponse({"detail": str(exc)}, status_code=503,
                                   headers={"Retry-After": str(MIGRATE_RETRY_AFTER_S)})(scope, receive, send)
                return
            # Any other failure (the database is down) is the route's to answer, as at any other time.
            except Exception:  # noqa: BLE001
                pass
        await self.app(scope, receive, send)


class BodyTooLarge(HTTPException):
    """Raised from receive(); FastAPI re-raises HTTPExceptions met while reading a body."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body larger than {limit} bytes")


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _too_large(self.max_bytes, scope["path"])(scope, receive, send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except BodyTooLarge:
            if started:
                raise
            await _too_large(self.max_bytes, scope["path"])(scope, receive, send)


def _too_large(limit: int, path: str) -> JSONResponse:
    # Close the connection: the rest of the body is never read.
    return _error(path, 413, f"request body larger than {limit} bytes", {"Connection": "close"})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects a malformed length before we see it
    return None


MAX_JSON_DEPTH = 32  # this API's bodies nest 3 levels at most
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: one step per run of plain bytes
_NOT_A_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep in this JSON text (brackets inside strings
    do not count). Linear and in C but for the last step, which only bodies with many brackets reach."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", body).translate(None, _NOT_A_BRACKET)
    return len(brackets) > limit and max(itertools.accumulate(map(_STEP.__getitem__, brackets))) > limit


class JsonDepthLimit:
    """Reads a JSON body (already capped by BodyLimit) and refuses it if it nests too deep; otherwise the
    route reads the same bytes, and later receive() calls (a disconnect) still reach the server."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not protected(scope["path"]) or not _json_body(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # gone before the body ended: let the route see it
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if json_too_deep(body):
            refusal = f"JSON nested more than {MAX_JSON_DEPTH} levels deep (arrays and objects): refused"
            response = JSONResponse(error_body(refusal, 400), status_code=400) if scope["path"].startswith(
                OPENAI_PREFIX) else JSONResponse({"detail": [{"type": "json_invalid", "loc": ["body"],
                                                              "msg": refusal}]}, status_code=422)
            await response(scope, receive, send)
            return
        await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _json_body(scope: Scope) -> bool:
    """FastAPI parses the body as JSON when it says so, and when it says nothing."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            media = value.split(b";")[0].strip().lower()
            return media == b"application/json" or media.endswith(b"+json")
    return True


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed
