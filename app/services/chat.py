"""Chat: a conversation's memory and scope, retrieval of what the caller may see, the model's tools,
then an answer from the OpenAI-compatible LLM or, offline, an extractive one.

Order of work, so that bad input changes nothing and a failure stores nothing half-done:
``prepare`` checks the conversation (404), the scope (422) and reads the last turns; the follow-up is
made standalone for retrieval (one condensation call with an LLM, key terms carried over without);
retrieval runs under the conversation's scope and the access rule; the model may call tools for at
most RAG_CHAT_MAX_TOOL_ROUNDS rounds; only once an answer exists are both turns stored, in one
transaction (a new conversation is created just before). An LLM failure is answered extractively
and says so (``llm_error``, a warning with the request id): an extractive answer is an answer, so it
is stored. A cancelled request (a client that went away) stores nothing and closes the LLM call.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx

from app.config import Settings
from app.domain import MAX_CITATIONS, Caller, Conversation, Message, Scope
from app.engines.base import Engine
from app.entities import EMPLOYEES
from app.logs import current_request_id
from app.rag import extractive, followup, prompting
from app.services import conversations, tools
from app.services.conversations import EffectiveScope, InvalidScopeError
from app.services.llm import (Completion, LLMError, ToolCall, ToolCalls, complete, complete_with_tools, stream,
                              stream_with_tools)
from app.services.search import TimedSearch, search

log = logging.getLogger(__name__)
Emit = Callable[[str], Awaitable[None]]  # receives answer text as it is produced (streaming)


@dataclass(frozen=True)
class ChatInput:
    message: str
    conversation_id: int | None = None
    rag_scope: object = None  # only for a new conversation; default RAG_CHAT_DEFAULT_SCOPE
    pinned: bool = False
    top_k: int | None = None


@dataclass
class Prepared:
    """Everything checked before any slow work: the caller, the conversation (None = new), memory."""

    caller: Caller
    message: str
    state: tools.ToolState
    history: list[Message]
    title: str
    top_k: int


@dataclass(frozen=True)
class ChatAnswer:
    answer: str
    citations: list[str]
    search: TimedSearch
    llm_used: bool
    llm_error: str | None
    conversation_id: int
    message_id: int
    scope: EffectiveScope
    new_scope: EffectiveScope | None
    timings_ms: dict[str, float] = field(default_factory=dict)


def prepare(engine: Engine, settings: Settings, caller: Caller, inp: ChatInput) -> Prepared:
    """Blocking (run it in a thread). ConversationNotFoundError / InvalidScopeError change nothing."""
    if inp.conversation_id is not None:
        if inp.rag_scope is not None or inp.pinned:
            raise InvalidScopeError("rag_scope and pinned apply only when creating a conversation; "
                                    "change a conversation's scope with PATCH /conversations/{id}")
        conv: Conversation | None = conversations.owned(engine, caller, inp.conversation_id)
        scope, pinned = conv.rag_scope, conv.pinned_project_id
        history = engine.recent_messages(conv.conversation_id, 2 * settings.chat_history_turns) \
            if settings.chat_history_turns else []
    else:
        conv, history = None, []
        scope = conversations.valid_scope(engine, inp.rag_scope if inp.rag_scope is not None
                                          else settings.chat_default_scope)
        pinned = int(scope) if inp.pinned and scope not in ("none", "all") else None
        if inp.pinned and pinned is None:
            raise InvalidScopeError("a pinned conversation needs rag_scope to be a project id")
    state = tools.ToolState(engine, caller, scope, pinned, conv)
    return Prepared(caller, inp.message.strip(), state, history, conversations.title_of(inp.message),
                    inp.top_k or settings.top_k)


async def chat(engine: Engine, settings: Settings, prep: Prepared, client: httpx.AsyncClient,
               emit: Emit | None = None) -> ChatAnswer:
    started = time.perf_counter()
    llm_on = bool(settings.llm_url and settings.llm_model)
    history = [{"role": m.role, "content": m.content} for m in prep.history]
    query = await _retrieval_query(settings, client, history, prep.message, llm_on)
    first_scope = await anyio.to_thread.run_sync(conversations.effective, engine, prep.state.scope)
    found = await _search(engine, settings, prep, query, first_scope)
    llm_started = time.perf_counter()
    answer, citations, llm_error, streamed = None, [], None, False
    if llm_on:
        try:
            answer, citations, found, streamed = await _llm_answer(engine, settings, prep, client, history,
                                                                   query, found, emit)
        except LLMError as exc:
            llm_error = exc.reason
            log.warning("LLM call failed (%s), answering extractively instead (request %s): %s",
                        exc.reason, current_request_id(), exc, extra={"llm_error": exc.reason})
    llm_used = answer is not None
    if answer is None:
        answer = extractive.extractive_answer(query, found.result.hits, settings.answer_max_distance)
        citations = prompting.cited_anchors(answer, found.result.hits)
    citations = citations[:MAX_CITATIONS]  # what a message stores (app.domain); the answer keeps every anchor
    if emit is not None and not streamed:
        await emit(answer)
    llm_ms = (time.perf_counter() - llm_started) * 1000
    conv, message_id = await anyio.to_thread.run_sync(_store, engine, prep, answer, citations)
    scope = await anyio.to_thread.run_sync(conversations.effective, engine, prep.state.scope)
    timings = {"embed": found.embed_ms, "search": found.search_ms, "llm": llm_ms,
               "total": (time.perf_counter() - started) * 1000}
    return ChatAnswer(answer, citations, found, llm_used, llm_error, conv.conversation_id, message_id,
                      scope, scope if prep.state.scope_changed else None, timings)


async def _retrieval_query(settings: Settings, client: httpx.AsyncClient, history: list[dict[str, str]],
                           message: str, llm_on: bool) -> str:
    """A standalone query for a follow-up: the LLM rewrites it, or the previous user turn's key terms
    are carried over (also when the condensation call fails: the answer call then reports)."""
    if not history:
        return message
    if llm_on:
        try:
            rewritten = await complete(settings, followup.condensation_messages(history, message), client)
            return " ".join(rewritten.split())[:2000]
        except LLMError as exc:
            log.warning("follow-up condensation failed (%s), carrying key terms instead (request %s)",
                        exc.reason, current_request_id(), extra={"llm_error": exc.reason})
    previous = [t["content"] for t in history if t["role"] == "user"]
    return followup.standalone_query(previous, message)


async def _search(engine: Engine, settings: Settings, prep: Prepared, query: str,
                  scope: EffectiveScope) -> TimedSearch:
    return await anyio.to_thread.run_sync(lambda: search(engine, query, prep.caller, prep.top_k,
                                                         Scope(project=scope.project), settings.search_mode))


async def _llm_answer(engine: Engine, settings: Settings, prep: Prepared, client: httpx.AsyncClient,
                      history: list[dict[str, str]], query: str, found: TimedSearch,
                      emit: Emit | None) -> tuple[str, list[str], TimedSearch, bool]:
    """The tool loop, then the answer; with `emit`, every round is streamed and its text forwarded."""
    messages = await _prompt(engine, prep, history, found)
    context_ix = len(messages) - 1
    rounds_left = settings.chat_max_tool_rounds
    while True:
        if rounds_left > 0:
            completion = await _tool_round(settings, messages, client, emit)
            if completion.tool_calls:
                rounds_left -= 1
                scope_before = prep.state.scope
                await _run_tools(prep.state, completion, messages)
                if prep.state.scope != scope_before:  # retrieve again from the new scope
                    scope = await anyio.to_thread.run_sync(conversations.effective, engine, prep.state.scope)
                    found = await _search(engine, settings, prep, query, scope)
                    fresh = await _prompt(engine, prep, history, found)
                    messages[0], messages[context_ix] = fresh[0], fresh[-1]
                continue
            raw = completion.text or ""
        elif emit is not None:
            parts = []
            async with aclosing(stream(settings, messages, client)) as deltas:  # closed at once if cancelled
                async for delta in deltas:
                    parts.append(delta)
                    await emit(delta)
            raw = "".join(parts)
        else:
            raw = await complete(settings, messages, client)
        context = prompting.context_hits(found.result.hits)
        known = set(prompting.unique_anchors(context)) | prep.state.anchors
        answer = prompting.strip_invented_anchors(raw, sorted(known))
        cited = [m.group(0) for m in prompting.ANCHOR.finditer(answer)]
        return answer, [a for a in dict.fromkeys(cited) if a in known], found, emit is not None


async def _tool_round(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient,
                      emit: Emit | None) -> Completion:
    """One round with the tools offered. Streamed when there is an `emit`: its text deltas are
    forwarded as they come (the model rarely says anything before calling a tool; if it does, the
    reader sees it too), and the raw text is kept unstripped so the tokens add up to it."""
    if emit is None:
        return await complete_with_tools(settings, messages, tools.SCHEMAS, client)
    parts: list[str] = []
    calls: list[ToolCall] = []
    async with aclosing(stream_with_tools(settings, messages, tools.SCHEMAS, client)) as events:
        async for event in events:
            if isinstance(event, ToolCalls):
                calls = event.calls
            else:
                parts.append(event)
                await emit(event)
    return Completion("".join(parts) or None, calls)


async def _run_tools(state: tools.ToolState, completion: Any, messages: list[dict[str, Any]]) -> None:
    messages.append({"role": "assistant", "content": completion.text, "tool_calls": [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for c in completion.tool_calls]})
    for call in completion.tool_calls:
        result = await anyio.to_thread.run_sync(tools.dispatch, state, call)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


async def _prompt(engine: Engine, prep: Prepared, history: list[dict[str, str]],
                  found: TimedSearch) -> list[dict[str, Any]]:
    asker, label = await anyio.to_thread.run_sync(_asker_and_scope, engine, prep)
    context = prompting.context_hits(found.result.hits)
    return prompting.build_messages(prep.message, context, asker=asker, today=dt.date.today(), scope=label,
                                    history=history)


def _asker_and_scope(engine: Engine, prep: Prepared) -> tuple[prompting.Asker, str]:
    """Who asks (name and role from EMPLOYEES) and the scope's label, for the system prompt."""
    row = engine.get(EMPLOYEES, prep.caller.employee_id) or {}
    name = " ".join(p for p in (row.get("first_name"), row.get("last_name")) if p) \
        or f"employee {prep.caller.employee_id}"
    scope = conversations.effective(engine, prep.state.scope)
    return prompting.Asker(name, prep.caller.role.value), prompting.scope_label(
        scope.project, scope.label if isinstance(scope.project, int) else None)


def _store(engine: Engine, prep: Prepared, answer: str, citations: list[str]) -> tuple[Conversation, int]:
    """Both turns in one transaction; a conversation created for them is removed if they fail."""
    state = prep.state
    created = state.conversation is None
    conv = state.conversation or conversations.create(engine, prep.caller, state.scope,
                                                      state.pinned_project_id is not None, prep.title)
    try:
        new_scope = state.scope if state.scope_changed and not created else None
        _, assistant = engine.append_turn(conv.conversation_id, prep.message, answer, citations, new_scope)
    except BaseException:
        if created:
            engine.delete_conversation(conv.conversation_id)
        raise
    return conv, assistant.message_id
