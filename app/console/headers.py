"""The console's security headers on every response under /console: its pages, and the answers FastAPI or a
middleware gives before a page is reached (an unknown path's 404, a malformed path parameter's 422, a
body's 413), so no console URL can be framed or sniffed whatever answers it.

A pure ASGI middleware, as app/api/request_context.py, so nothing is buffered.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PREFIX = "/console"
STATIC = "/console/static/"
# No inline script or style anywhere in the console: the policy can forbid both.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on the console's own posts
    "Referrer-Policy": "same-origin",
}
NO_STORE = {"Cache-Control": "no-store"}  # pages show chunk text: no shared or back-button cache keeps it


class ConsoleHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            await self.app(scope, receive, send)
            return
        # The script and stylesheet are the package's own files, the same for everyone: they may be cached.
        headers = SECURITY_HEADERS if path.startswith(STATIC) else {**SECURITY_HEADERS, **NO_STORE}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(headers)
            await send(message)

        await self.app(scope, receive, send_with_headers)
