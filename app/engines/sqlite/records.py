"""Source records: callers, CRUD (identifiers only from EntitySpec, every value bound) and the
loading of source rows into the records the chunk templates read."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import apsw

from app.domain import Caller, Page, Role, SourceType
from app.records_model import (CommentSource, DocSource, ProjectSource, SourceRecord, SprintSource, TaskLink,
    TaskSource, check_external_key)
from app.engines.base import ConflictError, batched
from app.engines.external import (check_cursor_value, check_external_lookup, check_sprint_ids, link_changes,
    sprint_changes, wanted_links)
from app.engines import task_values
from app.engines.sqlite import record_statements as rsql
from app.engines.sqlite import statements as sql
from app.engines.sqlite import tracker_statements as tsql
from app.engines.sqlite.errors import conflicts
from app.entities import TASK_LINKS, TASK_SPRINTS, TASKS, Condition, EntitySpec

IN_BATCH = 500  # ids per IN (...) list, well under SQLite's bind limit


# --- people -------------------------------------------------------------------------------------

def caller(conn: apsw.Connection, employee_id: int) -> Caller | None:
    row = conn.execute(sql.CALLER_BY_ID, (employee_id,)).fetchone()
    return Caller(row[0], Role(row[1])) if row else None


def caller_by_telegram(conn: apsw.Connection, telegram_id: str) -> Caller | None:
    row = conn.execute(sql.CALLER_BY_TELEGRAM, (str(telegram_id),)).fetchone()
    return Caller(row[0], Role(row[1])) if row else None


# --- CRUD: the engine runs the writers inside a write transaction that maps constraint errors --

def create(conn: apsw.Connection, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
    entity.check_columns(values)
    write = task_values.split_write(entity, values)
    columns = [c for c in entity.columns if c in write.columns]
    row = conn.execute(sql.crud_insert(entity, columns), [_bind(write.columns[c]) for c in columns]).fetchone()
    return _with_values(conn, entity, _row(entity, row), write.values)


def get(conn: apsw.Connection, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
    row = conn.execute(sql.crud_select(entity), (row_id,)).fetchone()
    return _with_values(conn, entity, _row(entity, row), {}) if row else None


def _with_values(conn: apsw.Connection, entity: EntitySpec, row: dict[str, Any],
                 wanted: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """A task row after its write: its values made exactly ``wanted`` for the fields given, then its lists read."""
    if entity is not TASKS:
        return row
    task_id = row["task_id"]
    changes = task_values.changes(conn.execute(rsql.VALUES_OF_TASK, (task_id,)).fetchall(), wanted)
    for field, value in changes.deletes:
        conn.execute(rsql.DELETE_TASK_VALUE, (task_id, field, value))
    for field, value in changes.inserts:
        conn.execute(rsql.INSERT_TASK_VALUE, (task_id, field, value))
    _attach_values(conn, [row])
    return row


def _attach_values(conn: apsw.Connection, rows: Sequence[dict[str, Any]]) -> None:
    ids = [row["task_id"] for row in rows]
    stored = [r for batch in batched(ids, IN_BATCH) for r in conn.execute(rsql.task_values(batch), batch)]
    task_values.attach(rows, stored)


def list_page(conn: apsw.Connection, entity: EntitySpec, where: Sequence[Condition], after: int | None,
              limit: int) -> Page[dict[str, Any]]:
    """Run inside one read transaction (the engine's), so the total and the page agree."""
    where = [replace(c, value=_bind(c.value)) for c in where]
    statement, binds = sql.crud_page(entity, where, after)
    rows = conn.execute(statement, [*binds, max(0, int(limit)) + 1]).fetchall()
    statement, binds = sql.crud_count(entity, where)
    total = conn.execute(statement, binds).fetchone()[0]
    items = [_row(entity, r) for r in rows[:limit]]
    if entity is TASKS and items:
        _attach_values(conn, items)
    return Page(items, total, len(rows) > limit)


def update(conn: apsw.Connection, entity: EntitySpec, row_id: int, columns: Sequence[str],
           values: dict[str, Any]) -> dict[str, Any] | None:
    write = task_values.split_write(entity, {c: values[c] for c in columns})
    row = conn.execute(sql.crud_update(entity, columns),
                       [*(_bind(write.columns[c]) for c in columns), row_id]).fetchone()
    return _with_values(conn, entity, _row(entity, row), write.values) if row else None


def delete(conn: apsw.Connection, entity: EntitySpec, row_id: int) -> bool:
    conn.execute(sql.crud_delete(entity), (row_id,))
    return conn.changes() > 0


# --- imported rows (app/sources) ------------------------------------------------------------------

def find_by_external(conn: apsw.Connection, entity: EntitySpec, source: str,
                     keys: Sequence[str] | None) -> dict[str, int]:
    """Ids by external key of the rows of ``source`` with these keys (keys not found are absent; None: all)."""
    source, keys = check_external_lookup(entity, source, keys)
    if keys is None:
        return dict(conn.execute(rsql.find_by_external(entity, None), [source]).fetchall())
    out: dict[str, int] = {}
    for batch in batched(keys, IN_BATCH):
        out.update(conn.execute(rsql.find_by_external(entity, batch), [source, *batch]).fetchall())
    return out


def replace_task_links(conn: apsw.Connection, task_id: int, links: Sequence[TaskLink]) -> bool:
    """Make the task's links exactly these; True if anything was written (the triggers then queue the task)."""
    row = conn.execute(rsql.TASK_SOURCE, (task_id,)).fetchone()
    if row is None:
        raise ConflictError(f"task_links: task {task_id} does not exist")
    unresolved = [link.target_key for link in links if isinstance(link, TaskLink) and link.target_task_id is None]
    resolved = find_by_external(conn, TASKS, row[0], unresolved) if row[0] is not None and unresolved else {}
    changes = link_changes(conn.execute(rsql.LINKS_OF_TASK, (task_id,)).fetchall(), wanted_links(links, resolved))
    for link_id in changes.deletes:
        conn.execute(rsql.DELETE_LINK, (link_id,))
    for link_id, target in changes.retargets:
        conn.execute(rsql.RETARGET_LINK, (target, link_id))
    for link in changes.inserts:
        conn.execute(rsql.INSERT_LINK, (task_id, link.link_type, link.target_key, link.target_task_id))
    return bool(changes)


def replace_task_sprints(conn: apsw.Connection, task_id: int, sprint_ids: Sequence[int]) -> bool:
    """Make the task's TASK_SPRINTS exactly these sprints; True if anything was written."""
    sprint_ids = check_sprint_ids(sprint_ids)
    if conn.execute(rsql.TASK_SOURCE, (task_id,)).fetchone() is None:
        raise ConflictError(f"task_sprints: task {task_id} does not exist")
    stored = [row[0] for row in conn.execute(tsql.SPRINTS_OF_TASK, (task_id,))]
    deletes, inserts = sprint_changes(stored, sprint_ids)
    with conflicts(TASK_SPRINTS):
        for sprint_id in deletes:
            conn.execute(tsql.DELETE_TASK_SPRINT, (task_id, sprint_id))
        for sprint_id in inserts:
            conn.execute(tsql.INSERT_TASK_SPRINT, (task_id, sprint_id))
    return bool(deletes or inserts)


def sync_cursor(conn: apsw.Connection, source: str) -> str | None:
    row = conn.execute(rsql.READ_SYNC_CURSOR, (check_external_key(source, "source"),)).fetchone()
    return row[0] if row else None


def set_sync_cursor(conn: apsw.Connection, source: str, value: str | None) -> None:
    conn.execute(rsql.WRITE_SYNC_CURSOR, (check_external_key(source, "source"), check_cursor_value(value)))


def tasks_by_key(conn: apsw.Connection, key: str) -> list[int]:
    return [row[0] for row in conn.execute(rsql.TASKS_BY_KEY, (key,))]


def _bind(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, bool):
        return int(value)
    return value


def _row(entity: EntitySpec, row) -> dict[str, Any]:
    out = {}
    for name, value in zip(entity.all_columns, row):
        if name in entity.date_columns:
            value = stored_date(value)
        elif name in entity.time_columns:
            value = _stamp(value) or value  # unparsable text (another client's) is returned as stored
        out[name.lower()] = value
    return out


def stored_date(value: Any) -> Any:
    """ISO text -> date (what every SQLite read of a date column returns); anything unparsable (written by another client) is returned as stored."""
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value[:10])
        except ValueError:
            return value
    return value


def _opt_date(value: Any) -> dt.date | None:
    parsed = stored_date(value)
    return parsed if isinstance(parsed, dt.date) else None


# --- source loading for the templates -----------------------------------------------------------

def load_sources(conn: apsw.Connection, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
    """Current source rows by id (missing ids are absent: the entity was deleted)."""
    loader = {"task": _load_tasks, "sprint": _load_sprints, "project": _load_projects, "doc": _load_docs}
    out: dict[int, SourceRecord] = {}
    for batch in batched(list(ids), IN_BATCH):
        out.update(loader[source_type](conn, batch))
    return out


def _load_tasks(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, TaskSource]:
    comments: dict[int, list[CommentSource]] = {}
    for task_id, body, author_id, first, last, created_at in conn.execute(rsql.task_comments(ids), ids):
        if body and body.strip():
            known = first is not None or last is not None  # the author still exists
            comments.setdefault(task_id, []).append(CommentSource(
                body, author_id if known else None, _name(first, last) if known else None, _stamp(created_at)))
    links: dict[int, list[TaskLink]] = {}
    for task_id, link_type, target_key, target_task_id in conn.execute(rsql.task_links(ids), ids):
        links.setdefault(task_id, []).append(TaskLink(link_type, target_key, target_task_id))
    out = {}
    for row in conn.execute(rsql.load_tasks(ids), ids):
        (task_id, title, status, priority, sprint_id, sprint_name, project_id, project_name, assignee_id,
         first, last, points, hours, due, description, external_key, issue_type, status_name, labels,
         fix_versions, components, reporter_id, reporter_first, reporter_last, created_at, resolved_at, resolution,
         affects_versions, environment, parent_key, parent_id, priority_name, restricted) = row
        out[task_id] = TaskSource(
            task_id, title or "", status, priority,
            sprint_id if sprint_name is not None else None, sprint_name,
            project_id if project_name is not None else None, project_name,
            assignee_id if (first is not None or last is not None) else None, first, last,
            points, hours, _opt_date(due), description, tuple(comments.get(task_id, ())),
            external_key, issue_type, status_name, labels, fix_versions, components, tuple(links.get(task_id, ())),
            reporter_id if (reporter_first is not None or reporter_last is not None) else None, reporter_first,
            reporter_last, _stamp(created_at), _stamp(resolved_at), resolution, affects_versions, environment,
            parent_key, parent_id, priority_name, bool(restricted),
        )
    return out


def _name(first: str | None, last: str | None) -> str:
    return " ".join(p for p in (first, last) if p)


def _stamp(value: Any) -> dt.datetime | None:
    """COMMENTS.CREATED_AT as stored (ISO text) -> datetime; anything unparsable is unknown."""
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def _load_sprints(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, SprintSource]:
    return {
        sid: SprintSource(sid, name or "", status, pid if pname is not None else None, pname, goal,
                          _opt_date(start), _opt_date(end))
        for sid, name, status, pid, pname, goal, start, end in conn.execute(rsql.load_sprints(ids), ids)
    }


def _load_projects(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, ProjectSource]:
    return {
        pid: ProjectSource(pid, name or "", status, description, _opt_date(start), _opt_date(end))
        for pid, name, status, description, start, end in conn.execute(rsql.load_projects(ids), ids)
    }


def _load_docs(conn: apsw.Connection, ids: Sequence[int]) -> dict[int, DocSource]:
    # The owner id is kept even when no such employee exists (a client deleted them with foreign keys
    # off): an owner-less document is organisation-wide, so a dangling owner must not publish it.
    return {
        did: DocSource(did, title or "", body, pid if pexists else None, owner, doc_type)
        for did, title, body, pid, pexists, owner, doc_type in conn.execute(rsql.load_docs(ids), ids)
    }


class SQLiteRecordsTx:
    """The record writes of one ``engine.batch()`` transaction (app.engines.base.RecordsTx): the same
    functions as the engine's own create/update/delete, on the batch's connection."""

    def __init__(self, conn: apsw.Connection) -> None:
        self._conn = conn

    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
        with conflicts(entity):
            return create(self._conn, entity, values)

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        return get(self._conn, entity, row_id)

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        if not columns:
            return get(self._conn, entity, row_id)
        with conflicts(entity):
            return update(self._conn, entity, row_id, columns, values)

    def delete(self, entity: EntitySpec, row_id: int) -> bool:
        with conflicts(entity):
            return delete(self._conn, entity, row_id)

    def find_by_external(self, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]:
        return find_by_external(self._conn, entity, source, keys)

    def replace_task_links(self, task_id: int, links: Sequence[TaskLink]) -> bool:
        with conflicts(TASK_LINKS):
            return replace_task_links(self._conn, task_id, links)

    def replace_task_sprints(self, task_id: int, sprint_ids: Sequence[int]) -> bool:
        return replace_task_sprints(self._conn, task_id, sprint_ids)

    def set_task_restricted(self, task_id: int, restricted: bool) -> bool:
        flag = int(bool(restricted))
        self._conn.execute(rsql.SET_TASK_RESTRICTED, (flag, int(task_id), flag))
        return self._conn.changes() > 0

    def set_sync_cursor(self, source: str, value: str | None) -> None:
        set_sync_cursor(self._conn, source, value)

    def queue_mark(self) -> int:
        return int(self._conn.execute(rsql.QUEUE_MARK).fetchone()[0])

    def coalesce_queued(self, after: int) -> int:
        self._conn.execute(rsql.COALESCE_QUEUED, (int(after),))
        return self._conn.changes()
