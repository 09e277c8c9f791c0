"""Request context: a request id for every log line of a request, echoed in ``X-Request-ID``.

A pure ASGI middleware (not BaseHTTPMiddleware), so streamed responses pass through untouched and
the contextvar is set in the very context that runs the endpoint and its thread-pool work.
"""

from __future__ import annotations

import logging
import time

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.logs import accept_request_id, request_id_var

log = logging.getLogger("app.request")

HEADER = "X-Request-ID"


class RequestContext:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = accept_request_id(Headers(scope=scope).get(HEADER))
        token = request_id_var.set(request_id)
        started, status = time.perf_counter(), 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message).append(HEADER, request_id)
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            # The path only: a query string is the client's data, not ours to keep in logs.
            log.info("%s %s -> %s in %.1f ms", scope["method"], scope["path"], status or "no response", elapsed_ms,
                     extra={"method": scope["method"], "path": scope["path"], "status": status,
                            "duration_ms": round(elapsed_ms, 3)})
            request_id_var.reset(token)
