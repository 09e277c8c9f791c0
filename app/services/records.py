"""CRUD on the tracker's source tables, over the engine contract.

Callers pass values keyed by lowercase field names (as the API and the demo seeder hold them);
this module checks them against the entity's writable columns, turns ISO date strings into dates
and hands uppercase column names to the engine. Rows come back keyed by lowercase column names.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from app import metrics
from app.domain import MAX_ID
from app.engines.base import Engine
from app.entities import DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS, EntitySpec

MAX_PAGE = 500
# Columns whose change moves a chunk's audience at once (migrations sqlite/V5, oracle/V9), and the
# entities whose delete takes chunks or a reader with it.
_ACCESS_COLUMNS = {TASKS.name: "ASSIGNEE_ID", DOCUMENTS.name: "OWNER_EMPLOYEE_ID"}
_ACCESS_DELETES = {TASKS.name, DOCUMENTS.name, SPRINTS.name, PROJECTS.name, EMPLOYEES.name}


class RecordNotFoundError(LookupError):
    """No row with this id; the message names the entity and the id."""


class InvalidRecordError(ValueError):
    """The values are well-formed one by one but not together (an end before its start)."""


def create_record(engine: Engine, entity: EntitySpec, values: Mapping[str, Any]) -> dict[str, Any]:
    return engine.create(entity, _to_columns(entity, values))


def get_record(engine: Engine, entity: EntitySpec, row_id: int) -> dict[str, Any]:
    row = engine.get(entity, _check_id(entity, row_id))
    if row is None:
        raise RecordNotFoundError(_missing(entity, row_id))
    if entity is PROJECTS:  # data for project matching, not a CRUD column (app/services/summaries.py writes it)
        row["auto_summary"], row["auto_summary_at"] = engine.project_summary(row_id) or (None, None)
    return row


def list_records(engine: Engine, entity: EntitySpec, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
    if not 0 <= offset <= MAX_ID:
        raise ValueError(f"offset must be between 0 and {MAX_ID}, got {offset}")
    return engine.list(entity, limit, offset)


def iter_records(engine: Engine, entity: EntitySpec, page: int = MAX_PAGE):
    """Every row of the entity, page by page (the demo seeder uses it to stay idempotent)."""
    offset = 0
    while True:
        rows = engine.list(entity, page, offset)
        yield from rows
        if len(rows) < page:
            return
        offset += page


def update_record(engine: Engine, entity: EntitySpec, row_id: int, values: Mapping[str, Any]) -> dict[str, Any]:
    """Partial update: only the given fields change. An empty update returns the row unchanged."""
    _check_id(entity, row_id)
    columns = _to_columns(entity, values)
    if columns.keys() & _DATE_RANGE and _DATE_RANGE <= set(entity.columns):
        # A PATCH of one end of the range is checked against the other end as stored.
        current = get_record(engine, entity, row_id)
        _check_date_range({**{c: current[c.lower()] for c in _DATE_RANGE}, **columns})
    row = engine.update(entity, row_id, columns) if columns else engine.get(entity, row_id)
    if row is None:
        raise RecordNotFoundError(_missing(entity, row_id))
    if _ACCESS_COLUMNS.get(entity.name) in columns:
        metrics.ACCESS_REVOCATIONS.inc()
    return row


def delete_record(engine: Engine, entity: EntitySpec, row_id: int) -> None:
    if not engine.delete(entity, _check_id(entity, row_id)):
        raise RecordNotFoundError(_missing(entity, row_id))
    if entity.name in _ACCESS_DELETES:
        metrics.ACCESS_REVOCATIONS.inc()


def _to_columns(entity: EntitySpec, values: Mapping[str, Any]) -> dict[str, Any]:
    columns = {name.upper(): value for name, value in values.items()}
    entity.check_columns(columns)
    for name in entity.date_columns:
        value = columns.get(name)
        if isinstance(value, str):
            try:
                columns[name] = dt.date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{entity.name}.{name.lower()} must be an ISO date (YYYY-MM-DD), got {value!r}") from None
        elif isinstance(value, dt.datetime):
            columns[name] = value.date()
    return columns


_DATE_RANGE = {"START_DATE", "END_DATE"}


def _check_date_range(columns: Mapping[str, Any]) -> None:
    start, end = columns.get("START_DATE"), columns.get("END_DATE")
    if isinstance(start, dt.date) and isinstance(end, dt.date) and end < start:
        raise InvalidRecordError(f"end_date is before start_date ({end.isoformat()} < {start.isoformat()})")


def _check_id(entity: EntitySpec, row_id: int) -> int:
    if isinstance(row_id, bool) or not isinstance(row_id, int) or not 0 < row_id <= MAX_ID:
        raise ValueError(f"{entity.name} id must be a positive integer, got {row_id!r}")
    return row_id


def _missing(entity: EntitySpec, row_id: int) -> str:
    return f"{entity.name[:-1]} {row_id} not found"
