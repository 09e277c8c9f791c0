"""An OpenAI-compatible chat-completions client over the app's shared httpx.AsyncClient.

Four calls: ``complete`` (text), ``complete_with_tools`` (text or tool calls), ``stream`` (text
deltas from the ``stream: true`` Server-Sent Events) and ``stream_with_tools`` (text deltas, then the
tool calls assembled from their streamed fragments). Every failure is an ``LLMError`` whose
``reason`` is what the API reports (``timeout`` | ``unreachable`` | ``bad_response``); the metrics
keep the finer cause (``http_status``, ``bad_reply``, ``empty``). An HTTP 4xx or 5xx is a
bad_response: the server was reached and answered, just not usefully (the OpenAI API documents no
error a client could act on differently here). One deadline, ``RAG_LLM_TIMEOUT_S``, covers the whole
call, so a server that trickles bytes cannot keep a chat waiting past it; at the deadline the request's
connection is closed (a cancelled httpx request, or the streamed response's ``aclose``), which is how the
server learns to stop. Every request carries ``max_tokens`` (``RAG_LLM_MAX_TOKENS``) for a server that
would not notice: without it a model that does not stop generates to the end of its context.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
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


@dataclass(frozen=True)
class ToolCalls:
    """The end of a streamed round in which the model asked for tools."""

    calls: list[ToolCall]


def llm_client(settings: Settings) -> httpx.AsyncClient:
    """One pooled client per app; its connection cap matches the chat concurrency limit."""
    cap = settings.chat_max_concurrency
    return httpx.AsyncClient(timeout=settings.llm_timeout_s,
                             limits=httpx.Limits(max_connections=cap, max_keepalive_connections=min(cap, 20)))


class Deadline:
    """One deadline for a whole chat turn (RAG_LLM_TIMEOUT_S): the follow-up rewrite, every tool round
    and the answer share it, so a hanging LLM costs a turn the deadline once, not once per call."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = anyio.current_time() + seconds

    def remaining(self) -> float:
        return self._end - anyio.current_time()

    def budget(self, share: float = 1.0) -> float:
        """Seconds for the next call: what is left, at most ``share`` of the whole deadline."""
        return min(self.remaining(), share * self.seconds)


def _limit(settings: Settings, timeout_s: float | None, url: str) -> float:
    """The call's own limit: the turn's remaining budget (``timeout_s``), else RAG_LLM_TIMEOUT_S."""
    limit = settings.llm_timeout_s if timeout_s is None else timeout_s
    if limit <= 0:
        raise _fail("timeout", f"{url}: the turn's deadline ({settings.llm_timeout_s} s) has passed")
    return limit


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
    body = {"model": settings.llm_model, "messages": messages, "temperature": 0, "max_tokens": settings.llm_max_tokens,
            **extra}
    return url, headers, body


async def _post_json(settings: Settings, client: httpx.AsyncClient, messages: list[dict[str, Any]],
                     timeout_s: float | None = None, **extra: Any) -> dict[str, Any]:
    """POST one non-streaming request under the deadline; return the first choice's message."""
    url, headers, body = _request(settings, messages, **extra)
    limit = _limit(settings, timeout_s, url)
    metrics.LLM_CALLS.inc()
    try:
        with anyio.fail_after(limit):
            response = await client.post(url, json=body, headers=headers, timeout=limit)
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise _fail("timeout", f"{url} gave no answer within {limit:.3g} s") from exc
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


async def complete(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient,
                   timeout_s: float | None = None) -> str:
    """The first choice's text (stripped); an empty answer is a bad_response."""
    message = await _post_json(settings, client, messages, timeout_s)
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise _fail("empty", f"{settings.llm_url} returned an empty answer")
    return content.strip()


async def complete_with_tools(settings: Settings, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                              client: httpx.AsyncClient, timeout_s: float | None = None) -> Completion:
    """Offer `tools` (OpenAI function tools); return the text, or the tool calls the model asked for."""
    message = await _post_json(settings, client, messages, timeout_s, tools=tools)
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


async def stream(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient,
                 timeout_s: float | None = None) -> AsyncIterator[str]:
    """Yield the text deltas of a ``stream: true`` completion until ``data: [DONE]``.

    The deadline covers the whole stream. Closing the generator (a client that went away) closes the
    HTTP response, which stops the LLM's work. A stream that ends without [DONE], or with no text,
    is a bad_response (what was yielded may be a truncated answer).
    """
    yielded = False
    async with aclosing(_stream_deltas(settings, messages, client, timeout_s)) as deltas:
        async for delta in deltas:
            content = delta.get("content")
            if isinstance(content, str) and content:
                yielded = True
                yield content
    if not yielded:
        raise _fail("empty", f"{settings.llm_url} streamed no text")


async def stream_with_tools(settings: Settings, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                            client: httpx.AsyncClient, timeout_s: float | None = None) -> AsyncIterator[str | ToolCalls]:
    """Offer `tools` on a streamed completion: yield each text delta as it arrives, then, if the model
    asked for tools, one ``ToolCalls`` last (assembled from its fragments, arguments decoded).

    A tool call arrives in pieces (``delta.tool_calls[i]`` with an ``index``; the id and name usually
    first, the arguments JSON split over many chunks), so pieces are joined per index. The calls are
    read whatever the ``finish_reason`` says (some servers say ``stop`` after tool calls). Failures,
    deadline and closing are as for ``stream``; neither text nor tool calls is a bad_response.
    """
    parts: dict[int, dict[str, str]] = {}
    yielded = False
    async with aclosing(_stream_deltas(settings, messages, client, timeout_s, tools=tools)) as deltas:
        async for delta in deltas:
            _add_fragments(parts, delta.get("tool_calls"), settings.llm_url)
            content = delta.get("content")
            if isinstance(content, str) and content:
                yielded = True
                yield content
    if parts:
        yield ToolCalls([_assembled(call, settings.llm_url) for _, call in sorted(parts.items())])
    elif not yielded:
        raise _fail("empty", f"{settings.llm_url} streamed neither text nor tool calls")


def _add_fragments(parts: dict[int, dict[str, str]], fragments: Any, url: str | None) -> None:
    """Join one chunk's tool-call fragments onto the calls assembled so far, by index."""
    if not fragments:
        return
    try:
        for position, fragment in enumerate(fragments):
            index = int(fragment.get("index", position))
            call = parts.setdefault(index, {"id": "", "name": "", "arguments": ""})
            call["id"] = call["id"] or str(fragment.get("id") or "")
            function = fragment.get("function") or {}
            call["name"] += function.get("name") or ""
            call["arguments"] += function.get("arguments") or ""
    except (ValueError, TypeError, AttributeError) as exc:
        raise _fail("bad_reply", f"{url} sent a malformed tool-call fragment: {exc!r}") from exc


def _assembled(call: dict[str, str], url: str | None) -> ToolCall:
    if not call["id"] or not call["name"]:
        raise _fail("bad_reply", f"{url} streamed a tool call without an id or a name")
    return _tool_call({"id": call["id"], "function": {"name": call["name"], "arguments": call["arguments"]}}, url)


async def _stream_deltas(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient,
                         timeout_s: float | None = None, **extra: Any) -> AsyncIterator[dict[str, Any]]:
    """The ``delta`` object of each chunk of a ``stream: true`` completion, until ``data: [DONE]``.

    The deadline covers the whole stream; closing the generator closes the HTTP response (which stops
    the LLM's work); a stream that ends without [DONE] is a bad_response.
    """
    url, headers, body = _request(settings, messages, stream=True, **extra)
    limit = _limit(settings, timeout_s, url)
    metrics.LLM_CALLS.inc()
    deadline = anyio.current_time() + limit
    try:
        with anyio.fail_after(limit):
            response = await client.send(client.build_request("POST", url, json=body, headers=headers,
                                                              timeout=limit), stream=True)
    except (TimeoutError, httpx.TimeoutException) as exc:
        raise _fail("timeout", f"{url} gave no answer within {limit:.3g} s") from exc
    except httpx.HTTPError as exc:
        raise _fail("unreachable", f"{url} unreachable: {type(exc).__name__}: {exc}") from exc
    try:
        if response.status_code != 200:
            with anyio.move_on_after(max(deadline - anyio.current_time(), 0)):
                await response.aread()
            raise _fail("http_status", f"{url} answered {response.status_code}: {response.text[:200]}")
        lines = response.aiter_lines()
        while True:
            line = await _next_line(lines, deadline, url, limit)
            if line is None:
                raise _fail("bad_reply", f"{url} ended the stream without [DONE]")
            delta = _sse_delta(line, url)
            if delta is _DONE:
                break
            if delta:
                yield delta  # type: ignore[misc]
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


def _sse_delta(line: str, url: str) -> dict[str, Any] | object | None:
    """The ``delta`` object in one SSE line: _DONE for ``data: [DONE]``, None for lines carrying none
    (blank lines, comments, ``event:``/``id:`` fields, a usage-only chunk)."""
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
        delta = choices[0].get("delta") or {}
        if not isinstance(delta, dict):
            raise TypeError("delta is not an object")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise _fail("bad_reply", f"{url} sent a malformed stream chunk: {exc!r}") from exc
    return delta
