"""The MCP tools: each one's JSON schema, description, and the service call it translates to.

A tool only translates the protocol: it answers with the same service functions the chat's tools and the
REST API use (app/services/search.py, app/services/tools.py), under the asker's access rule, which those
functions apply in the query. Who asks is never an argument an agent can invent for itself: with a token
bound to one employee the schemas have no such argument; with an admin or bot token they take
``employee_id`` or ``telegram_id``, and the token must be allowed to act for that person.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.api.types import DOC_TYPE_PATTERN, JSON_MAX_ID, MAX_LABEL_CHARS, MAX_NAME_CHARS, TELEGRAM_PATTERN
from app.config import Settings
from app.domain import MAX_QUESTION_CHARS, SEARCH_MODES, SOURCE_TYPES, Caller
from app.engines.base import Engine
from app.rag import prompting
from app.rag.scope import MAX_DOC_TYPES, build_scope
from app.services import search as searching
from app.services import tools

MAX_TOP_K = 50
MAX_ITEMS = 100  # an array argument (the REST twins' list filters take at most 100 values)
# A string argument's bound where the chat tool's schema sets none: the REST twin's (app/api/types.py).
STRING_BOUNDS = {"query": MAX_NAME_CHARS, "assignee_name": MAX_NAME_CHARS, "status": MAX_LABEL_CHARS,
                 "priority": MAX_LABEL_CHARS}
ASKER_PROPERTIES = {
    "employee_id": {"type": "integer", "minimum": 1, "maximum": JSON_MAX_ID,
                    "description": "who is asking, by EMPLOYEES.EMPLOYEE_ID "
                    "(give this or telegram_id): the answer holds only what this person may see"},
    "telegram_id": {"type": "string", "maxLength": 64, "pattern": TELEGRAM_PATTERN,
                    "description": "or who is asking, by their Telegram id"},
}


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments (without the asker's)
    run: Callable[[Engine, Settings, Caller, dict[str, Any]], dict[str, Any]]

    def input_schema(self, bound: bool) -> dict[str, Any]:
        """The arguments; with an admin or bot token (not ``bound``) also who asks."""
        schema = copy.deepcopy(self.parameters)
        if not bound:
            schema["properties"] = {**schema["properties"], **copy.deepcopy(ASKER_PROPERTIES)}
            schema["description"] = "Give exactly one of employee_id or telegram_id."
        return schema


class ToolFailed(Exception):
    """A tool's own refusal of its input (the message is for the agent)."""


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def bounded(schema: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """``schema`` with a bound on every string (its REST twin's, else a name's), integer (a JSON-safe id) and
    array (``MAX_ITEMS``) that has none, inside objects, arrays and alternatives too."""
    kind = schema.get("type")
    if kind == "string" and not {"enum", "const", "maxLength"} & schema.keys():
        schema["maxLength"] = 10 if schema.get("format") == "date" else STRING_BOUNDS.get(name, MAX_NAME_CHARS)
        if name == "query":  # as REST's Name: not blank
            schema.update(minLength=1, pattern=r"\S")
    elif kind == "integer" and "maximum" not in schema:
        schema["maximum"] = JSON_MAX_ID
    elif kind == "array" and "maxItems" not in schema:
        schema["maxItems"] = MAX_ITEMS
    for key, sub in schema.get("properties", {}).items():
        bounded(sub, key)
    if isinstance(schema.get("items"), dict):
        bounded(schema["items"], name)
    for alternative in schema.get("anyOf", []):
        bounded(alternative, name)
    return schema


def _state(engine: Engine, caller: Caller) -> tools.ToolState:
    return tools.ToolState(engine, caller, "all", None, None)


def _answer(result: dict[str, Any]) -> dict[str, Any]:
    """A chat tool's result: ``success: false`` is the tool refusing its input."""
    if not result.get("success", False):
        raise ToolFailed(str(result.get("error", "the tool failed")))
    return {key: value for key, value in result.items() if key != "success"}


# --- search ---------------------------------------------------------------------------------------

def _search(engine: Engine, settings: Settings, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    scope = build_scope(args.get("scope"), None, args.get("source_types"), args.get("doc_types"))
    found = searching.search(engine, args["question"], caller, args.get("top_k") or settings.top_k, scope,
                             args.get("mode") or settings.search_mode)
    return {"mode": found.result.mode, "answered_by": found.result.answered_by, "results": [
        {"anchor": prompting.anchor(hit), "source_type": hit.source_type, "source_id": hit.source_id,
         "chunk_ix": hit.chunk_ix, "content": hit.content, "distance": round(hit.distance, 6),
         "score": round(hit.score, 6)} for hit in found.result.hits]}


SEARCH = Tool(
    "search", "Search the team's tracker",
    "Semantic and keyword search over the team's tasks, sprints, projects, comments and documents, returning "
    "only what the asker may see, best first. Each result starts with its anchor, e.g. [TASK #12]: cite it "
    "when you use the result. Use for open questions ('what is blocking the login work?'); for structured "
    "questions about tasks (counts, rankings, any field: status, version, label, reporter, dates…) use "
    "query_tasks; to read one entity by id, get_entity.",
    bounded(_object({
        "question": {"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS,
                     "description": "the question or keywords, in the asker's words (English or Spanish)"},
        "scope": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": JSON_MAX_ID}, {"enum": ["none", "all"]}],
                  "description": "a project id (that project only), \"none\" (what belongs to no project: "
                                 "organisation-wide documents) or \"all\" (default)"},
        "source_types": {"type": "array", "minItems": 1, "maxItems": len(SOURCE_TYPES), "uniqueItems": True,
                         "items": {"enum": list(SOURCE_TYPES)}, "description": "only these kinds of entity"},
        "doc_types": {"type": "array", "minItems": 1, "maxItems": MAX_DOC_TYPES,
                      "items": {"type": "string", "pattern": DOC_TYPE_PATTERN},
                      "description": "only documents of these types (e.g. WIKI, MEETING_NOTES; other entities pass)"},
        "mode": {"enum": list(SEARCH_MODES), "description": "hybrid (default: meaning and keywords), vector "
                                                           "(meaning only) or lexical (keywords only)"},
        "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K, "description": "results to return"},
    }, ["question"])),
    _search)


# --- the chat's own tools -----------------------------------------------------------------------------

def _find_tasks(engine: Engine, settings: Settings, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return _answer(tools.find_tasks(_state(engine, caller), **args))


def _search_projects(engine: Engine, settings: Settings, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    found = _answer(tools.search_projects(_state(engine, caller), **args))
    return {**found, "projects": [{"anchor": f"[PROJECT #{p['id']}]", **p} for p in found["projects"]]}


def _list_my_tasks(engine: Engine, settings: Settings, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return _answer(tools.find_tasks(_state(engine, caller), mine=True, **args))


def _query_tasks(engine: Engine, settings: Settings, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return _answer(tools.query_tasks(_state(engine, caller), **args))


def _get_entity(engine: Engine, settings: Settings, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return _answer(tools.get_entity(_state(engine, caller), **args))


def _chat_tool_parameters(schema: dict[str, Any]) -> dict[str, Any]:
    """The chat tool's own argument schema (app/services/tools.py), bounded as its REST twin is: the model
    and an agent see the same arguments, and an agent's are checked against these bounds before any work
    (a 200,000-character ``search_projects`` query cost 4.4 s of CPU unbounded)."""
    return bounded(copy.deepcopy(schema["function"]["parameters"]))


FIND_TASKS = Tool(
    "find_tasks", "Find tasks by their fields",
    tools.FIND_TASKS["function"]["description"] + " Each task carries its anchor, e.g. [TASK #12].",
    _chat_tool_parameters(tools.FIND_TASKS), _find_tasks)

QUERY_TASKS = Tool(
    "query_tasks", "Ask the tracker a structured question",
    tools.QUERY_TASKS["function"]["description"] + " Each task carries its anchor, e.g. [TASK #12]; the answer's "
    "text says what ran before its items.",
    _chat_tool_parameters(tools.QUERY_TASKS), _query_tasks)

SEARCH_PROJECTS = Tool(
    "search_projects", "Find projects",
    tools.SEARCH_PROJECTS["function"]["description"] + " Each project carries its anchor, e.g. [PROJECT #3].",
    _chat_tool_parameters(tools.SEARCH_PROJECTS), _search_projects)

GET_ENTITY = Tool(
    "get_entity", "Read one entity by id",
    tools.GET_ENTITY["function"]["description"] + " A missing id and one the asker may not see give the same "
    "error. The text starts with the entity's anchor, e.g. [TASK #107].",
    _chat_tool_parameters(tools.GET_ENTITY), _get_entity)

_MY_TASK_FIELDS = ("status", "priority", "open", "overdue", "due_after", "due_before", "limit")
LIST_MY_TASKS = Tool(
    "list_my_tasks", "List my tasks",
    "The tasks assigned to the asker, by id; optionally only those with a status or priority, open ones, "
    "overdue ones, or those due in a window. Each task carries its anchor, e.g. [TASK #12].",
    bounded(_object({k: copy.deepcopy(v) for k, v in tools.FIND_TASKS["function"]["parameters"]["properties"].items()
                     if k in _MY_TASK_FIELDS}, [])),
    _list_my_tasks)

TOOLS: dict[str, Tool] = {t.name: t for t in (SEARCH, FIND_TASKS, QUERY_TASKS, GET_ENTITY, SEARCH_PROJECTS,
                                              LIST_MY_TASKS)}
