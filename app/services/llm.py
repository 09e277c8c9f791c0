"""An OpenAI-compatible chat-completions client over the app's shared httpx.AsyncClient.

Three calls: ``complete`` (text), ``complete_with_tools`` (text or tool calls) and ``stream`` (text
deltas from the ``stream: true`` Server-Sent Events). Every failure is an ``LLMError`` whose
``reason`` is what the API reports (``timeout`` | ``unreachable`` | ``bad_response``); the metrics
keep the finer cause (``http_status``, ``bad_reply``, ``empty``). An HTTP 4xx or 5xx is a
bad_response: the server was reached and answered, just not usefully (the OpenAI API documents no
error a client could act on differently here). One deadline, ``RAG_LLM_TIMEOUT_S``, covers the whole
call, so a server that trickles bytes cannot keep a chat waiting past it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import httpx

from app import metrics
from app.config import Settings

Reason = Literal["timeout", "unreachable", "bad_response"]
# The metric label of each finer cause, and the reason the API reports for it.
_REASON_OF = {"timeout": "timeout", "unreachable": "unreachable", "http_status": "bad_response",
              "bad_reply": "bad_response", "empty": "bad_response"}


class LLMError(RuntimeError):
    """The chat-completions endpoint did not give a usable answer; ``reason`` says how."""

    def __init__(self, cause: str, message: str) -> None:
        super().__init__(message)
        self.cause = cause  # the metric label
        self.reason: Reason = _REASON_OF[cause]  # type: ignore[assignment]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Completion:
    """Either text or tool calls (a model asking for tools may also say something)."""

    text: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)


def llm_client(settings: Settings) -> httpx.AsyncClient:
    """One pooled client per app; its connection cap matches the chat concurrency limit."""
    cap = settings.chat_max_concurrency
    return httpx.AsyncClient(timeout=settings.llm_timeout_s,
                             limits=httpx.Limits(max_connections=cap, max_keepalive_connections=min(cap, 20)))


def _fail(cause: str, message: str) -> LLMError:
    metrics.LLM_ERRORS.labels(cause).inc()
    return LLMError(cause, message)


def _request(settings: Settings, messages: list[dict[str, Any]], **extra: Any) -> tuple[str, dict, dict]:
    if not settings.llm_url or not settings.llm_model:
        raise ValueError("no LLM is configured (RAG_LLM_URL and RAG_LLM_MODEL)")
    url = settings.llm_url.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    if settings.llm_api_key is not None:
        headers["Authorization"] = f"Bearer {settings.llm_api_key.get_secret_value()}"
    body = {"model": settings.llm_model, "messages": messages, "temperature": 0, **extra}
    return url, headers, body


async def _post_json(settings: Settings, client: httpx.AsyncClient, messages: list[dict[str, Any]],
                     **extra: Any) -> dict[str, Any]:
    """POST one non-streaming request under the deadline; return the first choice's message."""
    url, headers, body = _request(settings, messages, **extra)
    metrics.LLM_CALLS.inc()
    try:
        with anyio.fail_after(settings.llm_timeout_s):
            response = await client.post(url, json=body, headers=headers, timeout=settings.llm_timeout_s)
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise _fail("timeout", f"{url} gave no answer within {settings.llm_timeout_s} s") from exc
    except httpx.HTTPError as exc:
        raise _fail("unreachable", f"{url} unreachable: {type(exc).__name__}: {exc}") from exc
    if response.status_code != 200:
        raise _fail("http_status", f"{url} answered {response.status_code}: {response.text[:200]}")
    try:
        message = response.json()["choices"][0]["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise _fail("bad_reply", f"{url} returned no chat-completions choice: {exc!r}") from exc
    return message


async def complete(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient) -> str:
    """The first choice's text (stripped); an empty answer is a bad_response."""
    message = await _post_json(settings, client, messages)
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise _fail("empty", f"{settings.llm_url} returned an empty answer")
    return content.strip()


async def complete_with_tools(settings: Settings, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                              client: httpx.AsyncClient) -> Completion:
    """Offer `tools` (OpenAI function tools); return the text, or the tool calls the model asked for."""
    message = await _post_json(settings, client, messages, tools=tools)
    calls = [_tool_call(raw, settings.llm_url) for raw in message.get("tool_calls") or []]
    content = message.get("content")
    text = content.strip() if isinstance(content, str) and content.strip() else None
    if not calls and text is None:
        raise _fail("empty", f"{settings.llm_url} returned neither text nor tool calls")
    return Completion(text, calls)


def _tool_call(raw: Any, url: str | None) -> ToolCall:
    """One tool call; its arguments arrive as a JSON string that must decode to an object."""
    try:
        function = raw["function"]
        arguments = json.loads(function.get("arguments") or "{}")
        if not isinstance(arguments, dict):
            raise TypeError("arguments are not a JSON object")
        return ToolCall(str(raw["id"]), str(function["name"]), arguments)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _fail("bad_reply", f"{url} returned a malformed tool call: {exc!r}") from exc


async def stream(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient) -> AsyncIterator[str]:
    """Yield the text deltas of a ``stream: true`` completion until ``data: [DONE]``.

    The deadline covers the whole stream. Closing the generator (a client that went away) closes the
    HTTP response, which stops the LLM's work. A stream that ends without [DONE], or with no text,
    is a bad_response (what was yielded may be a truncated answer).
    """
    url, headers, body = _request(settings, messages, stream=True)
    metrics.LLM_CALLS.inc()
    deadline = anyio.current_time() + settings.llm_timeout_s
    yielded = False
    try:
        with anyio.fail_after(settings.llm_timeout_s):
            response = await client.send(client.build_request("POST", url, json=body, headers=headers,
                                                              timeout=settings.llm_timeout_s), stream=True)
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise _fail("timeout", f"{url} gave no answer within {settings.llm_timeout_s} s") from exc
    except httpx.HTTPError as exc:
        raise _fail("unreachable", f"{url} unreachable: {type(exc).__name__}: {exc}") from exc
    try:
        if response.status_code != 200:
            with anyio.move_on_after(max(deadline - anyio.current_time(), 0)):
                await response.aread()
            raise _fail("http_status", f"{url} answered {response.status_code}: {response.text[:200]}")
        lines = response.aiter_lines()
        while True:
            line = await _next_line(lines, deadline, url, settings.llm_timeout_s)
            if line is None:
                raise _fail("bad_reply", f"{url} ended the stream without [DONE]")
            delta = _sse_delta(line, url)
            if delta is _DONE:
                break
            if delta:
                yielded = True
                yield delta
        if not yielded:
            raise _fail("empty", f"{url} streamed no text")
    finally:
        await response.aclose()


_DONE = object()


async def _next_line(lines: AsyncIterator[str], deadline: float, url: str, timeout_s: float) -> str | None:
    """The next line of the stream, or None at its end; the deadline is the whole call's."""
    try:
        with anyio.fail_after(max(deadline - anyio.current_time(), 0)):
            return await lines.__anext__()
    except StopAsyncIteration:
        return None
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise _fail("timeout", f"{url} did not finish streaming within {timeout_s} s") from exc
    except httpx.HTTPError as exc:
        raise _fail("unreachable", f"{url} broke off the stream: {type(exc).__name__}: {exc}") from exc


def _sse_delta(line: str, url: str) -> str | object | None:
    """The text in one SSE line: _DONE for ``data: [DONE]``, None for anything carrying no text
    (blank lines, comments, ``event:``/``id:`` fields, role-only or tool deltas)."""
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    if data == "[DONE]":
        return _DONE
    try:
        chunk = json.loads(data)
        if "error" in chunk:
            raise ValueError(f"error event: {str(chunk['error'])[:200]}")
        choices = chunk["choices"]
        if not choices:
            return None  # e.g. a final usage-only chunk
        content = choices[0].get("delta", {}).get("content")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise _fail("bad_reply", f"{url} sent a malformed stream chunk: {exc!r}") from exc
    return content if isinstance(content, str) else None
