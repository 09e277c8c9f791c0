"""The model's tools (OpenAI function tools): each one's JSON schema next to its implementation.

Pure dispatch over the engine: the access rule lives in the engine (find_tasks), in the entity lookup
(app/services/entities.py, get_entity), or does not apply (every employee may see every project, but only
managers and admins get a project's auto-summary, which is written from tasks a developer may not see). A
tool never raises on the model's input: a bad argument is answered ``{"success": false, "error": ...}`` so
the model can correct itself. What a tool showed the model is citable (``anchors``) and listed in the
answer's results (``entities``).
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from app.domain import MAX_ID, Caller, Conversation, Person, TaskQuery, Vocabulary, is_id
from app.records_model import MAX_EXTERNAL_KEY_CHARS, SourceRecord
from app.engines.base import Engine
from app.rag import refs, terms
from app.rag.refs import EntityRef
from app.rag.understanding import lexicon as lexicons
from app.rag.understanding.lexicon import Lexicon
from app.services import conversations, entities
from app.services.llm import ToolCall

log = logging.getLogger(__name__)

SNIPPET_CHARS = 240
TOP_PROJECTS = 5


@dataclass
class ToolState:
    """One chat's mutable state the tools act on. A scope a tool chooses changes here and is stored
    with the turn, in the same transaction as its messages (a new conversation is created with it)."""

    engine: Engine
    caller: Caller
    scope: str
    pinned_project_id: int | None
    conversation: Conversation | None
    scope_changed: bool = False
    # Whether the asker's own message asks for a scope change (app/rag/scope_requests.py, decided by the
    # chat's routing): set_rag_scope runs only then, never because retrieved text told the model to.
    asked_scope: bool = False
    anchors: set[str] = field(default_factory=set)  # what tool results showed the model: citable
    entities: dict[EntityRef, SourceRecord] = field(default_factory=dict)  # what get_entity returned
    task_rows: list[dict[str, Any]] = field(default_factory=list)  # what find_tasks returned
    today: dt.date = field(default_factory=dt.date.today)
    _vocabulary: Vocabulary | None = None
    _lexicon: Lexicon | None = None

    def vocabulary(self) -> Vocabulary:
        if self._vocabulary is None:
            self._vocabulary = self.engine.vocabulary()
        return self._vocabulary

    def lexicon(self) -> Lexicon:
        """The words of the data the caller may use (one read per turn: Engine.tracker_values)."""
        if self._lexicon is None:
            self._lexicon = lexicons.from_values(self.engine.tracker_values(self.caller))
        return self._lexicon


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required, "additionalProperties": False}}}


SEARCH_PROJECTS = _function(
    "search_projects", "Find projects by name or topic. Returns up to 5 {id, title, summary_snippet, score}, "
    "best first (score 0..1, higher is better).",
    {"query": {"type": "string", "description": "words naming or describing the project"}}, ["query"])


def search_projects(state: ToolState, query: str) -> dict[str, Any]:
    """Score = string similarity (difflib) of the query to the name, plus the share of the query's
    key terms found in name + description + auto-summary; works without a summary.

    The auto-summary is written from all of a project's recent tasks, so it may name tasks a developer
    may not see: only a caller who sees every chunk gets it (in the score and the snippet); everyone
    else is matched on the project's own name and description."""
    if not isinstance(query, str) or not query.strip():
        return {"success": False, "error": "query must be a non-empty string"}
    q = query.strip().lower()
    wanted = {terms.stem(t) for t in terms.key_terms(q)}
    ranked = []
    for card in state.engine.projects_for_matching():
        summary = card.auto_summary if state.caller.sees_everything else None
        text = " ".join(p for p in (card.name, card.description, summary) if p)
        similarity = difflib.SequenceMatcher(None, q, card.name.lower()).ratio()
        have = {terms.stem(w) for w in terms.words(text)}
        overlap = len(wanted & have) / len(wanted) if wanted else 0.0
        score = round(0.5 * similarity + 0.5 * overlap, 3)
        snippet = " ".join((summary or card.description or "").split())[:SNIPPET_CHARS]
        ranked.append({"id": card.project_id, "title": card.name, "summary_snippet": snippet, "score": score})
    ranked.sort(key=lambda p: (-p["score"], p["id"]))
    top = ranked[:TOP_PROJECTS]
    state.anchors.update(f"[PROJECT #{p['id']}]" for p in top)
    return {"success": True, "projects": top}


SET_RAG_SCOPE = _function(
    "set_rag_scope", "Change where this conversation's context is retrieved from: a project id (that "
    "project only), \"none\" (documents that belong to no project) or \"all\" (everything).",
    {"scope": {"type": "string", "description": 'a project id such as "12", "none" or "all"'}}, ["scope"])


def set_rag_scope(state: ToolState, scope: Any) -> dict[str, Any]:
    if state.pinned_project_id is not None:
        return {"success": False, "error": "this conversation is pinned to a project; its scope cannot be changed"}
    if not state.asked_scope:
        log.warning("set_rag_scope refused: the asker's message does not ask for a scope change (employee %s, "
                    "conversation %s, scope %r): a call prompted by retrieved text is data, not a request",
                    state.caller.employee_id, state.conversation.conversation_id if state.conversation else None,
                    str(scope)[:40])
        return {"success": False, "error": "not done: the asker's own message does not ask to change the scope, "
                                           "so it stays as it is"}
    try:
        stored = conversations.valid_scope(state.engine, scope)
    except conversations.InvalidScopeError as exc:
        return {"success": False, "error": str(exc)}
    # Stored with the turn (the same transaction as both messages): a turn that fails changes nothing.
    state.scope, state.scope_changed = stored, True
    label = conversations.effective(state.engine, stored).label
    return {"success": True, "rag_scope": stored, "label": label}


FIND_TASKS = _function(
    "find_tasks", "List tasks matching structured filters (only tasks the asker may see). Use for questions "
    "like 'which of my tasks are in progress?', 'which tasks are overdue in sprint 3?', 'what is Chen working "
    "on?' or 'critical unassigned tasks'. Every filter is optional; they combine.",
    {"status": {"type": "string", "description": "e.g. TODO, IN_PROGRESS, IN_REVIEW, DONE (case-insensitive)"},
     "priority": {"type": "string", "description": "e.g. LOW, MEDIUM, HIGH, CRITICAL (case-insensitive)"},
     "sprint": {"type": "integer", "description": "sprint id"},
     "project": {"type": "integer", "description": "project id (see search_projects)"},
     "assignee": {"type": "integer", "description": "employee id of the assignee"},
     "assignee_name": {"type": "string", "description": "the assignee's name as the user wrote it (first, last or "
                                                        "full name); resolved to an employee"},
     "mine": {"type": "boolean", "description": "only tasks assigned to the person asking"},
     "open": {"type": "boolean", "description": "only tasks that are not finished"},
     "overdue": {"type": "boolean", "description": "only tasks past their due date and not finished"},
     "unassigned": {"type": "boolean", "description": "only tasks with no assignee"},
     "due_after": {"type": "string", "format": "date", "description": "due on or after this day (YYYY-MM-DD)"},
     "due_before": {"type": "string", "format": "date", "description": "due before this day (YYYY-MM-DD)"},
     "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "at most this many (default 20)"}},
    [])


def find_tasks(state: ToolState, status: str | None = None, priority: str | None = None, sprint: int | None = None,
               project: int | None = None, assignee: int | None = None, assignee_name: str | None = None,
               mine: bool = False, open: bool = False, overdue: bool = False,  # noqa: A002 (the tool's word)
               unassigned: bool = False, due_after: str | None = None, due_before: str | None = None,
               limit: int = 20) -> dict[str, Any]:
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 100:
        return {"success": False, "error": "limit must be 1..100"}
    if mine is True:
        assignee = state.caller.employee_id
    elif assignee_name is not None:
        people = people_named(state, assignee_name)
        if len(people) != 1:
            return {"success": False, "error": f"no employee is called {assignee_name!r}" if not people else
                    "several employees match: " + ", ".join(f"{p.name} (id {p.employee_id})" for p in people)
                    + "; ask which one, or pass assignee"}
        assignee = people[0].employee_id
    if project is None and state.scope.isdigit():  # the conversation's scope bounds the tool as it bounds
        project = int(state.scope)                  # retrieval and the routed answers; a project named wins
    try:
        query = TaskQuery(status=status, priority=priority, sprint_id=sprint, project_id=project,
                          assignee_id=assignee, overdue_on=state.today if overdue is True else None,
                          unassigned=unassigned is True, limit=limit, open_only=open is True,
                          due_after=_day(due_after, "due_after"), due_before=_day(due_before, "due_before"))
    except ValueError as exc:
        return {"success": False, "error": str(exc)}
    tasks = state.engine.find_tasks(state.caller, query)
    if state.scope == "none" and project is None:  # the scope "none": what belongs to no project
        tasks = [t for t in tasks if t.get("project_id") is None]
    state.anchors.update(f"[TASK #{t['task_id']}]" for t in tasks)
    state.task_rows.extend(tasks)
    return {"success": True, "tasks": [{"anchor": f"[TASK #{t['task_id']}]", **t} for t in tasks]}


def people_named(state: ToolState, name: str) -> list[Person]:
    """Employees whose full, first or last name is ``name`` (accents and case ignored): the full name
    first, so "Ana Garcia" is one person even when there are two Anas."""
    wanted = " ".join(terms.fold(name).split())
    people = state.vocabulary().people
    for names_of in (lambda p: [" ".join(terms.fold(x) for x in (p.first_name, p.last_name) if x)],
                     lambda p: [terms.fold(x) for x in (p.first_name, p.last_name) if x]):
        found = [p for p in people if wanted in names_of(p)]
        if found:
            return found
    return []


def _day(value: Any, name: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a date as YYYY-MM-DD, got {value!r}") from None


GET_ENTITY = _function(
    "get_entity", "Read one task, sprint, project or document by its id (e.g. the user asks about 'task 107' "
    "or 'doc 6'), or one task by its tracker key (e.g. 'PAY-1210', 'octo/repo#123'), with its status, assignee, "
    "due date, links, comments or text. Give either type and id, or key. Only what the asker may see.",
    {"type": {"type": "string", "enum": ["task", "sprint", "project", "doc"], "description": "what kind of entity"},
     "id": {"type": "integer", "minimum": 1, "description": "its id, the number in its anchor ([TASK #107] → 107)"},
     "key": {"type": "string", "minLength": 1, "maxLength": MAX_EXTERNAL_KEY_CHARS,
             "description": "a task's key in its tracker, as the user wrote it (PAY-1210)"}},
    [])


def get_entity(state: ToolState, type: Any = None, id: Any = None, key: Any = None) -> dict[str, Any]:  # noqa: A002
    """A hidden entity and a missing one give the same error, so the model (and the asker) cannot tell them apart;
    likewise a key of a hidden task and a key no task has."""
    if key is not None and type is None and id is None:
        found = entities.refs_by_key(state.engine, state.caller, [key]) if isinstance(key, str) else []
        if not found:
            return {"success": False, "error": f"there is no task with the key {str(key)[:MAX_EXTERNAL_KEY_CHARS]!r} "
                                               "that the asker may see"}
        type, id = found[0]  # a key two sources share: the first imported
    # An id past the database's integer range is refused here: the engine cannot even bind it.
    if type not in refs.ANCHOR_PREFIX or not is_id(id):
        return {"success": False, "error": "type must be task, sprint, project or doc and id a positive integer "
                                           f"(at most {MAX_ID}), or give a task's key"}
    ref: EntityRef = (type, id)
    record = entities.lookup(state.engine, state.caller, ref)
    if record is None:
        return {"success": False, "error": f"there is no {type} #{id} that the asker may see"}
    state.entities[ref] = record
    state.anchors.add(refs.anchor(ref))
    return {"success": True, "anchor": refs.anchor(ref), "text": entities.text_of(record)}


TOOLS: dict[str, tuple[dict[str, Any], Callable[..., dict[str, Any]]]] = {
    "search_projects": (SEARCH_PROJECTS, search_projects),
    "set_rag_scope": (SET_RAG_SCOPE, set_rag_scope),
    "find_tasks": (FIND_TASKS, find_tasks),
    "get_entity": (GET_ENTITY, get_entity),
}
SCHEMAS = [schema for schema, _ in TOOLS.values()]


def dispatch(state: ToolState, call: ToolCall) -> str:
    """Run one tool call; the JSON text of its result (the ``tool`` message content)."""
    entry = TOOLS.get(call.name)
    if entry is None:
        result: dict[str, Any] = {"success": False, "error": f"unknown tool {call.name!r}"}
    else:
        try:
            result = entry[1](state, **call.arguments)
        except TypeError as exc:  # missing or unexpected arguments
            result = {"success": False, "error": f"bad arguments for {call.name}: {exc}"}
    return json.dumps(result, default=str, ensure_ascii=False)
