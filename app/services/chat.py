"""Chat: one turn of a conversation, from the question to the stored answer. Every face (the REST chat
and its stream, the Telegram bot, the OpenAI-compatible API, MCP, the console) calls these functions.

Order of work, so that bad input changes nothing and a failure stores nothing half-done:

1. ``prepare`` checks the conversation (404) and the scope (422) and reads the recent turns.
2. Memory under the current rule: turns grounded in an entity the asker can no longer see are left out
   of everything that follows (prompt, rewrite, focus); the focus must still be visible.
3. Routing (app/rag/routing.py): the question's kind by meaning (app/services/understanding.py), then the
   rules and slots: an id is looked up, a tracker question is a find_tasks query, a comparison a ranking,
   comments and blockers are read from the records, a scope request changes the scope, a follow-up is
   about the focus, the rest is retrieval — the same for the extractive answer and the LLM. A route that
   computes its answer fills ``Evidence.computed`` (app/services/routed_answers.py).
4. Retrieval under the conversation's scope and the access rule (a follow-up's query carries its focus).
5. With an LLM: the routed evidence first in the context, then the retrieved chunks the offline answer's
   relevance gate passes (the context holds only what may be said; every instruction, such as "the computed
   answer is authoritative", is in the system prompt), tools for at most RAG_CHAT_MAX_TOOL_ROUNDS
   rounds, then the answer, whose citations are checked (app/rag/citations.py). One deadline,
   RAG_LLM_TIMEOUT_S, bounds the whole turn (the rewrite gets a small share of it). An LLM failure, or an
   answer left with no citable support, is answered extractively and says why (``llm_error``).
6. Only once an answer exists are both turns stored, in one transaction, with what the answer rested on
   (its focus, the chunks it was given, the scope, ``llm_error``). A cancelled request stores nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Sequence

import anyio
import httpx

from app.config import Settings
from app.domain import MAX_CITATIONS, MAX_RETRIEVED, Caller, Conversation, Message, TurnFacts
from app.engines.base import Engine
from app.rag import prompting, refs
from app.services import conversations, tools
from app.services.conversations import InvalidScopeError
from app.services.chat_evidence import (citations_of, compute, entity_results, focus_after_turn, gather, given_chunks,
                                        offline_answer, rests_on, retrieval_query, route_of, stored_query)
from app.services.chat_llm import llm_turn
from app.services.chat_state import ChatAnswer, ChatInput, Prepared, Stream  # noqa: F401 (the faces import them here)
from app.services.llm import Deadline

log = logging.getLogger(__name__)


def prepare(engine: Engine, settings: Settings, caller: Caller, inp: ChatInput) -> Prepared:
    """Blocking (run it in a thread). ConversationNotFoundError / InvalidScopeError change nothing."""
    if inp.conversation_id is not None:
        if inp.rag_scope is not None or inp.pinned:
            raise InvalidScopeError("rag_scope and pinned apply only when creating a conversation; "
                                    "change a conversation's scope with PATCH /conversations/{id}")
        conv: Conversation | None = conversations.owned(engine, caller, inp.conversation_id)
        scope, pinned = conv.rag_scope, conv.pinned_project_id
        # At least the last turn: its focus is the conversation's, whatever the history setting.
        history = engine.recent_messages(conv.conversation_id, max(2 * settings.chat_history_turns, 2))
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


def prepare_stateless(engine: Engine, settings: Settings, caller: Caller, turns: Sequence[tuple[str, str]],
                      question: str, rag_scope: object = None, top_k: int | None = None) -> Prepared:
    """A conversation the client keeps (an OpenAI-style message list): its earlier (role, content) turns are
    the memory — an assistant turn was grounded in the anchors it cites, the first of them its focus — and
    the same rules apply to them (memory under the access rule, focus, routing). An assistant turn citing
    more than any answer of ours does (MAX_CITATIONS) is left out with its question: each anchor is looked
    up, and a message list must not make one turn load thousands of entities. Nothing is stored.
    InvalidScopeError for a bad scope."""
    scope = conversations.valid_scope(engine, rag_scope if rag_scope is not None else settings.chat_default_scope)
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    keep = turns[-max(2 * settings.chat_history_turns, 2):]
    history: list[Message] = []
    for ix, (role, content) in enumerate(keep):
        cited = tuple(refs.anchor(r) for r in refs.anchors_in(content)) if role == "assistant" else ()
        if len(cited) > MAX_CITATIONS:
            if history and history[-1].role == "user":
                history.pop()
            continue
        facts = TurnFacts(focus=cited[0] if cited else None, entities=rests_on(content, cited, None, ()))
        history.append(Message(-(ix + 1), 0, role, content, cited, now, facts))  # type: ignore[arg-type]
    state = tools.ToolState(engine, caller, scope, None, None)
    return Prepared(caller, question.strip(), state, history, conversations.title_of(question),
                    top_k or settings.top_k, persist=False)


async def chat(engine: Engine, settings: Settings, prep: Prepared, client: httpx.AsyncClient,
               sink: Stream | None = None) -> ChatAnswer:
    started = time.perf_counter()
    deadline = Deadline(settings.llm_timeout_s)
    llm_on = bool(settings.llm_url and settings.llm_model)
    memory, focus = await anyio.to_thread.run_sync(conversations.memory, engine, prep.caller, prep.history,
                                                   prep.state.scope)
    route = await anyio.to_thread.run_sync(route_of, engine, prep, focus, memory)
    history = prompting.recent_history([{"role": m.role, "content": m.content}
                                        for m in memory][-2 * settings.chat_history_turns:]) \
        if settings.chat_history_turns else []
    query = await retrieval_query(settings, client, deadline, prep, route, memory, history, focus, llm_on)
    evidence = await anyio.to_thread.run_sync(gather, engine, settings, prep, route, query)
    compute(settings, prep, evidence)
    llm_started = time.perf_counter()
    answer, cited, llm_error, shown, compose_ms = None, [], None, False, 0.0
    if llm_on:
        answer, cited, llm_error, shown = await llm_turn(engine, settings, prep, client, deadline, history,
                                                          evidence, sink)
    llm_used = answer is not None
    if answer is None:
        composing = time.perf_counter()
        answer = await anyio.to_thread.run_sync(offline_answer, engine, settings, prep, evidence)
        compose_ms = (time.perf_counter() - composing) * 1000
        cited = citations_of(answer, evidence, prep.state)
        if sink is not None:
            if shown:
                await sink.reset(llm_error or "bad_response")
            await sink.token(answer)
    llm_ms = (time.perf_counter() - llm_started) * 1000
    scope_used = evidence.scope
    given = given_chunks(evidence, prep.state)
    focus_after = focus_after_turn(evidence, cited, focus)
    facts = TurnFacts(focus_after, given[:MAX_RETRIEVED], scope_used.value, llm_error,
                      rests_on(answer, cited, focus_after, given), stored_query(evidence.ran))
    conversation_id = message_id = None
    if prep.persist:
        conv, message_id = await anyio.to_thread.run_sync(_store, engine, prep, answer, cited[:MAX_CITATIONS], facts)
        conversation_id = conv.conversation_id
    timings = {"embed": evidence.found.embed_ms, "search": evidence.found.search_ms, "llm": llm_ms,
               "compose": compose_ms, "total": (time.perf_counter() - started) * 1000}
    return ChatAnswer(answer, cited, evidence.found, llm_used, llm_error, conversation_id, message_id,
                      scope_used, scope_used if prep.state.scope_changed else None, timings,
                      entity_results(evidence, prep.state, cited), evidence.route.kind)


def _store(engine: Engine, prep: Prepared, answer: str, cited: list[str],
           facts: TurnFacts) -> tuple[Conversation, int]:
    """Both turns in one transaction; a conversation created for them is removed if they fail."""
    state = prep.state
    created = state.conversation is None
    conv = state.conversation or conversations.create(engine, prep.caller, state.scope,
                                                      state.pinned_project_id is not None, prep.title)
    try:
        new_scope = state.scope if state.scope_changed and not created else None
        _, assistant = engine.append_turn(conv.conversation_id, prep.message, answer, cited, new_scope, facts)
    except BaseException:
        if created:
            engine.delete_conversation(conv.conversation_id)
        raise
    return conv, assistant.message_id
