"""The LLM half of a chat turn: the prompt from the evidence (the computed answer first, then what the relevance
gate passes), the tool rounds, and the checks of the reply against what it was given (citations, the computed
answer it must keep). A failure or an unsupported reply is answered extractively by app/services/chat.py."""



from __future__ import annotations

import json
import logging
from contextlib import aclosing
from typing import Any

import anyio
import httpx

from app.config import Settings
from app.engines.base import Engine
from app.entities import EMPLOYEES
from app.logs import current_request_id
from app.rag import backbone, citations, extractive, prompting, terms
from app.services import entities, tools
from app.services.conversations import EffectiveScope
from app.services.llm import (Completion, Deadline, LLMError, ToolCall, ToolCalls, complete, complete_with_tools,
                              stream, stream_with_tools)

log = logging.getLogger(__name__)

from app.services.chat_evidence import citable_anchors, compute, gather, prompt_hits
from app.services.chat_state import Evidence, Prepared, Stream

def _evidence_blocks(evidence: Evidence) -> list[str]:
    """The routed evidence, before the retrieved chunks, as the asker may read it (the rules about it are in
    the system prompt, _rules): the answer computed from the records (which the reply must keep), then each
    entity looked up (whole, once; the focus of a follow-up is the card's entity, so its record comes next).
    What an id lookup could not find is in its computed card ("I can't find task #9999 …")."""
    computed = evidence.computed  # a guessed reading is given too, as context the model may check with its tools
    blocks = [computed.text] if computed is not None else []
    blocks += [entities.text_of(r) for r in evidence.entities.values()]
    return blocks


def _rules(evidence: Evidence) -> list[str]:
    """This turn's rules for the system prompt: the computed answer is authoritative; or nothing covers the
    question (the context's first line says so)."""
    if evidence.backbone is not None:
        return [prompting.COMPUTED_RULE]
    return [prompting.UNCOVERED_RULE] if _lead(evidence) else []


def _lead(evidence: Evidence, lang: str = "en") -> str | None:
    """The context's first line when no visible hit covers the question: the offline answer's lead, without
    the topic, which is the question's own words."""
    if not evidence.uncovered or evidence.computed is not None or not prompt_hits(evidence):
        return None
    return extractive.NOT_COVERED[lang]


async def llm_turn(engine: Engine, settings: Settings, prep: Prepared, client: httpx.AsyncClient,
                    deadline: Deadline, history: list[dict[str, str]], evidence: Evidence,
                    sink: Stream | None) -> tuple[str | None, list[str], str | None, bool]:
    """(answer, citations, llm_error, text shown): the answer is None when the LLM failed or its answer
    kept no citable support; whatever was streamed is then void. Given nothing to answer from (no routed
    evidence, no chunk past the relevance gate), the model can only say it does not know: its reply is held
    back, and unless a tool showed it something to cite, the answer is the chat's own "I don't know" in the
    asker's language (no llm_error: nothing failed)."""
    shown = False
    nothing_given = not _evidence_blocks(evidence) and not prompt_hits(evidence)

    async def forward(text: str) -> None:
        nonlocal shown
        shown = True
        await sink.token(text)  # type: ignore[union-attr]

    try:
        raw = await _llm_answer(engine, settings, prep, client, deadline, history, evidence,
                                forward if sink is not None and not nothing_given else None)
    except LLMError as exc:
        log.warning("LLM call failed (%s), answering extractively instead (request %s): %s",
                    exc.reason, current_request_id(), exc, extra={"llm_error": exc.reason})
        return None, [], exc.reason, shown
    citable = citable_anchors(evidence, prep.state)
    made_up = citations.invented(raw, citable | _shown_anchors(history, evidence))
    cleaned = citations.clean(raw, citable)
    if made_up or not cleaned.grounded or not cleaned.text:
        log.warning("the LLM's answer cites what it was not given (%s) or kept no citable support (removed %s), "
                    "answering extractively (request %s)", made_up, cleaned.removed, current_request_id(),
                    extra={"llm_error": "ungrounded"})
        return None, [], "ungrounded", shown
    kept = backbone.verdict(cleaned.text, evidence.backbone) if evidence.backbone is not None else None
    if kept is not None:
        log.warning("the LLM's answer is %s against the computed one, answering with that (request %s)",
                    kept, current_request_id(), extra={"llm_error": kept})
        return None, [], kept, shown
    if nothing_given:
        if not cleaned.cited and not prep.state.scope_changed:
            return None, [], None, shown
        if sink is not None:  # held back until checked
            await sink.token(cleaned.text)
            shown = True
    return cleaned.text, cleaned.cited, None, shown


def _shown_anchors(history: list[dict[str, str]], evidence: Evidence) -> set[str]:
    """Anchors the prompt shows without making them citable (an earlier turn's, one a chunk's text names):
    a reply citing one is trimmed of that claim, while an anchor shown nowhere is invented."""
    texts = [t["content"] for t in history] + _evidence_blocks(evidence) + \
        [h.content for h in prompt_hits(evidence)]
    return {a for text in texts for a in citations.anchors_in(text)}


async def _llm_answer(engine: Engine, settings: Settings, prep: Prepared, client: httpx.AsyncClient,
                      deadline: Deadline, history: list[dict[str, str]], evidence: Evidence, emit) -> str:
    """The tool loop, then the answer; with ``emit``, every round is streamed and its text forwarded."""
    messages = await _prompt(engine, prep, history, evidence)
    context_ix = len(messages) - 1
    rounds_left = settings.chat_max_tool_rounds
    while True:
        if rounds_left > 0:
            completion = await _tool_round(settings, messages, client, deadline, emit)
            if completion.tool_calls:
                rounds_left -= 1
                scope_before = prep.state.scope
                await _run_tools(prep.state, completion, messages)
                if prep.state.scope != scope_before:  # retrieve again from the new scope
                    refreshed = await anyio.to_thread.run_sync(gather, engine, settings, prep, evidence.route,
                                                               evidence.query)
                    evidence.found, evidence.scope, evidence.wider = refreshed.found, refreshed.scope, refreshed.wider
                    compute(settings, prep, evidence)  # what the new hits cover
                    fresh = await _prompt(engine, prep, history, evidence)
                    messages[0], messages[context_ix] = fresh[0], fresh[-1]
                continue
            return completion.text or ""
        if emit is not None:
            parts = []
            async with aclosing(stream(settings, messages, client, deadline.budget())) as deltas:
                async for delta in deltas:  # closed at once if cancelled
                    parts.append(delta)
                    await emit(delta)
            return "".join(parts)
        return await complete(settings, messages, client, deadline.budget())


async def _tool_round(settings: Settings, messages: list[dict[str, Any]], client: httpx.AsyncClient,
                      deadline: Deadline, emit) -> Completion:
    """One round with the tools offered. Streamed when there is an ``emit``: its text deltas are
    forwarded as they come (the model rarely says anything before calling a tool; if it does, the
    reader sees it too), and the raw text is kept unstripped so the tokens add up to it."""
    if emit is None:
        return await complete_with_tools(settings, messages, tools.SCHEMAS, client, deadline.budget())
    parts: list[str] = []
    calls: list[ToolCall] = []
    async with aclosing(stream_with_tools(settings, messages, tools.SCHEMAS, client, deadline.budget())) as events:
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
                  evidence: Evidence) -> list[dict[str, Any]]:
    asker, label = await anyio.to_thread.run_sync(_asker_and_scope, engine, prep, evidence.scope)
    return prompting.build_messages(prep.message, prompt_hits(evidence), asker=asker, today=prep.state.today,
                                    scope=label, history=history, evidence=_evidence_blocks(evidence),
                                    rules=_rules(evidence), lead=_lead(evidence, terms.language(prep.message)))


def _asker_and_scope(engine: Engine, prep: Prepared, scope: EffectiveScope) -> tuple[prompting.Asker, str]:
    """Who asks (name and role from EMPLOYEES) and the scope's label, for the system prompt."""
    row = engine.get(EMPLOYEES, prep.caller.employee_id) or {}
    name = " ".join(p for p in (row.get("first_name"), row.get("last_name")) if p) \
        or f"employee {prep.caller.employee_id}"
    return prompting.Asker(name, prep.caller.role.value, prep.caller.employee_id), prompting.scope_label(
        scope.project, scope.label if isinstance(scope.project, int) else None)


