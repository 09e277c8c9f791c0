"""Source records: callers, CRUD (text from record_statements.py, every value bound) and the loading of
source rows into the records the chunk templates read. Functions take an open cursor; the
engine owns connections and commits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.domain import Caller, Page, Role, SourceType
from app.records_model import (CommentSource, DocSource, ProjectSource, SourceRecord, SprintSource, TaskLink,
    TaskSource, check_external_key)
from app.engines.base import ConflictError, EngineError, batched
from app.engines import task_values
from app.engines.oracle import record_statements as sql
from app.engines.oracle import tracker_statements as tsql
from app.engines.oracle import task_values as oracle_values
from app.engines.oracle.errors import conflicts
from app.engines.external import (check_cursor_value, check_external_lookup, check_sprint_ids, link_changes,
    sprint_changes, wanted_links)
from app.entities import SYNC_CURSORS, TASK_LINKS, TASK_SPRINTS, TASKS, Condition, EntitySpec

IN_LIST_MAX = 500  # ids per IN list (Oracle allows 1000 expressions: ORA-01795)


# --- people -------------------------------------------------------------------------------------

def caller(cur: Any, statement: str, **binds: Any) -> Caller | None:
    cur.execute(statement, binds)
    row = cur.fetchone()
    return Caller(int(row[0]), Role(row[1])) if row else None


# --- CRUD ---------------------------------------------------------------------------------------

def create(cur: Any, entity: EntitySpec, values: dict[str, Any]) -> int:
    """INSERT … RETURNING the new id, then a task's values (the caller commits, then reads the row back)."""
    entity.check_columns(values)
    write = task_values.split_write(entity, values)
    # Omitted and None are the same on insert, except that column defaults apply.
    columns = [c for c in entity.columns if write.columns.get(c) is not None]
    binds = sql.crud_binds(columns, _bind_values(entity, write.columns))
    new_id = cur.var(int)
    _input_sizes(cur, entity, columns, binds)
    with conflicts(entity, values):
        cur.execute(sql.crud_insert(entity, columns), {**binds, "new_id": new_id})
    row_id = returned_id(new_id)
    oracle_values.write(cur, row_id, write.values)
    return row_id


def get(cur: Any, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
    cur.execute(sql.crud_select(entity), row_id=int(row_id))
    row = cur.fetchone()
    if not row:
        return None
    out = _row(entity, row)
    if entity is TASKS:
        oracle_values.attach(cur, [out])
    return out


def created(cur: Any, entity: EntitySpec, row_id: int) -> dict[str, Any]:
    row = get(cur, entity, row_id)
    if row is None:
        raise EngineError(f"{entity.name} {row_id} vanished right after it was created")
    return row


def list_page(cur: Any, entity: EntitySpec, where: Sequence[Condition], after: int | None,
              limit: int) -> Page[dict[str, Any]]:
    """The page (one row more than ``limit`` is read, to know whether another page follows), then the total."""
    statement = sql.crud_page(entity, where, after, max(0, int(limit)) + 1)
    cur.execute(statement.sql, statement.binds)
    rows = cur.fetchall()
    statement = sql.crud_count(entity, where)
    cur.execute(statement.sql, statement.binds)
    total = int(cur.fetchone()[0])
    items = [_row(entity, r) for r in rows[:limit]]
    if entity is TASKS and items:
        oracle_values.attach(cur, items)
    return Page(items, total, len(rows) > limit)


def update(cur: Any, entity: EntitySpec, row_id: int, columns: Sequence[str], values: dict[str, Any]) -> int:
    """UPDATE, then a task's values; returns the number of rows changed (the caller commits)."""
    write = task_values.split_write(entity, {c: values[c] for c in columns})
    binds = sql.crud_binds(columns, _bind_values(entity, write.columns))
    _input_sizes(cur, entity, columns, binds)
    with conflicts(entity, values):
        cur.execute(sql.crud_update(entity, columns), {**binds, "row_id": int(row_id)})
    changed = cur.rowcount
    if changed:
        oracle_values.write(cur, row_id, write.values)
    return changed


def _input_sizes(cur: Any, entity: EntitySpec, columns: Sequence[str], binds: Mapping[str, Any]) -> None:
    """A datetime binds as DATE and loses its fractional seconds (FACTS.md §12.2): say TIMESTAMP; a long text
    into a CLOB column binds as a CLOB. One call: python-oracledb applies input sizes to the next execute only,
    and each setinputsizes replaces the last."""
    import oracledb  # deferred, as in engine.py: importing this package must not need the driver

    sizes = dict.fromkeys(sql.crud_timestamp_binds(columns), oracledb.DB_TYPE_TIMESTAMP)
    sizes.update(clob_input_sizes(binds, sql.crud_lob_binds(entity, columns)))
    if sizes:
        cur.setinputsizes(**sizes)


# The longest str bound as an ordinary VARCHAR2 into a CLOB column, in UTF-8 bytes. Oracle judges a bind by its
# value: ORA-01461 is "a bind value whose length exceeded the maximum VARCHAR2 length" [DOC error-help ora-01461],
# and a bind only declared past 4,000 bytes (thin declares 4 bytes per byte [CODE python-oracledb metadata.pyx,
# types.pyx]) is "expanded non LONG" bind data [DOC error-help dia-24816] (REVIEW-3 C1). Below 4,000 with a margin,
# so a 1-4 KB text needs no temporary LOB (several round trips each [ISSUE python-oracledb #467]).
LONG_BIND_BYTES = 3900
# A str past this is declared past 4,000 bytes ("expanded"): after a LOB bind, that is ORA-24816 (REVIEW-3 U1).
EXPANDED_BIND_BYTES = 1000
# The longest bytes value bound as RAW into a BLOB column: a RAW bind is declared at its length (buffer size factor
# 1), and RAW holds 2,000 bytes in SQL on a STANDARD database; kept where REVIEW-3 C8 confirms it.
LONG_RAW_BIND_BYTES = 1000


def clob_input_sizes(binds: Mapping[str, Any], lob_binds: Iterable[str]) -> dict[str, Any]:
    """The one rule for every write of text into a CLOB column: a value past ``LONG_BIND_BYTES`` (it could exceed the
    maximum VARCHAR2) is bound as a temporary CLOB instead (``cursor.setinputsizes(name=DB_TYPE_CLOB)``, any length
    [PYDOC lob_data.rst])."""
    import oracledb

    sizes = {name: len(binds[name].encode("utf-8", "surrogatepass")) for name in lob_binds
             if isinstance(binds.get(name), str)}
    # Once one is a LOB, the others declared past 4,000 bytes must be too: a bind of length potentially > 4000 bytes
    # after a LOB bind is ORA-24816 (REVIEW-3 U1), and a LOB column's bind may sit anywhere in the statement.
    bound = LONG_BIND_BYTES if all(n <= LONG_BIND_BYTES for n in sizes.values()) else EXPANDED_BIND_BYTES
    return {name: oracledb.DB_TYPE_CLOB for name, n in sizes.items() if n > bound}


def blob_input_sizes(binds: Mapping[str, Any], lob_binds: Iterable[str]) -> dict[str, Any]:
    """The same rule for bytes into a BLOB column: a value past ``LONG_RAW_BIND_BYTES`` is bound as a temporary BLOB
    instead (``cursor.setinputsizes(name=DB_TYPE_BLOB)`` [PYDOC lob_data.rst])."""
    import oracledb

    return {name: oracledb.DB_TYPE_BLOB for name in lob_binds
            if isinstance(binds.get(name), bytes) and len(binds[name]) > LONG_RAW_BIND_BYTES}


def delete(cur: Any, entity: EntitySpec, row_id: int) -> bool:
    with conflicts(entity):
        cur.execute(sql.crud_delete(entity), row_id=int(row_id))
    return cur.rowcount > 0


# --- imported rows (app/sources) ------------------------------------------------------------------

def find_by_external(cur: Any, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]:
    """Ids by external key of the rows of ``source`` with these keys (keys not found are absent; None: all)."""
    source, keys = check_external_lookup(entity, source, keys)
    out: dict[str, int] = {}
    for chunk in [None] if keys is None else batched(keys, IN_LIST_MAX):
        statement = sql.find_by_external(entity, chunk)
        cur.execute(statement.sql, {"source_name": source, **statement.binds})
        out.update((key, int(row_id)) for key, row_id in cur.fetchall())
    return out


def replace_task_links(cur: Any, task_id: int, links: Sequence[TaskLink]) -> bool:
    """Make the task's links exactly these; True if anything was written (the trigger then queues the task)."""
    cur.execute(sql.TASK_SOURCE, task_id=int(task_id))
    row = cur.fetchone()
    if row is None:
        raise ConflictError(f"task_links: task {task_id} does not exist")
    unresolved = [link.target_key for link in links if isinstance(link, TaskLink) and link.target_task_id is None]
    resolved = find_by_external(cur, TASKS, row[0], unresolved) if row[0] is not None and unresolved else {}
    wanted = wanted_links(links, resolved)
    cur.execute(sql.LINKS_OF_TASK, task_id=int(task_id))
    current = [(int(i), t, k, _opt_int(target)) for i, t, k, target in cur.fetchall()]
    changes = link_changes(current, wanted)
    with conflicts(TASK_LINKS):
        for link_id in changes.deletes:
            cur.execute(sql.DELETE_LINK, link_id=link_id)
        for link_id, target in changes.retargets:
            cur.execute(sql.RETARGET_LINK, target_task_id=target, link_id=link_id)
        for link in changes.inserts:
            cur.execute(sql.INSERT_LINK, task_id=int(task_id), link_type=link.link_type, target_key=link.target_key,
                        target_task_id=link.target_task_id)
    return bool(changes)


def replace_task_sprints(cur: Any, task_id: int, sprint_ids: Sequence[int]) -> bool:
    """Make the task's TASK_SPRINTS exactly these sprints; True if anything was written."""
    sprint_ids = check_sprint_ids(sprint_ids)
    cur.execute(sql.TASK_SOURCE, task_id=int(task_id))
    if cur.fetchone() is None:
        raise ConflictError(f"task_sprints: task {task_id} does not exist")
    cur.execute(tsql.SPRINTS_OF_TASK, task_id=int(task_id))
    deletes, inserts = sprint_changes([int(row[0]) for row in cur.fetchall()], sprint_ids)
    with conflicts(TASK_SPRINTS):
        for sprint_id in deletes:
            cur.execute(tsql.DELETE_TASK_SPRINT, task_id=int(task_id), sprint_id=sprint_id)
        for sprint_id in inserts:
            cur.execute(tsql.INSERT_TASK_SPRINT, task_id=int(task_id), sprint_id=int(sprint_id))
    return bool(deletes or inserts)


def sync_cursor(cur: Any, source: str) -> str | None:
    cur.execute(sql.READ_SYNC_CURSOR, source_name=check_external_key(source, "source"))
    row = cur.fetchone()
    return row[0] if row else None


def set_sync_cursor(cur: Any, source: str, value: str | None) -> None:
    with conflicts(SYNC_CURSORS):  # two first writes at once: ORA-00001 on the MERGE's insert
        cur.execute(sql.WRITE_SYNC_CURSOR, source_name=check_external_key(source, "source"),
                    cursor_value=check_cursor_value(value))


def tasks_by_key(cur: Any, key: str) -> list[int]:
    cur.execute(sql.TASKS_BY_KEY, external_key=key)
    return [int(row[0]) for row in cur.fetchall()]


class OracleRecordsTx:
    """The record writes of one ``engine.batch()`` transaction (app.engines.base.RecordsTx) on its cursor: the
    same functions as the engine's own create/update/delete; the engine commits once, at the end."""

    def __init__(self, cur: Any) -> None:
        self._cur = cur

    def create(self, entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
        return created(self._cur, entity, create(self._cur, entity, values))

    def get(self, entity: EntitySpec, row_id: int) -> dict[str, Any] | None:
        return get(self._cur, entity, row_id)

    def update(self, entity: EntitySpec, row_id: int, values: dict[str, Any]) -> dict[str, Any] | None:
        entity.check_columns(values)
        columns = [c for c in entity.columns if c in values]
        if columns and not update(self._cur, entity, row_id, columns, values):
            return None
        return get(self._cur, entity, row_id)

    def delete(self, entity: EntitySpec, row_id: int) -> bool:
        return delete(self._cur, entity, row_id)

    def find_by_external(self, entity: EntitySpec, source: str, keys: Sequence[str] | None) -> dict[str, int]:
        return find_by_external(self._cur, entity, source, keys)

    def replace_task_links(self, task_id: int, links: Sequence[TaskLink]) -> bool:
        return replace_task_links(self._cur, task_id, links)

    def replace_task_sprints(self, task_id: int, sprint_ids: Sequence[int]) -> bool:
        return replace_task_sprints(self._cur, task_id, sprint_ids)

    def set_task_restricted(self, task_id: int, restricted: bool) -> bool:
        self._cur.execute(sql.SET_TASK_RESTRICTED, restricted=int(bool(restricted)), task_id=int(task_id))
        return bool(self._cur.rowcount)

    def set_sync_cursor(self, source: str, value: str | None) -> None:
        set_sync_cursor(self._cur, source, value)

    def queue_mark(self) -> int:
        self._cur.execute(sql.QUEUE_MARK)
        return int(self._cur.fetchone()[0])

    def coalesce_queued(self, after: int) -> int:
        self._cur.execute(sql.SUPERSEDED_QUEUE_ROWS, after=int(after))
        ids = [int(row[0]) for row in self._cur.fetchall()]
        for part in range(0, len(ids), IN_LIST_MAX):
            statement = sql.delete_queue_rows(ids[part:part + IN_LIST_MAX])
            self._cur.execute(statement.sql, statement.binds)
        return len(ids)


def returned_id(var: Any) -> int:
    value = var.getvalue()
    if isinstance(value, list):  # DML RETURNING INTO: one value per affected row
        value = value[0]
    return int(value)


def _bind_values(entity: EntitySpec, values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, bool):
            value = int(value)
        elif isinstance(value, str) and name in entity.date_columns:
            value = dt.date.fromisoformat(value[:10])
        elif isinstance(value, str) and (name == "CREATED_AT" or name in entity.time_columns):
            value = dt.datetime.fromisoformat(value)
        out[name] = value
    return out


def _row(entity: EntitySpec, row: Sequence[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in zip(entity.all_columns, row):
        if name in entity.date_columns and isinstance(value, dt.datetime):
            value = value.date()  # Oracle DATE carries a time of day; these columns are dates
        out[name.lower()] = value
    return out


# --- source loading for the templates -----------------------------------------------------------

def load_sources(cur: Any, source_type: SourceType, ids: Sequence[int]) -> dict[int, SourceRecord]:
    """Current source rows by id (missing ids are absent: the entity was deleted)."""
    out: dict[int, SourceRecord] = {}
    for chunk in batched([int(i) for i in ids], IN_LIST_MAX):
        statement = sql.load_sources(source_type, chunk)
        cur.execute(statement.sql, statement.binds)
        rows = cur.fetchall()
        comments: dict[int, list[CommentSource]] = {}
        if source_type == "task" and rows:
            statement = sql.task_comments([int(r[0]) for r in rows])
            cur.execute(statement.sql, statement.binds)
            for task_id, body, author_id, first, last, created_at in cur.fetchall():
                known = first is not None or last is not None  # the author still exists
                comments.setdefault(int(task_id), []).append(CommentSource(
                    body or "", _opt_int(author_id) if known else None,
                    " ".join(p for p in (first, last) if p) if known else None, created_at))
        links: dict[int, list[TaskLink]] = {}
        if source_type == "task" and rows:
            statement = sql.task_links([int(r[0]) for r in rows])
            cur.execute(statement.sql, statement.binds)
            for task_id, link_type, target_key, target_task_id in cur.fetchall():
                links.setdefault(int(task_id), []).append(TaskLink(link_type, target_key, _opt_int(target_task_id)))
        for row in rows:
            record = _source(source_type, row, comments, links)
            out[_record_id(record)] = record
    return out


def _date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    return value


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _source(source_type: str, row: Sequence[Any], comments: dict[int, list[CommentSource]],
            links: dict[int, list[TaskLink]]) -> SourceRecord:
    if source_type == "task":
        (task_id, title, status, priority, sprint_id, sprint_name, project_id, project_name, assignee_id,
         first, last, points, hours, due, description, external_key, issue_type, status_name, labels, fix_versions,
         components, reporter_id, reporter_first, reporter_last, created_at, resolved_at, resolution,
         affects_versions, environment, parent_key, parent_id, priority_name, restricted) = row
        return TaskSource(
            int(task_id), title, status, priority, _opt_int(sprint_id), sprint_name, _opt_int(project_id),
            project_name, _opt_int(assignee_id), first, last, _number(points), _number(hours), _date(due),
            description, tuple(comments.get(int(task_id), ())), external_key, issue_type, status_name, labels,
            fix_versions, components, tuple(links.get(int(task_id), ())),
            _opt_int(reporter_id) if (reporter_first is not None or reporter_last is not None) else None,
            reporter_first, reporter_last, created_at, resolved_at, resolution, affects_versions, environment,
            parent_key, _opt_int(parent_id), priority_name, bool(restricted),
        )
    if source_type == "sprint":
        sprint_id, name, status, project_id, project_name, goal, start, end = row
        return SprintSource(int(sprint_id), name, status, _opt_int(project_id), project_name, goal,
                            _date(start), _date(end))
    if source_type == "project":
        project_id, name, status, description, start, end = row
        return ProjectSource(int(project_id), name, status, description, _date(start), _date(end))
    document_id, title, body, project_id, owner, doc_type = row
    return DocSource(int(document_id), title, body, _opt_int(project_id), _opt_int(owner), doc_type)


def _record_id(record: SourceRecord) -> int:
    match record:
        case TaskSource():
            return record.task_id
        case SprintSource():
            return record.sprint_id
        case ProjectSource():
            return record.project_id
    return record.document_id
