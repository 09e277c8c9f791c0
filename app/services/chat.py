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

import dataclasses
import datetime as dt
import json
import logging
import time
from contextlib import aclosing
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Protocol

import anyio
import httpx

from app.config import Settings
from app.domain import (MAX_CITATIONS, MAX_QUERY_BYTES, MAX_QUESTION_CHARS, MAX_RETRIEVED, Caller, Conversation,
                        Message, Scope, SearchHit, TurnFacts)
from app.records_model import SourceRecord
from app.engines.base import Engine
from app.entities import EMPLOYEES
from app.logs import current_request_id
from app.rag import backbone, cards, citations, extractive, followup, named, prompting, refs, routing, terms
from app.rag.computed import Computed
from app.rag.refs import EntityRef
from app.rag.routing import Route
from app.rag.templates import header_line
from app.rag.understanding.query import TrackerQuery, query_from_json
from app.services import answers, conversations, entities, routed_answers, tools, tracker_answers, understanding
from app.services.conversations import EffectiveScope, InvalidScopeError
from app.services.llm import (Completion, Deadline, LLMError, ToolCall, ToolCalls, complete, complete_with_tools,
                              stream, stream_with_tools)
from app.services.search import TimedSearch, search

log = logging.getLogger(__name__)

REWRITE_SHARE = 0.25  # of the turn's deadline, at most, for the follow-up rewrite; the answer gets the rest
WIDER = 3  # times top_k: retrieval's second look when a topic's list may be cut at top_k (extractive.may_be_cut)


class Stream(Protocol):
    """Where a streamed turn's text goes as it is produced."""

    async def token(self, text: str) -> None: ...

    async def reset(self, llm_error: str) -> None:
        """The text sent so far is void; what follows is the answer from its start."""
        ...


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
    persist: bool = True  # False: a conversation the client keeps (prepare_stateless); nothing is stored
    question_vector: Any = None  # the question's embedding, once routing made it (retrieval reuses it)


@dataclass
class Evidence:
    """What a turn was given: the routed entities and task rows, and the retrieved hits."""

    route: Route
    found: TimedSearch
    query: str
    scope: EffectiveScope  # what retrieval ran under: the prompt's label and the answer's scope
    entities: dict[EntityRef, SourceRecord] = field(default_factory=dict)  # looked up (asked, or the focus)
    missing: list[EntityRef] = field(default_factory=list)  # asked by id, not among what the asker may see
    task_rows: list[dict[str, Any]] = field(default_factory=list)
    tasks_text: str | None = None  # the tracker answer (extractive), also the LLM's first context block
    person: Any = None
    computed: Computed | None = None  # the answer computed from the records, when the route computes one
    uncovered: str | None = None  # retrieval: the topic no visible hit covers ("the weekly mobile sync")
    relevant: list[SearchHit] = field(default_factory=list)  # the hits the relevance gate passes: the LLM's context
    wider: list[SearchHit] | None = None  # retrieval's second look when a topic's list may be cut at top_k
    not_about: str | None = None  # retrieval: a title the question names that no visible record is about
    meaning: dict[str, float] = field(default_factory=dict)  # retrieval: each entity's closeness to the question
    vectors: answers.SentenceVectors | None = None  # retrieval: the sentences embedded so far this turn
    ran: TrackerQuery | None = None  # the typed query the answer ran: stored with the turn for a follow-up

    @property
    def hits(self) -> list[SearchHit]:
        """What the answer is composed from: the second look's hits when there was one."""
        return self.wider if self.wider is not None else self.found.result.hits


@dataclass(frozen=True)
class ChatAnswer:
    answer: str
    citations: list[str]
    search: TimedSearch
    llm_used: bool
    llm_error: str | None
    conversation_id: int | None  # None: a stateless turn (prepare_stateless), not stored
    message_id: int | None
    scope: EffectiveScope
    new_scope: EffectiveScope | None
    timings_ms: dict[str, float] = field(default_factory=dict)
    entities: list[SearchHit] = field(default_factory=list)  # looked up or returned by a tool, not retrieved
    route: str = "retrieve"


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
        facts = TurnFacts(focus=cited[0] if cited else None, entities=_rests_on(content, cited, None, ()))
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
    route = await anyio.to_thread.run_sync(_route, engine, prep, focus, memory)
    history = prompting.recent_history([{"role": m.role, "content": m.content}
                                        for m in memory][-2 * settings.chat_history_turns:]) \
        if settings.chat_history_turns else []
    query = await _retrieval_query(settings, client, deadline, prep, route, memory, history, focus, llm_on)
    evidence = await anyio.to_thread.run_sync(_gather, engine, settings, prep, route, query)
    _compute(settings, prep, evidence)
    llm_started = time.perf_counter()
    answer, cited, llm_error, shown, compose_ms = None, [], None, False, 0.0
    if llm_on:
        answer, cited, llm_error, shown = await _llm_turn(engine, settings, prep, client, deadline, history,
                                                          evidence, sink)
    llm_used = answer is not None
    if answer is None:
        composing = time.perf_counter()
        answer = await anyio.to_thread.run_sync(_offline_answer, engine, settings, prep, evidence)
        compose_ms = (time.perf_counter() - composing) * 1000
        cited = _citations_of(answer, evidence, prep.state)
        if sink is not None:
            if shown:
                await sink.reset(llm_error or "bad_response")
            await sink.token(answer)
    llm_ms = (time.perf_counter() - llm_started) * 1000
    scope_used = evidence.scope
    given = _given(evidence, prep.state)
    focus_after = _focus_after(evidence, cited, focus)
    facts = TurnFacts(focus_after, given[:MAX_RETRIEVED], scope_used.value, llm_error,
                      _rests_on(answer, cited, focus_after, given), _stored_query(evidence.ran))
    conversation_id = message_id = None
    if prep.persist:
        conv, message_id = await anyio.to_thread.run_sync(_store, engine, prep, answer, cited[:MAX_CITATIONS], facts)
        conversation_id = conv.conversation_id
    timings = {"embed": evidence.found.embed_ms, "search": evidence.found.search_ms, "llm": llm_ms,
               "compose": compose_ms, "total": (time.perf_counter() - started) * 1000}
    return ChatAnswer(answer, cited, evidence.found, llm_used, llm_error, conversation_id, message_id,
                      scope_used, scope_used if prep.state.scope_changed else None, timings,
                      _entity_results(evidence, prep.state, cited), evidence.route.kind)


# --- routing, query, evidence --------------------------------------------------------------------

def _route(engine: Engine, prep: Prepared, focus: SourceRecord | None, memory: Sequence[Message] = ()) -> Route:
    """The question's kind by meaning, then the rules and the slots (app/rag/routing.py). Whether the
    asker's own words ask for a scope change is decided here, once: the set_rag_scope tool runs only then."""
    question = prep.message
    understood = understanding.understand(engine, question)
    prep.question_vector = understood.vector
    # Always the names: which rule a question meets depends on them ("what is blocked in Data Warehouse
    # Migration?" is a blocked list only once the project's name is known), and they are one small read.
    vocabulary = prep.state.vocabulary()
    focus_ref = entities.ref_of(focus) if focus is not None else None
    keys = refs.key_mentions(question)
    keyed = tuple(entities.refs_by_key(prep.state.engine, prep.caller, keys)) if keys else ()
    scope = conversations.effective(engine, prep.state.scope)
    tracker = routing.Tracker(prep.state.lexicon(), prep.caller.employee_id, _last_query(memory),
                              scope.project if isinstance(scope.project, int) else None)
    route = routing.route(question, focus_ref, vocabulary, prep.state.today, understood.intent, keyed, tracker)
    prep.state.asked_scope = route.kind == "scope"
    return route


def _stored_query(query: TrackerQuery | None) -> str | None:
    """The query as MESSAGES.TRACKER_QUERY holds it (None when there is none, or it is past the column)."""
    text = query.to_json() if query is not None else None
    return text if text is not None and len(text.encode()) <= MAX_QUERY_BYTES else None


def _last_query(memory: Sequence[Message]) -> TrackerQuery | None:
    """The query the last answer ran, if it ran one (a follow-up edits only the question just answered)."""
    answers_ = [m for m in memory if m.role == "assistant"]
    return query_from_json(answers_[-1].facts.query) if answers_ else None


async def _retrieval_query(settings: Settings, client: httpx.AsyncClient, deadline: Deadline, prep: Prepared,
                           route: Route, memory: list[Message], history: list[dict[str, str]],
                           focus: SourceRecord | None, llm_on: bool) -> str:
    """What retrieval searches for: the question itself, unless it is a follow-up (of the focus, or of
    the conversation when there is none). With an LLM the follow-up is rewritten as a standalone query
    within a share of the turn's deadline; without one, or when that fails, the focus's title (or the
    last question that named a topic) is carried over."""
    question = prep.message
    if route.kind not in ("follow_up", "retrieve") or not memory:  # the route names what it is about
        return question
    if route.kind == "retrieve" and not followup.is_follow_up(question):
        return question
    # The first line of the focus's text (a title may hold a line break), without building the whole text.
    about = header_line(focus).splitlines()[0] if focus is not None else None
    if llm_on:
        try:
            messages = followup.condensation_messages(history, question, about)
            rewritten = await complete(settings, messages, client, deadline.budget(REWRITE_SHARE))
            return " ".join(rewritten.split())[:MAX_QUESTION_CHARS]  # searched like a question
        except LLMError as exc:
            log.warning("follow-up rewrite failed (%s), carrying the focus instead (request %s)",
                        exc.reason, current_request_id(), extra={"llm_error": exc.reason})
    if about is not None:
        return followup.focused_query(question, refs_free(about))
    return followup.carried_query([m.content for m in memory if m.role == "user"], question)


def refs_free(text: str) -> str:
    """A header line without its anchor ("[TASK #107] Fix login bug" -> "Fix login bug")."""
    return prompting.ANCHOR.sub("", text).strip()


def _gather(engine: Engine, settings: Settings, prep: Prepared, route: Route, query: str) -> Evidence:
    """Blocking: the routed lookups or task query, and retrieval (always: the LLM reads it, and every
    answer lists what it was given). A scope request changes the scope first, so retrieval runs under
    the scope the asker just chose."""
    computed = routed_answers.scope_change(prep.state, route) if route.kind == "scope" else None
    scope = conversations.effective(engine, prep.state.scope)
    vector = prep.question_vector if query == prep.message else None
    found = search(engine, query, prep.caller, prep.top_k, Scope(project=scope.project), settings.search_mode,
                   vector=vector)
    evidence = Evidence(route, found, query, scope, computed=computed)
    if route.kind in ("lookup", "follow_up"):
        evidence.entities = entities.visible(engine, prep.caller, route.refs)
        evidence.missing = [r for r in route.refs if r not in evidence.entities]
    elif route.kind in ("tasks", "compare") and route.query is not None:
        evidence.computed, evidence.ran = tracker_answers.answer(prep.state, route.query, scope, route.lang)
    elif route.kind == "tasks" and route.tasks is not None \
            and routing.said_in_a_document(prep.message, route.tasks, found.result.hits):
        evidence.route = dataclasses.replace(route, kind="retrieve")  # a kind found by meaning gives way
        _by_title(prep, evidence)
    elif route.kind == "tasks" and route.tasks is not None:
        evidence.computed, evidence.task_rows, evidence.person = routed_answers.tracker(prep.state, route.tasks, scope)
        evidence.ran = tracker_answers.from_question(route.tasks, prep.caller.employee_id, prep.state.today)
    elif route.kind == "compare":
        evidence.computed = routed_answers.comparison(prep.state, route, scope)
        if route.tasks is not None:
            evidence.ran = tracker_answers.from_question(route.tasks, prep.caller.employee_id, prep.state.today,
                                                         route.group)
    elif route.kind in ("comments", "blockers"):
        read = routed_answers.comments_or_blockers(prep.state, route, prep.message, scope)
        evidence.computed, evidence.entities, evidence.missing = read.computed, read.entities, read.missing
    elif route.kind == "clarify":
        evidence.computed = routed_answers.clarify(prep.state, route, scope)
    elif route.kind == "retrieve":
        _by_title(prep, evidence)
    if evidence.computed is None and evidence.route.kind == "retrieve" and evidence.not_about is None \
            and extractive.may_be_cut(query, found.result.hits, settings.answer_max_distance, prep.top_k):
        # a topic's list may be cut at top_k: look again, wider, for the offline answer and the LLM alike
        evidence.wider = search(engine, query, prep.caller, prep.top_k * WIDER, Scope(project=scope.project),
                                settings.search_mode, vector=found.vector).result.hits
    if evidence.computed is not None:
        evidence.tasks_text = evidence.computed.text  # the LLM's first context block
    return evidence


def _by_title(prep: Prepared, evidence: Evidence) -> None:
    """A task or document the question names by its title (app/rag/named.py) is answered by its record card;
    a title no visible record is about is what the answer says first that nothing is about."""
    asked = named.named(prep.message, evidence.found.result.hits, lambda: _people_names(prep.state))
    if asked is None:
        return
    if asked.hit is None:
        evidence.not_about = asked.phrase
        return
    evidence.entities = entities.visible(prep.state.engine, prep.caller, [(asked.hit.source_type,
                                                                           asked.hit.source_id)])
    if evidence.entities:
        evidence.computed = cards.cards(prep.message, list(evidence.entities.values()))


def _people_names(state: tools.ToolState) -> frozenset[str]:
    return frozenset(terms.fold(n) for p in state.vocabulary().people for n in (p.first_name, p.last_name) if n)


# --- answers ---------------------------------------------------------------------------------------

def _compute(settings: Settings, prep: Prepared, evidence: Evidence) -> None:
    """A lookup, or a follow-up about a focus still visible, is answered by the entity's record card, which
    the LLM turn then keeps (a route that computed its answer already has one); for retrieval, whether any
    visible hit covers the question (the LLM is told to say so first when none does). The hits the LLM is
    shown are those the offline answer's relevance gate passes: when offline says "I don't know", the model
    gets no weak chunk to answer from either."""
    route = evidence.route
    if route.kind == "retrieve" and evidence.computed is None and evidence.not_about is None:
        evidence.vectors = answers.SentenceVectors(prep.state.engine)
        evidence.meaning = answers.closeness(prep.state.engine, evidence.query, evidence.hits, evidence.found.vector,
                                             evidence.vectors)
    evidence.relevant = extractive.relevant(evidence.query, evidence.hits, settings.answer_max_distance,
                                            evidence.meaning)
    if evidence.computed is None and (route.kind == "lookup" or (route.kind == "follow_up" and evidence.entities)):
        evidence.computed = cards.cards(prep.message, list(evidence.entities.values()),
                                        [*(_spoken(r) for r in evidence.missing), *route.missing_keys])
    elif route.kind == "retrieve" and evidence.computed is None:
        evidence.uncovered = evidence.not_about or extractive.uncovered(
            evidence.query, evidence.found.result.hits, settings.answer_max_distance, evidence.meaning)


def _offline_answer(engine: Engine, settings: Settings, prep: Prepared, evidence: Evidence) -> str:
    """Blocking (free text embeds its candidate sentences): the computed answer, the tracker answer, or
    sentences of the retrieved records, in the asker's language (the query may be an LLM's rewrite)."""
    if evidence.computed is not None:
        return evidence.computed.text
    if evidence.route.kind == "tasks" and evidence.tasks_text is not None:
        return evidence.tasks_text
    return answers.free_text(engine, evidence.query, evidence.hits, settings.answer_max_distance,
                             terms.language(prep.message), evidence.found.vector, evidence.not_about,
                             evidence.meaning, evidence.vectors)


def _spoken(ref: EntityRef) -> str:
    """How an answer names an entity it could not find: no anchor (nothing to cite)."""
    return f"{refs.ANCHOR_PREFIX[ref[0]].lower()} #{ref[1]}"


def _prompt_hits(evidence: Evidence) -> list[SearchHit]:
    """The retrieved chunks the prompt shows: the relevant ones, each once, none of an entity it already gives
    whole, as many as fit."""
    return prompting.context_hits(prompting.distinct_hits(evidence.relevant, evidence.entities))


def _citable(evidence: Evidence, state: tools.ToolState) -> set[str]:
    """Anchors an answer may cite: what it was given this turn (never an earlier turn's, never a guess)."""
    hits = _prompt_hits(evidence)
    return {*prompting.unique_anchors(hits), *(refs.anchor(r) for r in evidence.entities),
            *(f"[TASK #{t['task_id']}]" for t in evidence.task_rows), *state.anchors,
            *(evidence.computed.anchors if evidence.computed else ())}


def _citations_of(answer: str, evidence: Evidence, state: tools.ToolState) -> list[str]:
    citable = _citable(evidence, state) | set(prompting.unique_anchors(evidence.found.result.hits))
    return [a for a in dict.fromkeys(m.group(0) for m in prompting.ANCHOR.finditer(answer)) if a in citable]


def _evidence_blocks(evidence: Evidence) -> list[str]:
    """The routed evidence, before the retrieved chunks, as the asker may read it (the rules about it are in
    the system prompt, _rules): the answer computed from the records (which the reply must keep), then each
    entity looked up (whole, once; the focus of a follow-up is the card's entity, so its record comes next).
    What an id lookup could not find is in its computed card ("I can't find task #9999 …")."""
    computed = evidence.computed
    blocks = [computed.text] if computed is not None else []
    blocks += [entities.text_of(r) for r in evidence.entities.values()]
    return blocks


def _rules(evidence: Evidence) -> list[str]:
    """This turn's rules for the system prompt: the computed answer is authoritative; or nothing covers the
    question (the context's first line says so)."""
    if evidence.computed is not None:
        return [prompting.COMPUTED_RULE]
    return [prompting.UNCOVERED_RULE] if _lead(evidence) else []


def _lead(evidence: Evidence, lang: str = "en") -> str | None:
    """The context's first line when no visible hit covers the question: the offline answer's lead, without
    the topic, which is the question's own words."""
    if not evidence.uncovered or evidence.computed is not None or not _prompt_hits(evidence):
        return None
    return extractive.NOT_COVERED[lang]


async def _llm_turn(engine: Engine, settings: Settings, prep: Prepared, client: httpx.AsyncClient,
                    deadline: Deadline, history: list[dict[str, str]], evidence: Evidence,
                    sink: Stream | None) -> tuple[str | None, list[str], str | None, bool]:
    """(answer, citations, llm_error, text shown): the answer is None when the LLM failed or its answer
    kept no citable support; whatever was streamed is then void. Given nothing to answer from (no routed
    evidence, no chunk past the relevance gate), the model can only say it does not know: its reply is held
    back, and unless a tool showed it something to cite, the answer is the chat's own "I don't know" in the
    asker's language (no llm_error: nothing failed)."""
    shown = False
    nothing_given = not _evidence_blocks(evidence) and not _prompt_hits(evidence)

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
    citable = _citable(evidence, prep.state)
    made_up = citations.invented(raw, citable | _shown_anchors(history, evidence))
    cleaned = citations.clean(raw, citable)
    if made_up or not cleaned.grounded or not cleaned.text:
        log.warning("the LLM's answer cites what it was not given (%s) or kept no citable support (removed %s), "
                    "answering extractively (request %s)", made_up, cleaned.removed, current_request_id(),
                    extra={"llm_error": "ungrounded"})
        return None, [], "ungrounded", shown
    kept = backbone.verdict(cleaned.text, evidence.computed) if evidence.computed is not None else None
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
        [h.content for h in _prompt_hits(evidence)]
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
                    refreshed = await anyio.to_thread.run_sync(_gather, engine, settings, prep, evidence.route,
                                                               evidence.query)
                    evidence.found, evidence.scope, evidence.wider = refreshed.found, refreshed.scope, refreshed.wider
                    _compute(settings, prep, evidence)  # what the new hits cover
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
    return prompting.build_messages(prep.message, _prompt_hits(evidence), asker=asker, today=prep.state.today,
                                    scope=label, history=history, evidence=_evidence_blocks(evidence),
                                    rules=_rules(evidence), lead=_lead(evidence, terms.language(prep.message)))


def _asker_and_scope(engine: Engine, prep: Prepared, scope: EffectiveScope) -> tuple[prompting.Asker, str]:
    """Who asks (name and role from EMPLOYEES) and the scope's label, for the system prompt."""
    row = engine.get(EMPLOYEES, prep.caller.employee_id) or {}
    name = " ".join(p for p in (row.get("first_name"), row.get("last_name")) if p) \
        or f"employee {prep.caller.employee_id}"
    return prompting.Asker(name, prep.caller.role.value, prep.caller.employee_id), prompting.scope_label(
        scope.project, scope.label if isinstance(scope.project, int) else None)


# --- what the turn stores and returns ---------------------------------------------------------------

def _focus_after(evidence: Evidence, cited: list[str], focus: SourceRecord | None) -> str | None:
    """What the route was about: the computed answer's focus, the entity looked up, the first task listed;
    for retrieval, the first entity the answer cites. Never another citation of a routed answer (a reply's
    "see also [SPRINT #1]" does not move the conversation). An answer about nothing keeps the earlier focus."""
    if evidence.computed is not None and evidence.computed.focus:
        return evidence.computed.focus
    if evidence.entities:
        return refs.anchor(next(iter(evidence.entities)))
    if evidence.task_rows:
        return f"[TASK #{evidence.task_rows[0]['task_id']}]"
    if evidence.route.kind == "retrieve" and cited:
        return cited[0]
    return refs.anchor(entities.ref_of(focus)) if focus is not None else None


def _given(evidence: Evidence, state: tools.ToolState) -> tuple[tuple[str, int, int], ...]:
    """Every chunk and entity the turn was given, best first: looked up, tools, then retrieval (the
    best MAX_RETRIEVED are stored as the turn's RETRIEVED)."""
    given = [(t, i, 0) for t, i in [*evidence.entities, *state.entities]]
    given += [("task", int(t["task_id"]), 0) for t in [*evidence.task_rows, *state.task_rows]]
    given += [(h.source_type, h.source_id, h.chunk_ix) for h in evidence.found.result.hits]
    return tuple(dict.fromkeys(given))


def _rests_on(answer: str, cited: Sequence[str], focus: str | None,
              given: Sequence[tuple[str, int, int]]) -> tuple[tuple[str, int], ...]:
    """Every entity an answer rests on, with no cap (MESSAGE_ENTITIES): all it cited, every anchor in its
    text, its focus and everything it was given — so withdrawal sees the 150th task of a 160-task list."""
    anchors = [*cited, *([focus] if focus else [])]
    named = [r for r in map(refs.ref_of, anchors) if r is not None]
    return tuple(sorted({*named, *refs.anchors_in(answer), *((t, i) for t, i, _ in given)}))  # type: ignore[arg-type]


def _entity_results(evidence: Evidence, state: tools.ToolState, cited: list[str]) -> list[SearchHit]:
    """Entities the turn looked up or a tool returned (found by id, not by similarity), cited ones first."""
    records = {**evidence.entities, **state.entities}
    retrieved = {(h.source_type, h.source_id) for h in evidence.found.result.hits}
    order = [r for r in (refs.ref_of(a) for a in cited) if r in records] + list(records)
    hits = [entities.as_hit(records[r]) for r in dict.fromkeys(order) if r not in retrieved]
    task_hits = [_task_hit(t) for t in [*evidence.task_rows, *state.task_rows]
                 if ("task", int(t["task_id"])) not in retrieved and ("task", int(t["task_id"])) not in records]
    return [*hits, *list({(h.source_type, h.source_id): h for h in task_hits}.values())]


def _task_hit(row: dict[str, Any]) -> SearchHit:
    text = f"[TASK #{row['task_id']}] {row.get('title') or ''}\nStatus: {row.get('status') or '-'} | " \
           f"Priority: {row.get('priority') or '-'}\nAssignee: {row.get('assignee_name') or 'unassigned'}\n" \
           f"Due: {row['expected_end_date'] if row.get('expected_end_date') else '-'}"
    return SearchHit("task", int(row["task_id"]), 0, text, 0.0, 1.0)


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
