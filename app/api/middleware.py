"""Pure ASGI guards that run before any route reads a byte of the body.

``TokenGate`` authenticates every /api/, /v1/ (OpenAI-compatible) and /mcp request from its headers alone, so a client without a
valid token costs no body read, no parsing and no memory (401 first, whatever the body). The
token's grant goes into the request state; what it may do is decided per router (app.api.deps) or
per MCP call (app/mcp/server.py).

``BodyLimit`` refuses a body over the limit: at once when Content-Length says so, and while
streaming otherwise (chunked bodies have no length), so no request can make the server buffer
more than the limit.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.openai_schemas import OPENAI_PREFIX, error_body
from app.auth import TokenGrant, match

PROTECTED_PREFIX = "/api/"
MCP_PATH = "/mcp"


def protected(path: str) -> bool:
    return (path.startswith((PROTECTED_PREFIX, OPENAI_PREFIX)) or path == MCP_PATH
            or path.startswith(MCP_PATH + "/"))


def _error(path: str, status: int, detail: str, headers: dict[str, str]) -> JSONResponse:
    """``{"detail"}``, or OpenAI's error object under its prefix (what an OpenAI client parses)."""
    body = error_body(detail, status) if path.startswith(OPENAI_PREFIX) else {"detail": detail}
    return JSONResponse(body, status_code=status, headers=headers)


def unauthorized(detail: str, path: str = "") -> JSONResponse:
    return _error(path, 401, detail, {"WWW-Authenticate": "Bearer"})


def bearer_token(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None


class TokenGate:
    def __init__(self, app: ASGIApp, grants: tuple[TokenGrant, ...]) -> None:
        self.app, self.grants = app, grants

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not protected(scope["path"]):
            await self.app(scope, receive, send)
            return
        token = bearer_token(scope)
        grant = match(self.grants, token) if token is not None else None
        if grant is None:
            detail = ("missing or invalid bearer token" if self.grants
                      else "no API tokens are configured (set RAG_API_TOKENS or RAG_API_TOKEN_SCOPES)")
            await unauthorized(detail, scope["path"])(scope, receive, send)
            return
        scope.setdefault("state", {})["grant"] = grant
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
