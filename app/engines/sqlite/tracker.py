"""The typed tracker query and the vocabulary on the SQLite engine (Engine.run_tracker_query, tracker_values,
and find_tasks as a call of the same statements). Functions take an open connection; every statement is in
tracker_statements.py; every value is bound."""

from __future__ import annotations

import datetime as dt
from typing import Any

import apsw

from app.domain import TASK_FIELDS, Caller, TaskQuery
from app.engines.sqlite import record_statements as rsql
from app.engines.sqlite import tracker_statements as sql
from app.engines.sqlite.records import stored_date
from app.engines.task_values import ordered
from app.engines.tracker_common import RECORD_FIELDS, ROW_FIELDS, VALUE_KEYS, as_tracker_query, group_label
from app.rag.understanding.blocked import says_blocked
from app.rag.understanding.query import Group, TrackerQuery, TrackerResult
from app.rag.understanding.vocabulary import PersonName, ProjectName, SprintName, TrackerValues, tracker_values

_TIMESTAMPS = ("created_at", "updated_at", "resolved_at")


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
        for name, value in conn.execute(rsql.VALUES_OF_TASK, (record["task_id"],)):
            values[VALUE_KEYS[name]].append(value)
        record.update({key: ordered(v) for key, v in values.items()})  # the order the writes keep (task_values)
    return found


def _groups(conn: apsw.Connection, caller: Caller, query: TrackerQuery) -> list[Group]:
    statement, binds = sql.groups(caller, query)
    out = []
    for key, label, count, points in conn.execute(statement, binds):
        out.append(Group(key, group_label(query.group_by or "", key, label), int(count), float(points or 0)))
    return out


def _row(names: tuple[str, ...], values: Any) -> dict[str, Any]:
    row = dict(zip(names, values))
    row["assignee_name"] = row["assignee_name"] or None
    row["reporter_name"] = row["reporter_name"] or None
    row["expected_end_date"] = stored_date(row["expected_end_date"])
    for key in _TIMESTAMPS:
        row[key] = _timestamp(row[key])
    return row



def _timestamp(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            return value
    return value


# --- find_tasks: the model's older tool, one call of the same statements ------------------------------


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
    sprints = tuple(SprintName(sid, name or "", pid, status, stored_date(start), stored_date(end))
                    for sid, name, pid, status, start, end in conn.execute(sql.SPRINT_NAMES))
    projects = tuple(ProjectName(pid, name or "", key, status, stored_date(start), stored_date(end))
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
