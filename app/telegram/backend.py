"""This service's API as the bot sees it: the streamed chat, a conversation's scope, the asker, the
projects and the bot's own token, over HTTP.

Every failure becomes a ``BackendError`` whose ``kind`` the bot turns into a short apology; nothing here
raises anything else for a bad status, a refused connection or a stream cut short. Each request carries
the update's request id (``X-Request-ID``), so the API's log lines of an answer share the bot's id.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx
from httpx_sse import SSEError, aconnect_sse

from app.logs import current_request_id

log = logging.getLogger(__name__)

Kind = Literal["not_found", "invalid", "busy", "unauthorized", "forbidden", "failed", "unavailable"]
PROJECTS_PAGE = 200  # the API's largest page: a chat lists at most this many projects (the first page)


class BackendError(Exception):
    def __init__(self, kind: Kind, detail: str = "", status: int | None = None) -> None:
        super().__init__(f"{kind}: {status or '-'} {detail}")
        self.kind, self.detail, self.status = kind, detail, status


@dataclass(frozen=True)
class Token:
    """The next piece of the answer."""

    text: str


@dataclass(frozen=True)
class Reset:
    """The LLM failed mid-answer: forget the text so far; the tokens that follow are the answer from its start."""

    llm_error: str | None


@dataclass(frozen=True)
class Done:
    """The last event: the POST /chat fields (the checked answer, its citations, the conversation, the scope)."""

    fields: dict[str, Any]


def _kind_of(status: int) -> Kind:
    if status == 404:
        return "not_found"
    if status in (400, 413, 422):
        return "invalid"
    if status in (429, 503):
        return "busy"
    if status == 401:
        return "unauthorized"
    if status == 403:  # a token limited to some employees or roles, asked for someone else
        return "forbidden"
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


def _stream_error(data: str) -> BackendError:
    """An ``error`` event: its ``code`` is the status POST /chat would have answered (503: busy, retry)."""
    try:
        code = json.loads(data).get("code")
    except (ValueError, AttributeError):
        code = None
    if isinstance(code, int) and not isinstance(code, bool):
        return BackendError(_kind_of(code), _detail(data.encode()), code)
    return BackendError("failed", _detail(data.encode()))


async def _stamp_request_id(request: httpx.Request) -> None:
    request_id = current_request_id()
    if request_id is not None:
        request.headers["X-Request-ID"] = request_id


class Backend:
    def __init__(self, base_url: str, token: str, timeout_s: float) -> None:
        # read=timeout_s: the longest our API may stay silent (a slow LLM before its first token).
        self.base_url = base_url.rstrip("/") + "/api/v1"
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(timeout_s, connect=10.0),
            event_hooks={"request": [_stamp_request_id]},
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def chat_stream(self, telegram_id: str, message: str, conversation_id: int | None,
                          rag_scope: str | None) -> AsyncIterator[Token | Reset | Done]:
        """Yield the answer's tokens (and a ``Reset`` if the API started over), then ``Done`` last."""
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
                        yield Token(str(event.json().get("text", "")))
                    elif event.event == "reset":
                        yield Reset(event.json().get("llm_error"))
                    elif event.event == "done":
                        yield Done(dict(event.json()))
                        return
                    elif event.event == "error":  # nothing was stored; `code` is what POST /chat would answer
                        raise _stream_error(event.data)
            raise BackendError("failed", "the stream ended without a done event")
        except httpx.TransportError as exc:
            raise BackendError("unavailable", type(exc).__name__) from exc
        except (SSEError, ValueError, AttributeError, TypeError) as exc:  # not SSE, or an event that is not JSON
            raise BackendError("failed", f"malformed stream: {exc}") from exc

    async def set_scope(self, conversation_id: int, telegram_id: str, scope: str) -> dict[str, Any]:
        """PATCH the conversation's scope; returns the conversation as our API describes it."""
        return await self._call("PATCH", f"/conversations/{conversation_id}",
                                params={"telegram_id": telegram_id}, json={"rag_scope": scope})

    async def caller(self, telegram_id: str) -> dict[str, Any]:
        """Who our API answers this Telegram user as: employee_id, role, first_name (404: nobody)."""
        return await self._call("GET", "/chat/caller", params={"telegram_id": telegram_id})

    async def projects(self, telegram_id: str, query: str | None = None) -> list[dict[str, Any]]:
        """Every project by name (the first page), or with ``query`` the best matches: project_id, name, score."""
        params: dict[str, Any] = {"telegram_id": telegram_id}
        params |= {"query": query} if query is not None else {"limit": PROJECTS_PAGE}
        page = await self._call("GET", "/chat/projects", params=params)
        if not isinstance(page.get("items"), list):
            raise BackendError("failed", "GET /chat/projects: no items in the answer")
        return page["items"]

    async def token(self) -> dict[str, Any]:
        """The bot's own token as our API sees it: name, scope, limits (the start-up check)."""
        return await self._call("GET", "/token")

    async def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """One JSON request; its answer, which must be a JSON object."""
        try:
            response = await self._client.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise BackendError("unavailable", type(exc).__name__) from exc
        if response.status_code != 200:
            raise BackendError(_kind_of(response.status_code), _detail(response.content), response.status_code)
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise BackendError("failed", f"{method} {path}: the answer is not a JSON dict")
        return answer
