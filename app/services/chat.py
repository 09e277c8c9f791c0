"""Chat: retrieve what the caller may see, then answer with an OpenAI-compatible LLM or extractively.

The main job must work offline, so an LLM failure (timeout, unreachable, bad response) is answered
extractively from the same retrieved chunks, and the answer says so (``llm_error``) and a warning
carrying the request id is logged. Anchors the model invents are removed from its text and never
become citations.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

import anyio
import httpx

from app.config import Settings
from app.domain import Caller, Scope
from app.engines.base import Engine
from app.entities import EMPLOYEES, PROJECTS
from app.logs import current_request_id
from app.rag import extractive, prompting
from app.services.llm import LLMError, complete
from app.services.search import TimedSearch, search

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatAnswer:
    answer: str
    citations: list[str]
    search: TimedSearch
    llm_used: bool
    conversation_id: str | None = None
    llm_error: str | None = None  # "timeout" | "unreachable" | "bad_response" when the LLM failed


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
    llm_error = None
    if hits and settings.llm_url and settings.llm_model:
        context = prompting.context_hits(hits)
        asker, label = await anyio.to_thread.run_sync(lambda: _asker_and_scope(engine, caller, scope))
        messages = prompting.build_messages(message, context, asker=asker, today=dt.date.today(), scope=label)
        try:
            raw = await complete(settings, messages, client)
            known = prompting.unique_anchors(context)
            answer = prompting.strip_invented_anchors(raw, known)
            return ChatAnswer(answer, prompting.cited_anchors(answer, context), found, True, conversation_id)
        except LLMError as exc:
            llm_error = exc.reason
            log.warning("LLM call failed (%s), answering extractively instead (request %s): %s",
                        exc.reason, current_request_id(), exc, extra={"llm_error": exc.reason})
    answer = extractive.extractive_answer(message, hits, settings.answer_max_distance)
    return ChatAnswer(answer, prompting.cited_anchors(answer, hits), found, False, conversation_id, llm_error)


def _asker_and_scope(engine: Engine, caller: Caller, scope: Scope | None) -> tuple[prompting.Asker, str]:
    """Who asks (name and role from EMPLOYEES) and the scope's label, for the system prompt."""
    row = engine.get(EMPLOYEES, caller.employee_id) or {}
    name = " ".join(p for p in (row.get("first_name"), row.get("last_name")) if p) or f"employee {caller.employee_id}"
    project = (scope or Scope()).project
    project_name = None
    if isinstance(project, int):
        project_name = (engine.get(PROJECTS, project) or {}).get("name")
    return prompting.Asker(name, caller.role.value), prompting.scope_label(project, project_name)
