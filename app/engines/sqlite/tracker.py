"""The typed tracker query and the vocabulary on the SQLite engine (Engine.run_tracker_query, tracker_values,
and find_tasks as a call of the same statements). Functions take an open connection; every statement is in
tracker_statements.py; every value is bound."""

from __future__ import annotations

import datetime as dt
from typing import Any

import apsw

from app.domain import TASK_FIELDS, Caller, TaskQuery
from app.engines.sqlite import tracker_statements as sql
from app.rag.understanding.blocked import says_blocked
from app.rag.understanding.query import Group, Predicate, TrackerQuery, TrackerResult
from app.rag.understanding.vocabulary import PersonName, ProjectName, SprintName, TrackerValues, tracker_values

# A row of the list: TASK_FIELDS, then the query's extra fields (tracker_statements.ROW_SELECT's order).
ROW_FIELDS = (*TASK_FIELDS, "issue_type", "status_name", "reporter_id", "reporter_name", "created_at", "updated_at",
              "resolved_at", "resolution")
RECORD_FIELDS = (*ROW_FIELDS, "environment", "parent_id", "parent_key", "resolved_by_id")
# TASK_VALUES.FIELD -> the record's key for its values
VALUE_KEYS = {"LABEL": "labels", "COMPONENT": "components", "FIX_VERSION": "fix_versions",
              "AFFECTS_VERSION": "affects_versions"}
_TIMESTAMPS = ("created_at", "updated_at", "resolved_at")
_NO_GROUP = {"project": "no project", "sprint": "no sprint", "assignee": "unassigned", "reporter": "no reporter"}


def register_functions(conn: apsw.Connection) -> None:
    """RAG_UPPER and RAG_BLOCKED (tracker_statements' docstring); deterministic, so SQLite may reuse a result."""
    conn.create_scalar_function("RAG_UPPER", _upper, 1, deterministic=True)
    conn.create_scalar_function("RAG_BLOCKED", _blocked, 1, deterministic=True)


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _blocked(value: Any) -> int:
    return 1 if isinstance(value, str) and says_blocked(value) else 0


def run_tracker_query(conn: apsw.Connection, caller: Caller, query: TrackerQuery) -> TrackerResult:
    register_functions(conn)
    statement, binds = sql.aggregate(caller, query)
    total, points = conn.execute(statement, binds).fetchone()
    result = TrackerResult(int(total), float(points or 0))
    if query.returns == "list":
        result.rows.extend(_rows(conn, caller, query))
    elif query.returns == "field":
        result.rows.extend(_record(conn, caller, query))
    elif query.returns == "group":
        result.groups.extend(_groups(conn, caller, query))
    return result


def _rows(conn: apsw.Connection, caller: Caller, query: TrackerQuery) -> list[dict[str, Any]]:
    statement, binds = sql.rows(caller, query)
    return [_row(ROW_FIELDS, r) for r in conn.execute(statement, binds)]


def _record(conn: apsw.Connection, caller: Caller, query: TrackerQuery) -> list[dict[str, Any]]:
    """The first matching task in the query's order with every record field, its multi-valued ones as tuples."""
    statement, binds = sql.rows(caller, query, record=True)
    found = [_row(RECORD_FIELDS, r) for r in conn.execute(statement, binds)]
    for record in found:
        values: dict[str, list[str]] = {key: [] for key in VALUE_KEYS.values()}
        for _task, name, value in conn.execute(sql.record_values(1), [record["task_id"]]):
            values[VALUE_KEYS[name]].append(value)
        record.update({key: tuple(v) for key, v in values.items()})
    return found


def _groups(conn: apsw.Connection, caller: Caller, query: TrackerQuery) -> list[Group]:
    statement, binds = sql.groups(caller, query)
    out = []
    for key, label, count, points in conn.execute(statement, binds):
        label = (label or "").strip() or (_NO_GROUP.get(query.group_by or "", "none") if key is None else str(key))
        out.append(Group(key, label, int(count), float(points or 0)))
    return out


def _row(names: tuple[str, ...], values: Any) -> dict[str, Any]:
    row = dict(zip(names, values))
    row["assignee_name"] = row["assignee_name"] or None
    row["reporter_name"] = row["reporter_name"] or None
    row["expected_end_date"] = _date(row["expected_end_date"])
    for key in _TIMESTAMPS:
        row[key] = _timestamp(row[key])
    return row


def _date(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return value  # written by another client in another shape: returned as stored
    return value


def _timestamp(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            return value
    return value


# --- find_tasks: the model's older tool, one call of the same statements ------------------------------


def as_tracker_query(query: TaskQuery) -> TrackerQuery | None:
    """The TaskQuery's filters as predicates, by TASK_ID, its limit (None: a value no task can hold, such as a status
    with surrounding blanks, which UPPER(col) = UPPER(?) never matched)."""
    where: list[Predicate] = []
    for name, value in (("status", query.status), ("priority", query.priority)):
        if value is not None:
            if value != value.strip():
                return None
            where.append(Predicate(name, (value,)))  # type: ignore[arg-type]
    for name, value in (("sprint", query.sprint_id), ("project", query.project_id), ("assignee", query.assignee_id)):
        if value is not None:
            where.append(Predicate(name, (value,)))  # type: ignore[arg-type]
    if query.overdue_on is not None:
        where.append(Predicate("overdue", (query.overdue_on,)))
    if query.unassigned:
        where.append(Predicate("assignee", (None,)))
    if query.open_only:
        where.append(Predicate("open", (True,)))
    if query.due_after is not None or query.due_before is not None:
        where.append(Predicate("due", window=(query.due_after, query.due_before)))
    return TrackerQuery(where=tuple(where), returns="list", order="id", limit=query.limit)


def find_tasks(conn: apsw.Connection, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
    tracker_query = as_tracker_query(query)
    if tracker_query is None:
        return []
    register_functions(conn)
    return [{key: row[key] for key in TASK_FIELDS} for row in _rows(conn, caller, tracker_query)]


# --- the words a question may use ------------------------------------------------------------------------


def read_tracker_values(conn: apsw.Connection, caller: Caller) -> TrackerValues:
    statement, binds = sql.field_values(caller)
    rows = [(name, value, count) for name, value, count in conn.execute(statement, binds)]
    sprints = tuple(SprintName(sid, name or "", pid, status, _date(start), _date(end))
                    for sid, name, pid, status, start, end in conn.execute(sql.SPRINT_NAMES))
    projects = tuple(ProjectName(pid, name or "", key, status, _date(start), _date(end))
                     for pid, name, key, status, start, end in conn.execute(sql.PROJECT_NAMES))
    people = tuple(PersonName(*row) for row in conn.execute(sql.PEOPLE_NAMES))
    return tracker_values(rows, sprints, projects, people)


class TrackerQueries:
    """The engine's methods over these functions (SQLiteEngine's base: its own module stays within its size)."""

    conn: apsw.Connection

    def run_tracker_query(self, caller: Caller, query: TrackerQuery) -> TrackerResult:
        return run_tracker_query(self.conn, caller, query)

    def tracker_values(self, caller: Caller) -> TrackerValues:
        return read_tracker_values(self.conn, caller)
