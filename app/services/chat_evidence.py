"""The evidence of a chat turn: where the question goes (app/rag/routing.py, with the typed reader and the
conversation's last query), what retrieval searches for, the routed records and computed answers, and what the
turn rests on once answered (its focus, the chunks given, the entities). Blocking: run in a worker thread."""



from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

import httpx

from app.config import Settings
from app.domain import MAX_QUERY_BYTES, MAX_QUESTION_CHARS, Message, Scope, SearchHit
from app.records_model import SourceRecord
from app.engines.base import Engine
from app.logs import current_request_id
from app.rag import cards, extractive, followup, named, prompting, refs, routing, terms
from app.rag.refs import EntityRef
from app.rag.routing import Route
from app.rag.templates import header_line
from app.rag.understanding.query import TrackerQuery, query_from_json
from app.services import answers, conversations, entities, routed_answers, tools, tracker_answers, understanding
from app.services.llm import Deadline, LLMError, complete
from app.services.search import search

log = logging.getLogger(__name__)

from app.services.chat_state import Evidence, Prepared

REWRITE_SHARE = 0.25  # of the turn's deadline, at most, for the follow-up rewrite; the answer gets the rest
WIDER = 3  # times top_k: retrieval's second look when a topic's list may be cut at top_k (extractive.may_be_cut)


def route_of(engine: Engine, prep: Prepared, focus: SourceRecord | None, memory: Sequence[Message] = ()) -> Route:
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


def stored_query(query: TrackerQuery | None) -> str | None:
    """The query as MESSAGES.TRACKER_QUERY holds it (None when there is none, or it is past the column)."""
    text = query.to_json() if query is not None else None
    return text if text is not None and len(text.encode()) <= MAX_QUERY_BYTES else None


def _last_query(memory: Sequence[Message]) -> TrackerQuery | None:
    """The query the last answer ran, if it ran one (a follow-up edits only the question just answered)."""
    answers_ = [m for m in memory if m.role == "assistant"]
    return query_from_json(answers_[-1].facts.query) if answers_ else None


async def retrieval_query(settings: Settings, client: httpx.AsyncClient, deadline: Deadline, prep: Prepared,
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


def gather(engine: Engine, settings: Settings, prep: Prepared, route: Route, query: str) -> Evidence:
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
        _answer_by_query(prep, evidence, route.query)
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


def compute(settings: Settings, prep: Prepared, evidence: Evidence) -> None:
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
        if route.query is not None and (evidence.uncovered or not evidence.relevant):
            _lenient_query(prep, evidence, route.query)


def _lenient_query(prep: Prepared, evidence: Evidence, query: TrackerQuery) -> None:
    """Nothing retrieved covers a question the tracker reader read but for a few words: its query answers, saying
    what it ran, so a misreading shows (guessed: with an LLM it is context the model may check with its tools)."""
    evidence.route = dataclasses.replace(evidence.route, kind=routing.query_kind(query))
    _answer_by_query(prep, evidence, query)
    evidence.tasks_text = evidence.computed.text
    evidence.uncovered = evidence.not_about = None


def _answer_by_query(prep: Prepared, evidence: Evidence, query: TrackerQuery) -> None:
    """The typed query run under the access rule; every row read is citable, as a find_tasks list's are."""
    evidence.computed, evidence.ran, result = tracker_answers.run(prep.state, query, evidence.scope,
                                                                  evidence.route.lang)
    evidence.task_rows = result.rows


def offline_answer(engine: Engine, settings: Settings, prep: Prepared, evidence: Evidence) -> str:
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


def focus_after_turn(evidence: Evidence, cited: list[str], focus: SourceRecord | None) -> str | None:
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


def given_chunks(evidence: Evidence, state: tools.ToolState) -> tuple[tuple[str, int, int], ...]:
    """Every chunk and entity the turn was given, best first: looked up, tools, then retrieval (the
    best MAX_RETRIEVED are stored as the turn's RETRIEVED)."""
    given = [(t, i, 0) for t, i in [*evidence.entities, *state.entities]]
    given += [("task", int(t["task_id"]), 0) for t in [*evidence.task_rows, *state.task_rows]]
    given += [(h.source_type, h.source_id, h.chunk_ix) for h in evidence.found.result.hits]
    return tuple(dict.fromkeys(given))


def rests_on(answer: str, cited: Sequence[str], focus: str | None,
              given: Sequence[tuple[str, int, int]]) -> tuple[tuple[str, int], ...]:
    """Every entity an answer rests on, with no cap (MESSAGE_ENTITIES): all it cited, every anchor in its
    text, its focus and everything it was given — so withdrawal sees the 150th task of a 160-task list."""
    anchors = [*cited, *([focus] if focus else [])]
    named = [r for r in map(refs.ref_of, anchors) if r is not None]
    return tuple(sorted({*named, *refs.anchors_in(answer), *((t, i) for t, i, _ in given)}))  # type: ignore[arg-type]


def entity_results(evidence: Evidence, state: tools.ToolState, cited: list[str]) -> list[SearchHit]:
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


def prompt_hits(evidence: Evidence) -> list[SearchHit]:
    """The retrieved chunks the prompt shows: the relevant ones, each once, none of an entity it already gives
    whole, as many as fit."""
    return prompting.context_hits(prompting.distinct_hits(evidence.relevant, evidence.entities))

def citable_anchors(evidence: Evidence, state: tools.ToolState) -> set[str]:
    """Anchors an answer may cite: what it was given this turn (never an earlier turn's, never a guess)."""
    hits = prompt_hits(evidence)
    return {*prompting.unique_anchors(hits), *(refs.anchor(r) for r in evidence.entities),
            *(f"[TASK #{t['task_id']}]" for t in evidence.task_rows), *state.anchors,
            *(evidence.computed.anchors if evidence.computed else ())}

def citations_of(answer: str, evidence: Evidence, state: tools.ToolState) -> list[str]:
    citable = citable_anchors(evidence, state) | set(prompting.unique_anchors(evidence.found.result.hits))
    return [a for a in dict.fromkeys(m.group(0) for m in prompting.ANCHOR.finditer(answer)) if a in citable]
