"""The typed tracker query and the vocabulary on the Oracle engine (Engine.run_tracker_query, tracker_values, and
find_tasks as a call of the same statements). Functions take an open cursor; every statement is in
tracker_statements.py; every value is a named bind."""

from __future__ import annotations

import datetime as dt
from typing import Any

from app.domain import TASK_FIELDS, Caller, TaskQuery
from app.engines.oracle import record_statements
from app.engines.oracle import tracker_statements as sql
from app.engines.task_values import ordered
from app.engines.tracker_common import ID_KEYS, RECORD_FIELDS, ROW_FIELDS, VALUE_KEYS, as_tracker_query, group_label
from app.rag.understanding.query import Group, TrackerQuery, TrackerResult
from app.rag.understanding.vocabulary import PersonName, ProjectName, SprintName, TrackerValues, tracker_values


def run_tracker_query(cur: Any, caller: Caller, query: TrackerQuery) -> TrackerResult:
    statement = sql.tracker_aggregate(caller, query)
    cur.execute(statement.sql, statement.binds)
    total, points = cur.fetchone()
    result = TrackerResult(int(total), float(points or 0))
    if query.returns == "list":
        result.rows.extend(_rows(cur, caller, query))
    elif query.returns == "field":
        result.rows.extend(_record(cur, caller, query))
    elif query.returns == "group":
        result.groups.extend(_groups(cur, caller, query))
    return result


def _rows(cur: Any, caller: Caller, query: TrackerQuery) -> list[dict[str, Any]]:
    statement = sql.tracker_rows(caller, query)
    cur.execute(statement.sql, statement.binds)
    return [_row(ROW_FIELDS, r) for r in cur.fetchall()]


def _record(cur: Any, caller: Caller, query: TrackerQuery) -> list[dict[str, Any]]:
    """The first matching task in the query's order with every record field, its multi-valued ones as tuples."""
    statement = sql.tracker_rows(caller, query, record=True)
    cur.execute(statement.sql, statement.binds)
    found = [_row(RECORD_FIELDS, r) for r in cur.fetchall()]
    for record in found:
        values: dict[str, list[str]] = {key: [] for key in VALUE_KEYS.values()}
        cur.execute(record_statements.VALUES_OF_TASK, task_id=record["task_id"])
        for name, value in cur.fetchall():
            values[VALUE_KEYS[name]].append(value)
        record.update({key: ordered(v) for key, v in values.items()})  # the order the writes keep (task_values)
    return found


def _groups(cur: Any, caller: Caller, query: TrackerQuery) -> list[Group]:
    statement = sql.tracker_groups(caller, query)
    cur.execute(statement.sql, statement.binds)
    out = []
    for key, label, count, points in cur.fetchall():
        if isinstance(key, (int, float)) and query.group_by in ("project", "sprint", "assignee", "reporter"):
            key = int(key)  # NUMBER(19) may come back as float or Decimal-like; ids are ints
        out.append(Group(key, group_label(query.group_by or "", key, label), int(count), float(points or 0)))
    return out


def _row(names: tuple[str, ...], values: Any) -> dict[str, Any]:
    row = dict(zip(names, values))
    for key in ID_KEYS:
        if key in row and row[key] is not None:
            row[key] = int(row[key])
    if isinstance(row["expected_end_date"], dt.datetime):  # Oracle DATE carries a time of day
        row["expected_end_date"] = row["expected_end_date"].date()
    if row["story_points"] is not None:
        row["story_points"] = float(row["story_points"])
    row["assignee_name"] = row["assignee_name"] or None
    row["reporter_name"] = row["reporter_name"] or None
    return row


def find_tasks(cur: Any, caller: Caller, query: TaskQuery) -> list[dict[str, Any]]:
    """The model's older tool: the typed query's list by TASK_ID (one builder for both tools)."""
    tracker_query = as_tracker_query(query)
    if tracker_query is None:
        return []
    return [{key: row[key] for key in TASK_FIELDS} for row in _rows(cur, caller, tracker_query)]


def read_tracker_values(cur: Any, caller: Caller) -> TrackerValues:
    statement = sql.tracker_field_values(caller)
    cur.execute(statement.sql, statement.binds)
    rows = [(name, value, int(count)) for name, value, count in cur.fetchall()]
    cur.execute(sql.TRACKER_SPRINTS)
    sprints = tuple(SprintName(int(sid), name or "", None if pid is None else int(pid), status, _day(start), _day(end))
                    for sid, name, pid, status, start, end in cur.fetchall())
    cur.execute(sql.TRACKER_PROJECTS)
    projects = tuple(ProjectName(int(pid), name or "", key, status, _day(start), _day(end))
                     for pid, name, key, status, start, end in cur.fetchall())
    cur.execute(sql.TRACKER_PEOPLE)
    people = tuple(PersonName(int(eid), first, last, external) for eid, first, last, external in cur.fetchall())
    return tracker_values(rows, sprints, projects, people)


def _day(value: Any) -> Any:
    return value.date() if isinstance(value, dt.datetime) else value


class TrackerQueries:
    """The engine's methods over these functions (OracleEngine's base: its own module stays within its size)."""

    _connection: Any  # OracleEngine's pooled connection (app/engines/oracle/pooling.py)

    def run_tracker_query(self, caller: Caller, query: TrackerQuery) -> TrackerResult:
        with self._connection() as conn, conn.cursor() as cur:
            return run_tracker_query(cur, caller, query)

    def tracker_values(self, caller: Caller) -> TrackerValues:
        with self._connection() as conn, conn.cursor() as cur:
            return read_tracker_values(cur, caller)
