"""Chat: retrieve what the caller may see, then answer with an OpenAI-compatible LLM or extractively.

The main job must work offline, so any LLM failure (unreachable, timeout, bad reply) is logged and
answered extractively from the same retrieved chunks instead of failing the request.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import anyio
import httpx

from app import metrics
from app.config import Settings
from app.domain import Caller, Scope
from app.engines.base import Engine
from app.rag import prompting
from app.services.search import TimedSearch, search

log = logging.getLogger(__name__)


class LLMError(RuntimeError):
    """The chat-completions endpoint did not give a usable answer."""


@dataclass(frozen=True)
class ChatAnswer:
    answer: str
    citations: list[str]
    search: TimedSearch
    llm_used: bool
    conversation_id: str | None = None


async def chat(
    engine: Engine,
    settings: Settings,
    message: str,
    caller: Caller,
    client: httpx.AsyncClient,
    top_k: int | None = None,
    conversation_id: str | None = None,
    scope: Scope | None = None,
) -> ChatAnswer:
    """Retrieve in a worker thread (the engine is blocking), then wait for the LLM without holding
    one: a silent LLM must not use up the thread pool that search and writes need."""
    found = await anyio.to_thread.run_sync(
        lambda: search(engine, message, caller, top_k or settings.top_k, scope, settings.search_mode)
    )
    hits = found.result.hits
    if hits and settings.llm_url and settings.llm_model:
        try:
            answer = await complete(settings, prompting.build_messages(message, hits), client)
            citations = prompting.cited_anchors(answer, hits)
            return ChatAnswer(answer, citations, found, True, conversation_id)
        except LLMError as exc:
            log.warning("LLM call failed, answering extractively instead: %s", exc)
    answer = prompting.extractive_answer(hits)
    return ChatAnswer(answer, prompting.cited_anchors(answer, hits), found, False, conversation_id)


def llm_client(settings: Settings) -> httpx.AsyncClient:
    """One pooled client per app; its connection cap matches the chat concurrency limit."""
    cap = settings.chat_max_concurrency
    return httpx.AsyncClient(timeout=settings.llm_timeout_s,
                             limits=httpx.Limits(max_connections=cap, max_keepalive_connections=min(cap, 20)))


async def complete(settings: Settings, messages: list[dict[str, str]], client: httpx.AsyncClient) -> str:
    """POST {llm_url}/chat/completions and return the first choice's text."""
    url = settings.llm_url.rstrip("/") + "/chat/completions"  # type: ignore[union-attr]
    headers = {"Content-Type": "application/json"}
    if settings.llm_api_key is not None:
        headers["Authorization"] = f"Bearer {settings.llm_api_key.get_secret_value()}"
    body = {"model": settings.llm_model, "messages": messages, "temperature": 0}
    metrics.LLM_CALLS.inc()
    try:
        # One overall deadline: a server that trickles bytes must not reset a per-read timeout forever.
        with anyio.fail_after(settings.llm_timeout_s):
            response = await client.post(url, json=body, headers=headers, timeout=settings.llm_timeout_s)
        response.raise_for_status()
        content = response.json()["choices"][0]["message"]["content"]
    except TimeoutError as exc:
        raise LLMError(f"{url} gave no answer within {settings.llm_timeout_s} s") from exc
    except httpx.HTTPStatusError as exc:
        metrics.LLM_ERRORS.labels("http_status").inc()
        raise LLMError(f"{url} answered {exc.response.status_code}: {exc.response.text[:200]}") from exc
    except httpx.HTTPError as exc:
        metrics.LLM_ERRORS.labels("timeout" if isinstance(exc, httpx.TimeoutException) else "unreachable").inc()
        raise LLMError(f"{url} unreachable: {type(exc).__name__}: {exc}") from exc
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        metrics.LLM_ERRORS.labels("bad_reply").inc()
        raise LLMError(f"{url} returned no chat-completions choice: {exc!r}") from exc
    if not isinstance(content, str) or not content.strip():
        metrics.LLM_ERRORS.labels("empty").inc()
        raise LLMError(f"{url} returned an empty answer")
    return content.strip()
