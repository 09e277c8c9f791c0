"""The model's tools (OpenAI function tools): each one's JSON schema next to its implementation.

Pure dispatch over the engine: the access rule lives in the engine (find_tasks) or does not apply
(every employee may see every project, but only managers and admins get a project's auto-summary,
which is written from tasks a developer may not see). A tool never raises on the model's input: a bad argument is
answered ``{"success": false, "error": ...}`` so the model can correct itself.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from app.domain import Caller, Conversation, TaskQuery
from app.engines.base import Engine
from app.rag import terms
from app.services import conversations
from app.services.llm import ToolCall

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
    anchors: set[str] = field(default_factory=set)  # what tool results showed the model: citable


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
    "like 'which tasks are overdue in sprint 3?' or 'critical unassigned tasks'.",
    {"status": {"type": "string", "description": "e.g. TODO, IN_PROGRESS, DONE (case-insensitive)"},
     "priority": {"type": "string", "description": "e.g. LOW, MEDIUM, HIGH, CRITICAL (case-insensitive)"},
     "sprint": {"type": "integer", "description": "sprint id"},
     "project": {"type": "integer", "description": "project id (see search_projects)"},
     "assignee": {"type": "integer", "description": "employee id of the assignee"},
     "overdue": {"type": "boolean", "description": "only tasks past their due date and not finished"},
     "unassigned": {"type": "boolean", "description": "only tasks with no assignee"},
     "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "at most this many (default 20)"}},
    [])


def find_tasks(state: ToolState, status: str | None = None, priority: str | None = None, sprint: int | None = None,
               project: int | None = None, assignee: int | None = None, overdue: bool = False,
               unassigned: bool = False, limit: int = 20) -> dict[str, Any]:
    try:
        query = TaskQuery(status=status, priority=priority, sprint_id=sprint, project_id=project,
                          assignee_id=assignee, overdue_on=dt.date.today() if overdue is True else None,
                          unassigned=unassigned is True, limit=limit)
    except ValueError as exc:
        return {"success": False, "error": str(exc)}
    tasks = state.engine.find_tasks(state.caller, query)
    state.anchors.update(f"[TASK #{t['task_id']}]" for t in tasks)
    return {"success": True, "tasks": [{"anchor": f"[TASK #{t['task_id']}]", **t} for t in tasks]}


TOOLS: dict[str, tuple[dict[str, Any], Callable[..., dict[str, Any]]]] = {
    "search_projects": (SEARCH_PROJECTS, search_projects),
    "set_rag_scope": (SET_RAG_SCOPE, set_rag_scope),
    "find_tasks": (FIND_TASKS, find_tasks),
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
