"""This service's API as the bot sees it: the streamed chat and a conversation's scope, over HTTP.

Every failure becomes a ``BackendError`` whose ``kind`` the bot turns into a short apology; nothing here
raises anything else for a bad status, a refused connection or a stream cut short.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any, Literal

import httpx
from httpx_sse import SSEError, aconnect_sse

log = logging.getLogger(__name__)

Kind = Literal["not_found", "invalid", "busy", "unauthorized", "failed", "unavailable"]


class BackendError(Exception):
    def __init__(self, kind: Kind, detail: str = "", status: int | None = None) -> None:
        super().__init__(f"{kind}: {status or '-'} {detail}")
        self.kind, self.detail, self.status = kind, detail, status


def _kind_of(status: int) -> Kind:
    if status == 404:
        return "not_found"
    if status in (400, 413, 422):
        return "invalid"
    if status in (429, 503):
        return "busy"
    if status in (401, 403):
        return "unauthorized"
    return "failed"


def _detail(body: bytes) -> str:
    """FastAPI's ``detail``: a string, or a list of validation errors (their ``msg`` joined)."""
    try:
        detail = json.loads(body).get("detail", "")
    except (ValueError, AttributeError):
        return body[:200].decode("utf-8", "replace")
    if isinstance(detail, list):
        return "; ".join(str(e.get("msg", e)) if isinstance(e, dict) else str(e) for e in detail)
    return str(detail)


class Backend:
    def __init__(self, base_url: str, token: str, timeout_s: float) -> None:
        # read=timeout_s: the longest our API may stay silent (a slow LLM before its first token).
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/") + "/api/v1",
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(timeout_s, connect=10.0),
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def chat_stream(self, telegram_id: str, message: str, conversation_id: int | None,
                          rag_scope: str | None) -> AsyncIterator[str | dict[str, Any]]:
        """Yield each token's text, then the ``done`` event's fields (a dict) last."""
        body: dict[str, Any] = {"telegram_id": telegram_id, "message": message}
        if conversation_id is not None:
            body["conversation_id"] = conversation_id
        elif rag_scope is not None:
            body["rag_scope"] = rag_scope  # the API takes a scope only when creating a conversation
        try:
            async with aconnect_sse(self._client, "POST", "/chat/stream", json=body) as source:
                response = source.response
                if response.status_code != 200:
                    raise BackendError(_kind_of(response.status_code), _detail(await response.aread()),
                                       response.status_code)
                async for event in source.aiter_sse():
                    if event.event == "token":
                        yield str(event.json().get("text", ""))
                    elif event.event == "done":
                        yield event.json()
                        return
                    elif event.event == "error":  # nothing was stored; `code` is what POST /chat would answer
                        code = event.json().get("code")
                        raise BackendError(_kind_of(code) if isinstance(code, int) else "failed",
                                           _detail(event.data.encode()), code if isinstance(code, int) else None)
            raise BackendError("failed", "the stream ended without a done event")
        except httpx.TransportError as exc:
            raise BackendError("unavailable", type(exc).__name__) from exc
        except (SSEError, ValueError, AttributeError) as exc:  # not SSE, or an event that is not JSON
            raise BackendError("failed", f"malformed stream: {exc}") from exc

    async def set_scope(self, conversation_id: int, telegram_id: str, scope: str) -> dict[str, Any]:
        """PATCH the conversation's scope; returns the conversation as our API describes it."""
        try:
            response = await self._client.patch(f"/conversations/{conversation_id}",
                                                params={"telegram_id": telegram_id}, json={"rag_scope": scope})
        except httpx.TransportError as exc:
            raise BackendError("unavailable", type(exc).__name__) from exc
        if response.status_code != 200:
            raise BackendError(_kind_of(response.status_code), _detail(response.content), response.status_code)
        try:
            return dict(response.json())
        except ValueError as exc:
            raise BackendError("failed", "the conversation is not JSON") from exc
