"""CRUD on the tracker's source tables, over the engine contract.

Callers pass values keyed by lowercase field names (as the API and the demo seeder hold them);
this module checks them against the entity's writable columns, turns ISO date strings into dates
and hands uppercase column names to the engine. Rows come back keyed by lowercase column names.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from app import metrics, paging
from app.domain import is_id
from app.engines.base import Engine
from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS, Condition, EntitySpec
from app.paging import Listing

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
    columns = _to_columns(entity, values)
    if entity is TASKS:  # a task written through this API is created and updated now, unless the caller says when
        if columns.get("CREATED_AT") is None:
            columns["CREATED_AT"] = _now()
        if columns.get("UPDATED_AT") is None:
            columns["UPDATED_AT"] = columns["CREATED_AT"]
    return engine.create(entity, columns)


def _now() -> dt.datetime:
    """UTC, naive, as every stored time (COMMENTS.CREATED_AT, TASKS.CREATED_AT ...)."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def get_record(engine: Engine, entity: EntitySpec, row_id: int) -> dict[str, Any]:
    row = engine.get(entity, _check_id(entity, row_id))
    if row is None:
        raise RecordNotFoundError(_missing(entity, row_id))
    if entity is PROJECTS:  # data for project matching, not a CRUD column (app/services/summaries.py writes it)
        row["auto_summary"], row["auto_summary_at"] = engine.project_summary(row_id) or (None, None)
    return row


@dataclass(frozen=True)
class Filter:
    """A list filter: the column it reads and how it compares. ``id``: the id, or "none" for rows without
    one; ``label``: equal ignoring case (status, priority, role, doc_type); ``exact``: equal; ``key``: an imported
    row's source or key, equal byte for byte; ``before`` /
    ``after``: a date strictly before / after the given day (rows without a date never match)."""

    column: str
    kind: Literal["id", "label", "exact", "key", "before", "after"]


# The filters of each list endpoint, by query parameter name (app/api/routes/records.py publishes them).
_IMPORTED = {"source": Filter("SOURCE", "key"), "external_key": Filter("EXTERNAL_KEY", "key")}
FILTERS: dict[str, dict[str, Filter]] = {
    EMPLOYEES.name: {"role": Filter("ROLE", "label"), "telegram_id": Filter("TELEGRAM_ID", "exact"),
                     "source": Filter("SOURCE", "key"), "external_id": Filter("EXTERNAL_ID", "key")},
    PROJECTS.name: {"status": Filter("STATUS", "label"), **_IMPORTED},
    SPRINTS.name: {"project_id": Filter("PROJECT_ID", "id"), "status": Filter("STATUS", "label"), **_IMPORTED},
    TASKS.name: {
        "assignee_id": Filter("ASSIGNEE_ID", "id"), "status": Filter("STATUS", "label"),
        "priority": Filter("PRIORITY", "label"), "sprint_id": Filter("SPRINT_ID", "id"),
        "project_id": Filter("PROJECT_ID", "id"), "due_before": Filter("EXPECTED_END_DATE", "before"),
        "due_after": Filter("EXPECTED_END_DATE", "after"), **_IMPORTED,
    },
    COMMENTS.name: {"task_id": Filter("TASK_ID", "id"), "author_id": Filter("AUTHOR_ID", "id"), **_IMPORTED},
    DOCUMENTS.name: {"project_id": Filter("PROJECT_ID", "id"), "owner_employee_id": Filter("OWNER_EMPLOYEE_ID", "id"),
                     "doc_type": Filter("DOC_TYPE", "label")},
}


def conditions(entity: EntitySpec, filters: Mapping[str, Any]) -> list[Condition]:
    """The engine conditions of the given filter values (None: not filtered)."""
    known = FILTERS[entity.name]
    unknown = set(filters) - set(known)
    if unknown:
        raise ValueError(f"{entity.name} cannot be filtered by {', '.join(sorted(unknown))}")
    out = []
    for name, value in filters.items():
        if value is None:
            continue
        spec = known[name]
        if spec.kind == "id":
            out.append(Condition(name, spec.column, "null") if value == "none"
                       else Condition(name, spec.column, "eq", _check_id(entity, value)))
        elif spec.kind in ("before", "after"):
            if not isinstance(value, dt.date) or isinstance(value, dt.datetime):
                raise ValueError(f"{name} must be a date (YYYY-MM-DD), got {value!r}")
            if spec.kind == "after" and value == dt.date.max:
                raise ValueError(f"{name} must be before {dt.date.max.isoformat()}: no day comes after it")
            # "After D" is "on D + 1 or later": a DATE written with a time of day on D stays out.
            out.append(Condition(name, spec.column, "lt", value) if spec.kind == "before"
                       else Condition(name, spec.column, "ge", value + dt.timedelta(days=1)))
        else:
            out.append(Condition(name, spec.column, "eq_ci" if spec.kind == "label" else "eq", str(value)))
    return out


def list_records(engine: Engine, entity: EntitySpec, filters: Mapping[str, Any] | None = None, limit: int = 100,
                 cursor: str | None = None) -> Listing[dict[str, Any]]:
    """One page of the rows matching every filter, by id, and the cursor of the next page (keyset:
    stable while rows are inserted). CursorError (a ValueError) for a cursor of another list or filters."""
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE}, got {limit}")
    filters = dict(filters or {})
    where = conditions(entity, filters)
    kind = f"records:{entity.name}"
    after = None if cursor is None else paging.decode(cursor, kind, filters, _id_key)
    page = engine.list_records(entity, where, after, limit)
    return paging.listing(page, kind, filters, lambda row: row[entity.pk.lower()])


def iter_records(engine: Engine, entity: EntitySpec, page: int = MAX_PAGE):
    """Every row of the entity, page by page (the demo seeder uses it to stay idempotent)."""
    after = None
    while True:
        rows = engine.list_records(entity, [], after, page).items
        yield from rows
        if len(rows) < page:
            return
        after = rows[-1][entity.pk.lower()]


def update_record(engine: Engine, entity: EntitySpec, row_id: int, values: Mapping[str, Any]) -> dict[str, Any]:
    """Partial update: only the given fields change. An empty update returns the row unchanged."""
    _check_id(entity, row_id)
    columns = _to_columns(entity, values)
    if columns.keys() & _DATE_RANGE and _DATE_RANGE <= set(entity.columns):
        # A PATCH of one end of the range is checked against the other end as stored.
        current = get_record(engine, entity, row_id)
        _check_date_range({**{c: current[c.lower()] for c in _DATE_RANGE}, **columns})
    if entity is TASKS and columns and columns.get("UPDATED_AT") is None:
        columns["UPDATED_AT"] = _now()
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
    for name in entity.time_columns:
        if name in columns:
            columns[name] = _time(entity, name, columns[name])
    return columns


def _time(entity: EntitySpec, name: str, value: Any) -> dt.datetime | None:
    """A time column's value as naive UTC: an ISO string or a datetime (one with an offset is converted)."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{entity.name}.{name.lower()} must be an ISO date-time, got {value!r}") from None
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    if value is not None and not isinstance(value, dt.datetime):
        raise ValueError(f"{entity.name}.{name.lower()} must be a date-time, got {value!r}")
    return value


_DATE_RANGE = {"START_DATE", "END_DATE"}


def _check_date_range(columns: Mapping[str, Any]) -> None:
    start, end = columns.get("START_DATE"), columns.get("END_DATE")
    if isinstance(start, dt.date) and isinstance(end, dt.date) and end < start:
        raise InvalidRecordError(f"end_date is before start_date ({end.isoformat()} < {start.isoformat()})")


def _id_key(key: object) -> int:
    """A records cursor's key: the last row's id."""
    if not is_id(key):
        raise ValueError(f"not a row id: {key!r}")
    return key  # type: ignore[return-value]


def _check_id(entity: EntitySpec, row_id: int) -> int:
    if not is_id(row_id):
        raise ValueError(f"{entity.name} id must be a positive integer, got {row_id!r}")
    return row_id


def _missing(entity: EntitySpec, row_id: int) -> str:
    return f"{entity.name[:-1]} {row_id} not found"
