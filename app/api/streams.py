"""Long-lived streams: at most ``RAG_STREAMS_PER_TOKEN`` open at once for one token, and each closed by the
server once it has sent nothing for ``RAG_STREAM_IDLE_TIMEOUT_S``.

A stream holds a connection, a file descriptor and memory for as long as it lasts: ``GET /mcp`` (the MCP
SDK's stream for server-initiated messages, which this stateless server never uses) stayed open forever,
and any token could hold 500 of them. The chat streams (``POST /api/v1/chat/stream``, a streamed
``/v1/chat/completions``) end with their turn's deadline and send a ping meanwhile, so the idle timeout only
closes one that stalls; they count against the token's cap like any stream.

``StreamGuard`` is an ASGI middleware (inside TokenGate, so the token's grant is known): it claims a stream
for the requests that are always streams, before the app sees them, and watches every response sent as
``text/event-stream``. A face whose request is a stream only by its body (OpenAI's ``stream: true``) claims
with ``OpenStreams.claim`` in its route, with its chat slot, after an ``OpenStreams.check`` before any work.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import anyio
from fastapi import HTTPException, status
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.middleware import _error
from app.auth import TokenGrant

RETRY_AFTER_S = 5
ALWAYS_STREAMS = {("GET", "/mcp"), ("POST", "/api/v1/chat/stream")}


class OpenStreams:
    """Streams open per token (by its configured name). All users run on the event loop: no lock needed."""

    def __init__(self, per_token: int) -> None:
        self.per_token = per_token
        self.open: Counter[str] = Counter()

    def check(self, grant: TokenGrant | None) -> str:
        """Refuse (429) when the token's streams are all taken; its key otherwise. A route that claims only
        after some work checks first, so a refusal costs none of it."""
        key = grant.name if grant is not None else ""
        if self.open[key] >= self.per_token:
            raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS,
                                f"this token already has {self.per_token} streams open (RAG_STREAMS_PER_TOKEN); "
                                "close one, or retry later", headers={"Retry-After": str(RETRY_AFTER_S)})
        return key

    @contextmanager
    def claim(self, grant: TokenGrant | None) -> Iterator[None]:
        key = self.check(grant)
        self.open[key] += 1
        try:
            yield
        finally:
            self.open[key] -= 1
            if not self.open[key]:
                del self.open[key]


def _is_event_stream(message: Message) -> bool:
    return any(name == b"content-type" and value.split(b";")[0].strip() == b"text/event-stream"
               for name, value in message.get("headers", ()))


class StreamGuard:
    def __init__(self, app: ASGIApp, streams: OpenStreams, idle_timeout_s: float) -> None:
        self.app, self.streams, self.idle_timeout_s = app, streams, idle_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        grant = (scope.get("state") or {}).get("grant")
        always = (scope["method"], scope["path"].rstrip("/") or "/") in ALWAYS_STREAMS
        try:
            claim = self.streams.claim(grant if isinstance(grant, TokenGrant) else None) if always else nullcontext()
            claim.__enter__()
        except HTTPException as refused:  # answered in the shape of every guard's refusal
            await _error(scope["path"], refused.status_code, refused.detail, refused.headers)(scope, receive, send)
            return
        try:
            await self._watched(scope, receive, send)
        finally:
            claim.__exit__(None, None, None)

    async def _watched(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app; once it answers with an event stream, end the response if it sends nothing for the
        idle timeout (the app is cancelled, the response's body closed). A timer re-armed at each message,
        not a watcher task: a task group would wrap the app's own exceptions (BodyLimit's among them)."""
        loop = asyncio.get_running_loop()
        timer: asyncio.TimerHandle | None = None
        streaming = ended = idled = False

        with anyio.CancelScope() as cancel:
            def idle() -> None:
                nonlocal idled
                idled = True
                cancel.cancel()

            async def tracked(message: Message) -> None:
                nonlocal timer, streaming, ended
                if message["type"] == "http.response.start":
                    streaming = _is_event_stream(message)
                elif message["type"] == "http.response.body" and not message.get("more_body", False):
                    ended = True
                if timer is not None:
                    timer.cancel()
                timer = loop.call_later(self.idle_timeout_s, idle) if streaming and not ended else None
                await send(message)

            try:
                await self.app(scope, receive, tracked)
            finally:
                if timer is not None:
                    timer.cancel()
        if idled and not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
