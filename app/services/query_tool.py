"""The model's ``query_tasks`` tool (issue 31, point 7): the typed tracker query (app/rag/understanding/query.py)
with names allowed wherever an id is, over the chat's OpenAI tools and MCP alike (one JSON schema).

Every argument is checked against the schema (lengths, counts, types) before anything runs; names are resolved
against the caller's lexicon (app/services/tool_names.py: an unknown or ambiguous one is refused with its
candidates, never guessed); the query runs through tracker_answers (the access rule in SQL, the conversation's
scope as the other tools apply it), so a count or a group-by covers every visible matching row. The result is the
computed answer's text and figures, the rows or groups (bounded), and the anchors it showed, which become citable.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import TYPE_CHECKING, Any

import jsonschema

from app.rag.understanding.query import (GROUP_FIELDS, MAX_TEXT_CHARS, ORDERS, RECORD_FIELDS, RETURNS, Predicate,
                                         TrackerQuery, to_data)
from app.services import conversations, schema_errors, tool_names, tracker_answers
from app.services.tool_names import Refused

if TYPE_CHECKING:
    from app.services.tools import ToolState

JSON_SAFE_ID = 2**53 - 1
NAME_CHARS = 200  # a name or value (TASK_VALUES holds values of at most 200 characters)
MAX_VALUES = 20  # values of one list argument
MAX_WORDS = 10  # words of ``text``
MAX_TOOL_LIMIT = 100  # rows a list returns
MAX_GROUPS = 50  # groups a group-by returns (the answer's text ranks the first ten)

_ID = {"type": "integer", "minimum": 1, "maximum": JSON_SAFE_ID}
_NAME = {"type": "string", "minLength": 1, "maxLength": NAME_CHARS, "pattern": r"\S"}
_DATE = {"type": "string", "maxLength": 10, "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "YYYY-MM-DD"}


def _one_or_many(description: str, nullable: bool = False) -> dict[str, Any]:
    many = {"type": "array", "minItems": 1, "maxItems": MAX_VALUES, "items": dict(_NAME)}
    return {"anyOf": [dict(_NAME), many, *([{"type": "null"}] if nullable else [])], "description": description}


def _person(role: str) -> dict[str, Any]:
    return {"anyOf": [dict(_ID), dict(_NAME), {"type": "null"}],
            "description": f"the {role}: a full name, first name, last name, login or employee id, \"me\" (the "
                           f"asker), or null for {'nobody (unassigned)' if role == 'assignee' else 'none recorded'}"}


def _window(what: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"from": dict(_DATE), "to": dict(_DATE)}, "minProperties": 1,
            "additionalProperties": False, "description": f"{what} from this day to this day, both included"}


def _bare(schema: dict[str, Any]) -> dict[str, Any]:
    """A filter's schema without its description (``exclude`` repeats the filters: fewer tokens for the model)."""
    return {k: v for k, v in schema.items() if k != "description"}


# Filters that name values: allowed at the top level and, negated, under ``exclude``.
VALUE_FILTERS: dict[str, dict[str, Any]] = {
    "project": {"anyOf": [dict(_ID), dict(_NAME)], "description": "a project's name, key (PAY) or id"},
    "sprint": {"anyOf": [dict(_ID), dict(_NAME)], "description": "a sprint's name or id, or \"current\", "
               "\"previous\" or \"next\" (with project)"},
    "assignee": _person("assignee"),
    "reporter": _person("reporter"),
    "status": _one_or_many("the workflow status: TODO, IN_PROGRESS, IN_REVIEW, BLOCKED, DONE… (any of them)"),
    "status_name": _one_or_many("the tracker's own status name, e.g. \"Patch Available\""),
    "priority": _one_or_many("our level: CRITICAL, HIGH, MEDIUM, LOW (any of them)"),
    "priority_name": _one_or_many("the tracker's own priority name, e.g. \"Blocker\", \"Major\", \"Trivial\""),
    "issue_type": _one_or_many("Bug, Story, Task, Epic… (any of them)"),
    "labels": _one_or_many("labels (a task holding any of them)"),
    "components": _one_or_many("components (any of them)"),
    "fix_versions": _one_or_many("fix versions / milestones (any of them)"),
    "affects_versions": _one_or_many("affected versions (any of them)"),
    "resolution": _one_or_many("Fixed, Won't Fix, Duplicate…; null: unresolved", nullable=True),
    "text": {"type": "string", "minLength": 1, "maxLength": NAME_CHARS, "pattern": r"\S",
             "description": f"words that must all appear in the title or description (at most {MAX_WORDS})"},
}
# The typed query's field for each argument.
FIELD_OF = {"project": "project", "sprint": "sprint", "assignee": "assignee", "reporter": "reporter",
            "status": "status", "status_name": "status_name", "priority": "priority",
            "priority_name": "priority_name", "issue_type": "issue_type",
            "labels": "label", "components": "component", "fix_versions": "fix_version",
            "affects_versions": "affects_version", "resolution": "resolution", "text": "text"}
# The record's key for each RECORD_FIELDS name (app/engines/tracker_common.py's RECORD_FIELDS).
RECORD_KEY = {"assignee": "assignee_name", "reporter": "reporter_name", "due": "expected_end_date",
              "created": "created_at", "updated": "updated_at", "resolved": "resolved_at", "sprint": "sprint_name",
              "project": "project_name", "parent": "parent_key"}
DATE_ARGS = {"created": "created", "updated": "updated", "resolved": "resolved", "due": "due"}

PARAMETERS: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": [],
    "properties": {
        **VALUE_FILTERS,
        **{name: _window(name) for name in DATE_ARGS},
        "open": {"type": "boolean", "description": "true: not finished; false: finished"},
        "overdue": {"type": "boolean", "description": "true: due before today and not finished"},
        "blocked": {"type": "boolean", "description": "true: a BLOCKED status, an open blocks/depends-on link, or "
                                                      "the text saying so; false: none of these"},
        "exclude": {"type": "object", "additionalProperties": False, "minProperties": 1,
                    "properties": {k: _bare(v) for k, v in VALUE_FILTERS.items()},
                    "description": "tasks matching any of these are left out (e.g. {\"priority\": \"LOW\"})"},
        "returns": {"enum": list(RETURNS), "description": "list (default), count, points (sum of story points), "
                    "group (needs group_by: a ranking) or field (needs field: one field of the first task)"},
        "group_by": {"enum": list(GROUP_FIELDS), "description": "the field a group answer ranks by"},
        "measure": {"enum": ["count", "points"], "description": "what a group answer ranks (default count)"},
        "ascending": {"type": "boolean", "description": "a group answer: fewest first"},
        "field": {"enum": list(RECORD_FIELDS), "description": "the field a field answer reads"},
        "order": {"enum": list(ORDERS), "description": "list order (default id); with descending, e.g. priority "
                                                       "descending: most important first, due: due first"},
        "descending": {"type": "boolean"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_TOOL_LIMIT,
                  "description": f"tasks to list (default 20, at most {MAX_TOOL_LIMIT})"},
        "lang": {"enum": ["en", "es"], "description": "the language of the answer's text (the asker's)"},
    },
}

QUERY_TASKS = {"type": "function", "function": {
    "name": "query_tasks",
    "description": "Ask the tracker a structured question over the tasks the asker may see, in the spirit of JQL: "
                   "filter by project, sprint, assignee, reporter, status, priority, issue type, labels, "
                   "components, fix/affected versions, resolution, created/updated/resolved/due dates, open, "
                   "overdue, blocked and words; then list (ordered, limited), count, sum story points, group by a "
                   "field (a ranking: 'who has the most open bugs?') or read one field. Names are accepted "
                   "wherever an id is; an unknown or ambiguous name is refused with the candidates. Counts and "
                   "groups cover every matching task, not a page.",
    "parameters": PARAMETERS}}
_VALIDATOR = jsonschema.Draft202012Validator(PARAMETERS)


def query_tasks(state: ToolState, **arguments: Any) -> dict[str, Any]:
    problem = next(iter(sorted(_VALIDATOR.iter_errors(arguments), key=lambda e: list(e.path))), None)
    if problem is not None:
        return {"success": False, "error": schema_errors.brief(problem)}
    lang = arguments.get("lang", "en")
    try:
        query = build(state, arguments)
    except (Refused, ValueError) as exc:
        return {"success": False, "error": str(exc)[:1200]}
    scope = conversations.effective(state.engine, state.scope)
    computed, ran, result = tracker_answers.run(state, query, scope, lang)
    rows = [_row(r) for r in result.rows[:MAX_TOOL_LIMIT]]
    out: dict[str, Any] = {"success": True, "answer": computed.text, "figures": list(computed.figures),
                           "total": result.total, "query": to_data(ran)}
    if ran.returns == "points":
        out["points"] = result.points
    if ran.returns == "group":
        out["groups"] = [_group(g, ran.group_by) for g in result.groups[:MAX_GROUPS]]
    elif ran.returns == "field" and rows:
        out["record"] = rows[0]
        out["value"] = rows[0].get(RECORD_KEY.get(ran.record_field or "", ran.record_field or ""))
    else:
        out["tasks"] = rows
    shown = {*computed.anchors, *(r["anchor"] for r in rows),
             *(g["anchor"] for g in out.get("groups", ()) if g.get("anchor"))}
    state.anchors.update(shown)
    state.task_rows.extend(r for r in result.rows[:MAX_TOOL_LIMIT] if "task_id" in r)
    return out


def build(state: ToolState, arguments: dict[str, Any]) -> TrackerQuery:
    """The typed query the (schema-valid) arguments stand for; Refused for a name that resolves to no one value."""
    where: list[Predicate] = []
    project_id = None
    if "project" in arguments:
        project_id = tool_names.project(state.lexicon(), arguments["project"])
    elif isinstance(state.scope, str) and state.scope.isdigit():
        project_id = int(state.scope)  # "the current sprint" of the conversation's project
    for name in VALUE_FILTERS:
        if name in arguments:
            where.extend(_predicates(state, name, arguments[name], project_id, negate=False))
    for name, value in arguments.get("exclude", {}).items():
        where.extend(_predicates(state, name, value, project_id, negate=True))
    for name, fieldname in DATE_ARGS.items():
        if name in arguments:
            where.append(Predicate(fieldname, window=_window_of(name, arguments[name])))  # type: ignore[arg-type]
    if "open" in arguments:
        where.append(Predicate("open", (arguments["open"],)))
    if "blocked" in arguments:
        where.append(Predicate("blocked", (True,), negate=not arguments["blocked"]))
    if "overdue" in arguments:
        where.append(Predicate("overdue", (state.today,), negate=not arguments["overdue"]))
    return _shape(TrackerQuery(where=tuple(where)), arguments)


def _shape(query: TrackerQuery, arguments: dict[str, Any]) -> TrackerQuery:
    returns = arguments.get("returns") or ("group" if "group_by" in arguments else
                                           "field" if "field" in arguments else "list")
    if returns == "group" and "group_by" not in arguments:
        raise Refused(f"returns group needs group_by, one of {', '.join(GROUP_FIELDS)}")
    if returns == "field" and "field" not in arguments:
        raise Refused(f"returns field needs field, one of {', '.join(RECORD_FIELDS)}")
    for name, needs in (("group_by", "group"), ("field", "field"), ("measure", "group"), ("ascending", "group")):
        if name in arguments and returns != needs:
            raise Refused(f"{name} goes with returns {needs}")
    return dataclasses.replace(
        query, returns=returns, order=arguments.get("order", "id"), descending=arguments.get("descending", False),
        limit=arguments.get("limit", 20), group_by=arguments.get("group_by") if returns == "group" else None,
        measure=arguments.get("measure", "count"), ascending=arguments.get("ascending", False),
        record_field=arguments.get("field") if returns == "field" else None)


def _predicates(state: ToolState, name: str, value: Any, project_id: int | None, negate: bool) -> list[Predicate]:
    fieldname = FIELD_OF[name]
    lexicon = state.lexicon()
    if name == "text":
        words = [w for w in (re.sub(r"^\W+|\W+$", "", w) for w in value.split()) if w]
        if not words or len(words) > MAX_WORDS:
            raise Refused(f"text is 1..{MAX_WORDS} words")
        return [Predicate("text", (w[:MAX_TEXT_CHARS],), negate=negate) for w in words]
    if name == "project":
        resolved: tuple[Any, ...] = (tool_names.project(lexicon, value),)
    elif name == "sprint":
        resolved = (tool_names.sprint(lexicon, value, project_id, state.today),)
    elif name in ("assignee", "reporter"):
        resolved = (tool_names.person(lexicon, value, state.caller.employee_id),)
    else:
        values = state.tracker_values().values
        said = value if isinstance(value, list) else [value]
        resolved = tuple(dict.fromkeys(tool_names.value(values, fieldname, v) for v in said))
    return [Predicate(fieldname, resolved, negate=negate)]  # type: ignore[arg-type]


def _window_of(name: str, window: dict[str, str]) -> tuple[dt.date | None, dt.date | None]:
    try:
        start = dt.date.fromisoformat(window["from"]) if "from" in window else None
        last = dt.date.fromisoformat(window["to"]) if "to" in window else None
    except ValueError:
        raise Refused(f"{name}: from and to are dates as YYYY-MM-DD") from None
    if start is not None and last is not None and last < start:
        raise Refused(f"{name}: to is before from")
    return start, (last + dt.timedelta(days=1) if last is not None and last < dt.date.max else last)


def _row(row: dict[str, Any]) -> dict[str, Any]:
    out = {"anchor": f"[TASK #{row['task_id']}]"}
    out.update({k: (list(v) if isinstance(v, tuple) else v) for k, v in row.items()})
    return out


def _group(group: Any, by: str | None) -> dict[str, Any]:
    out = {"key": group.key, "label": group.label, "count": group.count, "points": group.points}
    prefix = {"project": "PROJECT", "sprint": "SPRINT"}.get(by or "")
    if prefix and group.key is not None:
        out["anchor"] = f"[{prefix} #{group.key}]"
    return out
