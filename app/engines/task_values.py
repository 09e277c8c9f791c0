"""A task's multi-valued fields (labels, components, fix versions, affects versions), the same on both engines.

One truth: the list a writer gives. The engines write it twice in one transaction, from the same normalised
tuple: one TASK_VALUES row per value (what a query filters and groups on) and the TASKS column as display text
(", "-joined, what the chunk shows). They read the lists back from TASK_VALUES. Nothing else writes either.
A value is kept whole (never split on spaces or commas), trimmed, 1..200 characters without control characters;
duplicates collapse; the order is fixed (case-insensitive, then exact), so a list given in another order is the
same list and a second import of the same issue writes nothing. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.entities import MULTI_VALUED, TASKS, EntitySpec

MAX_VALUE_CHARS = 200  # TASK_VALUES.VALUE: CHECK length <= 200 (SQLite), VARCHAR2(200 CHAR) (Oracle)
MAX_VALUES = 200  # values of one field of one task
FIELD_COLUMN = {field: column for column, field in MULTI_VALUED.items()}


def normalise(values: Any, column: str) -> tuple[str, ...]:
    """The stored form of a list of values; ValueError names the column and the offending value. A str is refused:
    a list is the only way to write these fields (a string could not say whether "a, b" is one value or two)."""
    name = column.lower()
    if values is None:
        return ()
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise ValueError(f"{name} must be a list of values, got {type(values).__name__}")
    out: dict[str, None] = {}
    for value in values:
        if not isinstance(value, str):
            raise ValueError(f"{name}: every value is a string, got {value!r}")
        text = value.strip()
        if not text:
            continue
        if len(text) > MAX_VALUE_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise ValueError(f"{name}: a value is 1..{MAX_VALUE_CHARS} characters without control characters, "
                             f"got {value[:40]!r}")
        out[text] = None
    if len(out) > MAX_VALUES:
        raise ValueError(f"{name}: at most {MAX_VALUES} values, got {len(out)}")
    return ordered(out)


def ordered(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(values), key=lambda v: (v.casefold(), v)))


def display(values: Sequence[str]) -> str | None:
    """The TASKS column: the values as the chunk shows them ("backend, refunds"), NULL when there are none."""
    return ", ".join(values) if values else None


@dataclass(frozen=True)
class TaskWrite:
    """A task write split in two: the TASKS columns (the multi-valued ones as display text) and, for each
    multi-valued column given, its field and the values it must hold exactly."""

    columns: dict[str, Any]
    values: dict[str, tuple[str, ...]]  # TASK_VALUES.FIELD -> values


def split_write(entity: EntitySpec, values: Mapping[str, Any]) -> TaskWrite:
    """``values`` (column -> value) of a create or update; only TASKS has multi-valued columns."""
    if entity is not TASKS:
        return TaskWrite(dict(values), {})
    columns, fields = dict(values), {}
    for column, field in MULTI_VALUED.items():
        if column in columns:
            fields[field] = normalise(columns[column], column)
            columns[column] = display(fields[field])
    return TaskWrite(columns, fields)


@dataclass(frozen=True)
class ValueChanges:
    deletes: tuple[tuple[str, str], ...]  # (field, value) rows to delete
    inserts: tuple[tuple[str, str], ...]

    def __bool__(self) -> bool:
        return bool(self.deletes or self.inserts)


def changes(stored: Iterable[tuple[str, str]], wanted: Mapping[str, Sequence[str]]) -> ValueChanges:
    """What makes a task's stored (field, value) rows equal ``wanted`` for the fields it names (others untouched)."""
    have = {(f, v) for f, v in stored if f in wanted}
    want = {(f, v) for f, values in wanted.items() for v in values}
    return ValueChanges(tuple(sorted(have - want)), tuple(sorted(want - have)))


def attach(rows: Sequence[dict[str, Any]], stored: Iterable[tuple[int, str, str]], pk: str = "task_id") -> None:
    """Put each row's lists (from its TASK_VALUES rows: task id, field, value) in place of the display text, in
    the stored order; a task without values of a field gets []."""
    by_task: dict[int, dict[str, list[str]]] = {}
    for task_id, field, value in stored:
        by_task.setdefault(int(task_id), {}).setdefault(field, []).append(value)
    for row in rows:
        mine = by_task.get(int(row[pk]), {})
        for column, field in MULTI_VALUED.items():
            row[column.lower()] = list(ordered(mine.get(field, ())))


def split_display(text: str | None) -> tuple[str, ...]:
    """The values of display text written before TASK_VALUES existed (", "-joined by app/sources), for the one-time
    backfill of an engine whose migration could not do it in SQL (Oracle V18): the same split as SQLite V13."""
    parts = (part.strip() for part in (text or "").split(", "))
    return ordered(p for p in parts if 0 < len(p) <= MAX_VALUE_CHARS)
